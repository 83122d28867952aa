//! What a running tool knows about the call it serves.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::budget::BudgetTracker;
use crate::{AgentError, AgentEvent, Extensions, Message, RunIds, ToolError};

/// Receives the events of a tool call on the session path.
pub(crate) trait ToolEvents: Send + Sync {
    /// The tool is about to run (or a substitute to stand in) with these arguments.
    fn started(&self, call_id: &str, tool: &str, args: Value);
    /// The running tool reported progress.
    fn progress(&self, call_id: &str, progress: Value);
}

/// The handle a tool receives with each call: who is calling, and a way to report progress into
/// the session's event stream.
///
/// ```
/// use agents_kt::ToolContext;
/// let ctx = ToolContext::detached("call-7");
/// assert_eq!(ctx.call_id(), "call-7");
/// ctx.emit(serde_json::json!({"percent": 50})); // nobody listens: dropped
/// ```
#[derive(Clone)]
pub struct ToolContext {
    call_id: String,
    // Shared with the run: a context per call costs no copies of the run's ids.
    session_id: Arc<str>,
    run_id: Arc<str>,
    events: Option<Arc<dyn ToolEvents>>,
    /// The run that made the call, so a sub-agent's run can inherit from it (its principal,
    /// extensions, budget, depth and event stream); `None` when detached.
    parent: Option<Arc<dyn ParentRun>>,
    /// In a journaled run, the journal and the step this call's effects are recorded under —
    /// set only for a tool that runs an agent, whose own steps are recorded inside it.
    journal_scope: Option<(Arc<crate::journal::RunJournal>, String)>,
}

impl ToolContext {
    pub(crate) fn new(
        call_id: String,
        session_id: Arc<str>,
        run_id: Arc<str>,
        events: Option<Arc<dyn ToolEvents>>,
    ) -> Self {
        ToolContext {
            call_id,
            session_id,
            run_id,
            events,
            parent: None,
            journal_scope: None,
        }
    }

    /// This context, naming the run that made the call.
    pub(crate) fn with_parent(mut self, parent: Arc<dyn ParentRun>) -> Self {
        self.parent = Some(parent);
        self
    }

    /// This context, with the journal step a sub-agent's steps are recorded inside.
    pub(crate) fn with_journal_scope(
        mut self,
        journal: Arc<crate::journal::RunJournal>,
        step: String,
    ) -> Self {
        self.journal_scope = Some((journal, step));
        self
    }

    /// The run that made the call, if an agent run did.
    pub(crate) fn parent(&self) -> Option<&Arc<dyn ParentRun>> {
        self.parent.as_ref()
    }

    /// The journal and step a sub-agent's steps go inside, in a journaled run.
    pub(crate) fn journal_scope(&self) -> Option<&(Arc<crate::journal::RunJournal>, String)> {
        self.journal_scope.as_ref()
    }

    /// A context outside any agent run, for calling a tool directly (tests, scripts).
    pub fn detached(call_id: impl Into<String>) -> Self {
        ToolContext::new(call_id.into(), Arc::from(""), Arc::from(""), None)
    }

    /// A key naming this call's effect, the same every time the call is replayed: the run id and
    /// the call id. A tool that changes an external system passes it along (as an
    /// `Idempotency-Key` header, a unique column) so that a call retried after a crash — before
    /// its result was journaled — does not act twice.
    ///
    /// ```
    /// use agents_kt::ToolContext;
    /// assert_eq!(ToolContext::detached("call-7").idempotency_key(), "/call-7");
    /// ```
    pub fn idempotency_key(&self) -> String {
        format!("{}/{}", self.run_id, self.call_id)
    }

    /// The id of this tool call (the model's id on the agent loop).
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The id of the session (or run) the call belongs to; empty when detached.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The id of the run the call belongs to; empty when detached.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Report progress: on the session path it becomes an
    /// [`AgentEvent::ToolCallProgress`](crate::AgentEvent::ToolCallProgress); elsewhere it is
    /// dropped. A value that does not serialize is reported as its error text.
    pub fn emit(&self, progress: impl Serialize) {
        if let Some(events) = &self.events {
            events.progress(&self.call_id, to_json(progress));
        }
    }

    /// Run `agent` on `input` as a sub-agent of the run that made this call: linked to it as
    /// [`AgentBuilder::sub_agent`](crate::AgentBuilder::sub_agent) describes — one level deeper
    /// (stopped past `max_agent_depth`), spending from the same budget, judged by every gate of
    /// every agent above it, its events and spans nested under this call. This is the way for a
    /// tool to run an agent: an `agent.run(..)` inside a tool body starts a run linked to
    /// nothing (no depth limit, no shared budget, no inherited gates), and is logged as a
    /// warning naming both agents. `agent` is an [`Agent`](crate::Agent) or an
    /// [`AgentRef`](crate::AgentRef) (an agent that runs itself). A failure of the child is
    /// this call's failure, worded for the caller's model; outside any run (a detached
    /// context) the agent simply runs.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use agents_kt::{Agent, Reply, ScriptedModel, Tool, ToolContext, ToolError};
    /// # #[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
    /// # pub struct AskArgs { pub question: String }
    /// /// Asks the expert; the expert's run is linked to the caller's.
    /// struct AskExpert(Agent<String, String>);
    ///
    /// impl Tool for AskExpert {
    ///     const NAME: &'static str = "ask_expert";
    ///     type Args = AskArgs;
    ///     type Output = String;
    ///     fn description(&self) -> Cow<'static, str> { "Asks the expert.".into() }
    ///     async fn call(&self, args: AskArgs, ctx: &ToolContext) -> Result<String, ToolError> {
    ///         ctx.run_agent(&self.0, args.question).await
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let expert = Agent::<String, String>::builder("expert")
    ///     .model(ScriptedModel::new([Reply::text("42")]))
    ///     .build()
    ///     .unwrap();
    /// let answer = ToolContext::detached("call-1").run_agent(&expert, "why?".into()).await;
    /// assert_eq!(answer.unwrap(), "42");
    /// # }
    /// ```
    pub async fn run_agent<IN, OUT>(
        &self,
        agent: &impl LinkedAgent<IN, OUT>,
        input: IN,
    ) -> Result<OUT, ToolError> {
        agent.run_linked(input, self).await
    }

    /// Report that `tool` is about to run with `args` (already JSON: a call with events is a
    /// reported call).
    #[inline]
    pub(crate) fn started(&self, tool: &str, args: &Value) {
        if let Some(events) = &self.events {
            events.started(&self.call_id, tool, args.clone());
        }
    }
}

/// Progress as JSON for an event; a value that does not serialize is reported by its error.
fn to_json(value: impl Serialize) -> Value {
    serde_json::to_value(value)
        .unwrap_or_else(|error| Value::String(format!("<progress not serializable: {error}>")))
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("session_id", &self.session_id)
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

/// An agent a tool can run as a linked sub-agent with [`ToolContext::run_agent`]:
/// [`Agent`](crate::Agent) and [`AgentRef`](crate::AgentRef).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an agent a tool can run",
    label = "pass an `Agent<IN, OUT>` or an `AgentRef<IN, OUT>` (by reference)"
)]
pub trait LinkedAgent<IN, OUT>: Send + Sync {
    /// The agent's name (an unbound handle's: `<unbound>`).
    #[doc(hidden)]
    fn agent_name(&self) -> String;

    /// Run as the sub-agent of the run that made the call `ctx` describes.
    #[doc(hidden)]
    fn run_linked<'a>(
        &'a self,
        input: IN,
        ctx: &'a ToolContext,
    ) -> futures::future::BoxFuture<'a, Result<OUT, ToolError>>;
}

/// A run seen from a sub-agent it started, whatever its output type.
pub(crate) trait ParentRun: Send + Sync {
    /// The parent's agent name.
    fn agent(&self) -> &str;
    /// The parent's ids.
    fn ids(&self) -> &RunIds;
    /// How deep the parent is: 0 for a run a caller started.
    fn depth(&self) -> u32;
    /// Whose links a child of the parent inherits: the parent's own, then everything the parent
    /// inherited — nearest first.
    fn ancestors(&self) -> Vec<super::inherited::Ancestor>;
    /// The deepest a sub-agent below the parent may be (the strictest limit on the way down).
    fn max_depth(&self) -> u32;
    /// The approval desk the parent's approvals go to (its own or its nearest ancestor's): a
    /// sub-agent without one asks there.
    fn approval_desk(&self) -> Option<crate::ApprovalDesk>;
    /// The tree's record of its tool calls, shared by every run of the tree.
    fn ledger(&self) -> Arc<crate::ledger::CallLedger>;
    /// What the parent's caller attached.
    fn extensions(&self) -> &Extensions;
    /// The parent's MCP principal.
    fn client(&self) -> Option<&str>;
    /// Spend from the parent's budget (and, through it, every ancestor's): a child's turns,
    /// tool calls and tokens are the parent's too.
    fn spend_shared(
        &self,
        step: &dyn Fn(&mut BudgetTracker) -> Result<(), AgentError>,
    ) -> Result<(), AgentError>;
    /// End the parent's run with `error` once the tool call that started the child returns (a
    /// budget the child exhausted is the parent's).
    fn end_with(&self, error: AgentError);
    /// Whether the parent streams events (its session path): then the child streams too.
    fn is_session(&self) -> bool;
    /// Pass one of the child's events into the parent's stream, tagged with the child.
    fn emit_nested(&self, child: &ChildOf, event: AgentEvent<Value>);
    /// The parent's conversation so far, for a handoff's receiving agent.
    fn conversation(&self) -> Vec<Message>;
}

/// Which run a sub-agent's event came from: told to a session reader in
/// [`AgentEvent::SubAgent`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChildOf {
    pub agent: String,
    pub ids: RunIds,
    pub call_id: String,
}
