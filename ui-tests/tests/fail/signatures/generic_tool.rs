use agents_kt::prelude::*;

/// Echoes anything.
#[tool]
fn echo<T: serde::Serialize>(value: String) -> String {
    value
}

fn main() {}
