//! Journaled steps: what lets a run survive its process. A run given a [`Journal`]
//! (`Agent::run_journaled`) calls each model turn, each tool execution and each approval wait
//! through it, under a stable name (`turn#N`, `tool#N:name`, `approval#N:name`). The first time, the
//! step runs and the journal records its result; when the run is replayed (after a crash, on
//! another worker), the journal hands back the recorded result and the step does not run again:
//! the model is not asked twice, a tool's effect does not happen twice, a human is not asked
//! twice. Everything between steps — the interceptors, the gates, the loop itself — runs again,
//! so a policy changed in between applies on resume.
//!
//! A run without a journal calls its steps directly, as it always did: the journal costs nothing
//! unless it is used. [`MemoryJournal`] records in memory (a run replayed in the same process,
//! and tests); `SqliteJournal` (feature `sqlite`) in a SQLite file, where a run outlives its
//! process; the crate `agents-kt-restate` records in Restate, where the steps outlive any
//! process and a run can move to another worker.

mod memory;
mod run_journal;
#[cfg(feature = "sqlite")]
mod sqlite;
mod step_name;

use futures::future::BoxFuture;
use serde_json::Value;
use serde_json::value::RawValue;

pub use memory::MemoryJournal;
pub(crate) use run_journal::{EntryWriter, RunJournal};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteJournal;
pub(crate) use step_name::numbered as step_name;

/// Where a run's steps are recorded and replayed from. Implementations record opaque JSON texts
/// in order (each a [`RawValue`]: valid JSON, kept as its text, so recording one is a copy of a
/// string, not of a tree of values); the runtime wraps each with its step's name and checks it on
/// replay, so a journal needs no knowledge of what a step is.
///
/// ```
/// use std::sync::Arc;
/// use agents_kt::{Agent, Journal, MemoryJournal, Reply, ScriptedModel};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let model = ScriptedModel::new([Reply::text("hi")]);
/// let agent = Agent::<String, String>::builder("a").model(model.clone()).build().unwrap();
/// let journal = Arc::new(MemoryJournal::new("run-1"));
/// agent.run_journaled("hello".into(), Default::default(), journal.clone()).await.unwrap();
/// // Replayed from what was recorded: the model is not called again.
/// let replay = Arc::new(MemoryJournal::replaying("run-1", journal.entries()));
/// agent.run_journaled("hello".into(), Default::default(), replay).await.unwrap();
/// assert_eq!(model.requests().len(), 1);
/// # }
/// ```
pub trait Journal: Send + Sync + 'static {
    /// The durable run's id, the same on every replay: the run's session and run id, and the
    /// root of its tools' idempotency keys.
    fn run_id(&self) -> &str;

    /// The recorded entry of the step `name` (its JSON text): on first execution, `work`'s
    /// entry, recorded before it is returned as it is (the runtime may go on with what `work`
    /// produced rather than read the returned copy); on replay, the recorded one, and `work` is
    /// dropped unpolled. A `work` that fails is not recorded ([`JournalError::StepFailed`]): a
    /// durable engine may retry it.
    fn step(
        &self,
        name: &str,
        work: BoxFuture<'static, Result<Box<RawValue>, String>>,
    ) -> BoxFuture<'_, Result<Box<RawValue>, JournalError>>;

    /// The recorded answer to the approval `name` (JSON of an
    /// [`ApprovalAnswer`](crate::ApprovalAnswer)): on first execution, waits — durably, where the
    /// journal is durable — until someone answers `request`. The runtime checks the answer's
    /// fingerprint against the request's.
    fn approval(
        &self,
        name: &str,
        request: crate::ApprovalRequest,
    ) -> BoxFuture<'_, Result<Value, JournalError>>;
}

/// Why a journaled step has no result.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    /// The journal holds another step where this run expects `expected`: the code (or its
    /// configuration) changed since the run was recorded, and mixing the two would be wrong.
    #[error(
        "the run's journal has step '{recorded}' where this code expects '{expected}': the agent changed since the run was recorded; finish it with the code that started it, or start a new run"
    )]
    #[non_exhaustive]
    Diverged {
        /// The step this code was about to take.
        expected: String,
        /// The step the journal recorded at that place.
        recorded: String,
    },
    /// A recorded result could not be read back.
    #[error("the journaled result of step '{step}' could not be read: {reason}")]
    #[non_exhaustive]
    Unreadable {
        /// The step.
        step: String,
        /// What did not fit.
        reason: String,
    },
    /// The step's work failed; nothing was recorded.
    #[error("{0}")]
    StepFailed(String),
    /// The journal itself failed (its engine is unreachable, the run was cancelled).
    #[error("the journal failed: {0}")]
    Failed(String),
}

impl JournalError {
    /// The journal recorded step `recorded` where this code expects `expected` (what a
    /// [`Journal`] of your own returns when a replay meets another step).
    ///
    /// ```
    /// let e = agents_kt::JournalError::diverged("turn#2", "tool#1:pay");
    /// assert!(matches!(e, agents_kt::JournalError::Diverged { .. }));
    /// ```
    pub fn diverged(expected: impl Into<String>, recorded: impl Into<String>) -> Self {
        JournalError::Diverged {
            expected: expected.into(),
            recorded: recorded.into(),
        }
    }

    /// The recorded result of `step` could not be read back, for `reason`.
    ///
    /// ```
    /// let e = agents_kt::JournalError::unreadable("turn#1", "not a chat response");
    /// assert!(e.to_string().contains("turn#1"));
    /// ```
    pub fn unreadable(step: impl Into<String>, reason: impl Into<String>) -> Self {
        JournalError::Unreadable {
            step: step.into(),
            reason: reason.into(),
        }
    }
}

/// A recorded entry: a step's name with its result, so a replay can check it is the same step —
/// how an approval's answer is recorded ([`Journal::approval`] returns the answer alone). A
/// step's entry, which [`Journal::step`]'s work returns as text, has these fields and the
/// manifest's hash beside them.
///
/// ```
/// use agents_kt::journal_entry;
/// let entry = journal_entry("turn#1", serde_json::json!({"content": "hi"}));
/// assert_eq!(entry["step"], "turn#1");
/// ```
pub fn journal_entry(name: &str, value: Value) -> Value {
    // Built by hand: `json!` would serialize `value` again into a copy of itself.
    let mut entry = serde_json::Map::new();
    entry.insert("step".to_string(), Value::String(name.to_string()));
    entry.insert("value".to_string(), value);
    Value::Object(entry)
}

crate::error_debug::readable_debug!(JournalError);
