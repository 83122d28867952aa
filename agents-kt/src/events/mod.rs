//! What a run reports: [`AgentEvent`]s on a session's stream, and [`PipelineEvent`]s to everyone
//! observing the agent.

mod constructors;
mod point;

pub use point::{DecisionStage, InterceptionPoint};

use serde_json::Value;

use crate::chain::ChainDecision;
use crate::{AgentError, BudgetLimit, DecisionKind, ToolCall, Usage};

/// Which run an event belongs to.
///
/// ```
/// let ids = agents_kt::RunIds::new("weather/run-1", "weather/session-1");
/// assert!(ids.run_id.ends_with("run-1"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RunIds {
    /// Unique per `run` or `session` call of an agent.
    pub run_id: String,
    /// The session the run belongs to (a `run` call is a session of its own).
    pub session_id: String,
    /// The hash of the permission manifest of the tree the run belongs to (the agent a caller
    /// ran: a sub-agent's run carries its root's), so every event says under which
    /// permissions it happened; `None` for ids built by hand.
    pub manifest: Option<std::sync::Arc<str>>,
}

impl RunIds {
    /// The ids of one run, and of the session it belongs to.
    ///
    /// ```
    /// let ids = agents_kt::RunIds::new("r1", "s1");
    /// assert_eq!(ids.session_id, "s1");
    /// ```
    pub fn new(run_id: impl Into<String>, session_id: impl Into<String>) -> Self {
        RunIds {
            run_id: run_id.into(),
            session_id: session_id.into(),
            manifest: None,
        }
    }

    /// These ids, under the permission manifest whose hash is `manifest`.
    ///
    /// ```
    /// let ids = agents_kt::RunIds::new("r1", "s1").with_manifest("ab12");
    /// assert_eq!(ids.manifest.as_deref(), Some("ab12"));
    /// ```
    pub fn with_manifest(mut self, manifest: impl Into<std::sync::Arc<str>>) -> Self {
        self.manifest = Some(manifest.into());
        self
    }
}

/// One non-`Proceed` decision of an interceptor (or `Deny` of a gate), as
/// `on_interceptor_decision` observers and [`PipelineEvent::InterceptorDecision`] see it.
///
/// ```
/// use agents_kt::{DecisionKind, InterceptionPoint, InterceptorDecision, chain::ChainDecision};
/// let taken = ChainDecision::new(0, DecisionKind::Deny)
///     .with_name("no_system_paths")
///     .with_reason("system paths are off-limits");
/// let d = InterceptorDecision::new(InterceptionPoint::ToolCall, "writeFile", taken);
/// assert!(d.effective);
/// assert_eq!(d.name, "no_system_paths");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InterceptorDecision {
    /// Where the interceptor sits.
    pub point: InterceptionPoint,
    /// What it was deciding about: the skill or tool name, or `turn <n>`.
    pub target: String,
    /// Its position among its stage's interceptors (registration order), from 0.
    pub index: usize,
    /// Its name: the function's (macro interceptors and plain `fn`s), the type's (a hand-written
    /// `impl Interceptor`), the one given with `.named(..)`, else `#<index>`.
    pub name: String,
    /// Interceptor or gate.
    pub stage: DecisionStage,
    /// What it decided.
    pub decision: DecisionKind,
    /// The reason, for a `Deny`.
    pub reason: Option<String>,
    /// Whether this was its stage's effective decision (the first non-`Proceed`). A gate's
    /// effective `Deny` overrides an effective interceptor `ProceedWith`.
    pub effective: bool,
    /// The ancestor agent whose gate (or opted-in interceptor) decided, and its depth, when it
    /// judged a descendant's call; `None` for the agent's own.
    pub owner: Option<crate::chain::GateOwner>,
}

impl InterceptorDecision {
    /// A decision a chain took (`taken`) at `point`, about `target` (the skill or tool name, or
    /// `turn <n>`).
    ///
    /// ```
    /// use agents_kt::{DecisionKind, InterceptionPoint, InterceptorDecision, chain::ChainDecision};
    /// let d = InterceptorDecision::new(InterceptionPoint::Turn, "turn 1", ChainDecision::new(0, DecisionKind::Deny));
    /// assert_eq!(d.target, "turn 1");
    /// ```
    pub fn new(point: InterceptionPoint, target: impl Into<String>, taken: ChainDecision) -> Self {
        let ChainDecision {
            index,
            name,
            stage,
            decision,
            reason,
            effective,
            owner,
        } = taken;
        InterceptorDecision {
            point,
            target: target.into(),
            index,
            name,
            stage,
            decision,
            reason,
            effective,
            owner,
        }
    }
}

/// What a session reports while it runs, in order. `OUT` is the agent's output type.
///
/// ```
/// use agents_kt::AgentEvent;
/// let e: AgentEvent<String> = AgentEvent::token("Hel");
/// assert!(matches!(e, AgentEvent::Token { .. }));
/// ```
///
/// The enum and its variants are `#[non_exhaustive]`: a `match` needs a `_` arm and `..` in
/// each variant's pattern, and a test builds events with the constructors
/// ([`AgentEvent::token`], …), so a variant or a field added later breaks no consumer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AgentEvent<OUT> {
    /// A skill begins.
    #[non_exhaustive]
    SkillStarted {
        /// The skill's name.
        skill: String,
    },
    /// A skill finished with an output.
    #[non_exhaustive]
    SkillCompleted {
        /// The skill's name.
        skill: String,
    },
    /// A model turn begins (numbered from 1).
    #[non_exhaustive]
    TurnStarted {
        /// The turn's number.
        turn: u32,
    },
    /// A piece of the model's text, as streamed.
    #[non_exhaustive]
    Token {
        /// The text.
        text: String,
    },
    /// A model turn ended with this answer.
    #[non_exhaustive]
    TurnCompleted {
        /// The turn's number.
        turn: u32,
        /// The answer's text.
        content: String,
        /// The tool calls it asked for.
        tool_calls: Vec<ToolCall>,
    },
    /// A tool is about to run (or a substitute to stand in), with the arguments it will see.
    #[non_exhaustive]
    ToolCallStarted {
        /// The call's id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// The effective arguments (after any `ProceedWith`).
        args: Value,
    },
    /// A running tool reported progress through [`crate::ToolContext::emit`].
    #[non_exhaustive]
    ToolCallProgress {
        /// The call's id.
        call_id: String,
        /// What it reported.
        progress: Value,
    },
    /// A tool call ended; every call the model asks for ends with exactly one of these.
    #[non_exhaustive]
    ToolCallFinished {
        /// The call's id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// The effective arguments, or what the model sent when they were rejected.
        args: Value,
        /// The tool's (or the substitute's) result, or the error text sent to the model.
        result: Value,
        /// Whether the call was rejected, denied or failed.
        is_error: bool,
    },
    /// Something happened in a sub-agent this run started (a tool that runs an agent, or a
    /// handoff): the sub-agent's own event, its output as JSON, tagged with which run it came
    /// from. A sub-agent's sub-agent's events arrive nested twice.
    #[non_exhaustive]
    SubAgent {
        /// The sub-agent's name.
        agent: String,
        /// The sub-agent's run.
        ids: RunIds,
        /// The id of this run's tool call that started it.
        call_id: String,
        /// What happened there.
        event: Box<AgentEvent<Value>>,
    },
    /// The run finished with this output.
    #[non_exhaustive]
    Completed {
        /// The output.
        output: OUT,
    },
    /// The run failed.
    #[non_exhaustive]
    Failed {
        /// Why.
        error: AgentError,
    },
}

impl<OUT: serde::Serialize> AgentEvent<OUT> {
    /// The event with its output as JSON: how a sub-agent's events reach a parent of another
    /// output type. An output that does not serialize becomes its error text.
    pub(crate) fn into_json(self) -> AgentEvent<Value> {
        use AgentEvent as E;
        match self {
            E::SkillStarted { skill } => E::SkillStarted { skill },
            E::SkillCompleted { skill } => E::SkillCompleted { skill },
            E::TurnStarted { turn } => E::TurnStarted { turn },
            E::Token { text } => E::Token { text },
            E::TurnCompleted {
                turn,
                content,
                tool_calls,
            } => E::TurnCompleted {
                turn,
                content,
                tool_calls,
            },
            E::ToolCallStarted {
                call_id,
                tool,
                args,
            } => E::ToolCallStarted {
                call_id,
                tool,
                args,
            },
            E::ToolCallProgress { call_id, progress } => E::ToolCallProgress { call_id, progress },
            E::ToolCallFinished {
                call_id,
                tool,
                args,
                result,
                is_error,
            } => E::ToolCallFinished {
                call_id,
                tool,
                args,
                result,
                is_error,
            },
            E::SubAgent {
                agent,
                ids,
                call_id,
                event,
            } => E::SubAgent {
                agent,
                ids,
                call_id,
                event,
            },
            E::Completed { output } => E::Completed {
                output: serde_json::to_value(&output).unwrap_or_else(|error| {
                    Value::String(format!("<output not serializable: {error}>"))
                }),
            },
            E::Failed { error } => E::Failed { error },
        }
    }
}

/// What an agent reports to [`crate::Agent::observe`] streams: every run's milestones, decisions
/// and tool calls, each tagged with the run's [`RunIds`].
///
/// ```
/// use agents_kt::{PipelineEvent, RunIds};
/// let ids = RunIds::new("a/run-1", "a/run-1");
/// let e = PipelineEvent::run_completed(ids.clone());
/// assert_eq!(e.ids(), &ids);
/// ```
///
/// The enum and its variants are `#[non_exhaustive]`: a `match` needs a `_` arm and `..` in
/// each variant's pattern, and a test builds events with the constructors
/// ([`PipelineEvent::run_completed`], …), so a variant or a field added later breaks no observer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PipelineEvent {
    /// A run began.
    #[non_exhaustive]
    RunStarted {
        /// The run.
        ids: RunIds,
        /// The agent's name.
        agent: String,
    },
    /// A skill was chosen (after `on_before_skill` accepted or rerouted).
    #[non_exhaustive]
    SkillChosen {
        /// The run.
        ids: RunIds,
        /// The skill's name.
        skill: String,
    },
    /// An interceptor took a non-`Proceed` decision, or a gate denied.
    #[non_exhaustive]
    InterceptorDecision {
        /// The run.
        ids: RunIds,
        /// The decision.
        decision: InterceptorDecision,
    },
    /// A model turn began.
    #[non_exhaustive]
    TurnStarted {
        /// The run.
        ids: RunIds,
        /// The turn's number, from 1.
        turn: u32,
    },
    /// A model turn answered.
    #[non_exhaustive]
    TurnCompleted {
        /// The run.
        ids: RunIds,
        /// The turn's number.
        turn: u32,
        /// The tool calls the answer asked for, as the model wrote them.
        tool_calls: Vec<ToolCall>,
        /// Token counts, when reported.
        usage: Option<Usage>,
    },
    /// A tool ran (or was substituted) and produced a result.
    #[non_exhaustive]
    ToolUsed {
        /// The run.
        ids: RunIds,
        /// The call's id.
        call_id: String,
        /// The tool.
        tool: String,
        /// The effective arguments.
        args: Value,
        /// The result.
        result: Value,
        /// Whether an interceptor's `Substitute` stood in for the tool.
        substituted: bool,
    },
    /// An interceptor denied a tool call; the tool did not run.
    #[non_exhaustive]
    ToolDenied {
        /// The run.
        ids: RunIds,
        /// The call's id.
        call_id: String,
        /// The tool.
        tool: String,
        /// The arguments as the model (or MCP client) sent them, unknown fields kept.
        args: Value,
        /// The reason.
        reason: String,
    },
    /// An after-tool interceptor (or gate) withheld a tool's result; the model was told it was
    /// withheld, not what it was.
    #[non_exhaustive]
    ToolResultWithheld {
        /// The run.
        ids: RunIds,
        /// The call's id.
        call_id: String,
        /// The tool.
        tool: String,
        /// The arguments it ran with.
        args: Value,
        /// The reason.
        reason: String,
    },
    /// A tool body failed (returned an error, panicked or timed out).
    #[non_exhaustive]
    ToolFailed {
        /// The run.
        ids: RunIds,
        /// The call's id.
        call_id: String,
        /// The tool.
        tool: String,
        /// The arguments.
        args: Value,
        /// The failure.
        error: String,
    },
    /// A tool call was rejected before any interceptor saw it (unknown tool, invalid or oversized
    /// arguments).
    #[non_exhaustive]
    ToolRejected {
        /// The run.
        ids: RunIds,
        /// The call's id.
        call_id: String,
        /// The tool name the model used.
        tool: String,
        /// Why.
        reason: String,
    },
    /// A budget threshold was crossed.
    #[non_exhaustive]
    BudgetThreshold {
        /// The run.
        ids: RunIds,
        /// Which limit.
        limit: BudgetLimit,
        /// The threshold crossed, as a fraction of the limit.
        fraction: f64,
    },
    /// A run finished with an output.
    #[non_exhaustive]
    RunCompleted {
        /// The run.
        ids: RunIds,
    },
    /// A run failed.
    #[non_exhaustive]
    RunFailed {
        /// The run.
        ids: RunIds,
        /// Why.
        error: AgentError,
    },
    /// This `observe()` stream fell behind by more than
    /// [`OBSERVE_BUFFER`](crate::OBSERVE_BUFFER) events: `missed` events (of any runs) were
    /// dropped for it before this one. Its [`ids`](PipelineEvent::ids) are empty.
    #[non_exhaustive]
    Lagged {
        /// How many events this stream did not receive.
        missed: u64,
    },
}

impl PipelineEvent {
    /// The run this event belongs to.
    pub fn ids(&self) -> &RunIds {
        match self {
            PipelineEvent::RunStarted { ids, .. }
            | PipelineEvent::SkillChosen { ids, .. }
            | PipelineEvent::InterceptorDecision { ids, .. }
            | PipelineEvent::TurnStarted { ids, .. }
            | PipelineEvent::TurnCompleted { ids, .. }
            | PipelineEvent::ToolUsed { ids, .. }
            | PipelineEvent::ToolDenied { ids, .. }
            | PipelineEvent::ToolResultWithheld { ids, .. }
            | PipelineEvent::ToolFailed { ids, .. }
            | PipelineEvent::ToolRejected { ids, .. }
            | PipelineEvent::BudgetThreshold { ids, .. }
            | PipelineEvent::RunCompleted { ids }
            | PipelineEvent::RunFailed { ids, .. } => ids,
            PipelineEvent::Lagged { .. } => {
                static NONE: std::sync::OnceLock<RunIds> = std::sync::OnceLock::new();
                NONE.get_or_init(RunIds::default)
            }
        }
    }
}
