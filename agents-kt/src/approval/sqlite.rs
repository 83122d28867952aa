//! The approvals board in a SQLite file (feature `sqlite`): questions asked by any process that
//! opens the file wait in one table, and any process answers them. An asker polls its row for
//! the answer and keeps a heartbeat on it; a question whose asker stopped beating (its process
//! died) is withdrawn, so nobody approves a call that can no longer happen. Every change is a
//! row of a second table, which the inboxes' streams read in order.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use futures::stream::BoxStream;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use super::{ApprovalAnswer, ApprovalRequest, InboxChange, InboxError, now_ms};

/// How long a writer waits for another process's transaction before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// How often an asker looks for its answer.
const ASKER_POLL: Duration = Duration::from_millis(100);
/// How often an asker says it is alive.
const HEARTBEAT_MS: u64 = 1_000;
/// A question whose asker has not beaten for this long is withdrawn: its process is gone.
const STALE_MS: u64 = 10_000;
/// How often an inbox's streams look for changes.
const STREAM_POLL: Duration = Duration::from_millis(200);

/// One SQLite file's approvals, shared by every desk and inbox handle on it in this process.
pub(super) struct FileBoard {
    connection: Mutex<Connection>,
}

/// A question's state as its asker finds it.
enum Found {
    Waiting,
    Answered(ApprovalAnswer),
    Withdrawn,
}

impl FileBoard {
    /// Open (creating if needed) the approvals in the file at `path`.
    pub(super) fn open(path: &Path) -> Result<Arc<Self>, InboxError> {
        let connection = Connection::open(path).map_err(store)?;
        connection.busy_timeout(BUSY_TIMEOUT).map_err(store)?;
        // Readers do not block the writer, nor the writer the readers.
        connection
            .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .map_err(store)?;
        connection
            .execute_batch(
                "CREATE TABLE IF NOT EXISTS agents_kt_approvals (
                     id           INTEGER PRIMARY KEY AUTOINCREMENT,
                     fingerprint  TEXT NOT NULL,
                     request      TEXT NOT NULL,
                     state        TEXT NOT NULL,
                     answer       TEXT,
                     heartbeat_ms INTEGER NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS agents_kt_approvals_waiting
                     ON agents_kt_approvals (state, fingerprint);
                 CREATE TABLE IF NOT EXISTS agents_kt_approval_changes (
                     seq      INTEGER PRIMARY KEY AUTOINCREMENT,
                     question INTEGER NOT NULL,
                     change   TEXT NOT NULL
                 );",
            )
            .map_err(store)?;
        Ok(Arc::new(FileBoard {
            connection: Mutex::new(connection),
        }))
    }

    /// Run `work` in one immediate transaction (a writer's lock from the start, so two
    /// processes answering the same question cannot both succeed).
    fn write<T>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, InboxError>,
    ) -> Result<T, InboxError> {
        let mut connection = self.connection.lock().unwrap_or_else(|p| p.into_inner());
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(store)?;
        let value = work(&transaction)?;
        transaction.commit().map_err(store)?;
        Ok(value)
    }

    /// Ask, and wait for the answer, beating all along; `Err` says why no answer came.
    pub(super) async fn ask(
        self: &Arc<Self>,
        request: ApprovalRequest,
    ) -> Result<ApprovalAnswer, String> {
        let board = Arc::clone(self);
        let asked = request.clone();
        let id = blocking(move || board.put(&asked))
            .await
            .map_err(|error| error.to_string())?;
        let mut withdraw = Withdraw {
            board: Arc::clone(self),
            id: Some(id),
        };
        let mut beaten = now_ms();
        let found = loop {
            tokio::time::sleep(ASKER_POLL).await;
            let beat = now_ms().saturating_sub(beaten) >= HEARTBEAT_MS;
            if beat {
                beaten = now_ms();
            }
            let board = Arc::clone(self);
            match blocking(move || board.look(id, beat)).await {
                Ok(Found::Waiting) => continue,
                Ok(found) => break found,
                // A busy file or a passing I/O error: the question still waits; look again.
                Err(error) => tracing::warn!(%error, "could not look for an approval's answer"),
            }
        };
        withdraw.id = None;
        match found {
            Found::Answered(answer) => Ok(answer),
            _ => Err(format!(
                "the question was withdrawn (its asker gave no sign of life for {} s)",
                STALE_MS / 1000
            )),
        }
    }

    /// Put a question on the board: its row id.
    fn put(&self, request: &ApprovalRequest) -> Result<u64, InboxError> {
        let text = serde_json::to_string(request).map_err(store)?;
        self.write(|tx| {
            tx.execute(
                "INSERT INTO agents_kt_approvals (fingerprint, request, state, heartbeat_ms)
                 VALUES (?1, ?2, 'waiting', ?3)",
                params![request.fingerprint, text, now_ms() as i64],
            )
            .map_err(store)?;
            let id = tx.last_insert_rowid();
            tell(
                tx,
                id,
                &InboxChange::Asked {
                    request: request.clone(),
                },
            )?;
            Ok(id as u64)
        })
    }

    /// The state of question `id`; `beat` renews its asker's heartbeat.
    fn look(&self, id: u64, beat: bool) -> Result<Found, InboxError> {
        let connection = self.connection.lock().unwrap_or_else(|p| p.into_inner());
        if beat {
            connection
                .execute(
                    "UPDATE agents_kt_approvals SET heartbeat_ms = ?1 WHERE id = ?2 AND state = 'waiting'",
                    params![now_ms() as i64, id as i64],
                )
                .map_err(store)?;
        }
        let row: Option<(String, Option<String>)> = connection
            .query_row(
                "SELECT state, answer FROM agents_kt_approvals WHERE id = ?1",
                params![id as i64],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
            .map_err(store)?;
        Ok(match row {
            Some((state, Some(answer))) if state == "answered" => {
                Found::Answered(serde_json::from_str(&answer).map_err(store)?)
            }
            Some((state, _)) if state == "waiting" => Found::Waiting,
            _ => Found::Withdrawn,
        })
    }

    /// Take question `id` off the board unanswered (its run ended).
    fn withdraw(&self, id: u64) -> Result<(), InboxError> {
        self.write(|tx| {
            let request: Option<String> = tx
                .query_row(
                    "SELECT request FROM agents_kt_approvals WHERE id = ?1 AND state = 'waiting'",
                    params![id as i64],
                    |row| row.get(0),
                )
                .optional()
                .map_err(store)?;
            if let Some(request) = request {
                mark_withdrawn(tx, id as i64, &request)?;
            }
            Ok(())
        })
    }

    /// Every question waiting now, oldest first (questions of dead askers withdrawn first).
    pub(super) fn pending(&self) -> Result<Vec<ApprovalRequest>, InboxError> {
        self.write(|tx| {
            withdraw_stale(tx)?;
            let mut query = tx
                .prepare(
                    "SELECT request FROM agents_kt_approvals WHERE state = 'waiting' ORDER BY id",
                )
                .map_err(store)?;
            let rows = query
                .query_map([], |row| row.get::<_, String>(0))
                .map_err(store)?;
            let mut pending = Vec::new();
            for row in rows {
                pending.push(serde_json::from_str(&row.map_err(store)?).map_err(store)?);
            }
            Ok(pending)
        })
    }

    /// Answer question `id` (or, without one, the oldest waiting with the answer's
    /// fingerprint): the first answer counts, in whichever process it is given.
    pub(super) fn answer(&self, id: Option<u64>, answer: ApprovalAnswer) -> Result<(), InboxError> {
        let fingerprint = answer.fingerprint().to_string();
        let text = serde_json::to_string(&answer).map_err(store)?;
        self.write(|tx| {
            withdraw_stale(tx)?;
            let found: Option<(i64, String)> = match id {
                Some(id) => tx.query_row(
                    "SELECT id, request FROM agents_kt_approvals WHERE id = ?1 AND state = 'waiting'",
                    params![id as i64],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                ),
                None => tx.query_row(
                    "SELECT id, request FROM agents_kt_approvals
                     WHERE fingerprint = ?1 AND state = 'waiting' ORDER BY id LIMIT 1",
                    params![fingerprint],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                ),
            }
            .optional()
            .map_err(store)?;
            let Some((row, request)) = found else {
                let answered: bool = tx
                    .query_row(
                        "SELECT EXISTS (SELECT 1 FROM agents_kt_approvals
                         WHERE fingerprint = ?1 AND state = 'answered')",
                        params![fingerprint],
                        |row| row.get(0),
                    )
                    .map_err(store)?;
                return Err(if answered {
                    InboxError::AlreadyAnswered { fingerprint }
                } else {
                    InboxError::NotWaiting { fingerprint }
                });
            };
            tx.execute(
                "UPDATE agents_kt_approvals SET state = 'answered', answer = ?1 WHERE id = ?2",
                params![text, row],
            )
            .map_err(store)?;
            let request = serde_json::from_str(&request).map_err(store)?;
            tell(tx, row, &InboxChange::Answered { request, answer: answer.clone() })
        })
    }

    /// The last change's number (0 before any).
    fn last_change(&self) -> Result<i64, InboxError> {
        let connection = self.connection.lock().unwrap_or_else(|p| p.into_inner());
        connection
            .query_row(
                "SELECT COALESCE(MAX(seq), 0) FROM agents_kt_approval_changes",
                [],
                |row| row.get(0),
            )
            .map_err(store)
    }

    /// The changes after number `seq`, in order, with their numbers and questions.
    fn changes_after(&self, seq: i64) -> Result<Vec<(i64, u64, InboxChange)>, InboxError> {
        let connection = self.connection.lock().unwrap_or_else(|p| p.into_inner());
        let mut query = connection
            .prepare(
                "SELECT seq, question, change FROM agents_kt_approval_changes
                 WHERE seq > ?1 ORDER BY seq LIMIT 256",
            )
            .map_err(store)?;
        let rows = query
            .query_map(params![seq], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, String>(2)?,
                ))
            })
            .map_err(store)?;
        let mut changes = Vec::new();
        for row in rows {
            let (seq, question, change) = row.map_err(store)?;
            changes.push((
                seq,
                question as u64,
                serde_json::from_str(&change).map_err(store)?,
            ));
        }
        Ok(changes)
    }

    /// Every change made from now on, by any process: a stream that never ends (another
    /// process may always ask).
    pub(super) fn changes(self: &Arc<Self>) -> BoxStream<'static, (u64, InboxChange)> {
        let start = self.last_change().ok();
        let board = Arc::clone(self);
        futures::stream::unfold(
            (board, start, VecDeque::new()),
            |(board, mut seq, mut ready)| async move {
                loop {
                    if let Some((question, change)) = ready.pop_front() {
                        return Some(((question, change), (board, seq, ready)));
                    }
                    tokio::time::sleep(STREAM_POLL).await;
                    let reader = Arc::clone(&board);
                    let Some(after) = seq else {
                        // The start could not be read when the stream began: begin at the
                        // present.
                        seq = blocking(move || reader.last_change()).await.ok();
                        continue;
                    };
                    match blocking(move || reader.changes_after(after)).await {
                        Ok(changes) => {
                            for (number, question, change) in changes {
                                seq = Some(number);
                                ready.push_back((question, change));
                            }
                        }
                        Err(error) => {
                            tracing::warn!(%error, "could not read the approvals' changes")
                        }
                    }
                }
            },
        )
        .boxed()
    }
}

/// Withdraw every waiting question whose asker stopped beating.
fn withdraw_stale(tx: &Transaction<'_>) -> Result<(), InboxError> {
    let before = now_ms().saturating_sub(STALE_MS) as i64;
    let stale: Vec<(i64, String)> = {
        let mut query = tx
            .prepare(
                "SELECT id, request FROM agents_kt_approvals
                 WHERE state = 'waiting' AND heartbeat_ms < ?1",
            )
            .map_err(store)?;
        let rows = query
            .query_map(params![before], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(store)?;
        rows.collect::<Result<_, _>>().map_err(store)?
    };
    for (id, request) in stale {
        mark_withdrawn(tx, id, &request)?;
    }
    Ok(())
}

fn mark_withdrawn(tx: &Transaction<'_>, id: i64, request: &str) -> Result<(), InboxError> {
    tx.execute(
        "UPDATE agents_kt_approvals SET state = 'withdrawn' WHERE id = ?1",
        params![id],
    )
    .map_err(store)?;
    let request = serde_json::from_str(request).map_err(store)?;
    tell(tx, id, &InboxChange::Withdrawn { request })
}

/// Record a change for the inboxes' streams.
fn tell(tx: &Transaction<'_>, question: i64, change: &InboxChange) -> Result<(), InboxError> {
    let text = serde_json::to_string(change).map_err(store)?;
    tx.execute(
        "INSERT INTO agents_kt_approval_changes (question, change) VALUES (?1, ?2)",
        params![question, text],
    )
    .map_err(store)?;
    Ok(())
}

/// Takes a question off the board when its asker stops waiting unanswered.
struct Withdraw {
    board: Arc<FileBoard>,
    id: Option<u64>,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        if let Err(error) = self.board.withdraw(id) {
            // Left waiting, it is withdrawn once its heartbeat is stale.
            tracing::warn!(%error, "could not withdraw an approval question");
        }
    }
}

/// Run `work` on Tokio's blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, InboxError> + Send + 'static,
) -> Result<T, InboxError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|error| {
            Err(InboxError::store(format!(
                "the approvals file's worker failed: {error}"
            )))
        })
}

fn store(error: impl std::fmt::Display) -> InboxError {
    InboxError::store(error.to_string())
}
