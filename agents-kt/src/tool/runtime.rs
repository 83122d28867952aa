//! One registered tool with its guarded pipeline: parse → before chain → gates → execute (under
//! its timeout) → after chain, typed or from JSON.

use std::any::Any;
use std::future::Future;

use futures::FutureExt;
use futures::future::BoxFuture;

use super::call_future::{Body, CallFuture, Finish};
use super::chains::ToolChains;
use super::journaled::{JournaledBody, journaled_step, unreadable};
use super::record::{CallRecord, CallResult, CallSetup, Journaled, JsonOutput, Parts, ToolFailure};
use serde_json::Value;
use serde_json::error::Category;

use super::Tool;
use super::readers::Readers;
use super::registry::ToolKey;
use super::shared::SharedOutput;
use super::static_chain::{BoxedChain, ChainGuard};
use super::view::{Viewed, json};
use crate::approval::{ApprovalScope, RunApprovals};
use crate::chain::{ChainOutcome, ChainRun, Effect, GuardOptions};
use crate::{DecisionKind, InterceptContext, ToolSpec};
use std::sync::Arc;

/// How many times an approver's edit may send a call back through its guard.
const MAX_APPROVAL_EDITS: usize = 8;

/// A tool of one agent: the tool itself, what the model is told about it, and its chains — the
/// compile-time links (`#[agent]`'s, or a [`ToolChain`](crate::ToolChain) given to the builder),
/// then the ones registered on the builder.
pub(crate) struct ToolRuntime<T: Tool> {
    /// Shared, so a journaled execution can own it in a step that outlives this borrow.
    tool: Arc<T>,
    /// The name the model calls it by: `T::NAME` for a Rust tool, the server's (possibly
    /// prefixed) name for a remote one.
    name: Arc<str>,
    spec: ToolSpec,
    /// The compile-time links and the builder's, joined once at build.
    chain: Box<dyn ChainGuard<T>>,
    /// Whether a dynamic link reads the arguments as JSON (before or gate), or the output (after).
    json_args: bool,
    json_output: bool,
    /// Whether any after-tool interceptor is registered: without one, an output is final.
    has_after: bool,
    /// Whether any before-tool interceptor or gate is registered: without one (and nothing
    /// inherited, nobody to approve), a call is judged `Proceed` without running the guard.
    has_before: bool,
    /// How the tool's values are read from JSON, and the Rust type of the tool.
    readers: Readers<T>,
    /// Whether the tool runs an agent: no per-tool timeout (the agent's `max_duration` bounds
    /// it), and in a journaled run its steps are recorded one by one.
    runs_agent: bool,
}

impl<T: Tool> ToolRuntime<T> {
    pub(crate) fn new(tool: T, spec: ToolSpec, chains: ToolChains<T>) -> Self {
        Self::named(Arc::from(T::NAME), tool, spec, chains)
    }

    /// A tool whose name is known only at run time (a remote tool).
    pub(crate) fn named(name: Arc<str>, tool: T, spec: ToolSpec, chains: ToolChains<T>) -> Self {
        Self::chained(name, tool, spec, BoxedChain::empty(), chains)
    }

    /// A tool with compile-time links ahead of the builder's.
    pub(crate) fn chained(
        name: Arc<str>,
        tool: T,
        spec: ToolSpec,
        statics: BoxedChain<T>,
        chains: ToolChains<T>,
    ) -> Self {
        let (json_args, json_output) = (chains.json_args, chains.json_output);
        let chain = statics.join(chains);
        ToolRuntime {
            readers: tool.__readers(),
            runs_agent: tool.__runs_agent(),
            tool: Arc::new(tool),
            name,
            spec,
            has_after: chain.has_after(),
            has_before: chain.has_before(),
            chain,
            json_args,
            json_output,
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
        let inherited = match self.inherited(setup) {
            Ok(inherited) => inherited,
            Err(reason) => {
                let record = CallRecord::rejected(Value::Null, CallResult::Denied { reason });
                return CallFuture::Decided {
                    record: Some(record),
                };
            }
        };
        // Only a link can ask a human (through its context's approver), so a call with none —
        // of its own or inherited — has nothing to ask in a run with approvals either.
        let nothing_to_ask = !self.has_before && !self.json_args && inherited.is_none();
        let start = if nothing_to_ask {
            Start::Judged(self.unguarded(args, setup))
        } else {
            let value = self.viewed(args, raw, inherited);
            match setup.approvals {
                // A call that may wait for a human.
                Some(approvals) => {
                    Start::Guarding(Box::pin(self.guarded(value, approvals, setup, inherited)))
                }
                None => {
                    let guard = self.guard(value, &setup.intercept, setup.guard, inherited);
                    match guard.ready() {
                        Ok(outcome) => Start::Judged(self.judged(outcome, setup, inherited)),
                        Err(later) => Start::Guarding(Box::pin(later)),
                    }
                }
            }
        };
        let judged = match start {
            Start::Judged(judged) => judged,
            Start::Guarding(outcome) => {
                return CallFuture::Waiting {
                    future: Box::pin(async move {
                        let judged = self.judged(outcome.await, setup, inherited);
                        self.complete(judged, setup).await
                    }),
                };
            }
        };
        match judged {
            Judged::Done(record) => CallFuture::Decided {
                record: Some(record),
            },
            Judged::Run(args, parts) if !self.runs_agent && setup.journaled.is_none() => {
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

    /// A call with nothing to ask — no before-tool link of its own, none inherited (so nothing
    /// that could ask for approval either): the guard of an empty chain proceeds at once,
    /// decided by no one, so the call is judged so without running it. Kept out of line: the
    /// guarded path's code stays as small as it was.
    #[inline(never)]
    fn unguarded(&self, args: T::Args, setup: &CallSetup<'_>) -> Judged<T> {
        let parts = self.parts_to_run(&args, None, Vec::new(), DecisionKind::Proceed, setup, None);
        Judged::Run(args, parts)
    }

    /// The arguments as the guard's links see them: with their JSON when a dynamic link (the
    /// tool's own or an inherited one) reads it — the caller's own (`raw`) when given.
    #[inline]
    fn viewed(
        &self,
        args: T::Args,
        raw: Option<Value>,
        inherited: Option<&ToolChains<T>>,
    ) -> Viewed<T::Args> {
        let wants_json = self.json_args || inherited.is_some_and(|chains| chains.json_args);
        let json = wants_json.then(|| raw.unwrap_or_else(|| json(&args)));
        Viewed::new(args, json)
    }

    /// The before-tool guard: the tool's own links, and the ancestors' after them in a
    /// sub-agent's run.
    #[inline]
    fn guard<'a>(
        &'a self,
        value: Viewed<T::Args>,
        ctx: &'a InterceptContext<'a>,
        options: GuardOptions,
        inherited: Option<&'a ToolChains<T>>,
    ) -> ChainRun<'a, Viewed<T::Args>, T::Output> {
        match inherited {
            None => self.chain.before(value, ctx, options),
            Some(inherited) => self.chain.before_inherited(value, ctx, options, inherited),
        }
    }

    /// The links this call inherits from the runs above its run, joined for this tool; `None` in
    /// a run without ancestors' links (a run a caller started), an error — the call denied —
    /// when they cannot be found.
    #[inline]
    fn inherited<'a>(&self, setup: &CallSetup<'a>) -> Result<Option<&'a ToolChains<T>>, String> {
        match setup.inherited {
            None => Ok(None),
            Some(inherited) => inherited.chains(self.key()).map(Some),
        }
    }

    /// Which tool this is, as its chains are joined for it.
    pub(crate) fn key(&self) -> ToolKey<'_, T> {
        ToolKey {
            name: &self.name,
            readers: self.readers,
        }
    }

    /// Whether the arguments are wanted as JSON: a dynamic link of the tool's own, or an
    /// inherited one, reads them.
    fn wants_json_args(&self, setup: &CallSetup<'_>) -> bool {
        self.json_args
            || self
                .inherited(setup)
                .is_ok_and(|chains| chains.is_some_and(|chains| chains.json_args))
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
        inherited: Option<&ToolChains<T>>,
    ) -> Judged<T> {
        let ChainOutcome {
            value: Viewed { typed: args, json },
            effect,
            decisions,
        } = outcome;
        let (effect, kind) = match effect {
            Effect::Deny(reason) => {
                let args_json = self.args_json(&args, json, setup, inherited);
                let parts = Parts::new(args_json, decisions, (DecisionKind::Deny, false), false);
                return Judged::Done(parts.ended(CallResult::Denied { reason }, Vec::new()));
            }
            Effect::Substitute(output) => (Some(output), DecisionKind::Substitute),
            Effect::Proceed => (None, DecisionKind::Proceed),
            Effect::ProceedWith => (None, DecisionKind::ProceedWith),
        };
        match effect {
            Some(output) => {
                let mut parts = self.parts_to_run(&args, json, decisions, kind, setup, inherited);
                parts.substituted = true;
                Judged::Produced(output, parts)
            }
            None => {
                let parts = self.parts_to_run(&args, json, decisions, kind, setup, inherited);
                Judged::Run(args, parts)
            }
        }
    }

    /// The record's parts of a call that goes on (to its body, or a substitute): its arguments
    /// as JSON when someone reads them, the decisions that let it, and whether an after-tool
    /// interceptor is to see its output. The tool is now started (`ToolCallStarted`).
    #[inline(always)]
    fn parts_to_run(
        &self,
        args: &T::Args,
        json: Option<Value>,
        decisions: Vec<crate::chain::ChainDecision>,
        kind: DecisionKind,
        setup: &CallSetup<'_>,
        inherited: Option<&ToolChains<T>>,
    ) -> Parts {
        let has_after = self.has_after || inherited.is_some_and(|chains| !chains.after.is_empty());
        let args_json = self.args_json(args, json, setup, inherited);
        setup.tool_ctx.started(&self.name, &args_json);
        Parts::new(args_json, decisions, (kind, false), has_after)
    }

    /// The arguments as JSON for the record — the links' view (`json`) when they had one —
    /// serialized before the tool consumes them, and only when someone will read them (this
    /// replaces a clone on every call); `Null` otherwise.
    #[inline(always)]
    fn args_json(
        &self,
        args: &T::Args,
        json: Option<Value>,
        setup: &CallSetup<'_>,
        inherited: Option<&ToolChains<T>>,
    ) -> Value {
        let json_output = self.json_output || inherited.is_some_and(|chains| chains.json_output);
        if setup.report.args || json_output {
            json.unwrap_or_else(|| self::json(args))
        } else {
            Value::Null
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
            Ok(output) if !parts.has_after => {
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
        // Found at the guard, so found again.
        let inherited = self.inherited(setup).ok().flatten();
        let json_output = self.json_output || inherited.is_some_and(|chains| chains.json_output);
        let json = json_output.then(|| json(&output));
        // The after-tool links see the arguments the call ran with.
        let intercept = InterceptContext {
            args: Some(&parts.args_json),
            ..setup.intercept
        };
        let outcome = self
            .chain
            .after(
                Viewed::new(output, json),
                &intercept,
                setup.guard,
                inherited,
            )
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
        inherited: Option<&ToolChains<T>>,
    ) -> ChainOutcome<Viewed<T::Args>, T::Output> {
        let timeout = setup.guard;
        let scope = ApprovalScope::new(Arc::clone(approvals), &self.name);
        let intercept = InterceptContext {
            approvals: Some(&scope),
            ..setup.intercept
        };
        let mut value = value;
        let mut earlier = Vec::new();
        let mut edits = 0;
        loop {
            let mut outcome = self.guard(value, &intercept, timeout, inherited).await;
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
                Some(edit) => match self.readers.args(edit) {
                    Ok(typed) => {
                        edits += 1;
                        let wants_json =
                            self.json_args || inherited.is_some_and(|chains| chains.json_args);
                        value = Viewed::new(typed, wants_json.then(|| edit.clone()));
                        continue;
                    }
                    Err(error) => Some(format!(
                        "the approver's edit does not fit the arguments of tool '{}': {}",
                        self.name,
                        args_error(&error)
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
            Some(journaled) if self.runs_agent => {
                scoped = setup
                    .tool_ctx
                    .clone()
                    .with_journal_scope(Arc::clone(journaled.journal), journaled.step.clone());
                (&scoped, None)
            }
            Some(journaled) => return self.execute_journaled(args, setup, journaled).await,
            None if self.runs_agent => (setup.tool_ctx, None),
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
                .map(|output| SharedOutput::journaled_text(&output))
        }) as BoxFuture<'static, JournaledBody>;
        let output = journaled_step(journaled, body).await?;
        self.readers
            .output_from_text(output.get())
            .map_err(|error| unreadable(&journaled.step, error.to_string()))
    }
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

impl<T: Tool> Finish<T> for ToolRuntime<T> {
    #[inline]
    fn finished(
        &self,
        result: Result<T::Output, ToolFailure>,
        parts: Parts,
    ) -> Result<CallRecord<T::Output>, (T::Output, Parts)> {
        ToolRuntime::finished(self, result, parts)
    }

    fn after<'a>(
        &'a self,
        output: T::Output,
        parts: Parts,
        setup: &'a CallSetup<'a>,
    ) -> BoxFuture<'a, CallRecord<T::Output>> {
        Box::pin(ToolRuntime::after(self, output, parts, setup))
    }
}

/// A tool with its types erased, as the agent loop and the MCP server hold it.
pub(crate) trait ErasedTool: Send + Sync {
    fn name(&self) -> &str;
    fn spec(&self) -> &ToolSpec;
    /// Read `arguments` (once), guard and run the tool, and give the outcome
    /// as JSON, with the arguments and the output as `Value`s too as `setup.report` asks.
    fn call_json<'a>(
        &'a self,
        arguments: Arguments<'a>,
        setup: &'a CallSetup<'a>,
    ) -> BoxFuture<'a, CallRecord<JsonOutput>>;
    /// For code skills calling the tool with typed arguments.
    fn as_any(&self) -> &dyn Any;
    /// What the permission manifest says of the tool: its name, its arguments' schema (by
    /// hash), its links by name, and what it runs beyond itself.
    fn manifest(&self) -> Value;
}

impl<T: Tool> ErasedTool for ToolRuntime<T> {
    fn name(&self) -> &str {
        &self.name
    }

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call_json<'a>(
        &'a self,
        arguments: Arguments<'a>,
        setup: &'a CallSetup<'a>,
    ) -> BoxFuture<'a, CallRecord<JsonOutput>> {
        async move {
            let report = setup.report;
            let wants_json = self.wants_json_args(setup);
            // The common case reads the text straight into `T::Args`, nothing kept beside it.
            let readers = &self.readers;
            let parsed = match arguments {
                Arguments::Text(text) if !wants_json => readers
                    .args_from_text(or_empty(text))
                    .map(|args| (args, None))
                    .map_err(|error| (error, None)),
                _ => read_json_args(arguments, wants_json, readers),
            };
            let (args, raw) = match parsed {
                Ok(parsed) => parsed,
                Err((error, raw)) => {
                    let args = match (report.args, raw, arguments) {
                        (false, ..) => Value::Null,
                        (true, Some(raw), _) => raw,
                        (true, None, Arguments::Json(raw)) => raw.clone(),
                        (true, None, Arguments::Text(text)) => parse_or_text(text),
                    };
                    let reason = args_error(&error);
                    return CallRecord::rejected(args, CallResult::Invalid { reason });
                }
            };
            self.call(args, raw, setup).await.into_json(report.output).0
        }
        .boxed()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn manifest(&self) -> Value {
        let [interceptors, gates, after] = self.chain.link_names();
        let mut entry = serde_json::json!({
            "name": &*self.name,
            "arguments_schema_sha256": crate::approval::canonical_sha256(&self.spec.parameters),
            "interceptors": interceptors,
            "gates": gates,
            "after": after,
        });
        if let (Some(source), Value::Object(map)) = (self.tool.manifest_source(), &mut entry) {
            map.insert("runs".to_string(), source);
        }
        entry
    }
}

/// A call's arguments as the caller gave them: the model's (or an MCP client's) JSON text, or a
/// code skill's JSON value.
#[derive(Clone, Copy)]
pub(crate) enum Arguments<'a> {
    Text(&'a str),
    Json(&'a Value),
}

/// Arguments read, with the JSON value when it is kept; or why not, with the value when it was
/// read.
type ReadArgs<A> = Result<(A, Option<Value>), (serde_json::Error, Option<Value>)>;

/// The arguments read where a JSON value is wanted or given: the text into the JSON value
/// dynamic links see (unknown fields kept, returned when `keep_json`), and `T::Args` by the
/// tool's reader — from the text itself, read twice rather than through the value (see
/// `readers.rs`). On failure, the value when it was read.
fn read_json_args<T: Tool>(
    arguments: Arguments<'_>,
    keep_json: bool,
    readers: &Readers<T>,
) -> ReadArgs<T::Args> {
    match arguments {
        Arguments::Text(text) => {
            let text = or_empty(text);
            let raw: Value = serde_json::from_str(text).map_err(|error| (error, None))?;
            match readers.args_from_text(text) {
                Ok(args) => Ok((args, keep_json.then_some(raw))),
                Err(error) => Err((error, Some(raw))),
            }
        }
        Arguments::Json(raw) => readers
            .args(raw)
            .map(|args| (args, keep_json.then(|| raw.clone())))
            .map_err(|error| (error, None)),
    }
}

/// Empty argument text means "no arguments", as several providers send it.
#[inline]
fn or_empty(text: &str) -> &str {
    if text.trim().is_empty() { "{}" } else { text }
}

/// Why arguments did not fit, worded the same whichever way they were read: a wrong or missing
/// field is named by the error itself (its place in the text would only differ between the
/// two ways), a text that is not JSON keeps its place.
fn args_error(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let place = format!(" at line {} column {}", error.line(), error.column());
    match error.classify() {
        Category::Data => text.strip_suffix(&place).unwrap_or(&text).to_string(),
        _ => text,
    }
}

/// The model's argument text as JSON when it parses, as a string otherwise.
pub(crate) fn parse_or_text(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
}
