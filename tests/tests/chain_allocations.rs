//! With synchronous interceptors, the chain allocates nothing on the Proceed path — nor does the
//! whole typed tool call around it (guard, body under its deadline with panics caught, record):
//! counted by a global allocator wrapping the system one. Alone in its binary, so no other test
//! allocates concurrently.

use std::borrow::Cow;
use std::sync::Arc;

use agents_kt::__private::TypedCall;
use agents_kt::{Tool, ToolChain, ToolContext, ToolError, ToolInterceptor};
use futures::FutureExt;

use agents_kt::chain::{ChainOptions, Effect, Joined, Link, StaticLink, Then, run_chain};
use agents_kt::{Decision, Extensions, FnInterceptor, InterceptContext, RunIds};
use agents_kt_tests::counting::CountingAllocator;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Args {
    city: String,
}

/// A tool whose body allocates nothing.
struct CityLength;

impl Tool for CityLength {
    const NAME: &'static str = "city_length";
    type Args = Args;
    type Output = u32;
    fn description(&self) -> Cow<'static, str> {
        Cow::Borrowed("Length of a city's name.")
    }
    async fn call(&self, args: Args, _: &ToolContext) -> Result<u32, ToolError> {
        Ok(args.city.len() as u32)
    }
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
fn eight_sync_proceed_interceptors_and_the_typed_call_around_them_allocate_nothing() {
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

    drop(outcome);

    // The whole typed call, as the agent makes it: run-time links (the builder's), and a
    // compile-time chain (`#[agent]`'s), each of 8 synchronous Proceed interceptors.
    let registered = TypedCall::new(
        CityLength,
        (0..8)
            .map(|_| ToolInterceptor::<CityLength>::new(short_enough))
            .collect(),
    );
    let compiled = TypedCall::with_chain(
        CityLength,
        ToolChain::<CityLength>::new()
            .before(short_enough)
            .before(short_enough)
            .before(short_enough)
            .before(short_enough)
            .before(short_enough)
            .before(short_enough)
            .before(short_enough)
            .before(short_enough),
    );
    let tool_ctx = ToolContext::detached("call-1");
    for (what, call) in [("run-time", &registered), ("compile-time", &compiled)] {
        let warm = args.clone();
        assert_eq!(call.call(warm, &tool_ctx).now_or_never(), Some(Some(4)));
        let input = args.clone();
        let before = CountingAllocator::allocations();
        let output = call.call(input, &tool_ctx).now_or_never();
        let allocated = CountingAllocator::allocations() - before;
        assert_eq!(
            output,
            Some(Some(4)),
            "{what}: the call completes on its first poll"
        );
        assert_eq!(
            allocated, 0,
            "{what}: a typed call through 8 sync Proceed interceptors must not allocate"
        );
    }
}
