//! The coarse monotonic clock, for checks run on every turn and tool call: a deadline that a
//! timer enforces anyway, read again at each step in case a step never yielded to the timer.
//!
//! Reading it is a memory read (`CLOCK_MONOTONIC_COARSE` through the vDSO), where the precise
//! clock is a counter read and a conversion — tens of nanoseconds, several times a turn. It
//! advances once per kernel tick (1–4 ms), so a check on it is late by at most one tick: a
//! limit is never missed, only noticed up to a tick after it passed. Durations that are
//! reported (a model call's, a span's) use the precise clock.

use std::time::Duration;

/// Now, on the coarse clock.
pub(crate) fn now() -> coarsetime::Instant {
    coarsetime::Instant::now_without_cache_update()
}

/// Time since `start`, on the coarse clock.
pub(crate) fn since(start: coarsetime::Instant) -> Duration {
    now().duration_since(start).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_since_a_start_grows_by_what_passed_to_within_a_tick() {
        let start = now();
        std::thread::sleep(Duration::from_millis(30));
        let passed = since(start);
        // A tick is at most 10 ms on any kernel this runs on (HZ >= 100).
        assert!(passed >= Duration::from_millis(20), "{passed:?}");
        assert!(passed < Duration::from_secs(5), "{passed:?}");
    }
}
