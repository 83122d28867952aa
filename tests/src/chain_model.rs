//! The five chain rules as a small reference model, and random chains' interceptors: what
//! `tests/chain_rules.rs` (proptest) and `fuzz/fuzz_targets/chain_rules.rs` (cargo fuzz, which
//! includes this file by path) hold the runner to. Depends on `agents_kt` and `tokio` only.

use std::sync::Arc;

use agents_kt::chain::{ChainDecision, Effect, Link};
use agents_kt::{Decision, DecisionKind, FnInterceptor};

/// What one interceptor of a random chain does.
#[derive(Clone, Debug)]
pub enum Step {
    /// `Proceed`.
    Proceed,
    /// `ProceedWith` this value.
    ProceedWith(i32),
    /// `Deny` with this reason.
    Deny(String),
    /// `Substitute` this result.
    Substitute(i32),
    /// Panic with this message.
    Panic(String),
    /// Return `Err` with this text.
    Err(String),
}

impl Step {
    /// The interceptor's answer (a panic for `Panic`).
    pub fn answer(&self) -> Result<Decision<i32, i32>, String> {
        match self {
            Step::Proceed => Ok(Decision::Proceed),
            Step::ProceedWith(x) => Ok(Decision::ProceedWith(*x)),
            Step::Deny(reason) => Ok(Decision::Deny(reason.clone())),
            Step::Substitute(x) => Ok(Decision::Substitute(*x)),
            Step::Panic(message) => panic!("{}", message.clone()),
            Step::Err(message) => Err(message.clone()),
        }
    }
}

/// The reference: what the rules say the chain must do.
pub fn reference(steps: &[Step], input: i32) -> (Vec<i32>, i32, Effect<i32>, Vec<ChainDecision>) {
    let (mut value, mut effect, mut seen, mut decisions) = (input, Effect::Proceed, vec![], vec![]);
    for (index, step) in steps.iter().enumerate() {
        seen.push(value);
        let (kind, reason) = match step {
            Step::Proceed => continue,
            Step::ProceedWith(_) => (DecisionKind::ProceedWith, None),
            Step::Substitute(_) => (DecisionKind::Substitute, None),
            Step::Deny(r) | Step::Panic(r) | Step::Err(r) => (DecisionKind::Deny, Some(r.clone())),
        };
        let effective = matches!(effect, Effect::Proceed);
        let decision = ChainDecision::new(index, kind).with_effective(effective);
        decisions.push(match &reason {
            Some(reason) => decision.with_reason(reason.clone()),
            None => decision,
        });
        if effective {
            effect = match step {
                Step::ProceedWith(x) => {
                    value = *x;
                    Effect::ProceedWith
                }
                Step::Substitute(x) => Effect::Substitute(*x),
                _ => Effect::Deny(reason.unwrap_or_default()),
            };
        }
    }
    (seen, value, effect, decisions)
}

/// A run-time link doing `step`, synchronously or after yielding once, telling `observe` the
/// value it saw.
pub fn interceptor(
    step: Step,
    asynchronous: bool,
    observe: impl Fn(i32) + Clone + Send + Sync + 'static,
) -> Link<i32, i32> {
    Link::new(if asynchronous {
        Arc::new(FnInterceptor::<_, i32, _>::new(move |value: &i32| {
            observe(*value);
            let step = step.clone();
            async move {
                tokio::task::yield_now().await;
                step.answer()
            }
        }))
    } else {
        Arc::new(FnInterceptor::<_, i32, _>::new(move |value: &i32| {
            observe(*value);
            step.answer()
        }))
    })
}
