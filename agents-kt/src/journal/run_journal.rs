//! A run's way into its journal: the one place that names a run's steps inside the durable run
//! (a sub-agent's inside its parent's call), writes each step's entry — its name, the
//! permission manifest's hash, its value — and reads a recorded entry back, its name checked.
//!
//! A step's work writes its own entry, its value serialized straight into it (no second copy
//! of the value), and the runtime goes on with what the work produced; an entry is read back
//! only on replay.

use std::borrow::Cow;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Journal, JournalError};

/// A journaled run's journal: the durable run's, seen from this run.
pub(crate) struct RunJournal {
    journal: Arc<dyn Journal>,
    /// What names this run's steps inside the durable run: empty for the run the journal was
    /// given to, `tool#2:research/` for a sub-agent its tool call started.
    scope: String,
    /// This run's id: the journal's, then the scope.
    run_id: String,
    /// The manifest's hash as JSON text, written into every entry as it is.
    manifest: Arc<RawValue>,
}

impl RunJournal {
    /// The journal of the run it was given to, whose tree's permission manifest hashes to
    /// `manifest`.
    pub(crate) fn new(journal: Arc<dyn Journal>, manifest: &str) -> Self {
        // A string is always JSON; were it not, entries would name no manifest (`null`).
        let manifest = serde_json::value::to_raw_value(manifest).unwrap_or_default();
        RunJournal {
            run_id: journal.run_id().to_string(),
            journal,
            scope: String::new(),
            manifest: manifest.into(),
        }
    }

    /// The journal of a sub-agent whose run is this run's step `step`: its steps are named
    /// inside that step (`tool#2:research/turn#1`), so a replay of the parent replays the
    /// child's steps in place, and one that meets a parent's step where a child's was recorded
    /// (or the reverse) is seen to diverge.
    pub(crate) fn scoped(&self, step: &str) -> Self {
        RunJournal {
            journal: Arc::clone(&self.journal),
            scope: format!("{}{step}/", self.scope),
            run_id: format!("{}/{step}", self.run_id),
            manifest: Arc::clone(&self.manifest),
        }
    }

    /// This run's id: the durable run's, for the run the journal was given to.
    pub(crate) fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The step `own` (`turn#1`, `tool#1:pay`): its entry, as `work` writes it the first time
    /// (with the [`EntryWriter`] it is given) or as it was recorded.
    pub(crate) async fn step(
        &self,
        own: &str,
        work: impl FnOnce(EntryWriter) -> BoxFuture<'static, Result<Box<RawValue>, String>>,
    ) -> Result<StepEntry, JournalError> {
        // Made once, shared by the entry and the check of a replayed one.
        let name: Arc<str> = if self.scope.is_empty() {
            Arc::from(own)
        } else {
            format!("{}{own}", self.scope).into()
        };
        let work = work(EntryWriter {
            manifest: Arc::clone(&self.manifest),
            step: Arc::clone(&name),
        });
        let entry = self.journal.step(&name, work).await?;
        Ok(StepEntry { name, entry })
    }

    /// The answer to the approval `own`, asked of the durable run: an approver answers it at the
    /// step it is named by there.
    pub(crate) async fn approval(
        &self,
        own: &str,
        mut request: crate::ApprovalRequest,
    ) -> Result<Value, JournalError> {
        if self.scope.is_empty() {
            return self.journal.approval(own, request).await;
        }
        let name = format!("{}{own}", self.scope);
        request.step = name.clone();
        request.run_id = self.journal.run_id().to_string();
        self.journal.approval(&name, request).await
    }
}

/// Writes one step's entry: `{"manifest": …, "step": …, "value": …}`, the fields in the order a
/// JSON object of them sorts in, as entries were always written.
pub(crate) struct EntryWriter {
    manifest: Arc<RawValue>,
    step: Arc<str>,
}

#[derive(Serialize)]
struct Entry<'a, V: ?Sized> {
    manifest: &'a RawValue,
    step: &'a str,
    value: &'a V,
}

impl EntryWriter {
    /// The entry whose value is `value`.
    pub(crate) fn write<V: Serialize + ?Sized>(&self, value: &V) -> Result<Box<RawValue>, String> {
        let entry = Entry {
            manifest: &self.manifest,
            step: &self.step,
            value,
        };
        serde_json::value::to_raw_value(&entry)
            .map_err(|error| format!("the step's entry could not be written: {error}"))
    }
}

/// A step's recorded entry, under the name the run took it by.
pub(crate) struct StepEntry {
    name: Arc<str>,
    entry: Box<RawValue>,
}

impl StepEntry {
    /// The step's name in the durable run.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The recorded value, its step checked against the one this run took.
    pub(crate) fn value(&self) -> Result<&RawValue, JournalError> {
        read_value(&self.name, &self.entry)
    }
}

/// A recorded entry as it is read back: the value stays text, borrowed from the entry.
#[derive(Deserialize)]
struct RecordedEntry<'a> {
    #[serde(borrow, default)]
    step: Option<Cow<'a, str>>,
    #[serde(borrow)]
    value: &'a RawValue,
}

/// The value of the recorded `entry`, checked against the step `expected` this run is taking.
pub(crate) fn read_value<'e>(
    expected: &str,
    entry: &'e RawValue,
) -> Result<&'e RawValue, JournalError> {
    let read: RecordedEntry<'e> = serde_json::from_str(entry.get())
        .map_err(|error| JournalError::unreadable(expected, error.to_string()))?;
    let recorded = read.step.as_deref().unwrap_or("<unnamed>");
    if recorded != expected {
        return Err(JournalError::diverged(expected, recorded));
    }
    Ok(read.value)
}
