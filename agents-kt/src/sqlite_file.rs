//! One way to open a SQLite database file that several processes share (feature `sqlite`): the
//! memory store, the journal and the A2A server's task table all open theirs here.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::Connection;

/// How long a writer waits for another process's transaction before giving up.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A connection shared by the handles of one file in this process.
pub(crate) type Shared = Arc<Mutex<Connection>>;

/// Open (creating if needed) the database file at `path`, in WAL mode (readers do not block the
/// writer, nor the writer the readers), waiting for other processes' transactions, with
/// `schema` applied.
pub(crate) fn open(path: &Path, schema: &str) -> Result<Shared, rusqlite::Error> {
    let connection = Connection::open(path)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
    connection.execute_batch(schema)?;
    Ok(Arc::new(Mutex::new(connection)))
}

/// The connection, even if a holder panicked (a statement either ran or did not).
pub(crate) fn lock(connection: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    connection
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Run `work` on `connection` on Tokio's blocking pool (a statement may wait for another
/// process's transaction).
pub(crate) async fn blocking<T: Send + 'static, E: Send + 'static>(
    connection: &Shared,
    work: impl FnOnce(&mut Connection) -> Result<T, E> + Send + 'static,
    failed: impl FnOnce(String) -> E,
) -> Result<T, E> {
    let connection = Arc::clone(connection);
    tokio::task::spawn_blocking(move || work(&mut lock(&connection)))
        .await
        .map_err(|error| failed(format!("the database's task failed: {error}")))?
}
