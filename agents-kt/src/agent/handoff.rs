//! Handoffs: the model transfers the conversation to another agent by calling
//! `transfer_to_<name>`. The transfer is a sub-agent call through the caller's guard whose agent
//! reads the conversation so far; the caller's loop ends with its output (see
//! `Run::handed_off`).

use super::sub_agent::AgentTool;
use super::{Agent, AgentInput, AgentOutput};

/// The `transfer_to_<name>` tool of a handoff to `agent`.
pub(crate) fn transfer_to<IN: AgentInput, OUT: AgentOutput>(
    agent: Agent<IN, OUT>,
) -> AgentTool<IN, OUT> {
    let description = format!(
        "Hand the conversation over to the agent '{}', which answers the user from here on. \
         Call it when that agent is the one to help.",
        agent.name()
    );
    let name = transfer_name(agent.name());
    agent.as_tool(name, description)
}

/// `transfer_to_<name>`, with every character a tool name may not hold made `_`.
pub(crate) fn transfer_name(agent: &str) -> String {
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
