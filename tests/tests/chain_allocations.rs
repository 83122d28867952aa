//! With synchronous interceptors, the chain allocates nothing on the Proceed path: counted by a
//! global allocator wrapping the system one. Alone in its binary, so no other test allocates
//! concurrently.

use std::sync::Arc;

use agents_kt::chain::{ChainOptions, Effect, Joined, Link, StaticLink, Then, run_chain};
use agents_kt::{Decision, Extensions, FnInterceptor, InterceptContext, RunIds};
use agents_kt_tests::counting::CountingAllocator;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[derive(Clone)]
struct Args {
    city: String,
}

fn short_enough(args: &Args) -> Decision<Args, u32> {
    if args.city.len() > 1000 {
        Decision::deny("too long")
    } else {
        Decision::Proceed
    }
}

/// One test, so nothing else in this binary allocates while it counts.
#[test]
fn eight_sync_proceed_interceptors_allocate_nothing_at_run_time_or_compile_time() {
    let chain: Vec<Link<Args, u32>> = (0..8)
        .map(|n| {
            Link::new(Arc::new(FnInterceptor::<_, Args, _>::new(
                move |args: &Args| {
                    if args.city.len() > 1000 + n {
                        Decision::deny("too long")
                    } else {
                        Decision::<Args, u32>::Proceed
                    }
                },
            )))
        })
        .collect();
    let (ids, extensions) = (RunIds::default(), Extensions::new());
    let ctx = InterceptContext::detached(&ids, &extensions);
    let options = ChainOptions::default();
    // The counter counts (so a zero below means something).
    let before = CountingAllocator::allocations();
    drop(Box::new(7u64));
    assert!(CountingAllocator::allocations() > before);
    let args = Args {
        city: "Oslo".into(),
    };
    // Warm up whatever the executor sets up once.
    let _ = futures::executor::block_on(run_chain(&chain, args.clone(), &ctx, options));
    let input = args.clone();
    let before = CountingAllocator::allocations();
    let outcome = futures::executor::block_on(run_chain(&chain, input, &ctx, options));
    let allocated = CountingAllocator::allocations() - before;
    assert_eq!(outcome.effect, Effect::Proceed);
    assert_eq!(
        allocated, 0,
        "the Proceed path of a sync chain must not allocate"
    );
    drop(outcome);

    // Four compile-time links followed by the eight run-time ones.
    let link = || StaticLink::new(FnInterceptor::<_, Args, _>::new(short_enough));
    let compiled = Then(Then(Then(Then((), link()), link()), link()), link());
    let input = args.clone();
    let before = CountingAllocator::allocations();
    let outcome =
        futures::executor::block_on(run_chain(Joined(&compiled, &chain), input, &ctx, options));
    let allocated = CountingAllocator::allocations() - before;
    assert_eq!(outcome.effect, Effect::Proceed);
    assert_eq!(
        allocated, 0,
        "the Proceed path of a compile-time chain must not allocate"
    );
}
