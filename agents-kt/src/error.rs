//! Why a run or a build failed.

use crate::{BudgetLimit, InterceptionPoint, ModelError};

/// Why a run failed. Every variant's text says what happened and, where it helps, what to do.
///
/// Built by the runtime; `match` it with a `_` arm and `..` in each struct-like variant (the
/// enum and those variants are `#[non_exhaustive]`: a variant or field added later breaks no
/// match written that way).
///
/// ```
/// use agents_kt::AgentError;
/// fn explain(error: &AgentError) -> String {
///     match error {
///         AgentError::InterceptorDenied { reason, .. } => format!("refused: {reason}"),
///         AgentError::BudgetExceeded { limit, .. } => format!("over budget: {limit}"),
///         other => other.to_string(),
///     }
/// }
/// let aborted = AgentError::Aborted("the caller went away".into());
/// assert_eq!(explain(&aborted), "agent run aborted: the caller went away");
/// ```
#[derive(Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// A skill or turn interceptor (or gate) denied (a tool-call denial is not an error: the
    /// model is told and may recover).
    #[error("{}", InterceptionPoint::denial(*point, target, reason))]
    #[non_exhaustive]
    InterceptorDenied {
        /// Where.
        point: InterceptionPoint,
        /// The skill's name, or `turn <n>`.
        target: String,
        /// The interceptor's reason.
        reason: String,
    },
    /// A budget limit was exceeded; the run ended.
    #[error("budget exceeded: {limit} ({detail})")]
    #[non_exhaustive]
    BudgetExceeded {
        /// Which limit.
        limit: BudgetLimit,
        /// The numbers involved.
        detail: String,
    },
    /// A skill name (from the selector or an `on_before_skill` reroute) names no skill.
    #[error("unknown skill '{name}': this agent's skills are {available}")]
    #[non_exhaustive]
    UnknownSkill {
        /// The name asked for.
        name: String,
        /// The agent's skills, comma-separated.
        available: String,
    },
    /// The model call failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The model's final answer did not parse into the agent's output type (after
    /// [`crate::Budget::max_output_repairs`] attempts to have it repaired).
    #[error("the model's final answer is not a valid `{expected}`: {reason}; raw answer: {raw:?}")]
    #[non_exhaustive]
    Output {
        /// The output type's name.
        expected: String,
        /// The answer as received.
        raw: String,
        /// Why it did not parse.
        reason: String,
    },
    /// A code skill's tool call was denied by an interceptor.
    #[error("Tool '{tool}' denied by policy: {reason}")]
    #[non_exhaustive]
    ToolDenied {
        /// The tool.
        tool: String,
        /// The interceptor's reason.
        reason: String,
    },
    /// A code skill's tool call failed.
    #[error("Tool '{tool}' failed: {error}")]
    #[non_exhaustive]
    ToolFailed {
        /// The tool.
        tool: String,
        /// The failure.
        error: String,
    },
    /// A code skill called a tool this agent does not have.
    #[error("unknown tool '{tool}': register it on the agent with `.tool(..)`")]
    #[non_exhaustive]
    UnknownTool {
        /// The tool's name.
        tool: String,
    },
    /// A code skill failed.
    #[error("skill '{skill}' failed: {message}")]
    #[non_exhaustive]
    Skill {
        /// The skill.
        skill: String,
        /// Its error text.
        message: String,
    },
    /// Seen only inside a code skill: an `on_before_turn` interceptor substituted the run's
    /// output, so [`crate::SkillContext::chat`] did not call the model. Return it with `?`; the
    /// substitute becomes the output either way.
    #[error("the turn was substituted by an interceptor; its result is the run's output")]
    TurnSubstituted,
    /// Something panicked that the run cannot go on without — a code skill, the model client (or
    /// its stream), the skill selector, a tool output's serialization. The panic never reaches
    /// the caller: `run` returns this, a session ends with `AgentEvent::Failed` carrying it.
    #[error("the agent run panicked while {during}: {message}")]
    #[non_exhaustive]
    Panicked {
        /// What was running: `running skill 'x'`, `calling the model`, ….
        during: String,
        /// The panic's message (or what its payload was, when it was not text).
        message: String,
    },
    /// The run stopped for a reason outside the model, tools and skills (its session was
    /// dropped, say).
    #[error("agent run aborted: {0}")]
    Aborted(String),
    /// A journaled run's journal could not give a step's result: it diverged from this code, or
    /// the journal failed.
    #[error(transparent)]
    Journal(#[from] crate::JournalError),
    /// The conversation the run continues could not be read or written (another writer moved
    /// it on, a stored message is unreadable, the store failed).
    #[error(transparent)]
    Memory(crate::StoreError),
    /// The model chose no skill the agent has, even when asked once more.
    #[error("the model chose no skill of this agent: {reason} (skills: {available})")]
    #[non_exhaustive]
    SkillChoice {
        /// What the model answered, and why it does not fit.
        reason: String,
        /// The skills it could choose.
        available: String,
    },
}

impl AgentError {
    /// A short, fixed name of the kind of failure: a trace's `error.type`, a metric's attribute.
    pub(crate) fn class(&self) -> &'static str {
        match self {
            AgentError::InterceptorDenied { .. } => "denied",
            AgentError::BudgetExceeded { .. } => "budget_exceeded",
            AgentError::UnknownSkill { .. } => "unknown_skill",
            AgentError::Model(_) => "model_error",
            AgentError::Output { .. } => "invalid_output",
            AgentError::ToolDenied { .. } => "tool_denied",
            AgentError::ToolFailed { .. } => "tool_failed",
            AgentError::UnknownTool { .. } => "unknown_tool",
            AgentError::Skill { .. } => "skill_failed",
            AgentError::TurnSubstituted => "turn_substituted",
            AgentError::Panicked { .. } => "panicked",
            AgentError::Aborted(_) => "aborted",
            AgentError::Journal(_) => "journal",
            AgentError::Memory(_) => "memory",
            AgentError::SkillChoice { .. } => "skill_choice",
        }
    }
}

/// Why [`crate::AgentBuilder::build`] refused a configuration.
///
/// Built by [`crate::AgentBuilder::build`]; `match` it with a `_` arm and `..` (the enum and
/// its struct-like variants are `#[non_exhaustive]`).
///
/// ```
/// use agents_kt::{Agent, BuildError};
/// let error = Agent::<String, String>::builder("a").build().err();
/// assert!(matches!(&error, Some(BuildError::NoModel { skill, .. }) if skill == "default"));
/// ```
#[derive(Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Two tools share a name.
    #[error(
        "two tools are named '{name}': {first} and {second}; tool names must be unique within an agent (give an MCP toolset a `.prefix(..)`)"
    )]
    #[non_exhaustive]
    DuplicateTool {
        /// The name.
        name: String,
        /// Where the first tool of that name came from.
        first: String,
        /// Where the second came from.
        second: String,
    },
    /// Two skills share a name.
    #[error("two skills are named '{name}': skill names must be unique within an agent")]
    #[non_exhaustive]
    DuplicateSkill {
        /// The name.
        name: String,
    },
    /// Several skills and no way to choose between them.
    #[error("the agent has several skills ({skills}) but no selector: add `.skill_selector(..)`")]
    #[non_exhaustive]
    NoSelector {
        /// The skills, comma-separated.
        skills: String,
    },
    /// An agent that declares grants holds a tool it does not grant: with any grant, an agent may
    /// call only the tools granted.
    #[error(
        "tool '{tool}' can be called by {skill} of agent '{agent}', but the agent grants only: {granted}; grant it (`.grant(Grant::allow::<T>())`, or `Grant::allow_named(\"{tool}\")`) or leave it out"
    )]
    #[non_exhaustive]
    ToolNotGranted {
        /// The agent.
        agent: String,
        /// The skill that can call it (`skill 'name'`, or `a code skill`).
        skill: String,
        /// The tool.
        tool: String,
        /// The tools granted, comma-separated.
        granted: String,
    },
    /// A skill's allow-list names a tool the agent does not have.
    #[error(
        "skill '{skill}' allows tool '{tool}', which is not registered: add `.tool(..)` for it"
    )]
    #[non_exhaustive]
    UnknownAllowedTool {
        /// The skill.
        skill: String,
        /// The tool.
        tool: String,
    },
    /// A typed tool interceptor names a tool the agent does not have.
    #[error(
        "an interceptor is registered for tool '{tool}', which is not registered: add `.tool(..)` for it"
    )]
    #[non_exhaustive]
    InterceptorForUnknownTool {
        /// The tool.
        tool: String,
    },
    /// A remote tool was bound to Rust types under one name and registered under another (a
    /// `.prefix(..)` given after `.bind::<..>()`).
    #[error(
        "`{binding}` binds the remote tool as '{bound}', but it is registered as '{registered}': prefix the toolset before binding, and bind the prefixed name"
    )]
    #[non_exhaustive]
    BoundToolRenamed {
        /// The binding's type.
        binding: String,
        /// The name it binds.
        bound: String,
        /// The name the tool is registered under.
        registered: String,
    },
    /// A typed interceptor was written for another tool type that happens to share the name.
    #[error(
        "the interceptor for tool '{tool}' was written for a different tool type with the same name"
    )]
    #[non_exhaustive]
    InterceptorToolMismatch {
        /// The tool.
        tool: String,
    },
    /// A tool's arguments are not a JSON object.
    #[error(
        "the arguments of tool '{tool}' are not a JSON object (schema type {found}): use a struct with named fields"
    )]
    #[non_exhaustive]
    ArgsNotObject {
        /// The tool.
        tool: String,
        /// The schema's type.
        found: String,
    },
    /// An agentic skill needs a model and none was given.
    #[error("skill '{skill}' calls the model, but the agent has none: add `.model(..)`")]
    #[non_exhaustive]
    NoModel {
        /// The skill.
        skill: String,
    },
    /// A skill name (to expose, say) names no skill of the agent.
    #[error("the agent has no skill named '{name}'")]
    #[non_exhaustive]
    UnknownSkill {
        /// The name.
        name: String,
    },
    /// A budget threshold fraction outside (0, 1].
    #[error("budget threshold {fraction} is not in (0, 1]")]
    #[non_exhaustive]
    InvalidThreshold {
        /// The fraction given.
        fraction: f64,
    },
    /// `.named(..)` was called before any interceptor or gate was registered.
    #[error(
        "`.named(\"{name}\")` names the interceptor or gate registered just before it, and there is none"
    )]
    #[non_exhaustive]
    NothingToName {
        /// The name given.
        name: String,
    },
    /// Several problems, every one of them.
    #[error("{} problems: {}", .0.len(), .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Several(Vec<BuildError>),
}

impl BuildError {
    /// `None` for no errors, the error itself for one, [`BuildError::Several`] for more.
    pub(crate) fn all(mut errors: Vec<BuildError>) -> Option<BuildError> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(BuildError::Several(errors)),
        }
    }
}

crate::error_debug::readable_debug!(AgentError, BuildError);
