//! Handoffs: the model transfers the conversation to another agent by calling
//! `transfer_to_<name>`. The transfer is a tool call through the caller's guard; the receiving
//! agent runs as a sub-agent on the conversation so far, and its output is the caller's.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::sub_agent::AgentArgs;
use super::{Agent, AgentInput, AgentOutput};
use crate::{Tool, ToolContext, ToolError};

/// The `transfer_to_<name>` tool of a handoff to `agent`.
pub(crate) struct Transfer<IN, OUT> {
    agent: Agent<IN, OUT>,
    name: &'static str,
    description: String,
}

impl<IN: AgentInput, OUT: AgentOutput> Transfer<IN, OUT> {
    pub(crate) fn to(agent: Agent<IN, OUT>) -> Self {
        let name = transfer_name(agent.name());
        // Registered once per agent build; the name lives as long as the tool may be called.
        let name: &'static str = Box::leak(name.into_boxed_str());
        let description = format!(
            "Hand the conversation over to the agent '{}', which answers the user from here on. \
             Call it when that agent is the one to help.",
            agent.name()
        );
        Transfer {
            agent,
            name,
            description,
        }
    }

    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    pub(crate) fn agent_name(&self) -> &str {
        self.agent.name()
    }
}

impl<IN, OUT> Tool for Transfer<IN, OUT>
where
    IN: AgentInput + DeserializeOwned + JsonSchema + Clone + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    // Registered under `transfer_to_<name>`; this one is never looked up.
    const NAME: &'static str = "<handoff>";
    const RUNS_AGENT: bool = true;
    type Args = AgentArgs<IN>;
    type Output = OUT;

    fn description(&self) -> Cow<'static, str> {
        Cow::Owned(self.description.clone())
    }

    async fn call(&self, args: AgentArgs<IN>, ctx: &ToolContext) -> Result<OUT, ToolError> {
        let history = ctx
            .parent()
            .map(|parent| parent.conversation())
            .unwrap_or_default();
        // The caller's loop ends with this output once the transfer's answer reaches it
        // unrefused (its output type is `OUT`: the builder's signature holds it).
        self.agent.run_nested(args.0, self.name, history, ctx).await
    }
}

/// `transfer_to_<name>`, with every character a tool name may not hold made `_`.
fn transfer_name(agent: &str) -> String {
    let name: String = agent
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("transfer_to_{name}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn transfer_names_hold_only_tool_name_characters() {
        assert_eq!(super::transfer_name("refunds"), "transfer_to_refunds");
        assert_eq!(
            super::transfer_name("billing desk/eu"),
            "transfer_to_billing_desk_eu"
        );
    }
}
