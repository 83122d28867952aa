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
#[cfg(feature = "sqlite")]
mod sqlite;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

pub use memory::MemoryJournal;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteJournal;

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

/// A run's journal as its steps see it: each step's value goes in as an entry carrying the
/// step's name and the hash of the permission manifest it ran under (`"manifest"` beside `"step"`
/// and `"value"`, so a recorded run says under which permissions each step happened), and comes
/// back out of the recorded entry, its name checked against the step this run is taking. Every
/// journaled run's steps go through one (a sub-agent's too, under its scoped names).
pub(crate) struct Enveloped {
    inner: std::sync::Arc<dyn Journal>,
    /// The manifest's hash as JSON text, written into every entry as it is.
    manifest: std::sync::Arc<RawValue>,
}

impl Enveloped {
    pub(crate) fn new(inner: std::sync::Arc<dyn Journal>, manifest: std::sync::Arc<str>) -> Self {
        // A string is always JSON; were it not, entries would name no manifest (`null`).
        let manifest = serde_json::value::to_raw_value(&*manifest).unwrap_or_default();
        Enveloped {
            inner,
            manifest: manifest.into(),
        }
    }
}

/// A step's entry as it is written: its fields in the order a JSON object of them sorts in, as
/// entries were always written.
#[derive(Serialize)]
struct Entry<'a> {
    manifest: &'a RawValue,
    step: &'a str,
    value: &'a RawValue,
}

/// A recorded entry as it is read back: the value stays text, borrowed from the entry.
#[derive(Deserialize)]
struct RecordedEntry<'a> {
    #[serde(borrow, default)]
    step: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    value: &'a RawValue,
}

impl Journal for Enveloped {
    fn run_id(&self) -> &str {
        self.inner.run_id()
    }

    fn step(
        &self,
        name: &str,
        work: BoxFuture<'static, Result<Box<RawValue>, String>>,
    ) -> BoxFuture<'_, Result<Box<RawValue>, JournalError>> {
        // One copy of the name, for the entry and for checking a replayed one.
        let step: std::sync::Arc<str> = name.into();
        let manifest = std::sync::Arc::clone(&self.manifest);
        // The value the work produced, when it ran: a journal returns what its work produced,
        // so the entry need not be read back to find it again.
        let produced: std::sync::Arc<std::sync::Mutex<Option<Box<RawValue>>>> = Default::default();
        let work = {
            let (produced, step) = (
                std::sync::Arc::clone(&produced),
                std::sync::Arc::clone(&step),
            );
            Box::pin(async move {
                let value = work.await?;
                let entry = Entry {
                    manifest: &manifest,
                    step: &step,
                    value: &value,
                };
                let entry = serde_json::value::to_raw_value(&entry)
                    .map_err(|error| format!("the step's entry could not be written: {error}"))?;
                *produced.lock().unwrap_or_else(|p| p.into_inner()) = Some(value);
                Ok(entry)
            })
        };
        Box::pin(async move {
            let recorded = self.inner.step(&step, work).await?;
            match produced.lock().unwrap_or_else(|p| p.into_inner()).take() {
                Some(value) => Ok(value),
                None => read_step_entry(&step, &recorded),
            }
        })
    }

    fn approval(
        &self,
        name: &str,
        request: crate::ApprovalRequest,
    ) -> BoxFuture<'_, Result<Value, JournalError>> {
        // The request carries the manifest, and its fingerprint is bound to it.
        self.inner.approval(name, request)
    }
}

/// The value of a recorded step entry, checked against the step this run is taking.
pub(crate) fn read_step_entry(
    expected: &str,
    entry: &RawValue,
) -> Result<Box<RawValue>, JournalError> {
    let unreadable = |reason: String| JournalError::Unreadable {
        step: expected.to_string(),
        reason,
    };
    let read: RecordedEntry<'_> =
        serde_json::from_str(entry.get()).map_err(|error| unreadable(error.to_string()))?;
    let recorded = read.step.as_deref().unwrap_or("<unnamed>");
    if recorded != expected {
        return Err(JournalError::Diverged {
            expected: expected.to_string(),
            recorded: recorded.to_string(),
        });
    }
    Ok(read.value.to_owned())
}

crate::error_debug::readable_debug!(JournalError);
