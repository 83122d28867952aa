//! What agents that call agents and remembered conversations cost, each against a baseline of the
//! same run:
//!
//! 1. one sub-agent call (`AgentBuilder::sub_agent`: the parent's guard, a linked child run with
//!    shared budget, inherited context) against a plain tool whose body runs the same child
//!    directly (`child.run(input)`): the difference is the linkage;
//! 2. a one-turn run in a conversation (`run_in` on `InMemoryStore`, with 20 stored messages)
//!    against the same run without a store (`run`): load, record and append.
//!
//! `cargo bench -p agents-kt --bench agents`

use std::hint::black_box;

use agents_kt::{Agent, ConversationStore, InMemoryStore, Message, Reply, ScriptedModel};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

#[path = "support/calls_the_child.rs"]
mod calls_the_child;
use calls_the_child::CallsTheChild;

/// A one-turn child: it answers at once.
fn child() -> Agent<String, String> {
    Agent::builder("researcher")
        .model(ScriptedModel::new([Reply::text("three sources")]))
        .build()
        .unwrap()
}

/// The parent's script: call `research`, then answer.
fn parent_script() -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_call("research", json!({"input": "tides"})),
        Reply::text("plan"),
    ])
}

fn sub_agent_call(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("sub_agent_call");
    group.bench_function("baseline: a tool that runs the child directly", |b| {
        b.iter_batched(
            || {
                Agent::<String, String>::builder("planner")
                    .model(parent_script())
                    .tool(CallsTheChild(child()))
                    .build()
                    .unwrap()
            },
            |parent| {
                runtime.block_on(async { black_box(parent.run("plan".into()).await.unwrap()) })
            },
            criterion::BatchSize::SmallInput,
        )
    });
    group.bench_function("sub_agent (linked run)", |b| {
        b.iter_batched(
            || {
                Agent::<String, String>::builder("planner")
                    .model(parent_script())
                    .sub_agent(child().as_tool("research", "Finds sources."))
                    .build()
                    .unwrap()
            },
            |parent| {
                runtime.block_on(async { black_box(parent.run("plan".into()).await.unwrap()) })
            },
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn memory_turn(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let agent = || {
        Agent::<String, String>::builder("desk")
            .model(ScriptedModel::new([Reply::text("noted")]))
            .build()
            .unwrap()
    };
    let history: Vec<Message> = (0..10)
        .flat_map(|n| {
            [
                Message::user(format!("question {n}")),
                Message::assistant(format!("answer {n}"), Vec::new()),
            ]
        })
        .collect();
    let mut group = c.benchmark_group("memory_turn");
    group.bench_function("baseline: run without a store", |b| {
        b.iter_batched(
            agent,
            |agent| runtime.block_on(async { black_box(agent.run("hello".into()).await.unwrap()) }),
            criterion::BatchSize::SmallInput,
        )
    });
    group.bench_function("run_in (InMemoryStore, 20 stored messages)", |b| {
        b.iter_batched(
            || {
                let store = InMemoryStore::new();
                runtime
                    .block_on(store.append("conv", 0, history.clone()))
                    .unwrap();
                (agent(), store)
            },
            |(agent, store)| {
                runtime.block_on(async {
                    black_box(agent.run_in(&store, "conv", "hello".into()).await.unwrap())
                })
            },
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, sub_agent_call, memory_turn);
criterion_main!(benches);
