//! A journal in a SQLite database file (feature `sqlite`): durable runs without a workflow
//! engine. Each entry is one row keyed by run and position, written before the run goes on, so
//! a run replayed in a new process — after a crash, a deploy — finds every step it took.

use std::path::Path;

use futures::future::BoxFuture;
use rusqlite::params;
use serde_json::Value;
use serde_json::value::RawValue;

use super::memory::{Keeper, MemoryJournal};
use super::{Journal, JournalError};
use crate::sqlite_file::{self, Shared};

/// The journal's table: each run's entries by position.
const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS agents_kt_journal (
         run_id   TEXT NOT NULL,
         position INTEGER NOT NULL,
         entry    TEXT NOT NULL,
         PRIMARY KEY (run_id, position)
     );";

/// A run's [`Journal`] in a SQLite database file: the entries already there are replayed (the
/// model is not asked again, a tool's effect does not happen again, a person is not asked
/// again), and each new one is written before the run goes on with it. Approvals are answered
/// through an [`ApprovalDesk`](crate::ApprovalDesk) when one is given. Two processes recording
/// one run at once cannot interleave: the second write at a position fails the run.
///
/// ```
/// use std::sync::Arc;
/// use agents_kt::{Agent, Reply, ScriptedModel, SqliteJournal};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = std::env::temp_dir().join(format!("agents-kt-journal-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let model = ScriptedModel::new([Reply::text("hi")]);
/// let agent = Agent::<String, String>::builder("a").model(model.clone()).build()?;
/// let journal = SqliteJournal::open(dir.join("runs.db"), "run-1")?;
/// agent.run_journaled("hello".into(), Default::default(), Arc::new(journal)).await?;
/// // Another process opening the same file replays the run: the model is not called again.
/// let replay = SqliteJournal::open(dir.join("runs.db"), "run-1")?;
/// assert_eq!(agent.run_journaled("hello".into(), Default::default(), Arc::new(replay)).await?, "hi");
/// assert_eq!(model.requests().len(), 1);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(()) }
/// ```
pub struct SqliteJournal {
    recording: MemoryJournal,
}

impl std::fmt::Debug for SqliteJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteJournal")
            .field("run_id", &self.recording.run_id())
            .finish_non_exhaustive()
    }
}

impl SqliteJournal {
    /// The journal of run `run_id` in the database file at `path` (both created if needed).
    pub fn open(path: impl AsRef<Path>, run_id: impl Into<String>) -> Result<Self, JournalError> {
        let connection = sqlite_file::open(path.as_ref(), SCHEMA).map_err(failed)?;
        Self::on(connection, run_id.into())
    }

    /// The journal of `run_id` on a connection already open (its file's other tables beside).
    pub(crate) fn on(connection: Shared, run_id: String) -> Result<Self, JournalError> {
        connection_schema(&connection)?;
        let entries = recorded(&connection, &run_id)?;
        let keeper = RowKeeper {
            connection,
            run_id: run_id.clone(),
        };
        Ok(SqliteJournal {
            recording: MemoryJournal::replaying_texts(run_id, entries).kept_by(keeper),
        })
    }

    /// Answer approvals through `desk`.
    pub fn with_approvals(self, desk: crate::ApprovalDesk) -> Self {
        SqliteJournal {
            recording: self.recording.with_approvals(desk),
        }
    }

    /// What the run has recorded, in order.
    pub fn entries(&self) -> Vec<Value> {
        self.recording.entries()
    }
}

impl Journal for SqliteJournal {
    fn run_id(&self) -> &str {
        self.recording.run_id()
    }

    fn step(
        &self,
        name: &str,
        work: BoxFuture<'static, Result<Box<RawValue>, String>>,
    ) -> BoxFuture<'_, Result<Box<RawValue>, JournalError>> {
        self.recording.step(name, work)
    }

    fn approval(
        &self,
        name: &str,
        request: crate::ApprovalRequest,
    ) -> BoxFuture<'_, Result<Value, JournalError>> {
        self.recording.approval(name, request)
    }
}

/// The journal's table on a connection another part opened.
fn connection_schema(connection: &Shared) -> Result<(), JournalError> {
    sqlite_file::lock(connection)
        .execute_batch(SCHEMA)
        .map_err(failed)
}

/// The entries recorded for `run_id`, in order, as their JSON texts; a gap or a text that is not
/// JSON is an unreadable journal.
fn recorded(connection: &Shared, run_id: &str) -> Result<Vec<Box<RawValue>>, JournalError> {
    let connection = sqlite_file::lock(connection);
    let mut statement = connection
        .prepare(
            "SELECT position, entry FROM agents_kt_journal WHERE run_id = ?1 ORDER BY position",
        )
        .map_err(failed)?;
    let rows = statement
        .query_map(params![run_id], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })
        .map_err(failed)?;
    let mut entries = Vec::new();
    for (expected, row) in rows.enumerate() {
        let (position, text) = row.map_err(failed)?;
        let step = format!("#{expected} of run {run_id}");
        if usize::try_from(position).ok() != Some(expected) {
            return Err(JournalError::unreadable(
                step,
                format!("found entry {position} where {expected} was expected (one is missing)"),
            ));
        }
        let entry = RawValue::from_string(text)
            .map_err(|error| JournalError::unreadable(step, error.to_string()))?;
        entries.push(entry);
    }
    Ok(entries)
}

/// Keeps a run's entries as rows.
struct RowKeeper {
    connection: Shared,
    run_id: String,
}

impl Keeper for RowKeeper {
    fn keep(&self, position: usize, entry: &str) -> BoxFuture<'static, Result<(), String>> {
        let (connection, run_id, text) = (
            std::sync::Arc::clone(&self.connection),
            self.run_id.clone(),
            entry.to_string(),
        );
        Box::pin(async move {
            let at = i64::try_from(position).map_err(|error| error.to_string())?;
            sqlite_file::blocking(
                &connection,
                move |connection| {
                    connection
                        .execute(
                            "INSERT INTO agents_kt_journal (run_id, position, entry) VALUES (?1, ?2, ?3)",
                            params![run_id, at, text],
                        )
                        .map_err(|error| match error.sqlite_error_code() {
                            // The key is taken: another process records this run too.
                            Some(rusqlite::ErrorCode::ConstraintViolation) => format!(
                                "entry {position} of run {run_id} was recorded by another process meanwhile: one run is replayed in two places"
                            ),
                            _ => format!("the journal could not be written: {error}"),
                        })
                },
                |reason| reason,
            )
            .await
            .map(|_| ())
        })
    }
}

fn failed(error: rusqlite::Error) -> JournalError {
    JournalError::Failed(format!("the SQLite journal: {error}"))
}
