//! An `#[agent]` tool whose parameter type lacks derives: one error at the type, and nothing
//! inside the generated code; calling the block's `agent_builder` adds none (it registers the
//! tool when it is one, and needs no bound that would repeat the error at the call).
use agents_kt::prelude::*;

pub struct Point {
    pub x: f64,
}

pub struct Desk;

#[agent]
impl Desk {
    /// Distance from the origin.
    #[tool]
    fn distance(&self, point: Point) -> f64 {
        point.x.abs()
    }
}

fn main() {
    let _ = Desk.agent_builder("desk");
}
