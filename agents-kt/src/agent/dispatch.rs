//! Tool calls of a run: the model's (allow-list → budget → size → parse → guard → tool → after
//! chain) and a code skill's (budget → guard → tool → after chain), reported through the one
//! report path.

use std::any::TypeId;
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::FuturesOrdered;
use serde_json::Value;

use super::in_span::in_span;
use super::run::Run;
use super::step::{Answer, ToolOutcome};
use crate::budget::{BudgetTracker, exceeded};
use crate::tool::ToolEvents;
use crate::tool::inherited::InheritedFor;
use crate::tool::record::{
    CallRecord, CallResult, CallSetup, Journaled, JsonOutput, Report, ToolFailure,
};
use crate::tool::runtime::{Arguments, ErasedTool, ToolRuntime, parse_or_text};
use crate::tool::shared::{SharedArgs, SharedTool};
use crate::{AgentError, BudgetLimit, InterceptionPoint, Message, Tool, ToolCall, ToolContext};

impl<OUT: Clone + Send + 'static> Run<OUT> {
    /// Handle one tool call the model asked for; the answer is the tool message for the model.
    /// Only a run-ending problem (a budget overrun, a panic serializing an output) is an error:
    /// every other problem is told to the model so it can recover.
    pub(crate) async fn dispatch(
        self: &Arc<Self>,
        skill: &str,
        allowed: &[String],
        call: &ToolCall,
    ) -> Result<Message, AgentError> {
        let span = super::trace::execute_tool(&call.name, &call.id, self.client());
        in_span(span, async {
            let tool = allowed
                .contains(&call.name)
                .then(|| self.core.tool(&call.name))
                .flatten();
            let answer = match tool {
                Some(tool) => self.call_tool(tool, call, false).await?,
                None => self.reject(call, ToolOutcome::unknown_tool(&call.name, skill, allowed)),
            };
            Ok(Message::tool_result(&call.id, answer.text, answer.is_error))
        })
        .await
    }

    /// Every tool call of one model turn, each through its own guard, up to the agent's
    /// `tool_concurrency` at once (polled together on the run's task; 1 = one after another).
    /// The answers come back in the model's order. A run-ending error (a budget, a tool past its
    /// deadline) ends the run at the first such call in that order, and the calls still in flight
    /// are dropped (cancelled); a denial, a failure or a panic in one call is only that call's
    /// answer.
    pub(crate) async fn dispatch_all(
        self: &Arc<Self>,
        skill: &str,
        allowed: &[String],
        calls: &[ToolCall],
    ) -> Result<Vec<Message>, AgentError> {
        let concurrency = self.core.tool_concurrency;
        // A journaled run records its tool steps in the model's order: one at a time.
        if concurrency <= 1 || calls.len() <= 1 || self.journal().is_some() {
            let mut answers = Vec::with_capacity(calls.len());
            for call in calls {
                answers.push(self.dispatch(skill, allowed, call).await?);
            }
            return Ok(answers);
        }
        // A window of `concurrency` calls in flight, refilled in the model's order; the ordered
        // set yields answers in the order the calls were pushed.
        let mut waiting = calls.iter();
        let mut in_flight = FuturesOrdered::new();
        for call in waiting.by_ref().take(concurrency) {
            in_flight.push_back(self.dispatch(skill, allowed, call));
        }
        let mut answers = Vec::with_capacity(calls.len());
        while let Some(answer) = in_flight.next().await {
            answers.push(answer?);
            if let Some(call) = waiting.next() {
                in_flight.push_back(self.dispatch(skill, allowed, call));
            }
        }
        Ok(answers)
    }

    /// A call of a tool the caller may use (the allow-list, or the MCP exposure, already
    /// checked): budget → size → parse → guard → tool → after chain, then everyone is told.
    /// `structured` asks for the result as JSON too (MCP's structured content).
    pub(crate) async fn call_tool(
        self: &Arc<Self>,
        tool: &Arc<dyn ErasedTool>,
        call: &ToolCall,
        structured: bool,
    ) -> Result<Answer, AgentError> {
        self.spend(BudgetTracker::begin_tool_call)?;
        let limit = self.max_tool_args_bytes();
        if call.arguments.len() > limit {
            let outcome = ToolOutcome::too_large(&call.name, call.arguments.len(), limit);
            return Ok(self.reject(call, outcome));
        }
        let tool_ctx = self.tool_context(&call.id);
        let listened = self.reports_tool_calls();
        let report = Report {
            args: listened,
            output: listened || structured,
        };
        let setup = self.call_setup(&tool_ctx, tool.name(), &call.id, report);
        let record = tool
            .call_json(Arguments::Text(&call.arguments), &setup)
            .await;
        let raw = || parse_or_text(&call.arguments);
        self.finish_call(&call.id, tool.name(), record, raw, structured)
    }

    /// A code skill's typed call of tool `T`, through the same guard as the model's calls.
    pub(crate) async fn call_typed_tool<T: Tool>(
        self: &Arc<Self>,
        args: T::Args,
    ) -> Result<T::Output, AgentError> {
        let unknown = || AgentError::UnknownTool {
            tool: T::NAME.to_string(),
        };
        let tool = self.core.tool(T::NAME).ok_or_else(unknown)?;
        if let Some(runtime) = tool.as_any().downcast_ref::<ToolRuntime<T>>() {
            return self.call_runtime(runtime, args).await;
        }
        // A tool without compile-time links runs in the shared runtime: its own values, boxed.
        let runtime = tool
            .as_any()
            .downcast_ref::<ToolRuntime<SharedTool>>()
            .filter(|runtime| runtime.key().readers.tool_type == TypeId::of::<T>())
            .ok_or_else(unknown)?;
        let output = self
            .call_runtime(runtime, SharedArgs::of::<T>(args))
            .await?;
        output
            .take::<T::Output>()
            .ok_or_else(|| AgentError::ToolFailed {
                tool: T::NAME.to_string(),
                error: "the tool's output is of another type (a bug in agents-kt)".to_string(),
            })
    }

    /// A typed call through `runtime`, as a code skill makes it.
    async fn call_runtime<T: Tool>(
        self: &Arc<Self>,
        runtime: &ToolRuntime<T>,
        args: T::Args,
    ) -> Result<T::Output, AgentError> {
        let name = runtime.name();
        let call_id = self.next_call_id();
        let span = super::trace::execute_tool(name, &call_id, self.client());
        in_span(span, async {
            self.spend(BudgetTracker::begin_tool_call)?;
            let tool_ctx = self.tool_context(&call_id);
            let report = self.reports_tool_calls();
            let listened = Report {
                args: report,
                output: report,
            };
            let setup = self.call_setup(&tool_ctx, name, &call_id, listened);
            let record = runtime.call(args, None, &setup).await;
            let (record, output) = record.into_json(report);
            let (refusal, failure) = refusal_or_failure(&record.result);
            let args = record.args.clone();
            self.finish_call(&call_id, name, record, || args, false)?;
            code_skill_result(name, output, refusal, failure)
        })
        .await
    }

    /// A code skill's call of the tool `name` with JSON arguments — for tools known only at run
    /// time, such as an MCP server's — through the same guard as the model's calls.
    pub(crate) async fn call_named_tool(
        self: &Arc<Self>,
        name: &str,
        arguments: serde_json::Value,
    ) -> Result<serde_json::Value, AgentError> {
        let tool = self
            .core
            .tool(name)
            .ok_or_else(|| AgentError::UnknownTool {
                tool: name.to_string(),
            })?;
        let call_id = self.next_call_id();
        let span = super::trace::execute_tool(name, &call_id, self.client());
        in_span(span, async {
            self.spend(BudgetTracker::begin_tool_call)?;
            let tool_ctx = self.tool_context(&call_id);
            let setup = self.call_setup(
                &tool_ctx,
                tool.name(),
                &call_id,
                Report {
                    args: self.reports_tool_calls(),
                    output: true,
                },
            );
            let record = tool.call_json(Arguments::Json(&arguments), &setup).await;
            let output = match &record.result {
                CallResult::Completed { output, .. } => Some(output.value().into_owned()),
                _ => None,
            };
            let (refusal, failure) = refusal_or_failure(&record.result);
            self.finish_call(&call_id, tool.name(), record, || arguments.clone(), false)?;
            code_skill_result(tool.name(), output, refusal, failure)
        })
        .await
    }

    /// What one call of `tool` needs from this run: its context, its interceptors' context, the
    /// timeouts, and which JSON values someone reads.
    fn call_setup<'a>(
        &'a self,
        tool_ctx: &'a ToolContext,
        tool: &'a str,
        call_id: &'a str,
        report: Report,
    ) -> CallSetup<'a> {
        let mut intercept = self.intercept_context(None, Some((tool, call_id)));
        if self.ledger().is_watched() {
            intercept.ledger_call = self.ledger().next_call();
        }
        CallSetup {
            tool_ctx,
            intercept,
            guard: self.guard_options(),
            tool_timeout: Some(self.tool_timeout()),
            report,
            approvals: self.approvals(),
            journaled: self.journal().map(|journal| Journaled {
                journal,
                step: self.next_tool_step(tool),
            }),
            inherited: self.inherited_for(tool),
        }
    }

    /// What a call of `tool` inherits from the runs above this one. A tool this agent does not
    /// hold gets no slot, and its call is denied by the guard rather than run unjudged.
    fn inherited_for(&self, tool: &str) -> Option<InheritedFor<'_>> {
        let inherited = self.inherited()?;
        Some(InheritedFor {
            tools: &inherited.tools,
            index: self.core.tool_index(tool).unwrap_or(usize::MAX),
        })
    }

    /// Whether anyone reads how tool calls went — tool observers, `observe()` streams, the
    /// session's events, spans that capture content. Only then are arguments and outputs built
    /// as JSON values.
    fn reports_tool_calls(&self) -> bool {
        let observers = &self.core.observers;
        self.is_session()
            || self.core.capture_content
            || !observers.tool_use.is_empty()
            || !observers.tool_denied.is_empty()
            || !observers.tool_error.is_empty()
            || self.core.hub.is_observed()
    }

    /// The context of one call, naming this run: an agent the tool runs (a sub-agent, a handoff,
    /// or one started with `ctx.run_agent`) links to it — its depth, budget, gates and trace
    /// follow — whatever kind of tool it is.
    pub(crate) fn tool_context(self: &Arc<Self>, call_id: &str) -> ToolContext {
        let events = if self.is_session() {
            Some(Arc::clone(self) as Arc<dyn ToolEvents>)
        } else {
            self.progress_listener()
        };
        ToolContext::new(
            call_id.to_string(),
            Arc::clone(&self.shared_ids().session_id),
            Arc::clone(&self.shared_ids().run_id),
            events,
        )
        .with_parent(Arc::clone(self) as Arc<dyn crate::tool::ParentRun>)
    }

    /// Refuse a call before any interceptor sees it, telling the caller why.
    pub(crate) fn reject(&self, call: &ToolCall, outcome: ToolOutcome) -> Answer {
        let args = parse_or_text(&call.arguments);
        self.report_tool(&call.id, &call.name, args, outcome, None, false)
    }

    /// Report a call's decisions and how it ended, and word the answer for the caller. A denied
    /// call is reported with the caller's own arguments (`raw`), as the audit must see what was
    /// asked. A tool that ran past its timeout, or whose output panicked while serialized, ends
    /// the run.
    fn finish_call(
        &self,
        call_id: &str,
        tool: &str,
        record: CallRecord<JsonOutput>,
        raw: impl FnOnce() -> Value,
        structured: bool,
    ) -> Result<Answer, AgentError> {
        let decision = match &record.result {
            CallResult::Withheld { .. } => "Withheld",
            _ => record.effect.as_str(),
        };
        self.report_decisions(InterceptionPoint::ToolCall, tool, &record.before);
        self.report_decisions(InterceptionPoint::AfterToolCall, tool, &record.after);
        let CallRecord { args, result, .. } = record;
        let mut ends_run = None;
        let (args, outcome) = match result {
            CallResult::Invalid { reason } => (args, ToolOutcome::invalid(tool, &reason)),
            CallResult::Completed { output, .. }
                if output.size() > self.core.budget.max_tool_result_bytes =>
            {
                let reason = format!(
                    "the result is {} bytes, the limit is {} bytes ({})",
                    output.size(),
                    self.core.budget.max_tool_result_bytes,
                    BudgetLimit::MaxToolResultBytes
                );
                (args, ToolOutcome::Withheld { reason })
            }
            CallResult::Completed {
                output,
                substituted,
            } => {
                if !substituted {
                    // What `only_after` constraints wait for.
                    self.ledger().succeeded(tool);
                }
                let used = ToolOutcome::Used {
                    output,
                    substituted,
                };
                (args, used)
            }
            CallResult::Denied { reason } => (raw(), ToolOutcome::Denied { reason }),
            CallResult::Withheld { reason } => (args, ToolOutcome::Withheld { reason }),
            CallResult::Failed { failure } => {
                ends_run = match &failure {
                    ToolFailure::TimedOut(after) => Some(exceeded(
                        BudgetLimit::PerToolTimeout,
                        format!("tool '{tool}' ran longer than {after:?}"),
                    )),
                    ToolFailure::OutputPanicked(message) => Some(AgentError::Panicked {
                        during: format!("serializing the output of tool '{tool}'"),
                        message: message.clone(),
                    }),
                    ToolFailure::Journal(error) => Some(AgentError::Journal(error.clone())),
                    ToolFailure::Error(_) | ToolFailure::Panicked(_) => None,
                };
                let error = failure.to_string();
                (args, ToolOutcome::Failed { error })
            }
        };
        let answer = self.report_tool(call_id, tool, args, outcome, Some(decision), structured);
        // A sub-agent that exhausted the one budget ends this run too.
        if let Some(error) = self.ended() {
            return Err(error.clone());
        }
        match ends_run {
            Some(error) => Err(error),
            None => Ok(answer),
        }
    }
}

impl<OUT: Clone + Send + 'static> ToolEvents for Run<OUT> {
    fn started(&self, call_id: &str, tool: &str, args: Value) {
        self.report(super::step::Step::ToolStarted {
            call_id,
            tool,
            args,
        });
    }

    fn progress(&self, call_id: &str, progress: Value) {
        self.report(super::step::Step::ToolProgress { call_id, progress });
    }
}

/// Why a call produced no output: a refusal (`true`: denied before the tool, `false`: its result
/// withheld), or a failure (the tool's, or arguments that did not parse).
fn refusal_or_failure<O>(result: &CallResult<O>) -> (Option<(bool, String)>, Option<String>) {
    match result {
        CallResult::Denied { reason } => (Some((true, reason.clone())), None),
        CallResult::Withheld { reason } => (Some((false, reason.clone())), None),
        CallResult::Failed { failure } => (None, Some(failure.to_string())),
        CallResult::Invalid { reason } => (None, Some(reason.clone())),
        CallResult::Completed { .. } => (None, None),
    }
}

/// What a code skill's tool call returns: the output, or the denial (`true`: before the tool,
/// `false`: its result withheld) or failure as an error.
fn code_skill_result<O>(
    tool: &str,
    output: Option<O>,
    refusal: Option<(bool, String)>,
    failure: Option<String>,
) -> Result<O, AgentError> {
    match (output, refusal, failure) {
        (Some(output), None, _) => Ok(output),
        (_, Some((true, reason)), _) => Err(AgentError::ToolDenied {
            tool: tool.to_string(),
            reason,
        }),
        (_, Some((false, reason)), _) => Err(AgentError::InterceptorDenied {
            point: InterceptionPoint::AfterToolCall,
            target: tool.to_string(),
            reason,
        }),
        (_, None, error) => Err(AgentError::ToolFailed {
            tool: tool.to_string(),
            error: error.unwrap_or_else(|| "the tool produced no output".to_string()),
        }),
    }
}
