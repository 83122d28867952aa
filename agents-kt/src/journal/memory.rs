//! The journal in memory, and the recording both journals share: replay what was recorded, in
//! order, then record what comes after — kept first by a [`Keeper`] when the journal is durable.
//!
//! Entries are held as their JSON text, as steps produce them: recording one is a copy of a
//! string, and a durable keeper stores that same text.

use std::sync::Mutex;

use futures::future::BoxFuture;
use serde_json::Value;
use serde_json::value::RawValue;

use super::run_journal::read_value;
use super::{Journal, JournalError, journal_entry};

/// Where a durable journal keeps each new entry before the run uses it (a database row): what
/// the run goes on with is always what a replay will read.
pub(crate) trait Keeper: Send + Sync + 'static {
    /// Keep `entry` (its JSON text) as the run's entry number `position` (from 0).
    fn keep(&self, position: usize, entry: &str) -> BoxFuture<'static, Result<(), String>>;
}

/// A journal in memory: records a run's steps, and replays them into a new run in the same
/// process ([`MemoryJournal::replaying`]). Approvals are answered through an
/// [`ApprovalDesk`](crate::ApprovalDesk) when one is given, and recorded like any step.
///
/// ```
/// use agents_kt::{Journal, MemoryJournal};
/// let journal = MemoryJournal::new("run-1");
/// assert_eq!(journal.run_id(), "run-1");
/// assert!(journal.entries().is_empty());
/// ```
pub struct MemoryJournal {
    run_id: String,
    /// Each entry's JSON text, and how many of them the run has replayed or recorded: one lock
    /// for both, taken once per step.
    recording: Mutex<Recording>,
    desk: Option<crate::ApprovalDesk>,
    keeper: Option<Box<dyn Keeper>>,
}

/// A journal's entries and its place in them.
struct Recording {
    entries: Vec<Box<RawValue>>,
    cursor: usize,
}

impl MemoryJournal {
    /// An empty journal for the run `run_id`.
    pub fn new(run_id: impl Into<String>) -> Self {
        Self::replaying(run_id, Vec::new())
    }

    /// A journal replaying `entries` (from [`MemoryJournal::entries`] of an earlier run), then
    /// recording what comes after them.
    pub fn replaying(run_id: impl Into<String>, entries: Vec<Value>) -> Self {
        Self::replaying_texts(
            run_id,
            entries
                .iter()
                // A `Value` is always JSON text; were it not, the entry would replay as `null`,
                // which no step reads back (unreadable): the replay fails, never takes the
                // step twice.
                .map(|entry| serde_json::value::to_raw_value(entry).unwrap_or_default())
                .collect(),
        )
    }

    /// A journal replaying the entries `texts`.
    pub(crate) fn replaying_texts(run_id: impl Into<String>, texts: Vec<Box<RawValue>>) -> Self {
        MemoryJournal {
            run_id: run_id.into(),
            recording: Mutex::new(Recording {
                entries: texts,
                cursor: 0,
            }),
            desk: None,
            keeper: None,
        }
    }

    /// Answer approvals through `desk`.
    pub fn with_approvals(mut self, desk: crate::ApprovalDesk) -> Self {
        self.desk = Some(desk);
        self
    }

    /// Keep every new entry with `keeper` before the run goes on with it.
    #[cfg_attr(
        not(feature = "sqlite"),
        expect(dead_code, reason = "only the SQLite journal keeps")
    )]
    pub(crate) fn kept_by(mut self, keeper: impl Keeper) -> Self {
        self.keeper = Some(Box::new(keeper));
        self
    }

    /// What was recorded, in order.
    pub fn entries(&self) -> Vec<Value> {
        self.recording()
            .entries
            .iter()
            // Valid JSON by its type: every entry reads back.
            .map(|text| serde_json::from_str(text.get()).unwrap_or(Value::Null))
            .collect()
    }

    fn recording(&self) -> std::sync::MutexGuard<'_, Recording> {
        self.recording.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next recorded entry, if the replay has not reached the end.
    fn replayed(&self) -> Option<Box<RawValue>> {
        let mut recording = self.recording();
        let entry = recording.entries.get(recording.cursor).cloned();
        if entry.is_some() {
            recording.cursor += 1;
        }
        entry
    }

    /// Record `entry` after the replayed ones — kept first, when a keeper keeps them. A run
    /// records its steps one at a time (a journaled run's tool calls too), so the position
    /// taken here is still the end when the entry is pushed.
    async fn record(&self, entry: Box<RawValue>) -> Result<(), JournalError> {
        if let Some(keeper) = &self.keeper {
            let position = self.recording().entries.len();
            keeper
                .keep(position, entry.get())
                .await
                .map_err(JournalError::Failed)?;
        }
        let mut recording = self.recording();
        recording.entries.push(entry);
        recording.cursor += 1;
        Ok(())
    }
}

impl Journal for MemoryJournal {
    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn step(
        &self,
        _name: &str,
        work: BoxFuture<'static, Result<Box<RawValue>, String>>,
    ) -> BoxFuture<'_, Result<Box<RawValue>, JournalError>> {
        Box::pin(async move {
            if let Some(entry) = self.replayed() {
                return Ok(entry);
            }
            let entry = work.await.map_err(JournalError::StepFailed)?;
            self.record(entry.clone()).await?;
            Ok(entry)
        })
    }

    fn approval(
        &self,
        name: &str,
        request: crate::ApprovalRequest,
    ) -> BoxFuture<'_, Result<Value, JournalError>> {
        let name = name.to_string();
        Box::pin(async move {
            if let Some(entry) = self.replayed() {
                let value = read_value(&name, &entry)?;
                return serde_json::from_str(value.get())
                    .map_err(|error| JournalError::unreadable(&name, error.to_string()));
            }
            let Some(desk) = &self.desk else {
                return Err(JournalError::Failed(format!(
                    "approval '{name}' was asked for, but this journal has no approval desk"
                )));
            };
            let answer = desk.ask(request).await;
            let entry = serde_json::value::to_raw_value(&journal_entry(&name, answer.clone()))
                .map_err(|error| {
                    JournalError::Failed(format!("the answer could not be recorded: {error}"))
                })?;
            self.record(entry).await?;
            Ok(answer)
        })
    }
}
