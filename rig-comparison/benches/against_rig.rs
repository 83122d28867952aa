//! One tool call through rig's agent and through ours, with 0 and 8 hooks that let it through:
//! a prompt, a scripted model that calls `add` once and then answers, the same tool body.
//!
//! - rig (rig-agent 0.44, its `MockCompletionModel`): 0 or 8 `AgentHook`s whose `on_dispatch`
//!   returns `DispatchAction::proceed()`. rig 0.44 has no `on_tool_call`: `on_dispatch` is its
//!   hook before a tool runs — and before each model call too (two per run here), so a rig hook
//!   is asked three times per run where ours is asked once.
//! - ours (`ScriptedModel`): 0 or 8 `on_before_tool_call` interceptors over the JSON arguments
//!   returning `Decision::Proceed` — the JSON dispatch path, the closest to rig's hooks.
//!
//! Each agent is built and dropped outside the timed part; a run is the prompt to the answer. What
//! 8 hooks add is the 8-hook run less the 0-hook run, each side against its own; the goal is
//! ours ≤ 0.5× rig's. A run is ~100 µs on rig's side, and its spread on a busy VM is larger than
//! what its hooks add: `rig_counts.rs` counts the same runs' instructions, which do not move.
//!
//! `cargo bench --manifest-path rig-comparison/Cargo.toml` (`scripts/bench.sh` runs it).

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

#[path = "support/sides.rs"]
mod sides;
use sides::{ours, rig};

fn against_rig(c: &mut Criterion) {
    // Both sides on one runtime with timers (our agent times its tools).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut group = c.benchmark_group("against_rig");
    for hooks in [0, 8] {
        group.bench_function(format!("rig, {hooks} proceeding hooks"), |b| {
            b.iter_batched(
                || rig::agent(1),
                |agent| {
                    let answer = runtime.block_on(rig::run(&agent, hooks));
                    // Returned, so criterion drops the agent outside the timed part.
                    (agent, black_box(answer))
                },
                BatchSize::SmallInput,
            )
        });
        group.bench_function(format!("agents-kt, {hooks} proceeding interceptors"), |b| {
            b.iter_batched(
                || ours::agent(hooks, 1),
                |agent| {
                    let answer = runtime.block_on(ours::run(&agent));
                    (agent, black_box(answer))
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, against_rig);
criterion_main!(benches);
