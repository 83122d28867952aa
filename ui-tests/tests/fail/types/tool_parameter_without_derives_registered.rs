//! A free `#[tool]` whose parameter type lacks derives, registered with `.tool(..)`: the error at
//! the parameter, and the same sentence again at the registration (the tool is not a `Tool`
//! without a parameter type), naming a public trait, never `__private`.
use agents_kt::prelude::*;

pub struct Point {
    pub x: f64,
}

/// Distance from the origin.
#[tool]
fn distance(point: Point) -> f64 {
    point.x.abs()
}

fn main() {
    let _ = Agent::<String, String>::builder("desk").tool(Distance);
}
