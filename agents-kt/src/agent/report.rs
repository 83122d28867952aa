//! The one report path. Every fact a run reports is one [`Step`], told here — and only here — to
//! the observers, the `observe()` pipeline, the session's event stream and tracing.

use std::borrow::Cow;

use serde_json::Value;

use super::run::Run;
use super::step::{Answer, Step, ToolOutcome};
use super::trace;
use crate::observers::notify;
use crate::{AgentEvent, InterceptorDecision, PipelineEvent};

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
                decision,
            } => {
                let span = tracing::Span::current();
                trace::answered(&span, response, decision);
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
            Step::ModelFailed {
                error,
                elapsed,
                decision,
            } => {
                let span = tracing::Span::current();
                span.record("agents_kt.decision", decision);
                trace::failed(&span, error.class(), &error.to_string());
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
    /// are the arguments it ran with, or — denied or rejected — the caller's own; `decision`
    /// the one its tool chain took, when a chain judged it. The answer keeps the output's JSON
    /// value only when `structured` (MCP's structured content).
    pub(crate) fn report_tool(
        &self,
        call_id: &str,
        tool: &str,
        args: Value,
        outcome: ToolOutcome,
        decision: Option<&str>,
        structured: bool,
    ) -> Answer {
        let observers = &self.core.observers;
        // Borrowed from the outcome where it is already written (a result, a rejection): the
        // answer takes it over at the end rather than a copy.
        let text = outcome.text(tool);
        let is_error = outcome.is_error();
        let span = tracing::Span::current();
        trace::tool_outcome(&span, &outcome, decision, &text);
        if self.core.capture_content {
            trace::tool_content(&span, &args, &text);
        }
        match &outcome {
            ToolOutcome::Rejected { .. } => {
                self.publish(|ids| {
                    PipelineEvent::tool_rejected(ids, call_id, tool, text.clone().into_owned())
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
                self.publish(|ids| {
                    let result = json.value().into_owned();
                    PipelineEvent::tool_used(ids, call_id, tool, args.clone(), result, *substituted)
                });
            }
            ToolOutcome::Denied { reason } => {
                for observer in &observers.tool_denied {
                    notify("on_tool_denied", || observer(tool, &args, reason));
                }
                self.publish(|ids| {
                    PipelineEvent::tool_denied(ids, call_id, tool, args.clone(), reason.clone())
                });
            }
            ToolOutcome::Withheld { reason } => {
                tracing::info!(tool, %reason, "tool result withheld");
                self.publish(|ids| {
                    let (args, reason) = (args.clone(), reason.clone());
                    PipelineEvent::tool_result_withheld(ids, call_id, tool, args, reason)
                });
            }
            ToolOutcome::Failed { error } => {
                tracing::warn!(tool, %error, "tool failed");
                for observer in &observers.tool_error {
                    notify("on_tool_error", || observer(tool, &args, error));
                }
                self.publish(|ids| {
                    PipelineEvent::tool_failed(ids, call_id, tool, args.clone(), error.clone())
                });
            }
        }
        let worded = match text {
            Cow::Owned(text) => Some(text),
            Cow::Borrowed(_) => None,
        };
        let (mut used, worded) = match outcome {
            ToolOutcome::Used { output, .. } => (Some(output), worded),
            ToolOutcome::Rejected { text } => (None, Some(text)),
            _ => (None, worded),
        };
        // The output's JSON goes to a caller that keeps it (MCP's structured content): moved
        // there, or copied when the session's event takes it too.
        let output = match (used.as_mut(), structured) {
            (Some(json), true) if self.is_session() => json.value.clone(),
            (Some(json), true) => json.value.take(),
            _ => None,
        };
        self.emit(|| {
            let result = match used.as_mut() {
                Some(json) => match json.value.take() {
                    Some(value) => value,
                    None => json.value().into_owned(),
                },
                None => Value::String(worded.clone().unwrap_or_default()),
            };
            AgentEvent::tool_call_finished(call_id, tool, args, result, is_error)
        });
        // Exactly one of the two holds the text: a result's is in its output.
        let text = match (worded, used) {
            (Some(text), _) => text,
            (None, Some(json)) => json.text,
            (None, None) => String::new(),
        };
        Answer {
            text,
            is_error,
            output,
        }
    }
}
