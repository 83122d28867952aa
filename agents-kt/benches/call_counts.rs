//! Instruction counts, not times: `valgrind --tool=callgrind` runs this driver twice per path
//! with different call counts, and the difference divided by the difference in calls is the
//! path's instructions per call (set-up cancels out). Counts do not move with the machine's load,
//! so they judge changes that times on a noisy 2-core VM cannot (BENCHMARKS.md). The paths are the
//! interception bench's rows, plus an agent loop whose tools are watched by a JSON interceptor.
//!
//! `scripts/call-counts.sh` builds and runs it; by hand:
//! `cargo bench -p agents-kt --bench call_counts -- PATH CALLS` (PATH as in `PATHS` below).

use std::hint::black_box;

use agents_kt::__private::TypedCall;
use agents_kt::prelude::*;
use agents_kt::{Extensions, IntoToolChain, MemoryJournal, ToolChain};
use futures::FutureExt;
use serde_json::{Value, json};

#[path = "support/calls_the_child.rs"]
mod calls_the_child;
#[cfg(feature = "mcp")]
#[path = "support/mcp_in_process.rs"]
mod mcp_in_process;
#[cfg(feature = "mcp")]
#[allow(dead_code)] // Its HTTP server is the load bench's.
#[path = "support/mcp_servers.rs"]
mod mcp_servers;
#[cfg(feature = "otel")]
mod otel_discard {
    /// Takes every span and keeps none.
    #[derive(Debug)]
    pub struct Discard;

    impl opentelemetry_sdk::trace::SpanExporter for Discard {
        fn export(
            &self,
            batch: Vec<opentelemetry_sdk::trace::SpanData>,
        ) -> impl Future<Output = opentelemetry_sdk::error::OTelSdkResult> + Send {
            std::hint::black_box(batch);
            std::future::ready(Ok(()))
        }
    }
}
#[path = "support/weather.rs"]
mod weather;
use calls_the_child::CallsTheChild;
use weather::{GetWeather, TURNS, WeatherArgs, check, interceptors, loop_script};

/// Every path this driver can count, in the order `scripts/call-counts.sh` reports them.
const PATHS: [&str; 21] = [
    "direct",
    "typed_0",
    "typed_8",
    "typed_8_compile_time",
    "json_8",
    "json_8_compile_time",
    "loop_50_turns",
    "loop_50_turns_json_interceptor",
    "loop_50_turns_session",
    "depth2_gates_on_child",
    "depth2_gates_inherited",
    "turns",
    "turns_journaled",
    "turns_8_dynamic",
    "one_turn",
    "one_turn_remembered",
    "child_by_tool",
    "child_by_sub_agent",
    "mcp_in_process_bare",
    "mcp_in_process",
    "loop_50_turns_otel",
];

fn args() -> WeatherArgs {
    WeatherArgs {
        city: "Reykjavík".into(),
        days: 3,
    }
}

fn eight_checks() -> impl IntoToolChain<GetWeather> {
    let chain = ToolChain::<GetWeather>::new();
    let chain = chain
        .before(check)
        .before(check)
        .before(check)
        .before(check);
    chain
        .before(check)
        .before(check)
        .before(check)
        .before(check)
}

/// A counted run's output: a path whose run fails would count the failure's instructions, so it
/// stops the driver instead.
fn succeeded<T>(output: Result<T, AgentError>) -> T {
    match output {
        Ok(output) => output,
        Err(error) => panic!("the counted run failed: {error}"),
    }
}

/// Poll `future` once: every measured tool call completes on its first poll.
fn once<F: std::future::Future>(future: F) -> F::Output {
    match future.now_or_never() {
        Some(output) => output,
        None => panic!("the counted path completes on its first poll"),
    }
}

fn agent(json_interceptor: bool) -> Agent<String, String> {
    let builder = Agent::builder("bench")
        .model(loop_script())
        .tool(GetWeather);
    let builder = match json_interceptor {
        true => builder.on_before_tool_call(|_: &str, _: &Value| Decision::Proceed),
        false => builder,
    };
    let budget = Budget::default()
        .max_turns(TURNS as u32)
        .max_tool_calls(2 * TURNS as u32);
    match builder.budget(budget).build() {
        Ok(agent) => agent,
        Err(error) => panic!("the bench agent builds: {error}"),
    }
}

/// An agent whose model asks for the weather once a turn for `turns - 1` turns, then answers;
/// each call behind `dynamic` JSON interceptors that proceed.
fn turns_agent(turns: usize, dynamic: usize) -> Agent<String, String> {
    let asks =
        (1..turns).map(|_| Reply::tool_call("get_weather", json!({"city": "Oslo", "days": 1})));
    let script = ScriptedModel::new(asks.chain([Reply::text("done")])).without_recording();
    let budget = Budget::default()
        .max_turns(turns as u32 + 1)
        .max_tool_calls(turns as u32);
    let mut builder = Agent::builder("bench")
        .model(script)
        .tool(GetWeather)
        .budget(budget);
    for _ in 0..dynamic {
        builder = builder.on_before_tool_call(|_: &str, _: &Value| Decision::Proceed);
    }
    match builder.build() {
        Ok(agent) => agent,
        Err(error) => panic!("the bench agent builds: {error}"),
    }
}

/// The sub-agent paths' child: it answers each of its `runs` runs at once.
fn researcher(runs: usize) -> Agent<String, String> {
    let script = ScriptedModel::new((0..runs).map(|_| Reply::text("three sources")));
    match Agent::builder("researcher")
        .model(script.without_recording())
        .build()
    {
        Ok(agent) => agent,
        Err(error) => panic!("the bench child builds: {error}"),
    }
}

/// A planner whose model calls `research` `calls` times in one turn, then answers.
fn planner(linked: bool, calls: usize) -> Agent<String, String> {
    let asks = (0..calls).map(|_| ("research", json!({"input": "tides"})));
    let script = ScriptedModel::new([Reply::tool_calls(asks), Reply::text("plan")]);
    let builder = Agent::builder("planner")
        .model(script.without_recording())
        .budget(
            Budget::default()
                .max_turns(calls as u32 + 2)
                .max_tool_calls(calls as u32 + 1),
        );
    let builder = match linked {
        true => builder.sub_agent(researcher(calls).as_tool("research", "Finds sources.")),
        false => builder.tool(CallsTheChild(researcher(calls))),
    };
    match builder.build() {
        Ok(agent) => agent,
        Err(error) => panic!("the bench planner builds: {error}"),
    }
}

/// A stored conversation of `n` messages, questions and answers.
fn history_of(n: usize) -> Vec<Message> {
    (0..n / 2)
        .flat_map(|i| {
            [
                Message::user(format!("question {i}")),
                Message::assistant(format!("answer {i}"), Vec::new()),
            ]
        })
        .collect()
}

/// Four typed gates making the check, each allowing.
fn four_gates(
    builder: agents_kt::AgentBuilder<String, String>,
) -> agents_kt::AgentBuilder<String, String> {
    let gate = || {
        ToolGate::<GetWeather>::new(|args: &WeatherArgs| match weather::allowed(args) {
            true => Verdict::Allow,
            false => Verdict::deny("out of range"),
        })
    };
    builder
        .gate_tool_call(gate())
        .gate_tool_call(gate())
        .gate_tool_call(gate())
        .gate_tool_call(gate())
}

/// A tree three deep — planner → researcher → looker — whose looker asks for the weather
/// `calls` times in one turn, behind four gates: the looker's own, or the planner's inherited.
fn tree(inherited: bool, calls: usize) -> Agent<String, String> {
    let budget = Budget::default().max_tool_calls(calls as u32 + 8);
    let asks = (0..calls).map(|_| ("get_weather", json!({"city": "Oslo", "days": 1})));
    let looker = Agent::builder("looker")
        .model(ScriptedModel::new([
            Reply::tool_calls(asks),
            Reply::text("looked"),
        ]))
        .tool(GetWeather)
        .budget(budget.clone());
    let looker = match inherited {
        true => looker,
        false => four_gates(looker),
    };
    let built = |builder: agents_kt::AgentBuilder<String, String>| match builder.build() {
        Ok(agent) => agent,
        Err(error) => panic!("the bench tree builds: {error}"),
    };
    let researcher = built(
        Agent::builder("researcher")
            .model(ScriptedModel::new([
                Reply::tool_call("look_up", json!({"input": "Oslo"})),
                Reply::text("researched"),
            ]))
            .sub_agent(built(looker).as_tool("look_up", "Looks up."))
            .budget(budget.clone()),
    );
    let planner = Agent::builder("planner")
        .model(ScriptedModel::new([
            Reply::tool_call("research", json!({"input": "Oslo"})),
            Reply::text("planned"),
        ]))
        .sub_agent(researcher.as_tool("research", "Researches."))
        .budget(budget);
    built(match inherited {
        true => four_gates(planner),
        false => planner,
    })
}

fn main() {
    let mut argv = std::env::args().skip(1).filter(|arg| arg != "--bench");
    let (path, calls) = match (argv.next(), argv.next().map(|n| n.parse::<usize>())) {
        (Some(path), Some(Ok(calls))) if PATHS.contains(&path.as_str()) => (path, calls),
        // `cargo bench` with no arguments (CI type-checks, a plain run): nothing to count.
        _ => {
            eprintln!("usage: call_counts PATH CALLS, PATH one of {PATHS:?}");
            return;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => panic!("a runtime: {error}"),
    };
    let _entered = runtime.enter();
    let ctx = ToolContext::detached("bench");
    let text = json!({"city": "Reykjavík", "days": 3}).to_string();
    match path.as_str() {
        "direct" => {
            // The baseline: the tool's own work, called as a function.
            for _ in 0..calls {
                black_box(weather::forecast(black_box(args())));
            }
        }
        "typed_0" | "typed_8" => {
            let n = if path == "typed_0" { 0 } else { 8 };
            let call = TypedCall::new(GetWeather, interceptors(n));
            for _ in 0..calls {
                black_box(once(call.call(black_box(args()), &ctx)));
            }
        }
        "typed_8_compile_time" => {
            let call = TypedCall::with_chain(GetWeather, eight_checks());
            for _ in 0..calls {
                black_box(once(call.call(black_box(args()), &ctx)));
            }
        }
        "json_8" => {
            let call = TypedCall::new(GetWeather, interceptors(8));
            for _ in 0..calls {
                black_box(once(call.call_json(black_box(&text), &ctx)));
            }
        }
        "json_8_compile_time" => {
            let call = TypedCall::with_chain(GetWeather, eight_checks());
            for _ in 0..calls {
                black_box(once(call.call_json(black_box(&text), &ctx)));
            }
        }
        "depth2_gates_on_child" | "depth2_gates_inherited" => {
            // One run; `calls` is how many tool calls the looker makes in it.
            let planner = tree(path == "depth2_gates_inherited", calls);
            let output = runtime.block_on(planner.run("plan".into()));
            black_box(succeeded(output));
        }
        "turns" | "turns_journaled" | "turns_8_dynamic" => {
            // One run of `calls` turns, each asking for the weather once: the difference between
            // two turn counts is the cost of a turn at that length of history.
            let dynamic = if path == "turns_8_dynamic" { 8 } else { 0 };
            let agent = turns_agent(calls, dynamic);
            let output = match path == "turns_journaled" {
                true => {
                    let journal = std::sync::Arc::new(MemoryJournal::new("bench"));
                    runtime.block_on(agent.run_journaled(
                        "weather".into(),
                        Extensions::new(),
                        journal,
                    ))
                }
                false => runtime.block_on(agent.run("weather".into())),
            };
            black_box(succeeded(output));
        }
        "one_turn" | "one_turn_remembered" => {
            // `calls` one-turn runs, each beside a store of 20 messages (filled in both paths, so
            // the difference is what remembering costs: lease, load, append, release).
            let agent = match Agent::<String, String>::builder("desk")
                .model(
                    ScriptedModel::new((0..calls).map(|_| Reply::text("noted")))
                        .without_recording(),
                )
                .build()
            {
                Ok(agent) => agent,
                Err(error) => panic!("the bench agent builds: {error}"),
            };
            let remembered = path == "one_turn_remembered";
            for _ in 0..calls {
                let store = InMemoryStore::new();
                let filled = runtime.block_on(store.append("conv", 0, history_of(20)));
                black_box(filled.is_ok());
                let output = match remembered {
                    true => runtime.block_on(agent.run_in(&store, "conv", "hello".into())),
                    false => runtime.block_on(agent.run("hello".into())),
                };
                black_box(succeeded(output));
            }
        }
        "child_by_tool" | "child_by_sub_agent" => {
            // One planner run whose model calls `research` `calls` times in one turn: by a
            // plain tool whose body runs the child, or by the child as a linked sub-agent.
            let planner = planner(path == "child_by_sub_agent", calls);
            let output = runtime.block_on(planner.run("plan".into()));
            black_box(succeeded(output));
        }
        #[cfg(feature = "mcp")]
        "mcp_in_process_bare" | "mcp_in_process" => {
            mcp_in_process::count(&runtime, path == "mcp_in_process_bare", calls);
        }
        #[cfg(not(feature = "mcp"))]
        "mcp_in_process_bare" | "mcp_in_process" => panic!("{path} needs the `mcp` feature"),
        #[cfg(feature = "otel")]
        "loop_50_turns_otel" => {
            // The loop with the OpenTelemetry layer exporting every span to a no-op exporter
            // (the `otel` bench's row); against `loop_50_turns` in a build with `otel` on.
            use tracing_subscriber::layer::SubscriberExt;
            let telemetry = agents_kt::telemetry::Telemetry::new(
                opentelemetry_sdk::trace::SdkTracerProvider::builder()
                    .with_simple_exporter(otel_discard::Discard)
                    .build(),
                None,
            );
            let subscriber = tracing_subscriber::registry().with(telemetry.layer());
            tracing::subscriber::with_default(subscriber, || {
                for _ in 0..calls {
                    let agent = agent(false);
                    let output = runtime.block_on(agent.run("weather".into()));
                    black_box(succeeded(output));
                }
            });
        }
        #[cfg(not(feature = "otel"))]
        "loop_50_turns_otel" => panic!("{path} needs the `otel` feature"),
        "loop_50_turns_session" => {
            // The same loop on the session path: streamed turns, every event read.
            for _ in 0..calls {
                let agent = agent(false);
                let output = runtime.block_on(async {
                    let mut session = agent.session("weather".into());
                    let events = futures::StreamExt::count(session.events()).await;
                    black_box(events);
                    session.await
                });
                black_box(succeeded(output));
            }
        }
        loop_path => {
            let json_interceptor = loop_path == "loop_50_turns_json_interceptor";
            for _ in 0..calls {
                let agent = agent(json_interceptor);
                let output = runtime.block_on(agent.run("weather".into()));
                black_box(succeeded(output));
            }
        }
    }
}
