//! The one chain runner. Every interception point (skill, turn, tool call) on every path (run,
//! session, code skill, MCP) calls [`run_chain`]; nothing else implements the chain rules.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use futures::FutureExt;

use crate::{Decision, DecisionKind, Intercepted, Interceptor};

/// What a chain of interceptors decided about a value.
#[derive(Debug)]
pub struct ChainOutcome<T, R> {
    /// The value after the chain: the replacement if the effective decision was `ProceedWith`,
    /// the original otherwise.
    pub value: T,
    /// The effective decision: the first one that was not `Proceed`.
    pub effect: Effect<R>,
    /// Every non-`Proceed` decision, effective or not, in chain order.
    pub decisions: Vec<ChainDecision>,
}

/// The effective decision of a chain, with the replacement already moved into
/// [`ChainOutcome::value`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect<R> {
    /// Every interceptor proceeded.
    Proceed,
    /// An interceptor replaced the value; it is in [`ChainOutcome::value`].
    ProceedWith,
    /// An interceptor denied, for this reason.
    Deny(String),
    /// An interceptor short-circuited with this result.
    Substitute(R),
}

/// One non-`Proceed` decision taken in a chain, as reported to observers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainDecision {
    /// Position of the interceptor in the chain (registration order), from 0.
    pub index: usize,
    /// What it decided.
    pub decision: DecisionKind,
    /// The reason, for a `Deny`.
    pub reason: Option<String>,
    /// Whether this decision was the effective one.
    pub effective: bool,
}

/// Run `interceptors` over `value` in order and return the effective decision.
///
/// The rules, matched exactly by every interception point:
/// 1. every interceptor runs (all observe), even after a decision has been taken;
/// 2. the first non-`Proceed` decision is the effective one; later ones never override it;
/// 3. when the effective decision is `ProceedWith(x)`, later interceptors observe `x`;
/// 4. a panicking interceptor counts as `Deny(<panic message>)` (and an interceptor returning
///    `Err(e)` was already turned into `Deny(e.to_string())` by its adapter): a fault never lets the
///    guarded thing run unless an earlier decision was already effective.
///
/// ```
/// use std::sync::Arc;
/// use agents_kt::chain::{Effect, run_chain};
/// use agents_kt::{Decision, FnInterceptor, Interceptor};
///
/// let chain: Vec<Arc<dyn Interceptor<u32, &str>>> = vec![
///     Arc::new(FnInterceptor::<_, u32, _>::new(|_: &u32| Decision::<u32, &str>::Proceed)),
///     Arc::new(FnInterceptor::<_, u32, _>::new(|v: &u32| Decision::<u32, &str>::ProceedWith(v + 1))),
///     Arc::new(FnInterceptor::<_, u32, _>::new(|_: &u32| Decision::<u32, &str>::deny("too late"))),
/// ];
/// let outcome = futures::executor::block_on(run_chain(&chain, 41));
/// assert_eq!(outcome.value, 42);
/// assert_eq!(outcome.effect, Effect::ProceedWith);
/// assert_eq!(outcome.decisions.len(), 2);
/// ```
pub async fn run_chain<T, R, I>(interceptors: &[I], value: T) -> ChainOutcome<T, R>
where
    I: AsRef<dyn Interceptor<T, R>>,
{
    let mut chain = ChainState::new(value);
    for (index, interceptor) in interceptors.iter().enumerate() {
        // A panic, while deciding or while awaiting the decision, is a Deny (rule 4).
        let decision = {
            let value = &chain.value;
            match catch_unwind(AssertUnwindSafe(|| interceptor.as_ref().intercept(value))) {
                Ok(Intercepted::Ready(decision)) => decision,
                Ok(Intercepted::Pending(future)) => AssertUnwindSafe(future)
                    .catch_unwind()
                    .await
                    .unwrap_or_else(|payload| Decision::Deny(panic_message(payload.as_ref()))),
                Err(payload) => Decision::Deny(panic_message(payload.as_ref())),
            }
        };
        // Most decisions are `Proceed`: nothing to record, and no call to make.
        if !matches!(decision, Decision::Proceed) {
            chain.record(index, decision);
        }
    }
    chain.finish()
}

/// A chain being run: the value the next interceptor observes, and what was decided so far.
struct ChainState<T, R> {
    value: T,
    effect: Effect<R>,
    decisions: Vec<ChainDecision>,
}

impl<T, R> ChainState<T, R> {
    fn new(value: T) -> Self {
        ChainState {
            value,
            effect: Effect::Proceed,
            decisions: Vec::new(),
        }
    }

    /// Apply rules 1–3 to the decision of interceptor `index`.
    fn record(&mut self, index: usize, decision: Decision<T, R>) {
        let kind = decision.kind();
        if kind == DecisionKind::Proceed {
            return;
        }
        let effective = matches!(self.effect, Effect::Proceed);
        let reason = match &decision {
            Decision::Deny(reason) => Some(reason.clone()),
            _ => None,
        };
        self.decisions.push(ChainDecision {
            index,
            decision: kind,
            reason,
            effective,
        });
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

    fn finish(self) -> ChainOutcome<T, R> {
        ChainOutcome {
            value: self.value,
            effect: self.effect,
            decisions: self.decisions,
        }
    }
}

/// The text a panic was raised with, as Kotlin's `ex.message ?: ex.toString()`.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&'static str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "panicked with a non-string payload".to_string()
    }
}
