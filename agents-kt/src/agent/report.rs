//! The one report path. Every fact a run reports is one [`Step`], told here — and only here — to
//! the observers, the `observe()` pipeline, the session's event stream and tracing. The texts the
//! model (or an MCP client) reads about a tool call are worded here too, in [`ToolOutcome::text`].

use std::time::Duration;

use serde_json::Value;

use super::run::Run;
use super::trace;
use crate::chain::ChainDecision;
use crate::observers::notify;
use crate::tool::runtime::JsonOutput;
use crate::{
    AgentError, AgentEvent, BudgetUsage, ChatRequest, ChatResponse, InterceptionPoint,
    InterceptorDecision, PipelineEvent,
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
    },
    /// The model call failed (the run ends with this error).
    ModelFailed {
        error: &'a AgentError,
        elapsed: Duration,
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
    pub(crate) fn text(&self, tool: &str) -> String {
        match self {
            ToolOutcome::Rejected { text } => text.clone(),
            ToolOutcome::Used { output, .. } => output.text.clone(),
            ToolOutcome::Denied { reason } => {
                format!("ERROR: Tool '{tool}' denied by policy: {reason}")
            }
            ToolOutcome::Withheld { reason } => {
                format!("ERROR: Tool '{tool}' result withheld by policy: {reason}")
            }
            ToolOutcome::Failed { error } => format!("ERROR: Tool '{tool}' failed: {error}"),
        }
    }

    pub(crate) fn is_error(&self) -> bool {
        !matches!(self, ToolOutcome::Used { .. })
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

impl<OUT: Clone + Send + 'static> Run<OUT> {
    /// Tell everyone about `step`.
    pub(crate) fn report(&self, step: Step<'_, OUT>) {
        let observers = &self.core.observers;
        match step {
            Step::RunStarted => self.publish(|ids| PipelineEvent::RunStarted {
                ids,
                agent: self.core.name.clone(),
            }),
            Step::SkillChosen { skill } => {
                tracing::Span::current().record("agents_kt.skill.name", skill);
                for observer in &observers.skill_chosen {
                    notify("on_skill_chosen", || observer(skill));
                }
                self.publish(|ids| PipelineEvent::SkillChosen {
                    ids,
                    skill: skill.to_string(),
                });
                self.emit(|| AgentEvent::SkillStarted {
                    skill: skill.to_string(),
                });
            }
            Step::SkillCompleted { skill } => self.emit(|| AgentEvent::SkillCompleted {
                skill: skill.to_string(),
            }),
            Step::Decisions {
                point,
                target,
                decisions,
            } => {
                for decision in decisions {
                    let decision =
                        InterceptorDecision::new(point, target.to_string(), decision.clone());
                    trace::decision(&decision);
                    #[cfg(feature = "otel")]
                    self.core.metrics.decision(&decision);
                    for observer in &observers.decision {
                        notify("on_interceptor_decision", || observer(&decision));
                    }
                    self.publish(|ids| PipelineEvent::InterceptorDecision { ids, decision });
                }
            }
            Step::TurnStarted { turn, request } => {
                if self.core.capture_content {
                    trace::request_content(&tracing::Span::current(), &request.messages);
                }
                self.emit(|| AgentEvent::TurnStarted { turn });
                self.publish(|ids| PipelineEvent::TurnStarted { ids, turn });
            }
            Step::Token { text } => self.emit(|| AgentEvent::Token {
                text: text.to_string(),
            }),
            Step::TurnCompleted {
                turn,
                response,
                elapsed,
            } => {
                let span = tracing::Span::current();
                trace::answered(&span, response);
                if self.core.capture_content {
                    trace::response_content(&span, response);
                }
                #[cfg(feature = "otel")]
                self.core.metrics.model_call(elapsed, Ok(response));
                #[cfg(not(feature = "otel"))]
                let _ = elapsed;
                if let Some(usage) = &response.usage {
                    for observer in &observers.token_usage {
                        notify("on_token_usage", || observer(usage));
                    }
                }
                self.emit(|| AgentEvent::TurnCompleted {
                    turn,
                    content: response.content.clone(),
                    tool_calls: response.tool_calls.clone(),
                });
                self.publish(|ids| PipelineEvent::TurnCompleted {
                    ids,
                    turn,
                    tool_calls: response.tool_calls.clone(),
                    usage: response.usage,
                });
            }
            Step::ModelFailed { error, elapsed } => {
                trace::failed(&tracing::Span::current(), error.class(), &error.to_string());
                #[cfg(feature = "otel")]
                self.core.metrics.model_call(elapsed, Err(error.class()));
                #[cfg(not(feature = "otel"))]
                let _ = elapsed;
            }
            Step::BudgetThreshold { index, usage } => {
                if let Some(observer) = observers.budget.get(index) {
                    notify("on_budget_threshold", || observer(&usage));
                }
                let fraction = observers.budget_thresholds[index];
                self.publish(|ids| PipelineEvent::BudgetThreshold {
                    ids,
                    limit: usage.limit,
                    fraction,
                });
            }
            Step::ToolStarted {
                call_id,
                tool,
                args,
            } => self.emit(|| AgentEvent::ToolCallStarted {
                call_id: call_id.to_string(),
                tool: tool.to_string(),
                args,
            }),
            Step::ToolProgress { call_id, progress } => {
                self.emit(|| AgentEvent::ToolCallProgress {
                    call_id: call_id.to_string(),
                    progress,
                })
            }
            Step::SubAgent { child, event } => self.emit(|| AgentEvent::SubAgent {
                agent: child.agent.clone(),
                ids: child.ids.clone(),
                call_id: child.call_id.clone(),
                event: Box::new(event),
            }),
            Step::RunCompleted { output } => {
                self.publish(|ids| PipelineEvent::RunCompleted { ids });
                self.emit(|| AgentEvent::Completed {
                    output: output.clone(),
                });
            }
            Step::RunFailed { error } => {
                trace::failed(&tracing::Span::current(), error.class(), &error.to_string());
                tracing::info!(%error, "run failed");
                for observer in &observers.error {
                    notify("on_error", || observer(error));
                }
                self.publish(|ids| PipelineEvent::RunFailed {
                    ids,
                    error: error.clone(),
                });
                self.emit(|| AgentEvent::Failed {
                    error: error.clone(),
                });
            }
        }
    }

    /// Tell everyone how tool call `call_id` ended and word the answer for its caller. `args`
    /// are the arguments it ran with, or — denied or rejected — the caller's own. The answer
    /// keeps the output's JSON value only when `structured` (MCP's structured content).
    pub(crate) fn report_tool(
        &self,
        call_id: &str,
        tool: &str,
        args: Value,
        outcome: ToolOutcome,
        structured: bool,
    ) -> Answer {
        let observers = &self.core.observers;
        let text = outcome.text(tool);
        let is_error = outcome.is_error();
        trace::tool_outcome(&tracing::Span::current(), &outcome, &text);
        if self.core.capture_content {
            trace::tool_content(&tracing::Span::current(), &args, &text);
        }
        let mut output = None;
        match &outcome {
            ToolOutcome::Rejected { .. } => {
                self.publish(|ids| PipelineEvent::ToolRejected {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    reason: text.clone(),
                });
            }
            ToolOutcome::Used {
                output: json,
                substituted,
            } => {
                if !observers.tool_use.is_empty() {
                    let value = json.value();
                    for observer in &observers.tool_use {
                        notify("on_tool_use", || observer(tool, &args, &value));
                    }
                }
                self.publish(|ids| PipelineEvent::ToolUsed {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    args: args.clone(),
                    result: json.value().into_owned(),
                    substituted: *substituted,
                });
                output = json.value.clone();
            }
            ToolOutcome::Denied { reason } => {
                for observer in &observers.tool_denied {
                    notify("on_tool_denied", || observer(tool, &args, reason));
                }
                self.publish(|ids| PipelineEvent::ToolDenied {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    args: args.clone(),
                    reason: reason.clone(),
                });
            }
            ToolOutcome::Withheld { reason } => {
                tracing::info!(tool, %reason, "tool result withheld");
                self.publish(|ids| PipelineEvent::ToolResultWithheld {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    args: args.clone(),
                    reason: reason.clone(),
                });
            }
            ToolOutcome::Failed { error } => {
                tracing::warn!(tool, %error, "tool failed");
                for observer in &observers.tool_error {
                    notify("on_tool_error", || observer(tool, &args, error));
                }
                self.publish(|ids| PipelineEvent::ToolFailed {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    args: args.clone(),
                    error: error.clone(),
                });
            }
        }
        self.emit(|| AgentEvent::ToolCallFinished {
            call_id: call_id.to_string(),
            tool: tool.to_string(),
            args,
            result: match &output {
                Some(value) if !is_error => value.clone(),
                _ => match outcome {
                    ToolOutcome::Used { output: json, .. } => json.value().into_owned(),
                    _ => Value::String(text.clone()),
                },
            },
            is_error,
        });
        Answer {
            text,
            is_error,
            output: if structured { output } else { None },
        }
    }
}
