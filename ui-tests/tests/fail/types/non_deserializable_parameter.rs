use agents_kt::prelude::*;

pub struct Point {
    pub x: f64,
}

/// Distance from the origin.
#[tool]
fn distance(point: Point) -> f64 {
    point.x.abs()
}

fn main() {}
