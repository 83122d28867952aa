//! Runnable examples of agents-kt; see the `[[example]]` targets in this crate's manifest.
