//! Conversations in a SQLite database file (through `rusqlite`, SQLite compiled in): one row per
//! message, keyed by conversation and position, so two writers can never store interleaved
//! messages — the second insert at a position fails, and appends check the version in the same
//! transaction.

use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::{Conversation, ConversationStore, StoreError};
use crate::{Message, sqlite_file};

/// A [`ConversationStore`] in a SQLite database file, safe to share between processes (each
/// append is one immediate transaction that checks the version it continues). Calls run on
/// Tokio's blocking pool.
///
/// ```
/// use agents_kt::{ConversationStore, Message, SqliteStore};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = std::env::temp_dir().join(format!("agents-kt-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let store = SqliteStore::open(dir.join("memory.db"))?;
/// store.append("conv-42", 0, vec![Message::user("hi")]).await?;
/// // Another handle on the same file — another process, say — reads it back.
/// let again = SqliteStore::open(dir.join("memory.db"))?;
/// assert_eq!(again.load("conv-42").await?.messages()[0].content, "hi");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct SqliteStore {
    connection: sqlite_file::Shared,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").finish_non_exhaustive()
    }
}

/// The store's tables: messages by conversation and position, and each conversation's lease.
const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS agents_kt_messages (
         conversation TEXT NOT NULL,
         position     INTEGER NOT NULL,
         message      TEXT NOT NULL,
         PRIMARY KEY (conversation, position)
     );
     CREATE TABLE IF NOT EXISTS agents_kt_leases (
         conversation TEXT PRIMARY KEY,
         holder       TEXT NOT NULL,
         until_ms     INTEGER NOT NULL
     );";

impl SqliteStore {
    /// Open (creating if needed) the database file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let connection = sqlite_file::open(path.as_ref(), SCHEMA).map_err(backend)?;
        Ok(SqliteStore { connection })
    }

    /// Run `work` on the connection, on the blocking pool.
    fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, StoreError>> {
        let connection = Arc::clone(&self.connection);
        Box::pin(async move { sqlite_file::blocking(&connection, work, StoreError::Backend).await })
    }
}

impl ConversationStore for SqliteStore {
    fn load<'a>(
        &'a self,
        conversation: &'a str,
    ) -> BoxFuture<'a, Result<Conversation, StoreError>> {
        let id = conversation.to_string();
        self.blocking(move |connection| {
            let mut statement = connection
                .prepare(
                    "SELECT position, message FROM agents_kt_messages
                     WHERE conversation = ?1 ORDER BY position",
                )
                .map_err(backend)?;
            let rows = statement
                .query_map(params![id], |row| {
                    Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
                })
                .map_err(backend)?;
            let mut messages = Vec::new();
            for (expected, row) in rows.enumerate() {
                let (position, text) = row.map_err(|error| corrupt(&id, expected as u64, error))?;
                if position != expected as i64 {
                    return Err(corrupt(&id, expected as u64, format!("position {position} where {expected} was expected (a message is missing)")));
                }
                let message: Message = serde_json::from_str(&text)
                    .map_err(|error| corrupt(&id, expected as u64, error))?;
                messages.push(message);
            }
            Ok(Conversation::new(messages))
        })
    }

    fn append<'a>(
        &'a self,
        conversation: &'a str,
        version: u64,
        messages: Vec<Message>,
    ) -> BoxFuture<'a, Result<u64, StoreError>> {
        let id = conversation.to_string();
        self.blocking(move |connection| {
            let texts = messages
                .iter()
                .map(serde_json::to_string)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|error| {
                    StoreError::Backend(format!("a message did not serialize: {error}"))
                })?;
            let transaction = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            let found: u64 = transaction
                .query_row(
                    "SELECT MAX(position) + 1 FROM agents_kt_messages WHERE conversation = ?1",
                    params![id],
                    |row| row.get::<_, Option<i64>>(0),
                )
                .optional()
                .map_err(backend)?
                .flatten()
                .map_or(0, |next| next.max(0) as u64);
            if found != version {
                return Err(StoreError::Conflict {
                    conversation: id,
                    expected: version,
                    found,
                });
            }
            for (offset, text) in texts.iter().enumerate() {
                transaction
                    .execute(
                        "INSERT INTO agents_kt_messages (conversation, position, message)
                         VALUES (?1, ?2, ?3)",
                        params![id, (version + offset as u64) as i64, text],
                    )
                    .map_err(backend)?;
            }
            transaction.commit().map_err(backend)?;
            Ok(version + texts.len() as u64)
        })
    }

    fn lease<'a>(
        &'a self,
        conversation: &'a str,
        holder: &'a str,
        ttl: std::time::Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let (id, holder) = (conversation.to_string(), holder.to_string());
        self.blocking(move |connection| {
            // Decided and taken in one immediate transaction: two processes cannot both win.
            let transaction = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            let now = now_ms();
            let held: Option<(String, i64)> = transaction
                .query_row(
                    "SELECT holder, until_ms FROM agents_kt_leases WHERE conversation = ?1",
                    params![id],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()
                .map_err(backend)?;
            let free = held.is_none_or(|(owner, until)| owner == holder || until <= now);
            if free {
                let until = now.saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX));
                transaction
                    .execute(
                        "INSERT INTO agents_kt_leases (conversation, holder, until_ms)
                         VALUES (?1, ?2, ?3)
                         ON CONFLICT (conversation) DO UPDATE SET holder = ?2, until_ms = ?3",
                        params![id, holder, until],
                    )
                    .map_err(backend)?;
            }
            transaction.commit().map_err(backend)?;
            Ok(free)
        })
    }

    fn release<'a>(
        &'a self,
        conversation: &'a str,
        holder: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let (id, holder) = (conversation.to_string(), holder.to_string());
        self.blocking(move |connection| {
            connection
                .execute(
                    "DELETE FROM agents_kt_leases WHERE conversation = ?1 AND holder = ?2",
                    params![id, holder],
                )
                .map_err(backend)?;
            Ok(())
        })
    }
}

/// Milliseconds since the Unix epoch: leases are shared by processes, so they need a clock all
/// of them read alike.
fn now_ms() -> i64 {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since_epoch.map_or(0, |elapsed| {
        i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
    })
}

fn backend(error: rusqlite::Error) -> StoreError {
    StoreError::Backend(error.to_string())
}

fn corrupt(conversation: &str, position: u64, reason: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt {
        conversation: conversation.to_string(),
        position,
        reason: reason.to_string(),
    }
}
