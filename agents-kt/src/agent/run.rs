//! One run of an agent: its ids, budget, event sinks, and the one loop that serves both the chat
//! (`run`) and the stream (`session`) paths — they differ only in how the model is called and
//! whether events are emitted.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use futures::channel::mpsc::UnboundedSender;
use futures::{FutureExt, StreamExt};

mod model_step;

use super::Core;
use super::in_span::in_span;
use super::lineage::Lineage;
use super::step::Passed;
use super::step::Step;
use super::transcript::Transcript;
use crate::approval::{Channel, RunApprovals};
use crate::budget::BudgetTracker;
use crate::chain::GateOwner;
use crate::chain::panic_message;
use crate::journal::RunJournal;
use crate::ledger::CallLedger;
use crate::tool::context::ToolEvents;
use crate::tool::inherited::{Ancestor, Inherited};
use crate::tool::{ChildOf, ParentRun};
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
    /// Where the run's steps are recorded and replayed from, when it is journaled.
    journal: Option<Arc<RunJournal>>,
    /// Where its approvals go: the journal, else the agent's approval desk (or the nearest
    /// ancestor's), else nowhere.
    approvals: Option<Arc<RunApprovals>>,
    /// The approval desk its sub-agents ask when they have none of their own.
    desk: Option<crate::ApprovalDesk>,
    /// The tree's record of its tool calls (shared with the runs above and below), for call
    /// constraints.
    ledger: Arc<CallLedger>,
    /// Tool calls so far, for their step names (`tool#N:name`).
    tool_calls: AtomicU32,
    /// A code skill's tool calls so far, for their ids in a journaled run.
    code_calls: AtomicU32,
    /// The run whose tool call started this one, when this is a sub-agent's run.
    lineage: Option<Lineage>,
    /// An error a sub-agent ended this run with (a budget it exhausted is this run's too).
    ended: OnceLock<AgentError>,
    /// The conversation before this run's input (a handoff's, a remembered one).
    history: Vec<Message>,
    /// The conversation so far, kept only for an agent that can hand off (the receiving agent
    /// continues it).
    kept_for_handoff: Mutex<Vec<Message>>,
    /// Where the conversation is remembered, when the run continues one.
    memory: Option<crate::memory::Remembered>,
    /// The gates (and opted-in interceptors) of the runs above this one, when it is a
    /// sub-agent's run and some ancestor has links to pass down.
    inherited: Option<Inherited<OUT>>,
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
    pub journal: Option<Arc<RunJournal>>,
    /// The run whose tool call started this one (a sub-agent's run).
    pub lineage: Option<Lineage>,
    /// The conversation before the input.
    pub history: Vec<Message>,
    /// Links judging the run from above with no run of their own there: an MCP server's
    /// policies.
    pub above: Vec<Ancestor>,
    /// Where the conversation is remembered.
    pub memory: Option<crate::memory::Remembered>,
    /// Where the run's approvals go when the agent has no desk of its own (an A2A task's: its
    /// client answers them).
    pub desk: Option<crate::ApprovalDesk>,
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
        // The tree's manifest: the root's, which a sub-agent's run carries on.
        let manifest = match &caller.lineage {
            Some(lineage) => lineage.parent.ids().manifest.clone(),
            None => Some(core.manifest.shared_hash()),
        };
        let ids = RunIds { manifest, ..ids };
        let budget = Mutex::new(BudgetTracker::new(core.budget.clone()));
        let shared_ids = SharedIds {
            session_id: Arc::from(ids.session_id.as_str()),
            run_id: Arc::from(ids.run_id.as_str()),
        };
        // The agent's own desk (its operator's) first, then the caller's; a sub-agent without
        // either asks its parent's.
        let desk = core
            .approval_desk
            .clone()
            .or_else(|| caller.desk.clone())
            .or_else(|| {
                let lineage = caller.lineage.as_ref()?;
                lineage.parent.approval_desk()
            });
        let channel = match (&caller.journal, &desk) {
            (Some(journal), _) => Some(Channel::Journal(Arc::clone(journal))),
            (None, Some(desk)) => Some(Channel::Desk(desk.clone())),
            (None, None) => None,
        };
        let depth = caller.lineage.as_ref().map_or(0, |l| l.call.depth());
        let approvals =
            channel.map(|channel| Arc::new(RunApprovals::new(channel, &ids, &core.name, depth)));
        // The links of every run above (a parent's, and its own ancestors'), then those judging
        // from outside the tree (an MCP server's policies).
        let mut ancestors = match &caller.lineage {
            Some(lineage) => lineage.parent.ancestors(),
            None => Vec::new(),
        };
        ancestors.extend(caller.above.iter().cloned());
        let counts_calls = core.tree_links.counts_calls(&ancestors);
        let inherited = Inherited::new(ancestors, core.tools.len());
        let ledger: Arc<CallLedger> = match &caller.lineage {
            Some(lineage) => lineage.parent.ledger(),
            None => Arc::default(),
        };
        if counts_calls {
            ledger.watch();
        }
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
            journal: caller.journal,
            approvals,
            desk,
            ledger,
            tool_calls: AtomicU32::new(0),
            code_calls: AtomicU32::new(0),
            lineage: caller.lineage,
            ended: OnceLock::new(),
            history: caller.history,
            kept_for_handoff: Mutex::new(Vec::new()),
            memory: caller.memory,
            inherited,
        }
    }

    /// What this run inherits from the runs above it, if anything.
    pub(crate) fn inherited(&self) -> Option<&Inherited<OUT>> {
        self.inherited.as_ref()
    }

    /// How deep this run is: 0 for a run a caller started, 1 for its sub-agents, …
    pub(crate) fn depth(&self) -> u32 {
        self.lineage
            .as_ref()
            .map_or(0, |lineage| lineage.call.depth())
    }

    /// The tree's record of its tool calls.
    pub(crate) fn ledger(&self) -> &CallLedger {
        &self.ledger
    }

    /// Whether this run was started by another run's call (a sub-agent's, a handoff's, a
    /// `ctx.run_agent`'s).
    pub(crate) fn is_linked(&self) -> bool {
        self.lineage.is_some()
    }

    /// The error a sub-agent ended this run with, if one did; the call that started it returns
    /// it.
    pub(crate) fn ended(&self) -> Option<&AgentError> {
        self.ended.get()
    }

    /// Where the conversation is remembered, when the run continues one.
    pub(crate) fn memory(&self) -> Option<&crate::memory::Remembered> {
        self.memory.as_ref()
    }

    /// The id of a code skill's tool call: unique in the agent, and in a journaled run the same
    /// on every replay (its idempotency key depends on it).
    pub(crate) fn next_call_id(&self) -> String {
        if self.journal.is_some() {
            let number = self.code_calls.fetch_add(1, Ordering::Relaxed) + 1;
            return format!("code-call-{number}");
        }
        self.core.next_call_id()
    }

    /// The run's journal, when it is journaled.
    pub(crate) fn journal(&self) -> Option<&Arc<RunJournal>> {
        self.journal.as_ref()
    }

    /// Where the run's approvals go, if anywhere.
    pub(crate) fn approvals(&self) -> Option<&Arc<RunApprovals>> {
        self.approvals.as_ref()
    }

    /// The step name of the run's next tool call.
    pub(crate) fn next_tool_step(&self, tool: &str) -> String {
        let number = self.tool_calls.fetch_add(1, Ordering::Relaxed) + 1;
        crate::journal::step_name("tool", u64::from(number), Some(tool))
    }

    /// The MCP principal that started the run, if one did.
    pub(crate) fn client(&self) -> Option<&str> {
        self.client.as_deref()
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
            approvals: None,
            parent: self.lineage.as_ref().map(|lineage| &lineage.call),
            owner: None,
            ledger: Some(&self.ledger),
            ledger_call: 0,
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

    /// Spend budget through `step`, then fire any threshold observers newly crossed. A
    /// sub-agent's run spends from its parent's budget too (and so from every ancestor's): one
    /// budget for the whole tree.
    pub(crate) fn spend<T>(
        &self,
        step: impl Fn(&mut BudgetTracker) -> Result<T, AgentError>,
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
        let result = result?;
        if let Some(lineage) = &self.lineage {
            lineage
                .parent
                .spend_shared(&|budget| step(budget).map(drop))?;
        }
        Ok(result)
    }

    // The limits never change during a run: read them without the tracker's lock.
    pub(crate) fn tool_timeout(&self) -> std::time::Duration {
        self.core.budget.per_tool_timeout
    }

    pub(crate) fn max_tool_args_bytes(&self) -> usize {
        self.core.budget.max_tool_args_bytes
    }

    pub(crate) fn guard_options(&self) -> crate::chain::GuardOptions {
        super::trace::guard_options(self.core.budget.interceptor_timeout)
            .hide_panics(self.core.hide_interceptor_panics)
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
        self.spend(BudgetTracker::begin_turn)?;
        // The run's own turns: a sub-agent's turns count against this run's budget, but are not
        // this run's turns.
        let turn = self.turn.fetch_add(1, Ordering::Relaxed) + 1;
        let span = super::trace::chat(self.core.model_info.as_ref(), &self.ids, turn);
        in_span(span, async {
            let ctx = self.intercept_context(None, None);
            let links = self.turn_guards();
            let messages = std::mem::take(&mut request.messages);
            let passed = self
                .pass(InterceptionPoint::Turn, links, messages, &ctx, |_| {
                    format!("turn {turn}")
                })
                .await;
            // Recorded on the turn's span with what comes of it: one record, not two.
            let decision = passed.kind().as_str();
            match passed {
                Passed::Go { value, .. } => request.messages = value,
                Passed::Denied {
                    value,
                    target,
                    reason,
                } => {
                    request.messages = value;
                    let span = tracing::Span::current();
                    super::trace::not_executed(&span, decision);
                    super::trace::failed(&span, "denied", &reason);
                    return Err(AgentError::InterceptorDenied {
                        point: InterceptionPoint::Turn,
                        target,
                        reason,
                    });
                }
                Passed::Substituted {
                    value,
                    result: output,
                } => {
                    request.messages = value;
                    super::trace::not_executed(&tracing::Span::current(), decision);
                    return Ok(Turn::Substituted(output));
                }
            }
            self.report(Step::TurnStarted {
                turn,
                request: &*request,
            });
            let timer = super::model_timer::ModelTimer::start();
            let response = self.call_model(request).await;
            let elapsed = timer.elapsed();
            let response = match response {
                Ok(response) => response,
                Err(error) => {
                    self.report(Step::ModelFailed {
                        error: &error,
                        elapsed,
                        decision,
                    });
                    return Err(error);
                }
            };
            self.report(Step::TurnCompleted {
                turn,
                response: &response,
                elapsed,
                decision,
            });
            if let Some(usage) = response.usage {
                self.spend(|budget| budget.add_tokens(usage))?;
            }
            Ok(Turn::Answered(response))
        })
        .await
    }

    /// Call the model: whole on the chat path, streamed (emitting tokens) on the session path.
    /// A stream that breaks ends the turn with an error; nothing of its partial answer is used.
    /// A panic in the client — while calling, or while its stream is polled — ends the run with
    /// [`AgentError::Panicked`].
    async fn call_model(&self, request: &mut ChatRequest) -> Result<ChatResponse, AgentError> {
        let model = self.core.model.as_ref().ok_or_else(|| {
            AgentError::Model(ModelError::Other("the agent has no model".to_string()))
        })?;
        if let Some(journal) = &self.journal {
            // Boxed, so an unjournaled turn's future does not carry the journaled one's state.
            let response = Box::pin(self.call_model_journaled(journal, model, request)).await?;
            // Recorded whole, so told whole: the same event live and replayed.
            if self.is_session() && !response.content.is_empty() {
                self.report(Step::Token {
                    text: &response.content,
                });
            }
            return Ok(response);
        }
        if !self.is_session() {
            return chat_contained(model.as_ref(), request).await;
        }
        let panicked =
            |during: &str, payload: Box<dyn std::any::Any + Send>| AgentError::Panicked {
                during: during.to_string(),
                message: panic_message(payload.as_ref()),
            };
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
        let transcript =
            Transcript::new(self.memory(), &self.core.handoffs, &self.kept_for_handoff);
        let mut prelude = Vec::new();
        if let Some(prompt) = &self.core.system_prompt {
            prelude.push(Message::system(prompt.clone()));
        }
        if let Some(instructions) = instructions {
            prelude.push(Message::system(instructions));
        }
        let messages = transcript.opening(prelude, &self.history, input).await?;
        if self.memory().is_some() && self.ledger.is_watched() {
            super::earlier_calls::carry(&self.ledger, &messages);
        }
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
                transcript.answered(&response.content).await?;
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
                transcript.repair(&mut request.messages, raw, repair);
                continue;
            }
            // The calls move into the history once; the answers follow them in call order.
            let assistant = Message::assistant(response.content, response.tool_calls);
            // The receiving agent of a handoff continues this conversation.
            let hands_off = transcript.hands_off(&assistant, &request.messages);
            let answers = self
                .dispatch_all(skill, allowed, &assistant.tool_calls)
                .await?;
            // A handoff's output is the run's answer: remembered as the assistant's last word.
            let handed_off = match hands_off {
                true => transcript.handed_off(&assistant, &answers),
                false => None,
            };
            transcript.turn(&assistant, &answers, handed_off).await?;
            if let Some(output) = handed_off {
                return self.core.output.parse(output.to_string());
            }
            request.messages.push(assistant);
            request.messages.extend(answers);
        }
    }
}

/// The model's whole answer, a panic while calling it or while awaiting it contained as
/// [`AgentError::Panicked`].
async fn chat_contained(
    model: &dyn crate::ModelClient,
    request: &ChatRequest,
) -> Result<ChatResponse, AgentError> {
    let panicked = |payload: Box<dyn std::any::Any + Send>| AgentError::Panicked {
        during: "calling the model".to_string(),
        message: panic_message(payload.as_ref()),
    };
    let call = catch_unwind(AssertUnwindSafe(|| model.chat(request))).map_err(panicked)?;
    AssertUnwindSafe(call)
        .catch_unwind()
        .await
        .map_err(panicked)?
        .map_err(AgentError::from)
}

impl<OUT: Clone + Send + 'static> ParentRun for Run<OUT> {
    fn agent(&self) -> &str {
        &self.core.name
    }

    fn ids(&self) -> &RunIds {
        &self.ids
    }

    fn depth(&self) -> u32 {
        Run::depth(self)
    }

    fn approval_desk(&self) -> Option<crate::ApprovalDesk> {
        self.desk.clone()
    }

    fn ledger(&self) -> Arc<CallLedger> {
        Arc::clone(&self.ledger)
    }

    fn ancestors(&self) -> Vec<Ancestor> {
        let own = Ancestor {
            owner: Arc::new(GateOwner::new(self.core.name.as_str(), self.depth())),
            links: Arc::clone(&self.core.tree_links),
        };
        let above = self
            .inherited
            .iter()
            .flat_map(|inherited| inherited.ancestors());
        std::iter::once(own).chain(above.cloned()).collect()
    }

    fn max_depth(&self) -> u32 {
        match &self.lineage {
            Some(lineage) => lineage.max_depth,
            None => self.core.budget.max_agent_depth,
        }
    }

    fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    fn client(&self) -> Option<&str> {
        self.client.as_deref()
    }

    fn spend_shared(
        &self,
        step: &dyn Fn(&mut BudgetTracker) -> Result<(), AgentError>,
    ) -> Result<(), AgentError> {
        self.spend(step)
    }

    fn end_with(&self, error: AgentError) {
        // The first reason stands.
        let _ = self.ended.set(error);
    }

    fn is_session(&self) -> bool {
        Run::is_session(self)
    }

    fn emit_nested(&self, child: &ChildOf, event: AgentEvent<serde_json::Value>) {
        self.report(Step::SubAgent { child, event });
    }

    fn conversation(&self) -> Vec<Message> {
        self.kept_for_handoff
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}
