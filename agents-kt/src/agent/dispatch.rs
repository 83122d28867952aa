//! Tool calls of a run: the model's (allow-list → budget → size → parse → chain → tool) and a code
//! skill's (budget → chain → tool), both reported to observers, the pipeline and the session in one
//! place.

use std::sync::Arc;

use serde_json::Value;
use tracing::Instrument;

use super::run::Run;
use crate::budget::{BudgetTracker, exceeded};
use crate::observers::notify;
use crate::tool::ToolEvents;
use crate::tool::runtime::{CallRecord, CallResult, ErasedTool, ToolFailure, ToolRuntime};
use crate::{
    AgentError, AgentEvent, BudgetLimit, InterceptionPoint, Message, PipelineEvent, Tool, ToolCall,
    ToolContext,
};

/// How a tool call ended, as its caller (the model, or an MCP client) is told.
pub(crate) struct Answer {
    /// The text for the caller: the result, or the error.
    pub text: String,
    /// Whether the call was rejected, denied or failed.
    pub is_error: bool,
    /// The result as JSON, when the tool (or a substitute) produced one (MCP's structured
    /// content).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub output: Option<Value>,
}

impl<OUT: Clone + Send + 'static> Run<OUT> {
    /// Handle one tool call the model asked for; the answer is the tool message for the model.
    /// Only a budget overrun is an error: every other problem is told to the model so it can
    /// recover.
    pub(crate) async fn dispatch(
        self: &Arc<Self>,
        skill: &str,
        allowed: &[String],
        call: &ToolCall,
    ) -> Result<Message, AgentError> {
        let span = tracing::info_span!(
            "tool_call",
            tool = %call.name, call_id = %call.id, decision = tracing::field::Empty
        );
        async {
            let tool = allowed
                .contains(&call.name)
                .then(|| self.core.tool(&call.name))
                .flatten();
            let Some(tool) = tool else {
                let allowed = if allowed.is_empty() {
                    "(none)".to_string()
                } else {
                    allowed.join(", ")
                };
                let text = format!(
                    "ERROR: Tool '{}' is unknown for skill '{skill}'. Allowed tools: {allowed}",
                    call.name
                );
                let answer = self.reject(call, text);
                return Ok(Message::tool_result(&call.id, answer.text, true));
            };
            let answer = self.call_tool(tool, call).await?;
            Ok(Message::tool_result(&call.id, answer.text, answer.is_error))
        }
        .instrument(span)
        .await
    }

    /// A call of a tool the caller may use (the allow-list, or the MCP exposure, already
    /// checked): budget → size → parse → chain → tool, then everyone is told.
    pub(crate) async fn call_tool(
        self: &Arc<Self>,
        tool: &Arc<dyn ErasedTool>,
        call: &ToolCall,
    ) -> Result<Answer, AgentError> {
        self.spend(BudgetTracker::begin_tool_call)?;
        let limit = self.max_tool_args_bytes();
        if call.arguments.len() > limit {
            let text = format!(
                "ERROR: Arguments for tool '{}' are too large: {} bytes, the limit is {limit} bytes ({})",
                call.name,
                call.arguments.len(),
                BudgetLimit::MaxToolArgsBytes
            );
            return Ok(self.reject(call, text));
        }
        let ctx = self.tool_context(&call.id);
        let record = tool
            .call_json(&call.arguments, &ctx, Some(self.tool_timeout()))
            .await;
        let raw_args = || parse_or_text(&call.arguments);
        self.finish_call(&call.id, tool.name(), &record, raw_args)
    }

    /// A code skill's typed call of tool `T`.
    pub(crate) async fn call_typed_tool<T: Tool>(
        self: &Arc<Self>,
        args: T::Args,
    ) -> Result<T::Output, AgentError> {
        let unknown = || AgentError::UnknownTool {
            tool: T::NAME.to_string(),
        };
        let tool = self.core.tool(T::NAME).ok_or_else(unknown)?;
        let runtime = tool
            .as_any()
            .downcast_ref::<ToolRuntime<T>>()
            .ok_or_else(unknown)?;
        let call_id = self.core.next_call_id();
        let span = tracing::info_span!(
            "tool_call",
            tool = T::NAME, call_id = %call_id, decision = tracing::field::Empty
        );
        async {
            self.spend(BudgetTracker::begin_tool_call)?;
            let ctx = self.tool_context(&call_id);
            let record = runtime.call(args, &ctx, Some(self.tool_timeout())).await;
            let answer = self.finish_call(&call_id, T::NAME, &record.to_json(), || Value::Null)?;
            match record.result {
                CallResult::Completed { output, .. } => Ok(output),
                CallResult::Denied { reason, .. } => Err(AgentError::ToolDenied {
                    tool: T::NAME.to_string(),
                    reason,
                }),
                CallResult::Failed { .. } | CallResult::Invalid { .. } => {
                    Err(AgentError::ToolFailed {
                        tool: T::NAME.to_string(),
                        error: answer.text,
                    })
                }
            }
        }
        .instrument(span)
        .await
    }

    fn tool_context(self: &Arc<Self>, call_id: &str) -> ToolContext {
        let events = self
            .is_session()
            .then(|| Arc::clone(self) as Arc<dyn ToolEvents>);
        ToolContext::new(
            call_id.to_string(),
            self.ids().session_id.clone(),
            self.ids().run_id.clone(),
            events,
        )
    }

    /// Refuse a call before any interceptor sees it, telling the caller why.
    pub(crate) fn reject(&self, call: &ToolCall, text: String) -> Answer {
        tracing::Span::current().record("decision", "Rejected");
        self.publish(|ids| PipelineEvent::ToolRejected {
            ids,
            call_id: call.id.clone(),
            tool: call.name.clone(),
            reason: text.clone(),
        });
        self.emit(|| AgentEvent::ToolCallFinished {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            args: parse_or_text(&call.arguments),
            result: Value::String(text.clone()),
            is_error: true,
        });
        Answer {
            text,
            is_error: true,
            output: None,
        }
    }

    /// Tell observers, the pipeline and the session how a call ended, and word the answer for the
    /// model. A tool that ran past its timeout ends the run.
    fn finish_call(
        &self,
        call_id: &str,
        tool: &str,
        record: &CallRecord<Value, Value>,
        raw_args: impl FnOnce() -> Value,
    ) -> Result<Answer, AgentError> {
        tracing::Span::current().record("decision", tracing::field::display(record.effect));
        self.report_decisions(InterceptionPoint::ToolCall, tool, &record.decisions);
        let observers = &self.core.observers;
        let (args, answer) = match &record.result {
            CallResult::Invalid { reason } => {
                let text = format!("ERROR: Invalid arguments for tool '{tool}': {reason}");
                self.publish(|ids| PipelineEvent::ToolRejected {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    reason: text.clone(),
                });
                (
                    raw_args(),
                    Answer {
                        text,
                        is_error: true,
                        output: None,
                    },
                )
            }
            CallResult::Completed {
                args,
                output,
                substituted,
            } => {
                for observer in &observers.tool_use {
                    notify("on_tool_use", || observer(tool, args, output));
                }
                self.publish(|ids| PipelineEvent::ToolUsed {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    args: args.clone(),
                    result: output.clone(),
                    substituted: *substituted,
                });
                let text = match output {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                (
                    args.clone(),
                    Answer {
                        text,
                        is_error: false,
                        output: Some(output.clone()),
                    },
                )
            }
            CallResult::Denied { args, reason } => {
                for observer in &observers.tool_denied {
                    notify("on_tool_denied", || observer(tool, args, reason));
                }
                self.publish(|ids| PipelineEvent::ToolDenied {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    args: args.clone(),
                    reason: reason.clone(),
                });
                let text = format!("ERROR: Tool '{tool}' denied by policy: {reason}");
                (
                    args.clone(),
                    Answer {
                        text,
                        is_error: true,
                        output: None,
                    },
                )
            }
            CallResult::Failed { args, failure } => {
                let error = failure.to_string();
                tracing::warn!(tool, %error, "tool failed");
                for observer in &observers.tool_error {
                    notify("on_tool_error", || observer(tool, args, &error));
                }
                self.publish(|ids| PipelineEvent::ToolFailed {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    args: args.clone(),
                    error: error.clone(),
                });
                let text = format!("ERROR: Tool '{tool}' failed: {error}");
                (
                    args.clone(),
                    Answer {
                        text,
                        is_error: true,
                        output: None,
                    },
                )
            }
        };
        self.emit(|| AgentEvent::ToolCallFinished {
            call_id: call_id.to_string(),
            tool: tool.to_string(),
            result: match &record.result {
                CallResult::Completed { output, .. } => output.clone(),
                _ => Value::String(answer.text.clone()),
            },
            args,
            is_error: answer.is_error,
        });
        if let CallResult::Failed {
            failure: ToolFailure::TimedOut(after),
            ..
        } = &record.result
        {
            return Err(exceeded(
                BudgetLimit::PerToolTimeout,
                format!("tool '{tool}' ran longer than {after:?}"),
            ));
        }
        Ok(answer)
    }
}

impl<OUT: Clone + Send + 'static> ToolEvents for Run<OUT> {
    fn started(&self, call_id: &str, tool: &str, args: Value) {
        self.emit(|| AgentEvent::ToolCallStarted {
            call_id: call_id.to_string(),
            tool: tool.to_string(),
            args,
        });
    }

    fn progress(&self, call_id: &str, progress: Value) {
        self.emit(|| AgentEvent::ToolCallProgress {
            call_id: call_id.to_string(),
            progress,
        });
    }
}

/// The model's argument text as JSON when it parses, as a string otherwise.
fn parse_or_text(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
}
