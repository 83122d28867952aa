//! One registered tool with its guarded pipeline: parse → before chain → gates → execute (under
//! its timeout) → after chain, typed or from JSON.

use std::any::Any;
use std::borrow::Cow;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;

use super::call_future::{Body, CallFuture};
use serde::Serialize;
use serde_json::Value;

use super::static_chain::BoxedChain;
use super::view::Viewed;
use super::{Tool, ToolContext};
use crate::approval::{ApprovalScope, RunApprovals};
use crate::chain::{ChainDecision, ChainOutcome, Effect, GuardOptions, Link};
use crate::journal::Journal;
use crate::{DecisionKind, InterceptContext, ToolSpec};
use std::sync::Arc;

/// How a tool call ended, before anyone is told.
#[derive(Debug)]
pub(crate) enum CallResult<O> {
    /// The arguments did not parse into the tool's `Args`; nothing ran.
    Invalid { reason: String },
    /// The tool ran (or a substitute stood in for it) and produced `output`, which passed the
    /// after-tool chain (possibly replaced by it).
    Completed { output: O, substituted: bool },
    /// An interceptor or gate denied the call; the tool did not run.
    Denied { reason: String },
    /// The tool ran (or was substituted), but an after-tool interceptor withheld its result.
    Withheld { reason: String },
    /// The tool body failed.
    Failed { failure: ToolFailure },
}

/// Why a tool body failed. Journaled as it is, so a replay fails the same way.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) enum ToolFailure {
    /// It returned an error.
    Error(String),
    /// It panicked.
    Panicked(String),
    /// It ran longer than the per-tool timeout.
    TimedOut(Duration),
    /// Serializing its output panicked: the run ends (a `Serialize` impl that panics is a bug in
    /// the program, not a result the model can act on).
    OutputPanicked(String),
    /// The run's journal could not give the call's result: the run ends.
    #[serde(skip)]
    Journal(crate::JournalError),
}

impl std::fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolFailure::Error(message) => f.write_str(message),
            ToolFailure::Panicked(message) => write!(f, "tool panicked: {message}"),
            ToolFailure::TimedOut(after) => write!(f, "tool timed out after {after:?}"),
            ToolFailure::OutputPanicked(message) => {
                write!(f, "serializing the tool's output panicked: {message}")
            }
            ToolFailure::Journal(error) => write!(f, "{error}"),
        }
    }
}

/// A finished call: the arguments it ran with, its result, and the decisions taken before and
/// after it.
#[derive(Debug)]
pub(crate) struct CallRecord<O> {
    /// The arguments after the chain (a `ProceedWith` replacement included) as JSON, when the call
    /// is reported; `Value::Null` when nobody will read them, so the hot path never builds them.
    pub args: Value,
    pub result: CallResult<O>,
    /// Decisions of the before-tool interceptors and the tool gates.
    pub before: Vec<ChainDecision>,
    /// Decisions of the after-tool interceptors.
    pub after: Vec<ChainDecision>,
    pub effect: DecisionKind,
}

impl<O> CallRecord<O> {
    fn rejected(args: Value, result: CallResult<O>) -> Self {
        CallRecord {
            args,
            result,
            before: Vec::new(),
            after: Vec::new(),
            effect: DecisionKind::Proceed,
        }
    }
}

/// Which parts of a call are wanted as JSON values besides the answer text: nothing on the hot
/// path; the arguments and the output when observers, `observe()` streams or a session listen;
/// the output alone for MCP structured content.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Report {
    pub args: bool,
    pub output: bool,
}

/// What a tool call needs from its run besides the arguments.
pub(crate) struct CallSetup<'a> {
    pub tool_ctx: &'a ToolContext,
    pub intercept: InterceptContext<'a>,
    /// How the guard runs: how long an undecided interceptor or gate may take, and whom to tell
    /// of a gate's `Allow`.
    pub guard: GuardOptions,
    /// How long the tool body may take (`None`: no limit).
    pub tool_timeout: Option<Duration>,
    pub report: Report,
    /// Where approvals asked in the guard go, if the run has somewhere.
    pub approvals: Option<&'a Arc<RunApprovals>>,
    /// The journal the execution is recorded in, and its step, in a journaled run.
    pub journaled: Option<Journaled<'a>>,
}

/// A tool execution as a journaled step.
pub(crate) struct Journaled<'a> {
    pub journal: &'a Arc<dyn Journal>,
    pub step: String,
}

/// How many times an approver's edit may send a call back through its guard.
const MAX_APPROVAL_EDITS: usize = 8;

/// A tool's output as its caller reads it: the text for the model (or an MCP client), and the
/// JSON value for observers, events and MCP structured content when one of them wants it.
#[derive(Debug)]
pub(crate) struct JsonOutput {
    pub text: String,
    pub value: Option<Value>,
    /// The output was a JSON string, so `text` is that string, not JSON.
    is_string: bool,
}

impl JsonOutput {
    /// Serialize `output` straight to text, in its own field order, and to a `Value` too only
    /// when someone reads one. The text is the same either way; a JSON string becomes its plain
    /// text, so the model reads `sunny`, not `"sunny"`.
    fn of<O: Serialize + 'static>(output: &O, value: bool) -> Result<Self, serde_json::Error> {
        if let Some(text) = (output as &dyn Any).downcast_ref::<String>() {
            let value = value.then(|| Value::String(text.clone()));
            return Ok(JsonOutput {
                text: text.clone(),
                value,
                is_string: true,
            });
        }
        let text = serde_json::to_string(output)?;
        let is_string = text.starts_with('"');
        let text = if is_string {
            serde_json::from_str::<String>(&text)?
        } else {
            text
        };
        let value = if value {
            Some(serde_json::to_value(output)?)
        } else {
            None
        };
        Ok(JsonOutput {
            text,
            value,
            is_string,
        })
    }

    /// An output that is already JSON (a dynamic substitute).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn of_value(value: Value) -> Self {
        match value {
            Value::String(text) => JsonOutput {
                value: Some(Value::String(text.clone())),
                text,
                is_string: true,
            },
            value => JsonOutput {
                text: value.to_string(),
                value: Some(value),
                is_string: false,
            },
        }
    }

    /// The output as JSON: the value when it was built, otherwise rebuilt from the text (a
    /// listener that arrived after the call began).
    pub(crate) fn value(&self) -> Cow<'_, Value> {
        match &self.value {
            Some(value) => Cow::Borrowed(value),
            None if self.is_string => Cow::Owned(Value::String(self.text.clone())),
            None => Cow::Owned(
                serde_json::from_str(&self.text)
                    .unwrap_or_else(|_| Value::String(self.text.clone())),
            ),
        }
    }
}

/// A tool's chains: typed links for it and dynamic ones for every tool, in registration order,
/// all seeing the value through a [`Viewed`] (typed, and as JSON for the dynamic ones).
pub(crate) struct ToolChains<T: Tool> {
    pub before: Vec<Link<Viewed<T::Args>, T::Output>>,
    pub gates: Vec<Link<Viewed<T::Args>, T::Output>>,
    pub after: Vec<Link<Viewed<T::Output>, T::Output>>,
    /// Whether a dynamic link reads the arguments as JSON (before or gate), or the output (after).
    pub json_args: bool,
    pub json_output: bool,
}

impl<T: Tool> Default for ToolChains<T> {
    fn default() -> Self {
        ToolChains {
            before: Vec::new(),
            gates: Vec::new(),
            after: Vec::new(),
            json_args: false,
            json_output: false,
        }
    }
}

/// A tool of one agent: the tool itself, what the model is told about it, and its chains — the
/// compile-time links (`#[agent]`'s, or a [`ToolChain`](crate::ToolChain) given to the builder),
/// then the ones registered on the builder.
pub(crate) struct ToolRuntime<T: Tool> {
    /// Shared, so a journaled execution can own it in a step that outlives this borrow.
    tool: Arc<T>,
    /// The name the model calls it by: `T::NAME` for a Rust tool, the server's (possibly
    /// prefixed) name for a remote one.
    name: &'static str,
    spec: ToolSpec,
    statics: BoxedChain<T>,
    chains: ToolChains<T>,
}

impl<T: Tool> ToolRuntime<T> {
    pub(crate) fn new(tool: T, spec: ToolSpec, chains: ToolChains<T>) -> Self {
        Self::named(T::NAME, tool, spec, chains)
    }

    /// A tool whose name is known only at run time (a remote tool).
    pub(crate) fn named(
        name: &'static str,
        tool: T,
        spec: ToolSpec,
        chains: ToolChains<T>,
    ) -> Self {
        Self::chained(name, tool, spec, BoxedChain::empty(), chains)
    }

    /// A tool with compile-time links ahead of the builder's.
    pub(crate) fn chained(
        name: &'static str,
        tool: T,
        spec: ToolSpec,
        statics: BoxedChain<T>,
        chains: ToolChains<T>,
    ) -> Self {
        ToolRuntime {
            tool: Arc::new(tool),
            name,
            spec,
            statics,
            chains,
        }
    }

    /// Guard the call (interceptors, then gates), run the tool unless denied or substituted, then
    /// pass its output through the after-tool chain. `raw` is the caller's own JSON for the
    /// arguments (unknown fields kept), shown to dynamic interceptors and gates; without it they
    /// see `args` serialized.
    ///
    /// Pay for what is used: a synchronous guard is decided before the returned future exists,
    /// so the future holds only the tool's body and what finishing the call needs; whatever may
    /// wait (an asynchronous interceptor, an approval, a journaled or sub-agent execution, an
    /// asynchronous after-tool interceptor) is boxed on its own and costs nothing to calls that
    /// do not take it.
    #[inline]
    pub(crate) fn call<'a>(
        &'a self,
        args: T::Args,
        raw: Option<Value>,
        setup: &'a CallSetup<'a>,
    ) -> impl Future<Output = CallRecord<T::Output>> + Send + 'a {
        let chains = &self.chains;
        let json = chains.json_args.then(|| raw.unwrap_or_else(|| json(&args)));
        let value = Viewed::new(args, json);
        let start = match setup.approvals {
            // A call that may wait for a human.
            Some(approvals) => Start::Guarding(Box::pin(self.guarded(value, approvals, setup))),
            None => {
                let guard = self
                    .statics
                    .0
                    .before(chains, value, &setup.intercept, setup.guard);
                match guard.ready() {
                    Ok(outcome) => Start::Judged(self.judged(outcome, setup)),
                    Err(later) => Start::Guarding(Box::pin(later)),
                }
            }
        };
        let judged = match start {
            Start::Judged(judged) => judged,
            Start::Guarding(outcome) => {
                return CallFuture::Waiting {
                    future: Box::pin(async move {
                        let judged = self.judged(outcome.await, setup);
                        self.complete(judged, setup).await
                    }),
                };
            }
        };
        match judged {
            Judged::Done(record) => CallFuture::Decided {
                record: Some(record),
            },
            Judged::Run(args, parts) if !T::RUNS_AGENT && setup.journaled.is_none() => {
                CallFuture::Running {
                    body: Body::new(self.tool.call(args, setup.tool_ctx), setup.tool_timeout),
                    parts: Some(parts),
                    runtime: self,
                    setup,
                    after: None,
                }
            }
            Judged::Produced(output, parts) => match self.finished(Ok(output), parts) {
                Ok(record) => CallFuture::Decided {
                    record: Some(record),
                },
                Err((output, parts)) => CallFuture::Waiting {
                    future: Box::pin(self.after(output, parts, setup)),
                },
            },
            judged => CallFuture::Waiting {
                future: Box::pin(self.complete(judged, setup)),
            },
        }
    }

    /// A call on its slow path, once its guard decided: the body run where it is not simply run
    /// (a sub-agent, a journaled step), then the after-tool chain.
    async fn complete(&self, judged: Judged<T>, setup: &CallSetup<'_>) -> CallRecord<T::Output> {
        let (result, parts) = match judged {
            Judged::Done(record) => return record,
            Judged::Produced(output, parts) => (Ok(output), parts),
            Judged::Run(args, parts) => (self.execute(args, setup).await, parts),
        };
        match self.finished(result, parts) {
            Ok(record) => record,
            Err((output, parts)) => self.after(output, parts, setup).await,
        }
    }

    /// What the guard's `outcome` means for the call: denied (done), substituted (an output to
    /// finish), or the body to run — with the arguments as JSON when someone will read them.
    #[inline]
    fn judged(
        &self,
        outcome: ChainOutcome<Viewed<T::Args>, T::Output>,
        setup: &CallSetup<'_>,
    ) -> Judged<T> {
        let ChainOutcome {
            value: Viewed { typed: args, json },
            effect,
            decisions,
        } = outcome;
        // Serialized before the tool consumes them, and only when someone will read them: this
        // replaces a clone on every call.
        let args_json = if setup.report.args || self.chains.json_output {
            json.unwrap_or_else(|| self::json(&args))
        } else {
            Value::Null
        };
        let (effect, kind) = match effect {
            Effect::Deny(reason) => {
                let parts = Parts::new(args_json, decisions, DecisionKind::Deny, false);
                return Judged::Done(parts.ended(CallResult::Denied { reason }, Vec::new()));
            }
            Effect::Substitute(output) => (Some(output), DecisionKind::Substitute),
            Effect::Proceed => (None, DecisionKind::Proceed),
            Effect::ProceedWith => (None, DecisionKind::ProceedWith),
        };
        setup.tool_ctx.started(self.name, &args_json);
        match effect {
            Some(output) => Judged::Produced(output, Parts::new(args_json, decisions, kind, true)),
            None => Judged::Run(args, Parts::new(args_json, decisions, kind, false)),
        }
    }

    /// The call's record once the body ran (or a substitute stood in for it), when nothing
    /// more is to be asked: a failure, or an output and no after-tool chain. Otherwise the output
    /// goes on to [`Self::after`].
    #[inline]
    pub(super) fn finished(
        &self,
        result: Result<T::Output, ToolFailure>,
        parts: Parts,
    ) -> Result<CallRecord<T::Output>, (T::Output, Parts)> {
        match result {
            Err(failure) => Ok(parts.ended(CallResult::Failed { failure }, Vec::new())),
            Ok(output) if self.chains.after.is_empty() && !self.statics.0.has_after() => {
                let substituted = parts.substituted;
                let result = CallResult::Completed {
                    output,
                    substituted,
                };
                Ok(parts.ended(result, Vec::new()))
            }
            Ok(output) => Err((output, parts)),
        }
    }

    /// The after-tool chain over a produced output: kept, replaced, or withheld.
    pub(super) async fn after(
        &self,
        output: T::Output,
        parts: Parts,
        setup: &CallSetup<'_>,
    ) -> CallRecord<T::Output> {
        let substituted = parts.substituted;
        let chains = &self.chains;
        let json = chains.json_output.then(|| json(&output));
        // The after-tool links see the arguments the call ran with.
        let intercept = InterceptContext {
            args: Some(&parts.args_json),
            ..setup.intercept
        };
        let outcome = self
            .statics
            .0
            .after(chains, Viewed::new(output, json), &intercept, setup.guard)
            .await;
        let result = match outcome.effect {
            Effect::Deny(reason) => CallResult::Withheld { reason },
            Effect::Substitute(output) => CallResult::Completed {
                output,
                substituted,
            },
            Effect::Proceed | Effect::ProceedWith => CallResult::Completed {
                output: outcome.value.typed,
                substituted,
            },
        };
        parts.ended(result, outcome.decisions)
    }

    /// The before-tool guard (interceptors, then gates) in a run with approvals: again on an
    /// approver's edit (whoever asked asks again, about the edited arguments), and closed when a
    /// later link changed the arguments after they were approved.
    async fn guarded(
        &self,
        value: Viewed<T::Args>,
        approvals: &Arc<RunApprovals>,
        setup: &CallSetup<'_>,
    ) -> ChainOutcome<Viewed<T::Args>, T::Output> {
        let timeout = setup.guard;
        let scope = ApprovalScope::new(Arc::clone(approvals), self.name);
        let intercept = InterceptContext {
            approvals: Some(&scope),
            ..setup.intercept
        };
        let mut value = value;
        let mut earlier = Vec::new();
        let mut edits = 0;
        loop {
            let mut outcome = self
                .statics
                .0
                .before(&self.chains, value, &intercept, timeout)
                .await;
            earlier.append(&mut outcome.decisions);
            let edit = scope.take_edit();
            let refusal = match &edit {
                None => {
                    let would_run = matches!(outcome.effect, Effect::Proceed | Effect::ProceedWith);
                    (would_run && scope.changed_after_approval(|| json(&outcome.value.typed)))
                        .then(|| "the arguments changed after they were approved; ask for approval in a gate, which sees the final arguments".to_string())
                }
                Some(_) if edits == MAX_APPROVAL_EDITS => Some(format!(
                    "the approver edited the arguments more than {MAX_APPROVAL_EDITS} times"
                )),
                Some(edit) => match serde_json::from_value::<T::Args>(edit.clone()) {
                    Ok(typed) => {
                        edits += 1;
                        value = Viewed::new(typed, self.chains.json_args.then(|| edit.clone()));
                        continue;
                    }
                    Err(error) => Some(format!(
                        "the approver's edit does not fit the arguments of tool '{}': {error}",
                        self.name
                    )),
                },
            };
            outcome.decisions = earlier;
            if let Some(reason) = refusal {
                outcome.effect = Effect::Deny(reason);
            }
            return outcome;
        }
    }

    /// The tool body where it is not simply run: a sub-agent's run, or — in a journaled run —
    /// its recorded result (the body runs only the first time, and a replay reads back its
    /// output or its failure).
    ///
    /// A tool that runs an agent has no per-tool timeout (the sub-agent's `max_duration` bounds
    /// it), and in a journaled run the sub-agent's steps are recorded inside this call's step
    /// rather than its result as one step — so a crash while the sub-agent waits resumes there.
    async fn execute(
        &self,
        args: T::Args,
        setup: &CallSetup<'_>,
    ) -> Result<T::Output, ToolFailure> {
        let scoped;
        let (ctx, timeout) = match &setup.journaled {
            Some(journaled) if T::RUNS_AGENT => {
                scoped = setup
                    .tool_ctx
                    .clone()
                    .with_journal_scope(Arc::clone(journaled.journal), journaled.step.clone());
                (&scoped, None)
            }
            Some(journaled) => return self.execute_journaled(args, setup, journaled).await,
            None if T::RUNS_AGENT => (setup.tool_ctx, None),
            None => (setup.tool_ctx, setup.tool_timeout),
        };
        Body::new(self.tool.call(args, ctx), timeout).await
    }

    /// The execution as a journaled step.
    async fn execute_journaled(
        &self,
        args: T::Args,
        setup: &CallSetup<'_>,
        journaled: &Journaled<'_>,
    ) -> Result<T::Output, ToolFailure> {
        let (tool, ctx, timeout) = (
            Arc::clone(&self.tool),
            setup.tool_ctx.clone(),
            setup.tool_timeout,
        );
        // Only running the body and converting its output are the tool's own; the step's
        // envelope, the journal and reading it back are one copy for every tool.
        let body = Box::pin(async move {
            Body::new(tool.call(args, &ctx), timeout)
                .await
                .map(|output| serde_json::to_value(&output))
        }) as BoxFuture<'static, JournaledBody>;
        let (step, output) = journaled_step(journaled, body).await?;
        serde_json::from_value(output).map_err(|error| unreadable(step, error.to_string()))
    }
}

/// What a journaled tool body produced: its output as JSON (or why it is not JSON), or its failure.
type JournaledBody = Result<Result<Value, serde_json::Error>, ToolFailure>;

/// A tool execution as the journaled step `journaled.step`: `body` runs only the first time, its
/// output or failure recorded; a replay reads them back. The step's name and the recorded output.
async fn journaled_step(
    journaled: &Journaled<'_>,
    body: BoxFuture<'static, JournaledBody>,
) -> Result<(String, Value), ToolFailure> {
    let step = journaled.step.clone();
    let work = {
        let step = step.clone();
        Box::pin(async move {
            let value = match body.await {
                Ok(Ok(output)) => serde_json::json!({ "output": output }),
                Ok(Err(error)) => serde_json::json!({ "failure": ToolFailure::Error(format!(
                    "the tool's output could not be journaled: {error}"
                )) }),
                Err(failure) => serde_json::json!({ "failure": failure }),
            };
            Ok(crate::journal_entry(&step, value))
        }) as BoxFuture<'static, Result<Value, String>>
    };
    let recorded = journaled
        .journal
        .step(&step, work)
        .await
        .map_err(ToolFailure::Journal)?;
    let mut value = crate::journal::read_entry(&step, recorded).map_err(ToolFailure::Journal)?;
    if let Some(failure) = value.get_mut("failure") {
        return Err(serde_json::from_value(failure.take())
            .unwrap_or_else(|error| unreadable(step, error.to_string())));
    }
    let output = value
        .get_mut("output")
        .map(Value::take)
        .unwrap_or(Value::Null);
    Ok((step, output))
}

/// A recorded step that does not read back as a tool's result.
fn unreadable(step: String, reason: String) -> ToolFailure {
    ToolFailure::Journal(crate::JournalError::Unreadable { step, reason })
}

/// How a call starts: its guard already decided (the common, synchronous case), or still
/// deciding in a boxed future.
enum Start<'a, T: Tool> {
    Judged(Judged<T>),
    Guarding(BoxFuture<'a, ChainOutcome<Viewed<T::Args>, T::Output>>),
}

/// What the guard decided, in the terms of the call.
enum Judged<T: Tool> {
    /// Denied: the record is final.
    Done(CallRecord<T::Output>),
    /// Substituted: this output stands in for the tool's.
    Produced(T::Output, Parts),
    /// Allowed: run the body with these arguments.
    Run(T::Args, Parts),
}

/// What a call's record keeps from its guard while the tool runs.
pub(crate) struct Parts {
    args_json: Value,
    decisions: Vec<ChainDecision>,
    effect: DecisionKind,
    substituted: bool,
}

impl Parts {
    fn new(
        args_json: Value,
        decisions: Vec<ChainDecision>,
        effect: DecisionKind,
        substituted: bool,
    ) -> Self {
        Parts {
            args_json,
            decisions,
            effect,
            substituted,
        }
    }

    /// The finished record.
    fn ended<O>(self, result: CallResult<O>, after: Vec<ChainDecision>) -> CallRecord<O> {
        CallRecord {
            args: self.args_json,
            result,
            before: self.decisions,
            after,
            effect: self.effect,
        }
    }
}

/// A tool with its types erased, as the agent loop and the MCP server hold it.
pub(crate) trait ErasedTool: Send + Sync {
    fn name(&self) -> &'static str;
    fn spec(&self) -> &ToolSpec;
    /// Parse `arguments` (the model's JSON text), guard and run the tool, and give the outcome
    /// as JSON, with the arguments and the output as `Value`s too as `setup.report` asks.
    fn call_json<'a>(
        &'a self,
        arguments: &'a str,
        setup: &'a CallSetup<'a>,
    ) -> BoxFuture<'a, CallRecord<JsonOutput>>;
    /// For code skills calling the tool with typed arguments.
    fn as_any(&self) -> &dyn Any;
    /// Whether the tool runs an agent ([`Tool::RUNS_AGENT`]).
    fn runs_agent(&self) -> bool;
}

impl<T: Tool> ErasedTool for ToolRuntime<T> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call_json<'a>(
        &'a self,
        arguments: &'a str,
        setup: &'a CallSetup<'a>,
    ) -> BoxFuture<'a, CallRecord<JsonOutput>> {
        async move {
            let report = setup.report;
            let args = match parse_args::<T::Args>(arguments) {
                Ok(args) => args,
                Err(reason) => {
                    let args = if report.args {
                        parse_or_text(arguments)
                    } else {
                        Value::Null
                    };
                    return CallRecord::rejected(args, CallResult::Invalid { reason });
                }
            };
            // Dynamic interceptors and gates see what the model sent, unknown fields kept.
            let raw = self.chains.json_args.then(|| parse_or_text(arguments));
            self.call(args, raw, setup).await.into_json(report.output).0
        }
        .boxed()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn runs_agent(&self) -> bool {
        T::RUNS_AGENT
    }
}

/// Parse a model's argument text; empty text means "no arguments", as several providers send it.
fn parse_args<A: serde::de::DeserializeOwned>(arguments: &str) -> Result<A, String> {
    let text = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    serde_json::from_str(text).map_err(|error| error.to_string())
}

/// The model's argument text as JSON when it parses, as a string otherwise.
pub(crate) fn parse_or_text(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
}

impl<O: Serialize + 'static> CallRecord<O> {
    /// The record with the output serialized for its caller, and the typed output itself (for a
    /// code skill) when the tool or a substitute produced one. An output that does not serialize turns the call into a
    /// failure, so the model is told rather than handed nothing.
    /// With `value`, the output is kept as a JSON value as well as text.
    pub(crate) fn into_json(self, value: bool) -> (CallRecord<JsonOutput>, Option<O>) {
        let CallRecord {
            args,
            result,
            before,
            after,
            effect,
        } = self;
        let (result, output) = match result {
            CallResult::Completed {
                output,
                substituted,
            } => match catch_unwind(AssertUnwindSafe(|| JsonOutput::of(&output, value))) {
                Err(payload) => (
                    CallResult::Failed {
                        failure: ToolFailure::OutputPanicked(crate::chain::panic_message(
                            payload.as_ref(),
                        )),
                    },
                    None,
                ),
                Ok(Ok(json)) => (
                    CallResult::Completed {
                        output: json,
                        substituted,
                    },
                    Some(output),
                ),
                // A code skill still gets its typed output: it never needed the JSON.
                Ok(Err(error)) => (
                    CallResult::Failed {
                        failure: ToolFailure::Error(format!(
                            "tool result could not be serialized to JSON: {error}"
                        )),
                    },
                    Some(output),
                ),
            },
            CallResult::Invalid { reason } => (CallResult::Invalid { reason }, None),
            CallResult::Denied { reason } => (CallResult::Denied { reason }, None),
            CallResult::Withheld { reason } => (CallResult::Withheld { reason }, None),
            CallResult::Failed { failure } => (CallResult::Failed { failure }, None),
        };
        let record = CallRecord {
            args,
            result,
            before,
            after,
            effect,
        };
        (record, output)
    }
}

/// Arguments or an output as JSON for observers and dynamic interceptors; they came from JSON (or
/// were built as Rust values), so a failure is reported in place rather than dropped.
pub(crate) fn json(value: &impl Serialize) -> Value {
    serde_json::to_value(value)
        .unwrap_or_else(|error| Value::String(format!("<not serializable as JSON: {error}>")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize)]
    enum Level {
        Calm,
    }

    #[derive(Serialize)]
    struct Reading {
        zone: &'static str,
        celsius: i32,
    }

    #[test]
    fn output_text_and_value_agree_whether_or_not_the_value_was_built() {
        let cases: [(JsonOutput, JsonOutput, &str, Value); 3] = [
            (
                JsonOutput::of(&"42".to_string(), true).unwrap(),
                JsonOutput::of(&"42".to_string(), false).unwrap(),
                "42",
                json!("42"),
            ),
            (
                JsonOutput::of(&Level::Calm, true).unwrap(),
                JsonOutput::of(&Level::Calm, false).unwrap(),
                "Calm",
                json!("Calm"),
            ),
            (
                JsonOutput::of(
                    &Reading {
                        zone: "n",
                        celsius: 4,
                    },
                    true,
                )
                .unwrap(),
                JsonOutput::of(
                    &Reading {
                        zone: "n",
                        celsius: 4,
                    },
                    false,
                )
                .unwrap(),
                r#"{"zone":"n","celsius":4}"#,
                json!({"zone": "n", "celsius": 4}),
            ),
        ];
        for (built, not_built, text, value) in cases {
            assert_eq!(built.text, text);
            assert_eq!(not_built.text, text);
            assert_eq!(*built.value(), value);
            assert_eq!(*not_built.value(), value);
        }
    }
}
