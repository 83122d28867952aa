//! The one chain runner and the one guard. Every interception point (skill, turn, tool call,
//! after tool call) on every path (run, session, code skill, MCP) calls [`guard`], which runs the
//! interceptors and then the gates through [`run_chain`]; nothing else implements the chain rules.
//!
//! Why this module is public: the rules are the product, so they can be read and tested on their
//! own ([`run_chain`] and [`guard`] have examples, and a property test holds them to a reference
//! model), and code that adds a guarded step of its own — an executor outside the agent loop, an
//! approval queue — can put it behind exactly the same rules instead of re-implementing them.
//! [`ChainOutcome`], [`Effect`] and [`ChainDecision`] are what they return.
//!
//! It is also where interception's own names live — [`Decision`], [`Interceptor`], [`Gate`],
//! [`Verdict`], [`InterceptContext`] — which the crate root re-exports for a first program.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;

pub(crate) mod context;
pub(crate) mod decision;
pub(crate) mod gate;
pub(crate) mod interceptor;
mod link;
mod links;
mod outcome;

pub use context::{Extensions, InterceptContext, ParentCall};
pub use decision::{Decision, DecisionKind};
pub use gate::{Gate, GateReturn, Gated, IntoGate, IntoVerdict, Verdict};
pub use interceptor::{
    FnInterceptor, Intercepted, Interceptor, InterceptorReturn, IntoDecision, IntoInterceptor,
    markers,
};
pub use link::{AllowReport, ChainOptions, GuardOptions, Link};
pub use links::{Joined, Links, RenameLast, StaticLink, Then, Waiting};
pub use outcome::{ChainDecision, ChainOutcome, Effect, GateOwner};

use crate::DecisionStage;

/// Run `links` over `value` in order and return the effective decision.
///
/// The rules, matched exactly by every interception point:
/// 1. every interceptor runs (all observe), even after a decision has been taken;
/// 2. the first non-`Proceed` decision is the effective one; later ones never override it;
/// 3. when the effective decision is `ProceedWith(x)`, later interceptors observe `x`;
/// 4. a panicking interceptor counts as `Deny(<panic message>)`, one that has not decided within
///    `options.timeout` as `Deny("interceptor '<name>' timed out after <duration>")` (and one
///    returning `Err(e)` was already turned into `Deny(e.to_string())` by its adapter): a fault
///    never lets the guarded thing run unless an earlier decision was already effective — use a
///    gate for a check that must always win.
///
/// `links` is any [`Links`]: a slice of [`Link`]s known at run time, a compile-time [`Then`]
/// list, or the two [`Joined`]; the rules above are this one function's for all of them.
///
/// ```
/// use std::sync::Arc;
/// use agents_kt::chain::{ChainOptions, Effect, Link, run_chain};
/// use agents_kt::{Decision, Extensions, FnInterceptor, InterceptContext, RunIds};
///
/// let chain: Vec<Link<u32, &str>> = vec![
///     Link::new(Arc::new(FnInterceptor::<_, u32, _>::new(|_: &u32| Decision::<u32, &str>::Proceed))),
///     Link::new(Arc::new(FnInterceptor::<_, u32, _>::new(|v: &u32| Decision::<u32, &str>::ProceedWith(v + 1)))),
///     Link::new(Arc::new(FnInterceptor::<_, u32, _>::new(|_: &u32| Decision::<u32, &str>::deny("too late")))),
/// ];
/// let (ids, extensions) = (RunIds::default(), Extensions::new());
/// let ctx = InterceptContext::detached(&ids, &extensions);
/// let outcome = futures::executor::block_on(run_chain(&chain, 41, &ctx, ChainOptions::default()));
/// assert_eq!(outcome.value, 42);
/// assert_eq!(outcome.effect, Effect::ProceedWith);
/// assert_eq!(outcome.decisions.len(), 2);
/// ```
pub fn run_chain<'a, T, R, L>(
    links: L,
    value: T,
    ctx: &'a InterceptContext<'a>,
    options: ChainOptions,
) -> ChainRun<'a, T, R>
where
    L: Links<'a, T, R>,
    T: Send + 'a,
    R: Send + 'a,
{
    let mut chain = Running::new(value, &options);
    let Some(Waiting { index, pending }) = links.ask_ready(0, &mut chain, ctx) else {
        return ChainRun::now(chain.finish(links));
    };
    // The first interceptor that awaits moves the rest of the chain into a future: only
    // asynchronous chains pay for one.
    ChainRun::later(Box::pin(async move {
        let decision = settle(pending, links.name(index), index, options.timeout, ctx).await;
        chain.note(index, links.name(index), decision);
        for index in index + 1..links.len() {
            let decision = match caught(
                || links.ask(index, &chain.value, ctx),
                links.name(index),
                index,
            ) {
                Asked::Now(decision) => Ok(decision),
                Asked::Panicked(message) => Err(message),
                Asked::Later(pending) => {
                    settle(pending, links.name(index), index, options.timeout, ctx).await
                }
            };
            chain.note(index, links.name(index), decision);
        }
        chain.finish(links)
    }))
}

/// An interceptor's answer, a panic while deciding already turned into a `Deny` (rule 4).
#[doc(hidden)]
pub enum Asked<'a, T, R> {
    Now(Decision<T, R>),
    /// It panicked, with this text (logged with its name already).
    Panicked(String),
    Later(BoxFuture<'a, Decision<T, R>>),
}

/// Ask interceptor number `index`, called `name`, a panic caught.
#[inline(always)]
fn caught<'a, T, R>(
    ask: impl FnOnce() -> Intercepted<'a, T, R>,
    name: Option<&str>,
    index: usize,
) -> Asked<'a, T, R> {
    match catch_unwind(AssertUnwindSafe(ask)) {
        Ok(Intercepted::Ready(decision)) => Asked::Now(decision),
        Ok(Intercepted::Pending(future)) => Asked::Later(future),
        Err(payload) => Asked::Panicked(panicked(payload.as_ref(), name, index)),
    }
}

/// A panicking interceptor's text (its `Deny` reason, the seed's rule), logged with the
/// interceptor's name — its decision, in events and traces, carries the name too.
#[cold]
fn panicked(payload: &(dyn Any + Send), name: Option<&str>, index: usize) -> String {
    let message = panic_message(payload);
    tracing::error!(
        interceptor = %label(name, index),
        panic = %message,
        "an interceptor panicked; its decision is Deny"
    );
    message
}

/// Await an interceptor's decision: a panic while awaiting is a `Deny` (`Err`: its text), and so
/// is no decision within `timeout` — time spent waiting for a human's approval aside (the limit
/// starts again once the approval is answered).
async fn settle<T, R>(
    pending: BoxFuture<'_, Decision<T, R>>,
    name: Option<&str>,
    index: usize,
    timeout: Option<Duration>,
    ctx: &InterceptContext<'_>,
) -> Result<Decision<T, R>, String> {
    let mut decided = std::pin::pin!(AssertUnwindSafe(pending).catch_unwind());
    let decided = match timeout {
        None => decided.await,
        Some(limit) => loop {
            match tokio::time::timeout(limit, decided.as_mut()).await {
                Ok(decided) => break decided,
                Err(_) if ctx.awaiting_approval() => continue,
                Err(_) => {
                    break Ok(Decision::Deny(format!(
                        "interceptor '{}' timed out after {limit:?}",
                        label(name, index)
                    )));
                }
            }
        },
    };
    decided.map_err(|payload| panicked(payload.as_ref(), name, index))
}

/// A chain's outcome: ready at once when every interceptor answered synchronously (no future
/// state, no allocation), else a boxed future finishing the chain.
#[must_use = "a chain's outcome must be awaited"]
pub struct ChainRun<'a, T, R> {
    state: RunState<'a, T, R>,
}

enum RunState<'a, T, R> {
    Now(Option<ChainOutcome<T, R>>),
    Later(BoxFuture<'a, ChainOutcome<T, R>>),
}

impl<'a, T, R> ChainRun<'a, T, R> {
    fn now(outcome: ChainOutcome<T, R>) -> Self {
        ChainRun {
            state: RunState::Now(Some(outcome)),
        }
    }

    fn later(future: BoxFuture<'a, ChainOutcome<T, R>>) -> Self {
        ChainRun {
            state: RunState::Later(future),
        }
    }

    /// The outcome when every interceptor and gate answered at once; otherwise the run itself,
    /// to be awaited. Lets a caller decide synchronously what a synchronous chain decided,
    /// without a future around it.
    #[inline]
    pub(crate) fn ready(self) -> Result<ChainOutcome<T, R>, Self> {
        match self.state {
            RunState::Now(Some(outcome)) => Ok(outcome),
            state => Err(ChainRun { state }),
        }
    }
}

// Nothing inside is ever pinned in place: the outcome is only moved out.
impl<T, R> Unpin for ChainRun<'_, T, R> {}

impl<T, R> Future for ChainRun<'_, T, R> {
    type Output = ChainOutcome<T, R>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.get_mut().state {
            RunState::Now(outcome) => match outcome.take() {
                Some(outcome) => Poll::Ready(outcome),
                None => panic!("a chain's outcome was polled after it was taken"),
            },
            RunState::Later(future) => future.as_mut().poll(cx),
        }
    }
}

/// The one guard of every interception point: the interceptor chain, then — only when the guarded
/// thing would run — every gate on the final value. A gate's `Deny` overrides the chain's
/// `Proceed` or `ProceedWith`; nothing overrides a chain's `Deny` or `Substitute`. Synchronous
/// chains and gates are decided at once, without a future of their own.
///
/// ```
/// use std::sync::Arc;
/// use agents_kt::chain::{Effect, Link, guard};
/// use agents_kt::{Decision, Extensions, FnInterceptor, IntoGate, InterceptContext, RunIds, Verdict};
///
/// let rewrite: Vec<Link<String, ()>> = vec![Link::new(Arc::new(FnInterceptor::<_, str, _>::new(
///     |path: &str| Decision::<String, ()>::ProceedWith(path.replace("~", "/etc")),
/// )))];
/// let gates: Vec<Link<String, ()>> = vec![Link::gate(IntoGate::<String, str, _>::into_gate(
///     |path: &str| if path.starts_with("/etc") { Verdict::deny("system path") } else { Verdict::Allow },
/// ))];
/// let (ids, extensions) = (RunIds::default(), Extensions::new());
/// let ctx = InterceptContext::detached(&ids, &extensions);
/// let timeout = std::time::Duration::from_secs(60);
/// let outcome = futures::executor::block_on(guard(&rewrite, &gates, "~/passwd".to_string(), &ctx, timeout));
/// assert_eq!(outcome.effect, Effect::Deny("system path".into()));
/// ```
#[inline]
pub fn guard<'a, T, R, C, G>(
    chain: C,
    gates: G,
    value: T,
    ctx: &'a InterceptContext<'a>,
    options: impl Into<GuardOptions>,
) -> ChainRun<'a, T, R>
where
    C: Links<'a, T, R>,
    G: Links<'a, T, R>,
    T: Send + 'a,
    R: Send + 'a,
{
    if chain.is_empty() && gates.is_empty() {
        // Nothing to ask.
        return ChainRun::now(ChainOutcome {
            value,
            effect: Effect::Proceed,
            decisions: Vec::new(),
        });
    }
    let GuardOptions {
        timeout,
        gate_allowed,
        hide_panics,
    } = options.into();
    let options = ChainOptions {
        stage: DecisionStage::Interceptor,
        timeout: Some(timeout),
        on_allow: None,
        hide_panics,
    };
    let gate_options = ChainOptions {
        stage: DecisionStage::Gate,
        on_allow: gate_allowed,
        ..options
    };
    match run_chain(chain, value, ctx, options).state {
        RunState::Now(Some(outcome)) => then_gates(outcome, gates, ctx, gate_options),
        RunState::Later(outcome) => ChainRun::later(Box::pin(async move {
            then_gates(outcome.await, gates, ctx, gate_options).await
        })),
        RunState::Now(None) => unreachable!("a fresh chain run holds its outcome"),
    }
}

/// The gates' verdicts on the chain's `outcome`, when the guarded thing would run.
fn then_gates<'a, T, R, G>(
    outcome: ChainOutcome<T, R>,
    gates: G,
    ctx: &'a InterceptContext<'a>,
    options: ChainOptions,
) -> ChainRun<'a, T, R>
where
    G: Links<'a, T, R>,
    T: Send + 'a,
    R: Send + 'a,
{
    if !would_gate(&outcome, gates.len()) {
        return ChainRun::now(outcome);
    }
    let ChainOutcome {
        value,
        effect,
        decisions,
    } = outcome;
    match run_chain(gates, value, ctx, options).state {
        RunState::Now(Some(gated)) => ChainRun::now(gated_by(effect, decisions, gated)),
        RunState::Later(gated) => {
            ChainRun::later(Box::pin(
                async move { gated_by(effect, decisions, gated.await) },
            ))
        }
        RunState::Now(None) => unreachable!("a fresh chain run holds its outcome"),
    }
}

/// Whether gates must judge: there are some, and the chain let the guarded thing run.
fn would_gate<T, R>(outcome: &ChainOutcome<T, R>, gates: usize) -> bool {
    gates > 0 && matches!(outcome.effect, Effect::Proceed | Effect::ProceedWith)
}

/// The chain's effect and decisions, followed by the gates': a gate's `Deny` wins.
fn gated_by<T, R>(
    effect: Effect<R>,
    mut decisions: Vec<ChainDecision>,
    gated: ChainOutcome<T, R>,
) -> ChainOutcome<T, R> {
    decisions.extend(gated.decisions);
    let effect = match gated.effect {
        Effect::Deny(reason) => Effect::Deny(reason),
        _ => effect,
    };
    ChainOutcome {
        value: gated.value,
        effect,
        decisions,
    }
}

/// A chain being run: the value the next interceptor observes, and what was decided so far.
#[doc(hidden)]
pub struct Running<T, R> {
    value: T,
    effect: Effect<R>,
    decisions: Vec<ChainDecision>,
    stage: DecisionStage,
    on_allow: Option<AllowReport>,
    hide_panics: bool,
}

impl<T, R> Running<T, R> {
    fn new(value: T, options: &ChainOptions) -> Self {
        Running {
            value,
            effect: Effect::Proceed,
            decisions: Vec::new(),
            stage: options.stage,
            on_allow: options.on_allow,
            hide_panics: options.hide_panics,
        }
    }

    /// Apply rules 1–3 to an answer of interceptor `index`, or hand back its future. Most answers
    /// are `Proceed`: matched where the answer lies, never moved; the recording is not inlined.
    #[inline(always)]
    fn step<'a>(
        &mut self,
        index: usize,
        name: Option<&str>,
        asked: Asked<'a, T, R>,
    ) -> Option<Waiting<'a, T, R>> {
        match asked {
            Asked::Now(Decision::Proceed) => {
                self.allowed(index, name);
                None
            }
            Asked::Now(decision) => {
                self.record(index, name, decision);
                None
            }
            Asked::Panicked(message) => {
                self.record_panic(index, name, message);
                None
            }
            Asked::Later(pending) => Some(Waiting { index, pending }),
        }
    }

    /// Apply rules 1–3 to the decision of interceptor `index` (`Err`: the panic it raised).
    #[inline(always)]
    fn note(&mut self, index: usize, name: Option<&str>, decision: Result<Decision<T, R>, String>) {
        match decision {
            Ok(Decision::Proceed) => self.allowed(index, name),
            Ok(decision) => self.record(index, name, decision),
            Err(message) => self.record_panic(index, name, message),
        }
    }

    /// A panicking link denies (rule 4) with its panic's text — or, with `hide_panics`, a fixed
    /// one, the panic's kept in its decision for events and traces.
    #[cold]
    #[inline(never)]
    fn record_panic(&mut self, index: usize, name: Option<&str>, message: String) {
        let first = matches!(self.effect, Effect::Proceed);
        let effective = note_decision(
            &mut self.decisions,
            first,
            self.stage,
            (index, name),
            DecisionKind::Deny,
            Some(&message),
        );
        if effective {
            let shown = match (self.hide_panics, self.stage) {
                (false, _) => message,
                (true, DecisionStage::Interceptor) => "an interceptor failed".to_string(),
                (true, DecisionStage::Gate) => "a gate failed".to_string(),
            };
            self.effect = Effect::Deny(shown);
        }
    }

    /// A `Proceed`: nothing to record, but whoever asked is told (a trace shows a gate's
    /// `Allow`).
    #[inline(always)]
    fn allowed(&self, index: usize, name: Option<&str>) {
        if let Some(report) = self.on_allow {
            report(index, name);
        }
    }

    #[inline(never)]
    fn record(&mut self, index: usize, name: Option<&str>, decision: Decision<T, R>) {
        let reason = match &decision {
            Decision::Deny(reason) => Some(reason.as_str()),
            _ => None,
        };
        let effective = note_decision(
            &mut self.decisions,
            matches!(self.effect, Effect::Proceed),
            self.stage,
            (index, name),
            decision.kind(),
            reason,
        );
        if effective {
            self.effect = match decision {
                Decision::Proceed => Effect::Proceed,
                Decision::ProceedWith(replacement) => {
                    self.value = replacement;
                    Effect::ProceedWith
                }
                Decision::Deny(reason) => Effect::Deny(reason),
                Decision::Substitute(result) => Effect::Substitute(result),
            };
        }
    }

    /// The outcome, each decision of an ancestor's link naming its owner (looked up only for
    /// the few decisions taken, not for every link asked).
    fn finish<'a>(self, links: impl Links<'a, T, R>) -> ChainOutcome<T, R> {
        let mut decisions = self.decisions;
        for decision in &mut decisions {
            if let Some(owner) = links.owner(decision.index) {
                decision.owner = Some(owner.clone());
            }
        }
        ChainOutcome {
            value: self.value,
            effect: self.effect,
            decisions,
        }
    }
}

/// Rules 1–2 and the report of one non-`Proceed` decision, for any chain's types (one copy of
/// this code, not one per tool): whether it is the effective one (`first`: nothing decided
/// before it), its entry in `decisions`, and a warning when a `Deny` is overridden. The caller
/// applies the effect, the only part that needs the chain's types.
fn note_decision(
    decisions: &mut Vec<ChainDecision>,
    first: bool,
    stage: DecisionStage,
    (index, name): (usize, Option<&str>),
    kind: DecisionKind,
    reason: Option<&str>,
) -> bool {
    let name = label(name, index);
    if !first && let Some(reason) = reason {
        // The seed's rule 2 at work: say so loudly, a user may have meant this Deny to win.
        let earlier = decisions.iter().find(|d| d.effective);
        tracing::warn!(
            interceptor = %name,
            reason = %reason,
            effective_interceptor = %earlier.map_or("", |d| d.name.as_str()),
            effective_decision = %earlier.map_or(DecisionKind::Proceed, |d| d.decision),
            "a Deny was overridden by an earlier decision (first non-Proceed wins); use a gate for a check that must always win"
        );
    }
    decisions.push(ChainDecision {
        index,
        name,
        stage,
        decision: kind,
        reason: reason.map(str::to_string),
        effective: first,
        owner: None,
    });
    first
}

/// How a link is reported: its name, else `#<index>`.
fn label(name: Option<&str>, index: usize) -> String {
    name.map_or_else(|| format!("#{index}"), str::to_string)
}

/// The text a panic was raised with, as Kotlin's `ex.message ?: ex.toString()`.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&'static str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        non_string_payload(payload)
    }
}

/// A panic payload that is not text, described by its type where it is one of the usual ones.
fn non_string_payload(payload: &(dyn Any + Send)) -> String {
    macro_rules! known {
        ($($ty:ty),*) => {
            $(if let Some(value) = payload.downcast_ref::<$ty>() {
                return format!("panicked with a {} payload: {value:?}", stringify!($ty));
            })*
        };
    }
    known!(
        i8,
        i16,
        i32,
        i64,
        i128,
        isize,
        u8,
        u16,
        u32,
        u64,
        u128,
        usize,
        f32,
        f64,
        bool,
        char,
        Box<str>,
        std::borrow::Cow<'static, str>,
        std::io::Error,
        crate::AgentError,
        crate::ToolError,
        serde_json::Value
    );
    if let Some(error) = payload.downcast_ref::<Box<dyn std::error::Error + Send + Sync>>() {
        return format!("panicked with an error payload: {error}");
    }
    "panicked with a payload of an unknown type (not a string)".to_string()
}
