//! A remote A2A agent as a tool of a local agent: typed with [`a2a_tool!`](crate::a2a_tool),
//! or under a run-time name with [`A2aAgent::as_tool`] and as a handoff target. Either way the
//! call is an ordinary tool call of the local agent — its chains, gates, approvals, budget and
//! journal (the remote's answer is recorded as the call's result, so a replay does not send the
//! task again) — and only a call they let through reaches the remote.

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::A2aAgent;
use crate::agent::{DelegateTarget, Delegation};
use crate::tool::ToolTarget;
use crate::{AgentInput, AgentOutput, ToolContext, ToolError};

/// A remote agent offered to a local agent's model as a tool: what [`A2aAgent::as_tool`]
/// returns, registered with [`AgentBuilder::sub_agent`](crate::AgentBuilder::sub_agent) (typed
/// interceptors: declare it with [`a2a_tool!`](crate::a2a_tool) instead). The model sends the
/// remote's input as the tool's arguments (a `String` input as `{"input": …}`) and reads its
/// output as the result.
pub struct A2aTool<IN, OUT> {
    agent: A2aAgent<IN, OUT>,
    name: String,
    description: String,
}

impl<IN, OUT> Clone for A2aTool<IN, OUT> {
    fn clone(&self) -> Self {
        A2aTool {
            agent: self.agent.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
        }
    }
}

impl<IN, OUT> std::fmt::Debug for A2aTool<IN, OUT> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2aTool")
            .field("name", &self.name)
            .field("agent", &self.agent)
            .finish_non_exhaustive()
    }
}

impl<IN, OUT> A2aTool<IN, OUT> {
    pub(super) fn new(agent: A2aAgent<IN, OUT>, name: String, description: String) -> Self {
        A2aTool {
            agent,
            name,
            description,
        }
    }

    /// A typed tool's: described by its doc comment, else by the remote's card.
    #[doc(hidden)]
    pub fn declared(agent: A2aAgent<IN, OUT>, name: &str, doc: &str) -> Self {
        let doc = doc.lines().map(str::trim).collect::<Vec<_>>().join("\n");
        let description = match doc.trim() {
            "" => agent.description().to_string(),
            doc => doc.to_string(),
        };
        A2aTool::new(agent, name.to_string(), description)
    }

    /// The name the calling model uses.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the calling model is told the tool does.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// What the permission manifest says the tool calls.
    fn manifest(&self, handoff: bool) -> serde_json::Value {
        serde_json::json!({
            "a2a_agent": { "name": self.agent.name(), "url": self.agent.url() },
            "handoff": handoff,
        })
    }
}

impl<IN, OUT> A2aTool<IN, OUT>
where
    IN: Serialize + JsonSchema,
    OUT: DeserializeOwned + JsonSchema,
{
    async fn call(
        &self,
        input: &IN,
        tool: &str,
        conversation: &[crate::Message],
        ctx: &ToolContext,
    ) -> Result<OUT, ToolError> {
        self.agent
            .call_from(input, tool, conversation, ctx)
            .await
            .map_err(|error| {
                ToolError::new(format!("remote agent '{}': {error}", self.agent.name()))
            })
    }
}

/// A tool declared with [`a2a_tool!`](crate::a2a_tool) calls its remote agent.
impl<IN, OUT> ToolTarget<IN, OUT> for A2aTool<IN, OUT>
where
    IN: Serialize + JsonSchema + Send + Sync,
    OUT: DeserializeOwned + JsonSchema,
{
    fn description(&self) -> &str {
        &self.description
    }

    fn manifest_source(&self) -> Option<serde_json::Value> {
        Some(self.manifest(false))
    }

    async fn call(
        &self,
        tool: &'static str,
        input: IN,
        ctx: &ToolContext,
    ) -> Result<OUT, ToolError> {
        A2aTool::call(self, &input, tool, &[], ctx).await
    }
}

/// A remote agent as the target of a tool registered under a run-time name (`as_tool`, a
/// handoff): an ordinary tool call of the local agent, its result journaled as one step.
impl<IN, OUT> DelegateTarget for A2aTool<IN, OUT>
where
    IN: AgentInput + DeserializeOwned + JsonSchema + Clone + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    type In = IN;
    type Out = OUT;
    const RUNS_AGENT: bool = false;

    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn manifest(&self, handoff: bool) -> serde_json::Value {
        A2aTool::manifest(self, handoff)
    }

    async fn delegate(
        &self,
        input: IN,
        history: Vec<crate::Message>,
        ctx: &ToolContext,
    ) -> Result<OUT, ToolError> {
        self.call(&input, &self.name, &history, ctx).await
    }
}

impl<IN, OUT> crate::agent::SubAgentTool for A2aTool<IN, OUT>
where
    IN: AgentInput + DeserializeOwned + JsonSchema + Clone + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    fn delegation(self) -> Delegation {
        let source = format!(
            "the A2A agent `{}` (tool `{}`)",
            self.agent.name(),
            self.name
        );
        Delegation::new(self, source, false)
    }
}

impl<IN, OUT> crate::agent::HandoffTarget<OUT> for A2aAgent<IN, OUT>
where
    IN: AgentInput + DeserializeOwned + JsonSchema + Clone + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    fn delegation(self) -> Delegation {
        let name = crate::agent::transfer_name(self.name());
        let description = format!(
            "Hand the conversation over to the remote agent '{}', which answers the user from here on. Call it when that agent is the one to help.",
            self.name()
        );
        let source = format!("the handoff to A2A agent `{}`", self.name());
        Delegation::new(A2aTool::new(self, name, description), source, true)
    }
}

/// Declare a tool that calls a remote A2A agent, typed by its input and output: a type
/// implementing [`Tool`](crate::Tool) with `Args` = the input and `Output` = the output, so typed
/// interceptors (`#[before_tool_call(Name)]`, `#[gate(Name)]`, `#[after_tool_call(Name)]`)
/// guard the call with the compiler checking that a `ProceedWith` is an input and a
/// `Substitute` an output — and a call they deny or substitute sends nothing. The doc comment
/// is the tool's description for the model (none: the remote card's); the string is its name.
/// Build it with `Name::new(remote)` from an [`A2aAgent`] and register it with
/// [`AgentBuilder::tool`](crate::AgentBuilder::tool). The input must be a type of yours whose
/// JSON is an object (a model's arguments are one).
///
/// ```
/// use agents_kt::prelude::*;
///
/// #[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
/// pub struct Ticket { pub text: String }
/// #[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
/// pub struct Verdict { pub queue: String }
///
/// agents_kt::a2a_tool! {
///     /// Sends a ticket to the triage team's agent.
///     pub struct Triage("triage"): Ticket => Verdict;
/// }
///
/// /// Typed: a `Substitute` must be a `Verdict`; an empty ticket never leaves the process.
/// #[before_tool_call(Triage)]
/// fn no_empty_tickets(ticket: &Ticket) -> Decision<Ticket, Verdict> {
///     match ticket.text.trim().is_empty() {
///         true => Decision::Substitute(Verdict { queue: "discard".into() }),
///         false => Decision::Proceed,
///     }
/// }
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let remote = agents_kt::A2aAgent::<Ticket, Verdict>::connect("http://127.0.0.1:8040").await?;
/// let desk = Agent::<String, String>::builder("desk")
///     .model(ScriptedModel::new([Reply::text("done")]))
///     .tool(Triage::new(remote))
///     .before_tool_call(no_empty_tickets)
///     .build()?;
/// # let _ = desk; Ok(()) }
/// ```
#[macro_export]
macro_rules! a2a_tool {
    (
        $(#[doc = $doc:expr])*
        $vis:vis struct $name:ident($registered:literal): $args:ty => $output:ty;
    ) => {
        $(#[doc = $doc])*
        $vis struct $name($crate::A2aTool<$args, $output>);

        impl $name {
            /// The tool over `remote`.
            $vis fn new(remote: $crate::A2aAgent<$args, $output>) -> Self {
                let doc: &str = ::core::concat!("" $(, $doc, "\n")*);
                $name($crate::A2aTool::declared(remote, $registered, doc))
            }
        }

        $crate::__forwarding_tool!($name, $registered, $args, $output, runs_agent: false);
    };
}
