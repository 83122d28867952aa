//! What interception costs, against baselines measured in the same run:
//! 1. a typed tool call through 0, 1 and 8 Proceed interceptors registered at run time (the
//!    builder's form) and through 8 in a compile-time chain (`#[agent]`'s form), against calling
//!    the tool directly and against the same 8 checks as tower layers (composed statically, and
//!    boxed as a stack assembled at run time would be);
//! 2. dispatch from the model's JSON (text → Args → 8 interceptors → tool → JSON text), against
//!    serde_json parsing the same arguments and serializing the same result alone;
//! 3. the agent loop: a ScriptedModel run of 50 turns with 2 tool calls each, run and session,
//!    and the run path journaled in memory (every turn and tool result recorded as JSON).
//!
//! `cargo bench -p agents-kt --bench interception`; see BENCHMARKS.md for the numbers.

use std::future::{Ready, ready};
use std::hint::black_box;
use std::task::{Context, Poll};

use agents_kt::__private::TypedCall;
use agents_kt::prelude::*;
use agents_kt::{IntoToolChain, ToolChain};
use criterion::{Criterion, criterion_group, criterion_main};
use futures::{FutureExt, StreamExt};
use serde_json::json;
use tower::util::BoxCloneService;
use tower::{Layer, Service, ServiceBuilder, ServiceExt};

#[path = "support/weather.rs"]
mod weather;
use weather::{
    GetWeather, TURNS, Weather, WeatherArgs, allowed, check, forecast, interceptors, loop_script,
};

/// The same check as a tower layer.
#[derive(Clone)]
struct Check<S>(S);

impl<S: Service<WeatherArgs, Response = Weather, Error = &'static str>> Service<WeatherArgs>
    for Check<S>
{
    type Response = Weather;
    type Error = &'static str;
    type Future = futures::future::Either<S::Future, Ready<Result<Weather, &'static str>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, args: WeatherArgs) -> Self::Future {
        if allowed(&args) {
            futures::future::Either::Left(self.0.call(args))
        } else {
            futures::future::Either::Right(ready(Err("out of range")))
        }
    }
}

#[derive(Clone)]
struct CheckLayer;

impl<S> Layer<S> for CheckLayer {
    type Service = Check<S>;
    fn layer(&self, inner: S) -> Check<S> {
        Check(inner)
    }
}

fn args() -> WeatherArgs {
    WeatherArgs {
        city: "Reykjavík".into(),
        days: 3,
    }
}

/// Poll `future` once: every path measured here completes on its first poll, so no executor's
/// cost hides the work being compared. A path that did not complete would be a bug in the bench.
fn once<F: std::future::Future>(future: F) -> F::Output {
    future
        .now_or_never()
        .expect("the measured path completes on its first poll")
}

/// The 8 checks as the compile-time chain `#[agent]` generates.
fn eight_checks() -> impl IntoToolChain<GetWeather> {
    ToolChain::<GetWeather>::new()
        .before(check)
        .before(check)
        .before(check)
        .before(check)
        .before(check)
        .before(check)
        .before(check)
        .before(check)
}

fn typed_call(c: &mut Criterion) {
    // Entered, so a timer could be armed if a path ever stayed pending.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _entered = runtime.enter();
    let ctx = ToolContext::detached("bench");
    let mut group = c.benchmark_group("typed_call");
    group.bench_function("direct tool call (baseline)", |b| {
        b.iter(|| black_box(once(GetWeather.call(black_box(args()), &ctx))))
    });
    for n in [0, 1, 8] {
        let call = TypedCall::new(GetWeather, interceptors(n));
        group.bench_function(format!("agents-kt, {n} Proceed interceptors"), |b| {
            b.iter(|| black_box(once(call.call(black_box(args()), &ctx))))
        });
    }
    let compiled = TypedCall::with_chain(GetWeather, eight_checks());
    group.bench_function(
        "agents-kt, 8 Proceed interceptors, compile-time chain",
        |b| b.iter(|| black_box(once(compiled.call(black_box(args()), &ctx)))),
    );
    let tower_stack = ServiceBuilder::new()
        .layer(CheckLayer)
        .layer(CheckLayer)
        .layer(CheckLayer)
        .layer(CheckLayer)
        .layer(CheckLayer)
        .layer(CheckLayer)
        .layer(CheckLayer)
        .layer(CheckLayer)
        .service(tower::service_fn(|args: WeatherArgs| {
            ready(Ok::<_, &'static str>(forecast(args)))
        }));
    group.bench_function("tower, 8 layers", |b| {
        b.iter(|| black_box(once(tower_stack.clone().oneshot(black_box(args())))))
    });
    // Tower's form for a stack assembled at run time, as an agent's chain is: each layer boxed.
    let mut boxed: BoxCloneService<WeatherArgs, Weather, &'static str> =
        BoxCloneService::new(tower::service_fn(|args: WeatherArgs| {
            ready(Ok::<_, &'static str>(forecast(args)))
        }));
    for _ in 0..8 {
        boxed = BoxCloneService::new(CheckLayer.layer(boxed));
    }
    group.bench_function("tower, 8 boxed layers (BoxCloneService)", |b| {
        b.iter(|| black_box(once(boxed.clone().oneshot(black_box(args())))))
    });
    group.finish();
}

fn dispatch_json(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _entered = runtime.enter();
    let ctx = ToolContext::detached("bench");
    let text = json!({"city": "Reykjavík", "days": 3}).to_string();
    let mut group = c.benchmark_group("dispatch_json");
    group.bench_function("serde_json parse + serialize alone (baseline)", |b| {
        b.iter(|| {
            let args: WeatherArgs = serde_json::from_str(black_box(&text)).unwrap();
            black_box(serde_json::to_string(&forecast(args)).unwrap())
        })
    });
    let call = TypedCall::new(GetWeather, interceptors(8));
    group.bench_function(
        "agents-kt, text → Args → 8 interceptors → tool → text",
        |b| b.iter(|| black_box(once(call.call_json(black_box(&text), &ctx)))),
    );
    let compiled = TypedCall::with_chain(GetWeather, eight_checks());
    group.bench_function(
        "agents-kt, text → Args → 8 interceptors (compile-time chain) → tool → text",
        |b| b.iter(|| black_box(once(compiled.call_json(black_box(&text), &ctx)))),
    );
    group.finish();
}

fn agent(model: ScriptedModel) -> Agent<String, String> {
    Agent::builder("bench")
        .model(model)
        .tool(GetWeather)
        .budget(
            Budget::default()
                .max_turns(TURNS as u32)
                .max_tool_calls(2 * TURNS as u32),
        )
        .build()
        .unwrap()
}

fn agent_loop(c: &mut Criterion) {
    // One thread: the session's task and the reader of its events take turns on it, so the
    // numbers are the framework's work, not the OS waking a second thread for every event.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("agent_loop_50_turns");
    group.sample_size(20);
    group.bench_function("scripted model alone (baseline: its 50 replies)", |b| {
        batched(b, &runtime, loop_script, |model| async move {
            let request = ChatRequest::new(vec![Message::user("x")]);
            for _ in 0..TURNS {
                black_box(model.chat(&request).await.unwrap());
            }
        })
    });
    group.bench_function(
        "scripted model alone, streamed (baseline for the session path)",
        |b| {
            batched(b, &runtime, loop_script, |model| async move {
                let request = ChatRequest::new(vec![Message::user("x")]);
                for _ in 0..TURNS {
                    black_box(model.chat_stream(&request).count().await);
                }
            })
        },
    );
    group.bench_function("run path", |b| {
        batched(
            b,
            &runtime,
            || agent(loop_script()),
            |agent| async move {
                black_box(agent.run("weather".into()).await.unwrap());
            },
        )
    });
    group.bench_function("run path, journaled in memory (MemoryJournal)", |b| {
        batched(
            b,
            &runtime,
            || (agent(loop_script()), Arc::new(MemoryJournal::new("bench"))),
            |(agent, journal)| async move {
                let output = agent.run_journaled("weather".into(), Extensions::new(), journal);
                black_box(output.await.unwrap());
            },
        )
    });
    group.bench_function("session path", |b| {
        batched(
            b,
            &runtime,
            || agent(loop_script()),
            |agent| async move {
                let mut session = agent.session("weather".into());
                let events = session.events().count().await;
                black_box((events, session.await.unwrap()));
            },
        )
    });
    group.finish();
}

/// Time `run` on `runtime` over a fresh input from `setup` (not timed) each iteration.
fn batched<I, F: std::future::Future<Output = ()>>(
    b: &mut criterion::Bencher<'_>,
    runtime: &tokio::runtime::Runtime,
    setup: impl FnMut() -> I,
    run: impl Fn(I) -> F,
) {
    b.iter_batched(
        setup,
        |input| runtime.block_on(run(input)),
        criterion::BatchSize::SmallInput,
    );
}

use agents_kt::{ChatRequest, MemoryJournal, ModelClient};
use std::sync::Arc;

criterion_group!(benches, typed_call, dispatch_json, agent_loop);
criterion_main!(benches);
