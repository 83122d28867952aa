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
use crate::tool::runtime::{
    CallRecord, CallResult, ErasedTool, JsonOutput, Report, ToolFailure, ToolRuntime, parse_or_text,
};
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

impl Answer {
    fn error(text: String) -> Self {
        Answer {
            text,
            is_error: true,
            output: None,
        }
    }
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
            let answer = self.call_tool(tool, call, false).await?;
            Ok(Message::tool_result(&call.id, answer.text, answer.is_error))
        }
        .instrument(span)
        .await
    }

    /// A call of a tool the caller may use (the allow-list, or the MCP exposure, already
    /// checked): budget → size → parse → chain → tool, then everyone is told. `structured` asks
    /// for the result as JSON too (MCP's structured content).
    pub(crate) async fn call_tool(
        self: &Arc<Self>,
        tool: &Arc<dyn ErasedTool>,
        call: &ToolCall,
        structured: bool,
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
        let listened = self.reports_tool_calls();
        let report = Report {
            args: listened,
            output: listened || structured,
        };
        let record = tool
            .call_json(&call.arguments, &ctx, Some(self.tool_timeout()), report)
            .await;
        self.finish_call(&call.id, tool.name(), record, structured)
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
            let report = self.reports_tool_calls();
            let record = runtime
                .call(args, &ctx, Some(self.tool_timeout()), report)
                .await;
            let (record, output) = record.into_json(report);
            let denied = match &record.result {
                CallResult::Denied { reason } => Some(reason.clone()),
                _ => None,
            };
            let answer = self.finish_call(&call_id, T::NAME, record, false)?;
            match (output, denied) {
                (Some(output), _) => Ok(output),
                (None, Some(reason)) => Err(AgentError::ToolDenied {
                    tool: T::NAME.to_string(),
                    reason,
                }),
                (None, None) => Err(AgentError::ToolFailed {
                    tool: T::NAME.to_string(),
                    error: answer.text,
                }),
            }
        }
        .instrument(span)
        .await
    }

    /// Whether anyone reads how tool calls went — tool observers, `observe()` streams, the
    /// session's events. Only then are arguments and outputs built as JSON values.
    fn reports_tool_calls(&self) -> bool {
        let observers = &self.core.observers;
        self.is_session()
            || !observers.tool_use.is_empty()
            || !observers.tool_denied.is_empty()
            || !observers.tool_error.is_empty()
            || self.core.hub.is_observed()
    }

    fn tool_context(self: &Arc<Self>, call_id: &str) -> ToolContext {
        let events = self
            .is_session()
            .then(|| Arc::clone(self) as Arc<dyn ToolEvents>);
        ToolContext::new(
            call_id.to_string(),
            Arc::clone(&self.shared_ids().session_id),
            Arc::clone(&self.shared_ids().run_id),
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
        Answer::error(text)
    }

    /// Tell observers, the pipeline and the session how a call ended, and word the answer for the
    /// caller; the answer keeps the output's JSON value only when `structured`. A tool that ran
    /// past its timeout ends the run.
    fn finish_call(
        &self,
        call_id: &str,
        tool: &str,
        record: CallRecord<JsonOutput>,
        structured: bool,
    ) -> Result<Answer, AgentError> {
        tracing::Span::current().record("decision", tracing::field::display(record.effect));
        self.report_decisions(InterceptionPoint::ToolCall, tool, &record.decisions);
        let observers = &self.core.observers;
        let CallRecord {
            args: args_json,
            result,
            ..
        } = record;
        let args = &args_json;
        let mut timed_out = None;
        let answer = match result {
            CallResult::Invalid { reason } => {
                let text = format!("ERROR: Invalid arguments for tool '{tool}': {reason}");
                self.publish(|ids| PipelineEvent::ToolRejected {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    reason: text.clone(),
                });
                Answer::error(text)
            }
            CallResult::Completed {
                output,
                substituted,
            } => {
                if !observers.tool_use.is_empty() {
                    let value = output.value();
                    for observer in &observers.tool_use {
                        notify("on_tool_use", || observer(tool, args, &value));
                    }
                }
                self.publish(|ids| PipelineEvent::ToolUsed {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    args: args.clone(),
                    result: output.value().into_owned(),
                    substituted,
                });
                Answer {
                    output: output.value,
                    text: output.text,
                    is_error: false,
                }
            }
            CallResult::Denied { reason } => {
                for observer in &observers.tool_denied {
                    notify("on_tool_denied", || observer(tool, args, &reason));
                }
                self.publish(|ids| PipelineEvent::ToolDenied {
                    ids,
                    call_id: call_id.to_string(),
                    tool: tool.to_string(),
                    args: args.clone(),
                    reason: reason.clone(),
                });
                Answer::error(format!("ERROR: Tool '{tool}' denied by policy: {reason}"))
            }
            CallResult::Failed { failure } => {
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
                if let ToolFailure::TimedOut(after) = failure {
                    timed_out = Some(after);
                }
                Answer::error(format!("ERROR: Tool '{tool}' failed: {error}"))
            }
        };
        let mut answer = answer;
        self.emit_finished(call_id, tool, args_json, &mut answer, structured);
        match timed_out {
            Some(after) => Err(exceeded(
                BudgetLimit::PerToolTimeout,
                format!("tool '{tool}' ran longer than {after:?}"),
            )),
            None => Ok(answer),
        }
    }

    /// Tell the session how a call ended: the result as JSON, or the error text. The arguments,
    /// and the output unless the caller wants it `structured`, are moved in: this is their last
    /// reader.
    fn emit_finished(
        &self,
        call_id: &str,
        tool: &str,
        args: Value,
        answer: &mut Answer,
        structured: bool,
    ) {
        self.emit(|| AgentEvent::ToolCallFinished {
            call_id: call_id.to_string(),
            tool: tool.to_string(),
            args,
            result: match &mut answer.output {
                Some(output) if !answer.is_error && structured => output.clone(),
                Some(output) if !answer.is_error => output.take(),
                _ => Value::String(answer.text.clone()),
            },
            is_error: answer.is_error,
        });
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
