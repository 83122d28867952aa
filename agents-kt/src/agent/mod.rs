//! The agent: skills over a model and tools, every step guarded by interceptor chains.

mod agent_ref;
mod build;
mod builder;
mod builder_policy;
mod choose_skill;
mod conversation;
mod delegation;
pub(crate) mod dispatch;
mod earlier_calls;
mod handoff;
pub(crate) mod in_span;
pub(crate) mod lineage;
mod manifest;
mod model_timer;
mod output;
mod pass;
pub(crate) mod report;
pub(crate) mod run;
mod run_ids;
#[cfg(feature = "a2a")]
pub(crate) mod served;
mod session;
mod skill;
mod skill_context;
pub(crate) mod step;
mod sub_agent;
mod sub_agent_input;
mod tokio_required;
mod tool_names;
pub(crate) mod trace;
mod transcript;
mod unlinked;

pub use agent_ref::AgentRef;
pub use builder::AgentBuilder;
#[cfg(feature = "a2a-client")]
pub(crate) use delegation::DelegateTarget;
#[doc(hidden)]
pub use delegation::Delegation;
pub use delegation::{HandoffTarget, SubAgentTool};
#[cfg(feature = "a2a-client")]
pub(crate) use handoff::transfer_name;
pub use manifest::Manifest;
pub use session::{AgentSession, EventStream};
pub(crate) use skill::SkillKind;
pub use skill::{IntoSkill, Skill, SkillError, ToolSet};
pub use skill_context::SkillContext;
pub use sub_agent::AgentTool;
#[doc(hidden)]
pub use sub_agent::{AgentArgs, agent_tool_of};
pub use sub_agent_input::SubAgentInput;

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures::FutureExt;
use in_span::in_span;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::budget::duration_exceeded;
use crate::chain::{Link, panic_message};
use crate::observers::{Observers, PipelineHub};
#[cfg(feature = "mcp")]
use crate::tool::inherited::Ancestor;
use crate::tool::inherited::TreeLinks;
use crate::tool::runtime::ErasedTool;
use crate::{
    AgentError, Budget, Extensions, InterceptionPoint, Message, ModelClient, PipelineEvent, RunIds,
};
use output::OutputFormat;
use run::{Caller, Run};
#[cfg(feature = "mcp")]
use step::Passed;
use step::Step;

/// What an agent's input must be: serializable (an agentic skill shows it to the model, as text
/// for a `String`, as JSON otherwise) and movable to the run's task.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an agent's input",
    note = "derive `serde::Serialize` for it; it must also be `Send + 'static`"
)]
pub trait AgentInput: Serialize + Send + 'static {}
#[diagnostic::do_not_recommend]
impl<T: Serialize + Send + 'static> AgentInput for T {}

/// What an agent's output must be: parsed from the model's answer (a `String` takes the text; any
/// other type is JSON whose schema is sent as the response format), and cloneable so a session
/// can both stream and return it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an agent's output",
    label = "the model's answer is parsed into the agent's output type, and its schema is the response format",
    note = "derive `serde::Deserialize`, `schemars::JsonSchema` and `Clone` for it; it must also be `Send + 'static`"
)]
pub trait AgentOutput: DeserializeOwned + JsonSchema + Clone + Send + 'static {}
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Clone + Send + 'static> AgentOutput for T {}

/// What every run of an agent shares: the model, the tools with their chains, the turn chain, the
/// observers, the budget.
pub(crate) struct Core<OUT> {
    name: String,
    model: Option<Arc<dyn ModelClient>>,
    /// The model's provider and name, for traces and metrics (read once, at build).
    model_info: Option<crate::ModelInfo>,
    /// Whether spans carry messages, arguments and results.
    capture_content: bool,
    /// Whether a panicking interceptor's text is kept from the model (see the builder).
    hide_interceptor_panics: bool,
    #[cfg(feature = "otel")]
    metrics: crate::telemetry::GenAiMetrics,
    system_prompt: Option<String>,
    tools: Vec<Arc<dyn ErasedTool>>,
    tools_by_name: tool_names::ToolNames,
    /// The interceptors and gates of the skill and turn points.
    links: PointLinks<OUT>,
    /// The dynamic tool interceptors and gates alone, for an MCP call of an exposed skill (which
    /// the seed puts behind the tool chain too).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    any_tool_chain: Vec<Link<Value, Value>>,
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    any_tool_gates: Vec<Link<Value, Value>>,
    observers: Observers,
    hub: PipelineHub,
    budget: Budget,
    /// How many tool calls of one turn may run at once.
    tool_concurrency: usize,
    output: OutputFormat,
    runs: AtomicU64,
    calls: AtomicU64,
    /// Where approvals go in runs without a journal.
    approval_desk: Option<crate::ApprovalDesk>,
    /// How long a run waits for another run's lease on the conversation it continues.
    conversation_wait: std::time::Duration,
    /// The tools that hand the conversation over to another agent.
    handoffs: Vec<Arc<str>>,
    /// The links every agent this one runs inherits: its gates (and its tool interceptors, when
    /// it opted in).
    tree_links: Arc<TreeLinks>,
    /// What the tree under this agent may do, hashed once at build.
    manifest: Manifest,
}

impl<OUT> Core<OUT> {
    pub(crate) fn tool(&self, name: &str) -> Option<&Arc<dyn ErasedTool>> {
        self.tools_by_name
            .get(name)
            .map(|index| &self.tools[*index])
    }

    /// Where tool `name` is among the agent's tools.
    pub(crate) fn tool_index(&self, name: &str) -> Option<usize> {
        self.tools_by_name.get(name).copied()
    }

    /// An id for a tool call that did not come from the model (a code skill's).
    pub(crate) fn next_call_id(&self) -> String {
        format!(
            "{}/call-{}",
            self.name,
            self.calls.fetch_add(1, Ordering::Relaxed) + 1
        )
    }
}

/// How an MCP call of an exposed skill went, short of a failed run.
#[cfg(feature = "mcp")]
pub(crate) enum SkillCall<OUT> {
    /// The skill ran and produced this.
    Output(OUT),
    /// The tool chain denied or substituted the call: this is the answer.
    Answered(step::Answer),
    /// The arguments are not the skill's input.
    InvalidInput(String),
}

/// Chooses the skill for an input when an agent has several.
type Selector<IN> = Arc<dyn Fn(&IN) -> String + Send + Sync>;

struct AgentInner<IN, OUT> {
    core: Arc<Core<OUT>>,
    skills: Vec<Skill<IN, OUT>>,
    selector: Option<Selector<IN>>,
    /// Whether the model chooses the skill (when no selector does).
    model_chooses: bool,
}

/// The interceptors and gates of every point an agent guards besides its tools' (those live with
/// each tool's runtime), in registration order: what the builder collects and the agent holds.
/// A new interception point adds its two lists here.
pub(crate) struct PointLinks<OUT> {
    skill_chain: Vec<Link<String, OUT>>,
    skill_gates: Vec<Link<String, OUT>>,
    turn_chain: Vec<Link<Vec<Message>, OUT>>,
    turn_gates: Vec<Link<Vec<Message>, OUT>>,
}

impl<OUT> Default for PointLinks<OUT> {
    fn default() -> Self {
        PointLinks {
            skill_chain: Vec::new(),
            skill_gates: Vec::new(),
            turn_chain: Vec::new(),
            turn_gates: Vec::new(),
        }
    }
}

/// A typed agent: `IN` goes in, `OUT` comes out, and every skill, model turn and tool call on the
/// way can be inspected, rewritten, denied or short-circuited by interceptors.
///
/// Cloning an `Agent` is cheap and shares everything.
///
/// ```
/// use agents_kt::{Agent, Decision, Reply, ScriptedModel};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let model = ScriptedModel::new([Reply::text("Bonjour !")]);
/// let agent = Agent::<String, String>::builder("greeter")
///     .model(model.clone())
///     .system_prompt("Greet the user in French.")
///     .on_before_turn(|messages: &[agents_kt::Message]| {
///         if messages.iter().any(|m| m.content.contains("ignore previous")) {
///             Decision::deny("possible prompt injection")
///         } else {
///             Decision::Proceed
///         }
///     })
///     .build()?;
/// assert_eq!(agent.run("Hello".to_string()).await?, "Bonjour !");
/// assert_eq!(model.requests()[0].messages[0].content, "Greet the user in French.");
/// # Ok(()) }
/// ```
pub struct Agent<IN, OUT> {
    inner: Arc<AgentInner<IN, OUT>>,
}

impl<IN, OUT> Clone for Agent<IN, OUT> {
    fn clone(&self) -> Self {
        Agent {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<IN, OUT> fmt::Debug for Agent<IN, OUT> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let core = &self.inner.core;
        f.debug_struct("Agent")
            .field("name", &core.name)
            .field("skills", &self.inner.skills)
            .field(
                "tools",
                &core.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            )
            .field("budget", &core.budget)
            .finish_non_exhaustive()
    }
}

impl<IN: AgentInput, OUT: AgentOutput> Agent<IN, OUT> {
    /// The agent's name.
    pub fn name(&self) -> &str {
        &self.inner.core.name
    }

    /// The permission manifest of the tree under this agent — this agent, the agents it runs,
    /// theirs — as stable JSON with a SHA-256 [`hash`](Manifest::hash). Built once, when the
    /// agent was built: this is a clone of two `Arc`s. Its hash is stamped on every run's ids
    /// ([`RunIds::manifest`](crate::RunIds::manifest), so on every event), on the
    /// `invoke_agent` span (`agents_kt.manifest.hash`), on journal entries and in approval
    /// fingerprints: an approval given under another manifest is stale, and refused.
    ///
    /// ```
    /// use agents_kt::{Agent, Grant, Reply, ScriptedModel};
    /// let researcher = Agent::<String, String>::builder("researcher")
    ///     .model(ScriptedModel::new([Reply::text("sources")]))
    ///     .build()
    ///     .unwrap();
    /// let planner = Agent::<String, String>::builder("planner")
    ///     .model(ScriptedModel::new([Reply::text("plan")]))
    ///     .sub_agent(researcher.as_tool("research", "Finds sources."))
    ///     .grant(Grant::allow_named("research"))
    ///     .build()
    ///     .unwrap();
    /// let manifest = planner.manifest();
    /// assert_eq!(manifest.json()["tools"][0]["runs"]["agent"]["agent"], "researcher");
    /// assert_eq!(manifest.json()["grants"][0]["tool"], "research");
    /// ```
    pub fn manifest(&self) -> Manifest {
        self.inner.core.manifest.clone()
    }

    /// Run the agent on `input` (the chat path: the model is called whole through `chat`).
    /// Never panics into the caller: a panic inside the run ends it with
    /// [`AgentError::Panicked`].
    pub async fn run(&self, input: IN) -> Result<OUT, AgentError> {
        self.run_with(input, Extensions::new()).await
    }

    /// [`Agent::run`], with `extensions` for this run's interceptors and gates to read (the end
    /// user, a tenant, an approval channel) through [`crate::InterceptContext::extensions`].
    pub async fn run_with(&self, input: IN, extensions: Extensions) -> Result<OUT, AgentError> {
        let caller = Caller {
            extensions,
            ..Caller::default()
        };
        self.run_as(input, caller, None, self.next_ids("run")).await
    }

    /// [`Agent::run_with`], journaled: every model turn, tool execution and approval wait goes
    /// through `journal` under a stable step name, so running again with a journal holding the
    /// recorded steps replays them — the model is not called again, no tool's effect happens
    /// twice, no approver is asked twice — while interceptors and gates run again (a changed
    /// policy applies). The run's ids are the journal's [`run_id`](crate::Journal::run_id), and
    /// a tool's [`ToolContext::idempotency_key`](crate::ToolContext::idempotency_key) is stable
    /// across replays. Tool calls of one turn run one at a time (their steps must be recorded
    /// in a deterministic order). A replay whose steps differ from the journal's ends with
    /// [`AgentError::Journal`].
    pub async fn run_journaled(
        &self,
        input: IN,
        extensions: Extensions,
        journal: Arc<dyn crate::Journal>,
    ) -> Result<OUT, AgentError> {
        let (ids, caller) = self.journaled_caller(extensions, journal);
        self.run_as(input, caller, None, ids).await
    }

    /// [`Agent::session_with`], journaled as [`Agent::run_journaled`] describes: the session's
    /// events are re-derived on a replay — each tool call's `ToolCallStarted` and
    /// `ToolCallFinished` (from the recorded result: the tool does not run again), each turn's
    /// text as one `Token` (a journaled turn's reply is recorded whole, live or replayed, so it
    /// is not streamed token by token), the output — while the model is not called again and no
    /// approver is asked twice. A session that waits for an approval and whose process dies
    /// resumes from its journal: run it again with the recorded steps, and it waits for that
    /// same approval.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use agents_kt::{Agent, AgentEvent, Extensions, MemoryJournal, Reply, ScriptedModel};
    /// use futures::StreamExt;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let agent = |model| Agent::<String, String>::builder("echo").model(model).build();
    /// let journal = Arc::new(MemoryJournal::new("run-1"));
    /// let first = agent(ScriptedModel::new([Reply::text("hello")]))?
    ///     .session_journaled("hi".into(), Extensions::new(), journal.clone());
    /// assert_eq!(first.await?, "hello");
    /// // Replayed: the same output and events, and a model with nothing to say is not called.
    /// let replay = Arc::new(MemoryJournal::replaying("run-1", journal.entries()));
    /// let mut again = agent(ScriptedModel::new([]))?
    ///     .session_journaled("hi".into(), Extensions::new(), replay);
    /// let tokens: Vec<_> = again.events().filter_map(|event| async move {
    ///     match event { AgentEvent::Token { text, .. } => Some(text), _ => None }
    /// }).collect().await;
    /// assert_eq!(tokens, ["hello"]);
    /// assert_eq!(again.await?, "hello");
    /// # Ok(()) }
    /// ```
    pub fn session_journaled(
        &self,
        input: IN,
        extensions: Extensions,
        journal: Arc<dyn crate::Journal>,
    ) -> AgentSession<OUT> {
        let (ids, caller) = self.journaled_caller(extensions, journal);
        self.start_session(input, ids, caller)
    }

    /// A journaled run's ids (the journal's run id) and caller.
    fn journaled_caller(
        &self,
        extensions: Extensions,
        journal: Arc<dyn crate::Journal>,
    ) -> (RunIds, Caller) {
        let id = journal.run_id().to_string();
        let ids = RunIds::new(id.clone(), id);
        // Every step is an entry with its name and the manifest it ran under.
        let journal = Arc::new(crate::journal::RunJournal::new(
            journal,
            &self.inner.core.manifest.shared_hash(),
        ));
        let caller = Caller {
            extensions,
            journal: Some(journal),
            ..Caller::default()
        };
        (ids, caller)
    }

    /// Run the skill named `skill` on `input` (the chat path), skipping the selector; the skill
    /// chain still runs.
    pub async fn run_skill_named(&self, skill: &str, input: IN) -> Result<OUT, AgentError> {
        let ids = self.next_ids("run");
        self.run_as(input, Caller::default(), Some(skill.to_string()), ids)
            .await
    }

    /// A run on the chat path for `caller`.
    async fn run_as(
        &self,
        input: IN,
        caller: Caller,
        skill: Option<String>,
        ids: RunIds,
    ) -> Result<OUT, AgentError> {
        let run = Arc::new(Run::new(Arc::clone(&self.inner.core), ids, caller, None));
        self.execute(input, run, skill).await
    }

    /// Start a session on `input` (the stream path: the model is called through `chat_stream`,
    /// and [`AgentSession::events`] streams what happens). Must be called inside a Tokio runtime;
    /// dropping the session stops the run.
    pub fn session(&self, input: IN) -> AgentSession<OUT> {
        self.session_with(input, Extensions::new())
    }

    /// [`Agent::session`], with `extensions` for this run's interceptors and gates to read.
    pub fn session_with(&self, input: IN, extensions: Extensions) -> AgentSession<OUT> {
        let caller = Caller {
            extensions,
            ..Caller::default()
        };
        self.start_session(input, self.next_ids("session"), caller)
    }

    /// A session's run for `caller`, on its own task.
    fn start_session(&self, input: IN, ids: RunIds, caller: Caller) -> AgentSession<OUT> {
        tokio_required::require_tokio("Agent::session");
        let (ids, receiver, execution) = self.session_parts(input, ids, caller);
        // In the caller's span: a session started inside a trace (an A2A task's) joins it.
        let task = tokio::spawn(tracing::Instrument::in_current_span(execution));
        AgentSession::new(ids, receiver, task)
    }

    /// A session's run for `caller`, not yet started: its ids (as the run stamped them, with the
    /// manifest), its events, and the run itself for the caller to poll or spawn.
    fn session_parts(
        &self,
        input: IN,
        ids: RunIds,
        caller: Caller,
    ) -> (
        RunIds,
        futures::channel::mpsc::UnboundedReceiver<crate::AgentEvent<OUT>>,
        impl std::future::Future<Output = Result<OUT, AgentError>> + Send + 'static,
    ) {
        let (sender, receiver) = futures::channel::mpsc::unbounded();
        let run = Arc::new(Run::new(
            Arc::clone(&self.inner.core),
            ids,
            caller,
            Some(sender),
        ));
        let ids = run.ids().clone();
        // Seen here, on the caller's task: the session's own task is a fresh one.
        unlinked::warn_if_unlinked(&self.inner.core.name, run.is_linked());
        let agent = self.clone();
        (ids, receiver, async move {
            agent.execute(input, run, None).await
        })
    }

    /// A stream of every [`PipelineEvent`] of every run that starts after this call.
    pub fn observe(&self) -> EventStream<PipelineEvent> {
        EventStream::observed(self.inner.core.hub.subscribe())
    }

    /// The names of the agent's skills.
    pub fn skill_names(&self) -> Vec<&str> {
        self.inner.skills.iter().map(|skill| skill.name()).collect()
    }

    /// Each skill's name and description, for an A2A agent card.
    #[cfg(feature = "a2a")]
    pub(crate) fn skill_descriptions(&self) -> Vec<(&str, &str)> {
        let skills = self.inner.skills.iter();
        skills
            .map(|skill| (skill.name(), skill.description.as_str()))
            .collect()
    }

    /// Call tool `name` as MCP principal `client` asked: a run of its own (the client is its
    /// session), through the tool's guard, reported like any other tool call; the tool's
    /// progress goes to `progress` when the client asked for it.
    #[cfg(feature = "mcp")]
    pub(crate) async fn call_tool_for(
        &self,
        client: &str,
        name: &str,
        arguments: String,
        progress: Option<Arc<dyn crate::tool::context::ToolEvents>>,
        above: &[Ancestor],
    ) -> Result<step::Answer, AgentError> {
        let core = &self.inner.core;
        let tool = core.tool(name).ok_or_else(|| AgentError::UnknownTool {
            tool: name.to_string(),
        })?;
        let call = crate::ToolCall::new(core.next_call_id(), name, arguments);
        let run = Arc::new(Run::new(
            Arc::clone(core),
            self.mcp_ids(client),
            Caller {
                client: Some(client.to_string()),
                progress,
                above: above.to_vec(),
                ..Caller::default()
            },
            None,
        ));
        let span = trace::execute_tool(name, &call.id, Some(client));
        in_span(span, run.call_tool(tool, &call, true)).await
    }

    /// Call exposed skill `skill` as MCP principal `client` asked. The seed puts MCP calls of
    /// exposed skills behind the tool chain too: the dynamic tool interceptors and gates judge
    /// `(skill, arguments)` first — a `Deny` is answered like a denied tool call, a
    /// `Substitute` is the answer, a `ProceedWith` replaces the arguments — and then the skill
    /// runs, through the skill chain, as a run of its own.
    #[cfg(feature = "mcp")]
    pub(crate) async fn call_skill_for(
        &self,
        client: &str,
        skill: &str,
        arguments: Value,
        above: &[Ancestor],
        input: impl FnOnce(Value) -> Result<IN, String>,
    ) -> Result<SkillCall<OUT>, AgentError> {
        let call_id = self.inner.core.next_call_id();
        let span = trace::execute_tool(skill, &call_id, Some(client));
        let call = self.guarded_skill_call(client, skill, call_id, arguments, above, input);
        in_span(span, call).await
    }

    /// [`Agent::call_skill_for`] inside its `execute_tool` span.
    #[cfg(feature = "mcp")]
    async fn guarded_skill_call(
        &self,
        client: &str,
        skill: &str,
        call_id: String,
        arguments: Value,
        above: &[Ancestor],
        input: impl FnOnce(Value) -> Result<IN, String>,
    ) -> Result<SkillCall<OUT>, AgentError> {
        let core = &self.inner.core;
        let ids = self.mcp_ids(client);
        let caller = Caller {
            client: Some(client.to_string()),
            above: above.to_vec(),
            ..Caller::default()
        };
        let run = Arc::new(Run::new(Arc::clone(core), ids.clone(), caller, None));
        let ctx = run.intercept_context(Some(skill), Some((skill, &call_id)));
        let links = run.any_tool_guards();
        let passed = run
            .pass(
                InterceptionPoint::ToolCall,
                links,
                arguments.clone(),
                &ctx,
                |_| skill.to_string(),
            )
            .await;
        let arguments = match passed {
            Passed::Go { value, .. } => value,
            Passed::Denied { reason, .. } => {
                let denied = step::ToolOutcome::Denied { reason };
                let answer = run.report_tool(&call_id, skill, arguments, denied, None, true);
                return Ok(SkillCall::Answered(answer));
            }
            Passed::Substituted { result, .. } => {
                let output = crate::tool::record::JsonOutput::of_value(result);
                let used = step::ToolOutcome::Used {
                    output,
                    substituted: true,
                };
                let answer = run.report_tool(&call_id, skill, arguments, used, None, true);
                return Ok(SkillCall::Answered(answer));
            }
        };
        let input = match input(arguments) {
            Ok(input) => input,
            Err(reason) => return Ok(SkillCall::InvalidInput(reason)),
        };
        let caller = Caller {
            client: Some(client.to_string()),
            above: above.to_vec(),
            ..Caller::default()
        };
        let mut ids = ids;
        ids.run_id = format!("{}/skill", ids.run_id);
        let output = self
            .run_as(input, caller, Some(skill.to_string()), ids)
            .await?;
        Ok(SkillCall::Output(output))
    }

    /// The agent's tool named `name`, for MCP listing.
    #[cfg(feature = "mcp")]
    pub(crate) fn tool_spec(&self, name: &str) -> Option<crate::ToolSpec> {
        self.inner.core.tool(name).map(|tool| tool.spec().clone())
    }

    /// The name a registered tool is held under, for as long as the agent lives.
    #[cfg(feature = "mcp")]
    pub(crate) fn registered_tool_name(&self, name: &str) -> Option<Arc<str>> {
        self.inner
            .core
            .tool(name)
            .map(|tool| Arc::from(tool.name()))
    }

    /// Record that `client`'s call of `tool` was refused by the MCP client policy.
    #[cfg(feature = "mcp")]
    pub(crate) fn audit_refusal(&self, client: &str, tool: &str, reason: &str) {
        let ids = self.mcp_ids(client);
        self.inner.core.hub.publish(|| PipelineEvent::ToolRejected {
            ids,
            call_id: String::new(),
            tool: tool.to_string(),
            reason: reason.to_string(),
        });
    }

    /// Both paths: the run within its time budget, then the final report — once, whatever
    /// ended the run. A panic that escaped every narrower catch still never unwinds into the
    /// caller.
    async fn execute(
        &self,
        input: IN,
        run: Arc<Run<OUT>>,
        skill: Option<String>,
    ) -> Result<OUT, AgentError> {
        tokio_required::require_tokio("Agent::run");
        let core = &self.inner.core;
        let span = trace::invoke_agent(
            &core.name,
            run.ids(),
            core.model_info.as_ref(),
            run.client(),
        );
        unlinked::warn_if_unlinked(&core.name, run.is_linked());
        let body = async {
            run.report(Step::RunStarted);
            let mut unfinished = Unfinished(Some(&run));
            let body = AssertUnwindSafe(self.run_skill(input, &run, skill)).catch_unwind();
            let result = match tokio::time::timeout(core.budget.max_duration, body).await {
                Err(_) => Err(duration_exceeded(core.budget.max_duration)),
                Ok(Err(payload)) => Err(AgentError::Panicked {
                    during: "running the agent".to_string(),
                    message: panic_message(payload.as_ref()),
                }),
                Ok(Ok(result)) => result,
            };
            unfinished.0 = None;
            // The conversation is free for the next run before this one reports its end.
            if let Some(memory) = run.memory() {
                memory.release().await;
            }
            match &result {
                Ok(output) => run.report(Step::RunCompleted { output }),
                Err(error) => run.report(Step::RunFailed { error }),
            }
            run.close_events();
            result
        };
        unlinked::marked(&core.name, in_span(span, body)).await
    }

    /// Resolve the skill, guard it (skill chain, then skill gates), and run the chosen skill.
    async fn run_skill(
        &self,
        input: IN,
        run: &Arc<Run<OUT>>,
        skill: Option<String>,
    ) -> Result<OUT, AgentError> {
        let inner = &self.inner;
        let requested = match (skill, &inner.selector) {
            (Some(skill), _) => skill,
            (None, Some(select)) => {
                catch_unwind(AssertUnwindSafe(|| select(&input))).map_err(|payload| {
                    AgentError::Panicked {
                        during: "choosing a skill".to_string(),
                        message: panic_message(payload.as_ref()),
                    }
                })?
            }
            (None, None) if inner.model_chooses => {
                match self.model_choice(&input_text(&input), run).await? {
                    choose_skill::Chosen::Skill(name) => name,
                    choose_skill::Chosen::Output(output) => return Ok(output),
                }
            }
            (None, None) => inner.skills[0].name.clone(),
        };
        self.skill(&requested)?;
        let ctx = run.intercept_context(Some(&requested), None);
        let links = run.skill_guards();
        let chosen = match run
            .pass(
                InterceptionPoint::Skill,
                links,
                requested.clone(),
                &ctx,
                String::clone,
            )
            .await
            .or_fail(InterceptionPoint::Skill)?
        {
            Ok(chosen) => chosen,
            Err(output) => return Ok(output),
        };
        let skill = self.skill(&chosen)?;
        run.set_skill(&skill.name);
        run.report(Step::SkillChosen { skill: &skill.name });
        let output = async {
            match &skill.kind {
                SkillKind::Code(body) => {
                    let context = SkillContext {
                        run: Arc::clone(run),
                    };
                    let panicked = |payload: Box<dyn std::any::Any + Send>| AgentError::Panicked {
                        during: format!("running skill '{}'", skill.name),
                        message: panic_message(payload.as_ref()),
                    };
                    let body = catch_unwind(AssertUnwindSafe(|| body(input, context)))
                        .map_err(panicked)?;
                    let result = AssertUnwindSafe(body)
                        .catch_unwind()
                        .await
                        .map_err(panicked)?;
                    match run.take_substitute() {
                        Some(substitute) => Ok(substitute),
                        None => result.map_err(|error| error.into_agent_error(&skill.name)),
                    }
                }
                SkillKind::Agentic {
                    tools,
                    instructions,
                } => {
                    let text = input_text(&input);
                    run.agentic(&skill.name, tools, instructions.as_deref(), text)
                        .await
                }
            }
        }
        .await?;
        run.report(Step::SkillCompleted { skill: &skill.name });
        Ok(output)
    }

    fn skill(&self, name: &str) -> Result<&Skill<IN, OUT>, AgentError> {
        let skills = &self.inner.skills;
        skills
            .iter()
            .find(|skill| skill.name == name)
            .ok_or_else(|| AgentError::UnknownSkill {
                name: name.to_string(),
                available: skills
                    .iter()
                    .map(|skill| skill.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// A run whose future was dropped before it finished — its session dropped, or its caller no
/// longer waiting: it still ends with one `RunFailed` (`AgentError::Aborted`) for `on_error` and
/// `observe()`, so no run disappears from the audit.
struct Unfinished<'a, OUT: Clone + Send + 'static>(Option<&'a Arc<Run<OUT>>>);

impl<OUT: Clone + Send + 'static> Drop for Unfinished<'_, OUT> {
    fn drop(&mut self) {
        if let Some(run) = self.0.take() {
            let error = AgentError::Aborted(
                "the run was dropped before it finished (its session was dropped, or its caller stopped waiting)"
                    .to_string(),
            );
            run.report(Step::RunFailed { error: &error });
            run.close_events();
        }
    }
}

/// The input as the model reads it: a string as it is, anything else as JSON.
fn input_text(input: &impl Serialize) -> String {
    match serde_json::to_value(input) {
        Ok(Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(error) => format!("<input not serializable: {error}>"),
    }
}
