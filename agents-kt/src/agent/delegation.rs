//! What [`AgentBuilder::sub_agent`](crate::AgentBuilder::sub_agent) and
//! [`AgentBuilder::handoff`](crate::AgentBuilder::handoff) take: an agent here (an
//! [`AgentTool`], an [`Agent`]) or one in another process (an `A2aTool`, an `A2aAgent`, feature
//! `a2a`), each registered as one tool under its run-time name — the same guard for both.

use std::sync::Arc;

use super::sub_agent::{AgentTool, Delegate};
use super::{Agent, AgentInput, AgentOutput};
use crate::Tool;
use crate::tool::register::{self, PendingTool};

/// A tool that runs an agent, ready to be registered: its name, where it came from (for a
/// duplicate's error), and how its runtime is built. Not public API.
#[doc(hidden)]
pub struct Delegation {
    pub(crate) name: Arc<str>,
    pub(crate) source: String,
    pub(crate) pending: PendingTool,
}

impl Delegation {
    pub(crate) fn new<T: Tool>(name: Arc<str>, source: String, tool: T) -> Self {
        Delegation {
            pending: register::runtime_tool(Arc::clone(&name), tool),
            name,
            source,
        }
    }
}

/// An agent offered as a tool, for [`AgentBuilder::sub_agent`](crate::AgentBuilder::sub_agent):
/// an [`AgentTool`] ([`Agent::as_tool`]) or, with feature `a2a`, an `A2aTool`
/// (`A2aAgent::as_tool`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an agent offered as a tool",
    label = "pass `agent.as_tool(name, description)`"
)]
pub trait SubAgentTool {
    /// The tool, ready to register.
    #[doc(hidden)]
    fn delegation(self) -> Delegation;
}

/// An agent the conversation can be handed over to, for
/// [`AgentBuilder::handoff`](crate::AgentBuilder::handoff): an [`Agent`] or, with feature
/// `a2a`, an `A2aAgent` — either with the handing agent's output type `OUT`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an agent this agent can hand over to",
    label = "pass an `Agent<_, OUT>` (or an `A2aAgent<_, OUT>`) with this agent's output type"
)]
pub trait HandoffTarget<OUT> {
    /// The `transfer_to_<name>` tool, ready to register.
    #[doc(hidden)]
    fn delegation(self) -> Delegation;
}

impl<IN, OUT> SubAgentTool for AgentTool<IN, OUT>
where
    IN: AgentInput + serde::de::DeserializeOwned + schemars::JsonSchema + Clone + Sync,
    OUT: AgentOutput + serde::Serialize + Sync,
{
    fn delegation(self) -> Delegation {
        let source = format!("the sub-agent `{}`", self.name());
        let name: Arc<str> = Arc::from(self.name());
        let tool = Delegate {
            tool: self,
            continues_conversation: false,
        };
        Delegation::new(name, source, tool)
    }
}

impl<IN, OUT> HandoffTarget<OUT> for Agent<IN, OUT>
where
    IN: AgentInput + serde::de::DeserializeOwned + schemars::JsonSchema + Clone + Sync,
    OUT: AgentOutput + serde::Serialize + Sync,
{
    fn delegation(self) -> Delegation {
        let source = format!("the handoff to agent `{}`", self.name());
        let tool = super::handoff::transfer_to(self);
        let name: Arc<str> = Arc::from(tool.tool.name());
        Delegation::new(name, source, tool)
    }
}
