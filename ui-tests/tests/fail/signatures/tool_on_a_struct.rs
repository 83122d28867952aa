use agents_kt::prelude::*;

/// Not a function.
#[tool]
pub struct Weather {
    pub celsius: i32,
}

fn main() {}
