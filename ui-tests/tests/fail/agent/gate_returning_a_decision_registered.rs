//! A free-fn gate returning a `Decision`, registered: one error, at the gate, not a second at
//! `.gate_tool_call(..)`.
use agents_kt::prelude::*;

/// Distance from the origin.
#[tool]
fn distance(x: f64) -> f64 {
    x.abs()
}

#[gate(distance)]
fn any_point(_: &DistanceArgs) -> Decision<DistanceArgs, f64> {
    Decision::Proceed
}

fn main() {
    let _ = Agent::<String, String>::builder("geometry")
        .model(ScriptedModel::default())
        .tool(Distance)
        .gate_tool_call(any_point)
        .build();
}
