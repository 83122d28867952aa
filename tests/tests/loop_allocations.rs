//! The agent loop does not copy the history on every turn: the allocations a turn makes do not
//! grow with the number of turns before it, on the run and the session paths. Counted by a global
//! allocator wrapping the system one; alone in its binary, and the tests share one lock so they
//! never count each other.

use std::sync::Mutex;

use agents_kt::{Agent, Budget, Reply, ScriptedModel};
use agents_kt_tests::GetWeather;
use agents_kt_tests::counting::CountingAllocator;
use futures::StreamExt;
use serde_json::json;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// An agent whose model calls two tools per turn for `turns - 1` turns, then answers.
fn agent(turns: usize) -> Agent<String, String> {
    let mut replies: Vec<Reply> = (0..turns - 1)
        .map(|_| {
            Reply::tool_calls([
                ("get_weather", json!({"city": "Oslo"})),
                ("get_weather", json!({"city": "Bergen"})),
            ])
        })
        .collect();
    replies.push(Reply::text("done"));
    Agent::builder("a")
        .model(ScriptedModel::new(replies).without_recording())
        .tool(GetWeather::default())
        .budget(
            Budget::default()
                .max_turns(turns as u32)
                .max_tool_calls(2 * turns as u32),
        )
        .build()
        .unwrap()
}

/// Allocations of a whole run of `turns` turns (building the agent not counted).
fn allocations(turns: usize, session: bool) -> usize {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let agent = agent(turns);
    let before = CountingAllocator::allocations();
    runtime.block_on(async {
        if session {
            let mut session = agent.session("weather".into());
            let events = session.events().count().await;
            assert!(events > turns);
            session.await.unwrap();
        } else {
            agent.run("weather".into()).await.unwrap();
        }
    });
    CountingAllocator::allocations() - before
}

/// Turns 40..80 may allocate no more than turns 0..40 did, give or take the history `Vec`'s few
/// doublings: a per-turn copy of the history would add hundreds per turn by then.
fn assert_flat(session: bool) {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let (early, late) = (allocations(41, session), allocations(81, session));
    let (first, second) = (early, late - early);
    eprintln!(
        "{} path: {:.1} allocations per turn over turns 1-40, {:.1} over turns 41-80",
        if session { "session" } else { "run" },
        first as f64 / 40.0,
        second as f64 / 40.0
    );
    assert!(
        second <= first + 16,
        "turns 41-80 allocated {second} times, turns 1-40 only {first}: the loop copies history"
    );
}

#[test]
fn a_run_turn_allocates_the_same_however_long_the_history() {
    assert_flat(false);
}

#[test]
fn a_session_turn_allocates_the_same_however_long_the_history() {
    assert_flat(true);
}
