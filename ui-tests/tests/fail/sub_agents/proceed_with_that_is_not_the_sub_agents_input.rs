//! A typed interceptor on a sub-agent tool: its ProceedWith must be the sub-agent's input, so a
//! String for an agent whose input is `Question` is rejected at compile time.

use agents_kt::prelude::*;

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Question {
    pub topic: String,
}

agents_kt::agent_tool! {
    /// Finds sources for a question.
    pub struct Research("research"): Question => String;
}

#[before_tool_call(Research)]
fn shout(question: &Question) -> Decision<String, String> {
    Decision::ProceedWith(question.topic.to_uppercase())
}

fn main() {}
