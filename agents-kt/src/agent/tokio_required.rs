//! Agents run on Tokio (timers, spawned sessions, blocking pools).

/// Outside a Tokio runtime, say so and how to get one, rather than Tokio's "no reactor running"
/// from deep inside a call.
pub(super) fn require_tokio(what: &str) {
    if tokio::runtime::Handle::try_current().is_err() {
        panic!(
            "agents-kt needs a Tokio runtime, and `{what}` was called outside one: run it inside \
             `#[tokio::main]` (tokio features `macros`, `rt-multi-thread`), a `#[tokio::test]`, \
             or `tokio::runtime::Runtime::new()?.block_on(..)`"
        );
    }
}
