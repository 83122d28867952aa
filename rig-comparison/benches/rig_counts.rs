//! Instructions per run, for callgrind: `rig_counts SIDE HOOKS RUNS` builds the comparison's agent
//! (`ours` or `rig`) and runs it `RUNS` times behind `HOOKS` proceeding hooks. `scripts/bench.sh` runs it
//! under `valgrind --tool=callgrind` at two run counts; the difference over the difference in
//! runs is one run's instructions, steady where the times of a 100 µs run on a noisy VM are not.

use std::hint::black_box;

#[path = "support/sides.rs"]
mod sides;
use sides::{ours, rig};

fn main() {
    let argv: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| arg != "--bench")
        .collect();
    let (side, hooks, runs) = match argv.as_slice() {
        [side, hooks, runs] => match (hooks.parse::<usize>(), runs.parse::<usize>()) {
            (Ok(hooks), Ok(runs)) => (side.clone(), hooks, runs),
            _ => return eprintln!("usage: rig_counts ours|rig HOOKS RUNS"),
        },
        // `cargo bench` with no arguments: nothing to count.
        _ => return eprintln!("usage: rig_counts ours|rig HOOKS RUNS"),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return eprintln!("no runtime: {error}"),
    };
    // Each agent is built once for all its runs: what is counted per run is the run.
    match side.as_str() {
        "ours" => {
            let agent = ours::agent(hooks, runs);
            for _ in 0..runs {
                black_box(runtime.block_on(ours::run(&agent)));
            }
        }
        _ => {
            let agent = rig::agent(runs);
            for _ in 0..runs {
                black_box(runtime.block_on(rig::run(&agent, hooks)));
            }
        }
    }
}
