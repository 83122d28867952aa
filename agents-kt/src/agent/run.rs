//! One run of an agent: its ids, budget, event sinks, and the one loop that serves both the chat
//! (`run`) and the stream (`session`) paths — they differ only in how the model is called and
//! whether events are emitted.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use futures::channel::mpsc::UnboundedSender;
use futures::{FutureExt, StreamExt};
use tracing::Instrument;

use super::Core;
use super::report::Step;
use crate::budget::BudgetTracker;
use crate::chain::{Effect, guard, panic_message};
use crate::tool::context::ToolEvents;
use crate::{
    AgentError, AgentEvent, ChatRequest, ChatResponse, Extensions, InterceptContext,
    InterceptionPoint, Message, ModelError, PipelineEvent, ResponseAssembler, RunIds,
};

/// The state of one run, shared by the loop, the tool calls and a code skill's context.
pub(crate) struct Run<OUT> {
    pub(super) core: Arc<Core<OUT>>,
    ids: RunIds,
    /// The ids again, shared by every tool call's context.
    shared_ids: SharedIds,
    /// What the caller attached (`run_with`, `session_with`), for interceptors and gates.
    extensions: Extensions,
    /// The MCP principal, when an MCP client started the run.
    client: Option<String>,
    /// Where tools' progress goes when the run is no session: an MCP client that asked for it.
    progress: Option<Arc<dyn ToolEvents>>,
    /// The skill running, once chosen.
    skill: OnceLock<String>,
    /// The latest model turn's number (0 before the first).
    turn: AtomicU32,
    /// The session's event stream; `None` on the chat path.
    events: Option<UnboundedSender<AgentEvent<OUT>>>,
    budget: Mutex<BudgetTracker>,
    /// A turn substitute taken inside a code skill: it is the run's output.
    substitute: Mutex<Option<OUT>>,
}

/// A run's session and run ids, shared rather than copied into each tool call's context.
#[derive(Clone)]
pub(crate) struct SharedIds {
    pub session_id: Arc<str>,
    pub run_id: Arc<str>,
}

/// Who started a run and with what: the caller's extensions, the MCP principal if any, and where
/// its tools' progress goes if the caller listens.
#[derive(Default)]
pub(crate) struct Caller {
    pub extensions: Extensions,
    pub client: Option<String>,
    pub progress: Option<Arc<dyn ToolEvents>>,
}

/// What one model turn produced.
pub(crate) enum Turn<OUT> {
    /// The model answered.
    Answered(ChatResponse),
    /// An `on_before_turn` interceptor substituted the final output; the model was not called.
    Substituted(OUT),
}

impl<OUT: Clone + Send + 'static> Run<OUT> {
    pub(crate) fn new(
        core: Arc<Core<OUT>>,
        ids: RunIds,
        caller: Caller,
        events: Option<UnboundedSender<AgentEvent<OUT>>>,
    ) -> Self {
        let budget = Mutex::new(BudgetTracker::new(core.budget.clone()));
        let shared_ids = SharedIds {
            session_id: Arc::from(ids.session_id.as_str()),
            run_id: Arc::from(ids.run_id.as_str()),
        };
        Run {
            core,
            ids,
            shared_ids,
            extensions: caller.extensions,
            client: caller.client,
            progress: caller.progress,
            skill: OnceLock::new(),
            turn: AtomicU32::new(0),
            events,
            budget,
            substitute: Mutex::new(None),
        }
    }

    pub(crate) fn ids(&self) -> &RunIds {
        &self.ids
    }

    pub(crate) fn shared_ids(&self) -> &SharedIds {
        &self.shared_ids
    }

    /// Where a call's progress goes outside a session (an MCP client's progress token).
    pub(crate) fn progress_listener(&self) -> Option<Arc<dyn ToolEvents>> {
        self.progress.clone()
    }

    /// The skill now running: later interceptors' context names it.
    pub(crate) fn set_skill(&self, skill: &str) {
        let _ = self.skill.set(skill.to_string());
    }

    /// The context of an interceptor or gate of this run; at the tool points, `tool` is the
    /// tool's name and its call's id.
    pub(crate) fn intercept_context<'a>(
        &'a self,
        skill: Option<&'a str>,
        tool: Option<(&'a str, &'a str)>,
    ) -> InterceptContext<'a> {
        InterceptContext {
            ids: &self.ids,
            agent: &self.core.name,
            skill: skill.or_else(|| self.skill.get().map(String::as_str)),
            turn: self.turn.load(Ordering::Relaxed),
            tool: tool.map(|(name, _)| name),
            tool_call_id: tool.map(|(_, id)| id),
            client: self.client.as_deref(),
            extensions: &self.extensions,
            args: None,
        }
    }

    /// Whether this run streams (the session path).
    pub(crate) fn is_session(&self) -> bool {
        self.events.is_some()
    }

    /// Send an event to the session's stream, if there is one and it is still read.
    pub(crate) fn emit(&self, event: impl FnOnce() -> AgentEvent<OUT>) {
        if let Some(events) = &self.events {
            // A dropped receiver only means nobody reads the events any more; the run goes on.
            let _ = events.unbounded_send(event());
        }
    }

    /// Close the session's event stream: the run has ended.
    pub(crate) fn close_events(&self) {
        if let Some(events) = &self.events {
            events.close_channel();
        }
    }

    /// Publish a pipeline event to the agent's observers.
    pub(crate) fn publish(&self, event: impl FnOnce(RunIds) -> PipelineEvent) {
        self.core.hub.publish(|| event(self.ids.clone()));
    }

    fn budget(&self) -> MutexGuard<'_, BudgetTracker> {
        // Counters stay consistent whatever a panicking holder was doing.
        self.budget
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Spend budget through `step`, then fire any threshold observers newly crossed.
    pub(crate) fn spend<T>(
        &self,
        step: impl FnOnce(&mut BudgetTracker) -> Result<T, AgentError>,
    ) -> Result<T, AgentError> {
        let (result, crossed) = {
            let mut budget = self.budget();
            let result = step(&mut budget);
            let crossed = budget.crossed(&self.core.observers.budget_thresholds);
            (result, crossed)
        };
        for (index, usage) in crossed {
            self.report(Step::BudgetThreshold { index, usage });
        }
        result
    }

    // The limits never change during a run: read them without the tracker's lock.
    pub(crate) fn tool_timeout(&self) -> std::time::Duration {
        self.core.budget.per_tool_timeout
    }

    pub(crate) fn max_tool_args_bytes(&self) -> usize {
        self.core.budget.max_tool_args_bytes
    }

    pub(crate) fn interceptor_timeout(&self) -> std::time::Duration {
        self.core.budget.interceptor_timeout
    }

    /// Keep a turn substitute taken inside a code skill; it is the run's output.
    pub(crate) fn keep_substitute(&self, output: OUT) {
        *self.substitute.lock().unwrap_or_else(|p| p.into_inner()) = Some(output);
    }

    pub(crate) fn take_substitute(&self) -> Option<OUT> {
        self.substitute
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// One model turn: budget, the turn's guard (chain, then gates), then the model (`chat` or
    /// `chat_stream`). A `ProceedWith` replaces `request.messages` for this and every later turn.
    pub(crate) async fn turn(&self, request: &mut ChatRequest) -> Result<Turn<OUT>, AgentError> {
        let turn = self.spend(BudgetTracker::begin_turn)?;
        self.turn.store(turn, Ordering::Relaxed);
        let span = tracing::info_span!("turn", turn, decision = tracing::field::Empty);
        async {
            let target = || format!("turn {turn}");
            let ctx = self.intercept_context(None, None);
            let outcome = guard(
                &self.core.turn_chain,
                &self.core.turn_gates,
                std::mem::take(&mut request.messages),
                &ctx,
                self.interceptor_timeout(),
            )
            .await;
            request.messages = outcome.value;
            if !outcome.decisions.is_empty() {
                self.report(Step::Decisions {
                    point: InterceptionPoint::Turn,
                    target: &target(),
                    decisions: &outcome.decisions,
                });
            }
            match outcome.effect {
                Effect::Deny(reason) => {
                    tracing::Span::current().record("decision", "Deny");
                    return Err(AgentError::InterceptorDenied {
                        point: InterceptionPoint::Turn,
                        target: target(),
                        reason,
                    });
                }
                Effect::Substitute(output) => {
                    tracing::Span::current().record("decision", "Substitute");
                    return Ok(Turn::Substituted(output));
                }
                Effect::Proceed | Effect::ProceedWith => {}
            }
            self.report(Step::TurnStarted { turn });
            let response = self.call_model(request).await?;
            self.report(Step::TurnCompleted {
                turn,
                response: &response,
            });
            if let Some(usage) = response.usage {
                self.spend(|budget| budget.add_tokens(usage))?;
            }
            Ok(Turn::Answered(response))
        }
        .instrument(span)
        .await
    }

    /// Call the model: whole on the chat path, streamed (emitting tokens) on the session path.
    /// A stream that breaks ends the turn with an error; nothing of its partial answer is used.
    /// A panic in the client — while calling, or while its stream is polled — ends the run with
    /// [`AgentError::Panicked`].
    async fn call_model(&self, request: &ChatRequest) -> Result<ChatResponse, AgentError> {
        let model = self.core.model.as_ref().ok_or_else(|| {
            AgentError::Model(ModelError::Other("the agent has no model".to_string()))
        })?;
        let panicked =
            |during: &str, payload: Box<dyn std::any::Any + Send>| AgentError::Panicked {
                during: during.to_string(),
                message: panic_message(payload.as_ref()),
            };
        if !self.is_session() {
            let call = catch_unwind(AssertUnwindSafe(|| model.chat(request)))
                .map_err(|payload| panicked("calling the model", payload))?;
            return AssertUnwindSafe(call)
                .catch_unwind()
                .await
                .map_err(|payload| panicked("calling the model", payload))?
                .map_err(AgentError::from);
        }
        let mut stream = catch_unwind(AssertUnwindSafe(|| model.chat_stream(request)))
            .map_err(|payload| panicked("calling the model", payload))?;
        let mut answer = ResponseAssembler::default();
        loop {
            let next = AssertUnwindSafe(stream.next())
                .catch_unwind()
                .await
                .map_err(|payload| panicked("reading the model's stream", payload))?;
            let Some(chunk) = next else { break };
            let chunk = chunk?;
            if let crate::ChatChunk::Text(text) = &chunk
                && !text.is_empty()
            {
                self.report(Step::Token { text });
            }
            answer.push(chunk);
        }
        Ok(answer.finish()?)
    }

    /// A code skill's single model call.
    pub(crate) async fn chat_once(
        &self,
        messages: Vec<Message>,
    ) -> Result<ChatResponse, AgentError> {
        let mut request = ChatRequest::new(messages);
        match self.turn(&mut request).await? {
            Turn::Answered(response) => Ok(response),
            Turn::Substituted(output) => {
                self.keep_substitute(output);
                Err(AgentError::TurnSubstituted)
            }
        }
    }

    /// The agentic loop: turns until the model answers without tool calls, whose text is parsed
    /// into `OUT`.
    pub(crate) async fn agentic(
        self: &Arc<Self>,
        skill: &str,
        allowed: &[String],
        instructions: Option<&str>,
        input: String,
    ) -> Result<OUT, AgentError>
    where
        OUT: serde::de::DeserializeOwned,
    {
        let mut messages = Vec::new();
        if let Some(prompt) = &self.core.system_prompt {
            messages.push(Message::system(prompt.clone()));
        }
        if let Some(instructions) = instructions {
            messages.push(Message::system(instructions));
        }
        messages.push(Message::user(input));
        let mut request = ChatRequest {
            messages,
            tools: allowed
                .iter()
                .filter_map(|name| self.core.tool(name))
                .map(|tool| tool.spec().clone())
                .collect(),
            response_format: self.core.output.schema.clone(),
        };
        let mut repairs = 0;
        loop {
            let response = match self.turn(&mut request).await? {
                Turn::Substituted(output) => return Ok(output),
                Turn::Answered(response) => response,
            };
            if response.tool_calls.is_empty() {
                let (raw, reason) = match self.core.output.parse(response.content) {
                    Ok(output) => return Ok(output),
                    Err(AgentError::Output { raw, reason, .. })
                        if repairs < self.core.budget.max_output_repairs =>
                    {
                        (raw, reason)
                    }
                    Err(error) => return Err(error),
                };
                // Ask once more, telling the model why its answer did not fit.
                repairs += 1;
                tracing::warn!(repair = repairs, %reason, "the final answer does not fit the output type; asking the model to repair it");
                let repair = self.core.output.repair_request(&reason);
                request.messages.push(Message::assistant(raw, Vec::new()));
                request.messages.push(Message::user(repair));
                continue;
            }
            // The calls move into the history once; the answers follow them in call order.
            let assistant = Message::assistant(response.content, response.tool_calls);
            let answers = self
                .dispatch_all(skill, allowed, &assistant.tool_calls)
                .await?;
            request.messages.push(assistant);
            request.messages.extend(answers);
        }
    }
}
