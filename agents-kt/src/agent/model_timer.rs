//! How long a model call took, timed only where something records it: the OpenTelemetry
//! metrics' duration histogram (feature `otel`). Without that feature nothing reads the
//! duration, so the precise clock — two reads a turn, about 2 % of a turn on the scripted
//! model — is not read at all, and the duration reads as zero.

use std::time::Duration;

/// A model call's stopwatch, started just before the call.
pub(super) struct ModelTimer {
    #[cfg(feature = "otel")]
    started: std::time::Instant,
}

impl ModelTimer {
    pub(super) fn start() -> Self {
        ModelTimer {
            #[cfg(feature = "otel")]
            started: std::time::Instant::now(),
        }
    }

    /// The time since `start`; zero where nothing records it (no `otel`).
    pub(super) fn elapsed(&self) -> Duration {
        #[cfg(feature = "otel")]
        return self.started.elapsed();
        #[cfg(not(feature = "otel"))]
        Duration::ZERO
    }
}
