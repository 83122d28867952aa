//! Random chains — any mix of Proceed / ProceedWith / Deny / Substitute / panic / Err, sync and
//! async — through the one chain runner, held to the reference model of the five rules (the
//! same model `tests/chain_rules.rs` uses).
#![no_main]

use std::sync::{Arc, Mutex};

use agents_kt::chain::{ChainOptions, run_chain};
use agents_kt::{Extensions, InterceptContext, RunIds};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/src/chain_model.rs"]
mod chain_model;
use chain_model::{Step, interceptor, reference};

#[derive(Arbitrary, Debug)]
enum Kind {
    Proceed,
    ProceedWith(i32),
    Deny(u8),
    Substitute(i32),
    Panic(u8),
    Err(u8),
}

#[derive(Arbitrary, Debug)]
struct Input {
    value: i32,
    steps: Vec<(Kind, bool)>,
}

fn step(kind: &Kind) -> Step {
    match kind {
        Kind::Proceed => Step::Proceed,
        Kind::ProceedWith(x) => Step::ProceedWith(*x),
        Kind::Deny(n) => Step::Deny(format!("deny {n}")),
        Kind::Substitute(x) => Step::Substitute(*x),
        Kind::Panic(n) => Step::Panic(format!("scripted panic {n}")),
        Kind::Err(n) => Step::Err(format!("err {n}")),
    }
}

fuzz_target!(|input: Input| {
    // A scripted panic is an interceptor's fault the runner must contain, not a crash.
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        if !message.contains("scripted panic") {
            eprintln!("{message}");
            std::process::abort();
        }
    }));
    let steps: Vec<(Step, bool)> = input
        .steps
        .iter()
        .take(16)
        .map(|(kind, asynchronous)| (step(kind), *asynchronous))
        .collect();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let chain: Vec<_> = steps
        .iter()
        .map(|(step, asynchronous)| {
            let seen = Arc::clone(&seen);
            interceptor(step.clone(), *asynchronous, move |value| {
                seen.lock().expect("not poisoned").push(value)
            })
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let outcome = runtime.block_on(async {
        let (ids, extensions) = (RunIds::default(), Extensions::new());
        let ctx = InterceptContext::detached(&ids, &extensions);
        run_chain(&chain, input.value, &ctx, ChainOptions::default()).await
    });
    let plain: Vec<Step> = steps.into_iter().map(|(step, _)| step).collect();
    let (expected_seen, value, effect, decisions) = reference(&plain, input.value);
    assert_eq!(
        *seen.lock().expect("not poisoned"),
        expected_seen,
        "rule 1: all observe"
    );
    assert_eq!(outcome.value, value, "rule 3: the effective replacement");
    assert_eq!(outcome.effect, effect, "rule 2: the first non-Proceed wins");
    assert_eq!(
        outcome.decisions, decisions,
        "rule 5: one report per decision"
    );
});
