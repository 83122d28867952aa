//! The chain runner against a ten-line reference model of the five chain rules, over thousands of
//! random chains mixing Proceed / ProceedWith / Deny / Substitute / panic / Err, sync and async —
//! in each form the runner takes: links known at run time (`Vec<Link>`), a compile-time list
//! (`Then`, as `#[agent]` and `ToolChain` build), and a compile-time list followed by run-time
//! links (`Joined`, as an `#[agent]` tool with interceptors added to its builder).

use agents_kt::chain::{
    ChainOptions, ChainOutcome, Effect, Joined, Link, StaticLink, Then, run_chain,
};
use agents_kt::{Extensions, InterceptContext, Intercepted, Interceptor, IntoDecision, RunIds};
use agents_kt_tests::chain_model::{self, Step, reference};
use agents_kt_tests::{Log, quiet_scripted_panics};
use proptest::prelude::*;

fn interceptor(step: Step, asynchronous: bool, seen: Log<i32>) -> Link<i32, i32> {
    chain_model::interceptor(step, asynchronous, move |value| seen.push(value))
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

/// A scripted interceptor as a concrete type, for compile-time chains.
#[derive(Clone)]
struct Scripted {
    step: Step,
    asynchronous: bool,
    seen: Log<i32>,
}

impl Interceptor<i32, i32> for Scripted {
    fn intercept<'a>(&'a self, value: &i32, _: &InterceptContext<'_>) -> Intercepted<'a, i32, i32> {
        self.seen.push(*value);
        if self.asynchronous {
            let step = self.step.clone();
            Intercepted::Pending(Box::pin(async move {
                tokio::task::yield_now().await;
                step.answer().into_decision()
            }))
        } else {
            Intercepted::Ready(self.step.answer().into_decision())
        }
    }
}

/// Build the compile-time chain of the listed `scripted` links (by position) and run `$run` on it.
macro_rules! with_static_chain {
    ($scripted:expr, |$chain:ident| $run:expr; $($i:tt)*) => {{
        let $chain = ();
        $( let $chain = Then($chain, StaticLink::new($scripted[$i].clone())); )*
        $run
    }};
}

/// `scripted` as a compile-time chain of exactly its length (up to 9), followed by `rest` known
/// at run time, over `input`.
async fn static_then_dynamic(
    scripted: &[Scripted],
    rest: &[Link<i32, i32>],
    input: i32,
) -> ChainOutcome<i32, i32> {
    let (ids, extensions) = (RunIds::default(), Extensions::new());
    let ctx = InterceptContext::detached(&ids, &extensions);
    let options = ChainOptions::default();
    macro_rules! run {
        ($($i:tt)*) => {
            with_static_chain!(scripted, |chain| run_chain(Joined(&chain, rest), input, &ctx, options).await; $($i)*)
        };
    }
    match scripted.len() {
        0 => run!(),
        1 => run!(0),
        2 => run!(0 1),
        3 => run!(0 1 2),
        4 => run!(0 1 2 3),
        5 => run!(0 1 2 3 4),
        6 => run!(0 1 2 3 4 5),
        7 => run!(0 1 2 3 4 5 6),
        8 => run!(0 1 2 3 4 5 6 7),
        9 => run!(0 1 2 3 4 5 6 7 8),
        n => panic!("no compile-time chain of {n} links in this test"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The same rules when the first `split` links are a compile-time list and the rest are
    /// added at run time (split = len: compile-time links alone).
    #[test]
    fn compile_time_and_joined_chains_match_the_reference_model(
        steps in prop::collection::vec((step(), any::<bool>()), 0..10),
        split_at in any::<prop::sample::Index>(),
        input in -100..0i32,
    ) {
        quiet_scripted_panics();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let seen = Log::new();
        let split = split_at.index(steps.len() + 1);
        let scripted: Vec<Scripted> = steps[..split]
            .iter()
            .map(|(step, asynchronous)| Scripted { step: step.clone(), asynchronous: *asynchronous, seen: seen.clone() })
            .collect();
        let rest: Vec<_> = steps[split..]
            .iter()
            .map(|(step, asynchronous)| interceptor(step.clone(), *asynchronous, seen.clone()))
            .collect();
        let outcome = runtime.block_on(static_then_dynamic(&scripted, &rest, input));
        let plain: Vec<Step> = steps.iter().map(|(s, _)| s.clone()).collect();
        let (expected_seen, value, effect, decisions) = reference(&plain, input);
        prop_assert_eq!(seen.entries(), expected_seen);
        prop_assert_eq!(outcome.value, value);
        prop_assert_eq!(outcome.effect, effect);
        prop_assert_eq!(outcome.decisions, decisions);
    }
}

#[test]
fn a_compile_time_link_is_reported_by_its_name() {
    quiet_scripted_panics();
    let seen = Log::new();
    let chain = Then(
        (),
        StaticLink::new(Scripted {
            step: Step::Deny("no".into()),
            asynchronous: false,
            seen,
        })
        .named("static_policy"),
    );
    let (ids, extensions) = (RunIds::default(), Extensions::new());
    let ctx = InterceptContext::detached(&ids, &extensions);
    let outcome = futures::executor::block_on(run_chain(&chain, 0, &ctx, ChainOptions::default()));
    assert_eq!(outcome.decisions[0].name, "static_policy");
    assert_eq!(outcome.effect, Effect::Deny("no".into()));
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

/// A gate's scripted verdict.
#[derive(Clone, Debug)]
enum GateStep {
    Allow,
    Deny(String),
    Panic(String),
}

fn gate_step() -> impl Strategy<Value = GateStep> {
    prop_oneof![
        3 => Just(GateStep::Allow),
        1 => "[a-z]{1,6}".prop_map(|r| GateStep::Deny(format!("gate {r}"))),
        1 => "[a-z]{1,6}".prop_map(|r| GateStep::Panic(format!("scripted panic gate {r}"))),
    ]
}

fn gate(step: GateStep, asynchronous: bool, seen: Log<i32>) -> Link<i32, i32> {
    let verdict = move |value: &i32| {
        seen.push(*value);
        match &step {
            GateStep::Allow => agents_kt::Verdict::Allow,
            GateStep::Deny(reason) => agents_kt::Verdict::Deny(reason.clone()),
            GateStep::Panic(message) => panic!("{}", message.clone()),
        }
    };
    let gate = if asynchronous {
        agents_kt::IntoGate::<i32, i32, _>::into_gate(move |value: &i32| {
            let verdict = verdict(value);
            async move {
                tokio::task::yield_now().await;
                verdict
            }
        })
    } else {
        agents_kt::IntoGate::<i32, i32, _>::into_gate(verdict)
    };
    Link::gate(gate)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The guard: the chain as the reference says; then, only if the chain let the thing run,
    /// every gate on the final value, the first denying gate's reason the effect.
    #[test]
    fn guard_runs_gates_on_the_final_value_and_the_first_gate_deny_wins(
        steps in prop::collection::vec((step(), any::<bool>()), 0..6),
        gates in prop::collection::vec((gate_step(), any::<bool>()), 0..4),
        input in -100..0i32,
    ) {
        quiet_scripted_panics();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let (seen, gate_seen) = (Log::new(), Log::new());
        let chain: Vec<_> = steps
            .iter()
            .map(|(step, asynchronous)| interceptor(step.clone(), *asynchronous, seen.clone()))
            .collect();
        let links: Vec<_> = gates
            .iter()
            .map(|(step, asynchronous)| gate(step.clone(), *asynchronous, gate_seen.clone()))
            .collect();
        let (ids, extensions) = (RunIds::default(), Extensions::new());
        let ctx = InterceptContext::detached(&ids, &extensions);
        let outcome = runtime.block_on(agents_kt::chain::guard(
            &chain, &links, input, &ctx, std::time::Duration::from_secs(60),
        ));
        let plain: Vec<Step> = steps.iter().map(|(s, _)| s.clone()).collect();
        let (_, value, effect, _) = reference(&plain, input);
        let would_run = matches!(effect, Effect::Proceed | Effect::ProceedWith);
        if !would_run {
            prop_assert!(gate_seen.is_empty(), "no gate runs when the chain denied or substituted");
            prop_assert_eq!(outcome.effect, effect);
        } else {
            prop_assert_eq!(gate_seen.entries(), vec![value; gates.len()], "every gate sees the final value");
            let first_deny = gates.iter().find_map(|(g, _)| match g {
                GateStep::Allow => None,
                GateStep::Deny(reason) | GateStep::Panic(reason) => Some(reason.clone()),
            });
            match first_deny {
                Some(reason) => prop_assert_eq!(outcome.effect, Effect::Deny(reason)),
                None => prop_assert_eq!(outcome.effect, effect),
            }
        }
        prop_assert_eq!(outcome.value, value);
    }
}
