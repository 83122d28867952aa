//! The chain runner against a ten-line reference model of the five chain rules, over thousands of
//! random chains mixing Proceed / ProceedWith / Deny / Substitute / panic / Err, sync and async.

use std::sync::{Arc, Once};

use agents_kt::chain::{ChainDecision, ChainOptions, Effect, Link, run_chain};
use agents_kt::{
    Decision, DecisionKind, DecisionStage, Extensions, FnInterceptor, InterceptContext, RunIds,
};
use agents_kt_tests::Log;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Step {
    Proceed,
    ProceedWith(i32),
    Deny(String),
    Substitute(i32),
    Panic(String),
    Err(String),
}

impl Step {
    fn answer(&self) -> Result<Decision<i32, i32>, String> {
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
fn reference(steps: &[Step], input: i32) -> (Vec<i32>, i32, Effect<i32>, Vec<ChainDecision>) {
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
        decisions.push(ChainDecision {
            index,
            name: format!("#{index}"),
            stage: DecisionStage::Interceptor,
            decision: kind,
            reason: reason.clone(),
            effective,
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

fn interceptor(step: Step, asynchronous: bool, seen: Log<i32>) -> Link<i32, i32> {
    Link::new(if asynchronous {
        Arc::new(FnInterceptor::<_, i32, _>::new(move |value: &i32| {
            seen.push(*value);
            let step = step.clone();
            async move {
                tokio::task::yield_now().await;
                step.answer()
            }
        }))
    } else {
        Arc::new(FnInterceptor::<_, i32, _>::new(move |value: &i32| {
            seen.push(*value);
            step.answer()
        }))
    })
}

/// The chain over `input`, outside any run.
async fn chain_over(
    chain: &[Link<i32, i32>],
    input: i32,
) -> agents_kt::chain::ChainOutcome<i32, i32> {
    let (ids, extensions) = (RunIds::default(), Extensions::new());
    let ctx = InterceptContext::detached(&ids, &extensions);
    run_chain(chain, input, &ctx, ChainOptions::default()).await
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::Proceed),
        2 => (0..100i32).prop_map(Step::ProceedWith),
        1 => "[a-z]{1,6}".prop_map(|r| Step::Deny(format!("deny {r}"))),
        1 => (0..100i32).prop_map(Step::Substitute),
        1 => "[a-z]{1,6}".prop_map(|r| Step::Panic(format!("scripted panic {r}"))),
        1 => "[a-z]{1,6}".prop_map(|r| Step::Err(format!("err {r}"))),
    ]
}

/// Scripted panics are expected by the thousand; keep every other panic's report.
fn quiet_scripted_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let scripted = info
                .payload()
                .downcast_ref::<String>()
                .is_some_and(|m| m.starts_with("scripted panic"));
            if !scripted {
                default(info);
            }
        }));
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn chain_matches_the_reference_model(
        steps in prop::collection::vec((step(), any::<bool>()), 0..10),
        input in -100..0i32,
    ) {
        quiet_scripted_panics();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let seen = Log::new();
        let chain: Vec<_> = steps
            .iter()
            .map(|(step, asynchronous)| interceptor(step.clone(), *asynchronous, seen.clone()))
            .collect();
        let outcome = runtime.block_on(chain_over(&chain, input));
        let plain: Vec<Step> = steps.iter().map(|(s, _)| s.clone()).collect();
        let (expected_seen, value, effect, decisions) = reference(&plain, input);
        prop_assert_eq!(seen.entries(), expected_seen);
        prop_assert_eq!(outcome.value, value);
        prop_assert_eq!(outcome.effect, effect);
        prop_assert_eq!(outcome.decisions, decisions);
    }
}

fn run(steps: &[Step]) -> (Vec<i32>, agents_kt::chain::ChainOutcome<i32, i32>) {
    quiet_scripted_panics();
    let seen = Log::new();
    let chain: Vec<_> = steps
        .iter()
        .map(|s| interceptor(s.clone(), false, seen.clone()))
        .collect();
    let outcome = futures::executor::block_on(chain_over(&chain, 0));
    (seen.entries(), outcome)
}

#[test]
fn every_interceptor_observes_even_after_a_deny() {
    let (seen, outcome) = run(&[Step::Deny("no".into()), Step::Proceed, Step::Substitute(5)]);
    assert_eq!(seen.len(), 3);
    assert_eq!(outcome.effect, Effect::Deny("no".into()));
    assert_eq!(outcome.decisions.len(), 2);
    assert!(!outcome.decisions[1].effective);
}

#[test]
fn first_deny_beats_a_later_substitute() {
    let (_, outcome) = run(&[
        Step::Proceed,
        Step::Deny("first".into()),
        Step::Substitute(9),
    ]);
    assert_eq!(outcome.effect, Effect::Deny("first".into()));
}

#[test]
fn earlier_proceed_with_beats_a_later_deny_and_later_ones_observe_the_replacement() {
    let (seen, outcome) = run(&[
        Step::ProceedWith(7),
        Step::Deny("late".into()),
        Step::ProceedWith(8),
    ]);
    assert_eq!(seen, vec![0, 7, 7]);
    assert_eq!(outcome.effect, Effect::ProceedWith);
    assert_eq!(
        outcome.value, 7,
        "a later, non-effective ProceedWith changes nothing"
    );
}

#[test]
fn a_panic_becomes_deny_with_the_panic_message() {
    let (_, outcome) = run(&[Step::Panic("scripted panic boom".into())]);
    assert_eq!(outcome.effect, Effect::Deny("scripted panic boom".into()));
}

#[test]
fn an_err_becomes_deny_with_its_text() {
    let (_, outcome) = run(&[Step::Err("backend down".into())]);
    assert_eq!(outcome.effect, Effect::Deny("backend down".into()));
}

#[test]
fn an_empty_chain_proceeds_with_the_value_unchanged() {
    let (_, outcome) = run(&[]);
    assert_eq!(outcome.effect, Effect::Proceed);
    assert_eq!(outcome.value, 0);
    assert!(outcome.decisions.is_empty());
}
