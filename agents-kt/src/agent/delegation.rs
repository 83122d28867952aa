//! What [`AgentBuilder::sub_agent`](crate::AgentBuilder::sub_agent) and
//! [`AgentBuilder::handoff`](crate::AgentBuilder::handoff) take: an agent here (an
//! [`AgentTool`], an [`Agent`]) or one in another process (an `A2aTool`, an `A2aAgent`, feature
//! `a2a`), each registered as one tool under its run-time name — the same guard for both.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::sub_agent::{AgentArgs, AgentTool};
use super::{Agent, AgentInput, AgentOutput};
use crate::tool::register::{self, PendingTool};
use crate::{Message, Tool, ToolContext, ToolError};

/// What a tool registered under a run-time name runs: an agent here ([`AgentTool`]) or in
/// another process (`A2aTool`).
pub(crate) trait DelegateTarget: Send + Sync + 'static {
    type In: AgentInput + DeserializeOwned + JsonSchema + Clone + Sync;
    type Out: AgentOutput + Serialize + Sync;
    /// Whether it runs a local agent (see [`Tool::RUNS_AGENT`]).
    const RUNS_AGENT: bool;

    /// The name the calling model uses.
    fn name(&self) -> &str;
    /// What the calling model is told it does.
    fn description(&self) -> &str;
    /// What the permission manifest says the tool runs; `handoff`: as a handoff's transfer.
    fn manifest(&self, handoff: bool) -> serde_json::Value;
    /// Run it on `input`, after `history` (a handoff's conversation so far), for the call `ctx`.
    fn delegate(
        &self,
        input: Self::In,
        history: Vec<Message>,
        ctx: &ToolContext,
    ) -> impl Future<Output = Result<Self::Out, ToolError>> + Send;
}

/// The tool a [`DelegateTarget`] is registered as; a handoff's transfer is one whose target
/// continues the caller's conversation.
pub(crate) struct Delegate<T> {
    pub tool: T,
    /// Whether the target reads the caller's conversation so far (a handoff).
    pub continues_conversation: bool,
}

impl<T: DelegateTarget> Tool for Delegate<T> {
    // Registered under the target's name; this one is never looked up.
    const NAME: &'static str = "<delegate>";
    const RUNS_AGENT: bool = T::RUNS_AGENT;
    type Args = AgentArgs<T::In>;
    type Output = T::Out;

    fn description(&self) -> Cow<'static, str> {
        Cow::Owned(self.tool.description().to_string())
    }

    fn manifest_source(&self) -> Option<serde_json::Value> {
        Some(self.tool.manifest(self.continues_conversation))
    }

    async fn call(&self, args: AgentArgs<T::In>, ctx: &ToolContext) -> Result<T::Out, ToolError> {
        let history = match (self.continues_conversation, ctx.parent()) {
            (true, Some(parent)) => parent.conversation(),
            _ => Vec::new(),
        };
        self.tool.delegate(args.0, history, ctx).await
    }
}

/// A tool that runs an agent, ready to be registered: its name, where it came from (for a
/// duplicate's error), and how its runtime is built. Not public API.
#[doc(hidden)]
pub struct Delegation {
    pub(crate) name: Arc<str>,
    pub(crate) source: String,
    pub(crate) pending: PendingTool,
}

impl Delegation {
    /// `target` registered under its name; `handoff`: as a handoff's transfer.
    pub(crate) fn new<T: DelegateTarget>(target: T, source: String, handoff: bool) -> Self {
        let name: Arc<str> = Arc::from(target.name());
        let tool = Delegate {
            tool: target,
            continues_conversation: handoff,
        };
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

/// A local agent as the target of a tool registered under a run-time name (a sub-agent, a
/// handoff): it runs as a linked child run, its steps journaled inside the parent's.
impl<IN, OUT> DelegateTarget for AgentTool<IN, OUT>
where
    IN: AgentInput + DeserializeOwned + JsonSchema + Clone + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    type In = IN;
    type Out = OUT;
    const RUNS_AGENT: bool = true;

    fn name(&self) -> &str {
        self.name()
    }

    fn description(&self) -> &str {
        AgentTool::description(self)
    }

    fn manifest(&self, handoff: bool) -> serde_json::Value {
        self.manifest_of_target(handoff)
    }

    async fn delegate(
        &self,
        input: IN,
        history: Vec<Message>,
        ctx: &ToolContext,
    ) -> Result<OUT, ToolError> {
        self.agent()?
            .run_nested(input, self.name(), history, ctx)
            .await
    }
}

impl<IN, OUT> SubAgentTool for AgentTool<IN, OUT>
where
    IN: AgentInput + serde::de::DeserializeOwned + schemars::JsonSchema + Clone + Sync,
    OUT: AgentOutput + serde::Serialize + Sync,
{
    fn delegation(self) -> Delegation {
        let source = format!("the sub-agent `{}`", self.name());
        Delegation::new(self, source, false)
    }
}

impl<IN, OUT> HandoffTarget<OUT> for Agent<IN, OUT>
where
    IN: AgentInput + serde::de::DeserializeOwned + schemars::JsonSchema + Clone + Sync,
    OUT: AgentOutput + serde::Serialize + Sync,
{
    fn delegation(self) -> Delegation {
        let source = format!("the handoff to agent `{}`", self.name());
        Delegation::new(super::handoff::transfer_to(self), source, true)
    }
}
