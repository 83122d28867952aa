//! What a run reports: one [`Step`] per fact, and a tool call's [`ToolOutcome`]. The texts the
//! model (or an MCP client) reads about a tool call are worded here, in [`ToolOutcome::text`].
//! Plain data: the report path (`report.rs`) and tracing (`trace.rs`) both read it.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::Value;

use crate::chain::ChainDecision;
use crate::tool::record::JsonOutput;
use crate::{
    AgentError, AgentEvent, BudgetUsage, ChatRequest, ChatResponse, DecisionKind,
    InterceptionPoint, Message,
};

/// One fact of a run.
pub(crate) enum Step<'a, OUT> {
    RunStarted,
    SkillChosen {
        skill: &'a str,
    },
    SkillCompleted {
        skill: &'a str,
    },
    /// The non-`Proceed` decisions of one guarded point.
    Decisions {
        point: InterceptionPoint,
        target: &'a str,
        decisions: &'a [ChainDecision],
    },
    TurnStarted {
        turn: u32,
        /// What the model is sent (after the turn's interceptors).
        request: &'a ChatRequest,
    },
    Token {
        text: &'a str,
    },
    TurnCompleted {
        turn: u32,
        response: &'a ChatResponse,
        /// How long the model took.
        elapsed: Duration,
        /// What the turn's chain decided (recorded on the turn's span with the answer).
        decision: &'static str,
    },
    /// The model call failed (the run ends with this error).
    ModelFailed {
        error: &'a AgentError,
        elapsed: Duration,
        decision: &'static str,
    },
    BudgetThreshold {
        index: usize,
        usage: BudgetUsage,
    },
    ToolStarted {
        call_id: &'a str,
        tool: &'a str,
        args: Value,
    },
    ToolProgress {
        call_id: &'a str,
        progress: Value,
    },
    /// An event of a sub-agent this run started, for the session's stream.
    SubAgent {
        child: &'a crate::tool::ChildOf,
        event: AgentEvent<Value>,
    },
    RunCompleted {
        output: &'a OUT,
    },
    RunFailed {
        error: &'a AgentError,
    },
}

/// How one tool call ended, as everyone is told.
pub(crate) enum ToolOutcome {
    /// Refused before any interceptor saw it (unknown tool, oversized or invalid arguments); the
    /// text is what the caller reads.
    Rejected { text: String },
    /// The tool ran (or a substitute stood in) and its result passed the after-tool chain.
    Used {
        output: JsonOutput,
        substituted: bool,
    },
    /// An interceptor or gate denied it; the tool did not run.
    Denied { reason: String },
    /// An after-tool interceptor withheld the result.
    Withheld { reason: String },
    /// The tool body failed.
    Failed { error: String },
}

impl ToolOutcome {
    /// What the model (or MCP client) reads: the result, or one of the error texts. Every
    /// `ERROR: Tool …` text of the framework is written here.
    pub(crate) fn text(&self, tool: &str) -> Cow<'_, str> {
        match self {
            ToolOutcome::Rejected { text } => Cow::Borrowed(text),
            ToolOutcome::Used { output, .. } => Cow::Borrowed(&output.text),
            ToolOutcome::Denied { reason } => {
                Cow::Owned(format!("ERROR: Tool '{tool}' denied by policy: {reason}"))
            }
            ToolOutcome::Withheld { reason } => Cow::Owned(format!(
                "ERROR: Tool '{tool}' result withheld by policy: {reason}"
            )),
            ToolOutcome::Failed { error } => {
                Cow::Owned(format!("ERROR: Tool '{tool}' failed: {error}"))
            }
        }
    }

    pub(crate) fn is_error(&self) -> bool {
        !matches!(self, ToolOutcome::Used { .. })
    }

    /// Read back from a stored result of `tool` (as [`text`](Self::text) wrote it): whether the
    /// call got past its guard — it returned a result, or its result was withheld, or its body
    /// failed. Denied and rejected calls did not.
    pub(crate) fn passed_guard(tool: &str, result: &Message) -> bool {
        !result.is_error
            || result
                .content
                .starts_with(&format!("ERROR: Tool '{tool}' failed: "))
            || result
                .content
                .starts_with(&format!("ERROR: Tool '{tool}' result withheld by policy: "))
    }

    /// The reject texts, worded here with the others.
    pub(crate) fn unknown_tool(tool: &str, skill: &str, allowed: &[String]) -> Self {
        let allowed = if allowed.is_empty() {
            "(none)".to_string()
        } else {
            allowed.join(", ")
        };
        ToolOutcome::Rejected {
            text: format!(
                "ERROR: Tool '{tool}' is unknown for skill '{skill}'. Allowed tools: {allowed}"
            ),
        }
    }

    pub(crate) fn too_large(tool: &str, bytes: usize, limit: usize) -> Self {
        ToolOutcome::Rejected {
            text: format!(
                "ERROR: Arguments for tool '{tool}' are too large: {bytes} bytes, the limit is {limit} bytes ({})",
                crate::BudgetLimit::MaxToolArgsBytes
            ),
        }
    }

    pub(crate) fn invalid(tool: &str, reason: &str) -> Self {
        ToolOutcome::Rejected {
            text: format!("ERROR: Invalid arguments for tool '{tool}': {reason}"),
        }
    }
}

/// How a tool call ended, as its caller (the model, or an MCP client) is told.
pub(crate) struct Answer {
    /// The text for the caller: the result, or the error.
    pub text: String,
    /// Whether the call was rejected, denied, withheld or failed.
    pub is_error: bool,
    /// The result as JSON, when the tool (or a substitute) produced one (MCP's structured
    /// content).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub output: Option<Value>,
}

/// What passing a point decided, in the point's terms. Every arm keeps the value as the chain
/// left it (a turn's messages stay the conversation whatever the effect).
pub(crate) enum Passed<T, R> {
    /// Go on with this value: the one asked about, or (`rewritten`) its effective replacement.
    Go { value: T, rewritten: bool },
    /// Denied by an interceptor or a gate; `target` names what was denied.
    Denied {
        value: T,
        target: String,
        reason: String,
    },
    /// Skip the guarded thing: `result` stands in for its result.
    Substituted { value: T, result: R },
}

impl<T, R> Passed<T, R> {
    /// At a point whose denial ends the run (skill, turn): the value to go on with, or the
    /// substitute, or the run's error in the seed's words.
    pub(crate) fn or_fail(self, point: InterceptionPoint) -> Result<Result<T, R>, AgentError> {
        match self {
            Passed::Go { value, .. } => Ok(Ok(value)),
            Passed::Substituted { result, .. } => Ok(Err(result)),
            Passed::Denied { target, reason, .. } => Err(AgentError::InterceptorDenied {
                point,
                target,
                reason,
            }),
        }
    }

    /// The effective decision, as spans record it.
    pub(crate) fn kind(&self) -> DecisionKind {
        match self {
            Passed::Go {
                rewritten: false, ..
            } => DecisionKind::Proceed,
            Passed::Go {
                rewritten: true, ..
            } => DecisionKind::ProceedWith,
            Passed::Denied { .. } => DecisionKind::Deny,
            Passed::Substituted { .. } => DecisionKind::Substitute,
        }
    }
}
