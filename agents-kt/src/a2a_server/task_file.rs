//! A durable server's tasks in a SQLite database file (feature `sqlite`), beside their runs'
//! journals in the same file: what a restarted server needs to show every task again and to
//! run the live ones on from where they were.

use std::path::Path;
use std::sync::Arc;

use a2a::{Message, Task};
use rusqlite::params;

use super::tasks::{KeptTask, TaskRecords};
use crate::sqlite_file::{self, Shared};
use crate::{ApprovalDesk, Journal, SqliteJournal};

/// The tasks' table: each task's owner, starting message and latest state, in creation order.
const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS agents_kt_a2a_tasks (
         seq     INTEGER PRIMARY KEY AUTOINCREMENT,
         id      TEXT NOT NULL UNIQUE,
         owner   TEXT,
         message TEXT NOT NULL,
         task    TEXT NOT NULL
     );";

/// The tasks kept in one database file.
pub(super) struct TaskFile {
    connection: Shared,
}

impl TaskFile {
    /// Open (creating if needed) the file at `path`.
    pub(super) fn open(path: &Path) -> Result<Self, String> {
        let connection = sqlite_file::open(path, SCHEMA)
            .map_err(|error| format!("cannot open the task file {}: {error}", path.display()))?;
        Ok(TaskFile { connection })
    }

    /// Every task kept, oldest first. A row that cannot be read is skipped with an error in the
    /// log (the others still come back).
    pub(super) fn load(&self) -> Result<Vec<KeptTask>, String> {
        let connection = sqlite_file::lock(&self.connection);
        let mut statement = connection
            .prepare("SELECT id, owner, message, task FROM agents_kt_a2a_tasks ORDER BY seq")
            .map_err(|error| error.to_string())?;
        let rows = statement
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, Option<String>>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                ))
            })
            .map_err(|error| error.to_string())?;
        let mut kept = Vec::new();
        for row in rows {
            let (id, owner, message, task) = row.map_err(|error| error.to_string())?;
            let read = serde_json::from_str::<Message>(&message)
                .and_then(|message| Ok((message, serde_json::from_str::<Task>(&task)?)));
            match read {
                Ok((message, task)) => kept.push(KeptTask {
                    task,
                    owner,
                    message,
                }),
                Err(error) => {
                    tracing::error!(task = %id, %error, "a kept A2A task could not be read; left out");
                }
            }
        }
        Ok(kept)
    }
}

impl TaskRecords for TaskFile {
    fn created(&self, task: &Task, owner: Option<&str>, message: &Message) -> Result<(), String> {
        let (message, task_text) = (to_text(message)?, to_text(task)?);
        // Written before the run starts (microseconds in WAL mode): a task the server has
        // answered for is one a restart finds.
        sqlite_file::lock(&self.connection)
            .execute(
                "INSERT INTO agents_kt_a2a_tasks (id, owner, message, task) VALUES (?1, ?2, ?3, ?4)",
                params![task.id, owner, message, task_text],
            )
            .map(|_| ())
            .map_err(|error| error.to_string())
    }

    fn changed(&self, task: &Task) {
        let written = to_text(task).and_then(|text| {
            sqlite_file::lock(&self.connection)
                .execute(
                    "UPDATE agents_kt_a2a_tasks SET task = ?2 WHERE id = ?1",
                    params![task.id, text],
                )
                .map_err(|error| error.to_string())
        });
        if let Err(error) = written {
            // Its journal still holds the run: a restart runs a live task on from there.
            tracing::error!(task = %task.id, %error, "an A2A task's state could not be kept");
        }
    }

    fn forgotten(&self, id: &str) {
        let mut connection = sqlite_file::lock(&self.connection);
        let deleted = connection.transaction().and_then(|transaction| {
            transaction.execute("DELETE FROM agents_kt_a2a_tasks WHERE id = ?1", params![id])?;
            transaction.execute(
                "DELETE FROM agents_kt_journal WHERE run_id = ?1",
                params![journal_id(id)],
            )?;
            transaction.commit()
        });
        if let Err(error) = deleted {
            tracing::error!(task = %id, %error, "a forgotten A2A task could not be deleted");
        }
    }

    fn journal(&self, id: &str, desk: ApprovalDesk) -> Result<Arc<dyn Journal>, String> {
        let journal = SqliteJournal::on(Arc::clone(&self.connection), journal_id(id))
            .map_err(|error| error.to_string())?;
        Ok(Arc::new(journal.with_approvals(desk)))
    }
}

/// The run id of task `id`'s journal.
fn journal_id(id: &str) -> String {
    format!("a2a-task/{id}")
}

fn to_text(value: &impl serde::Serialize) -> Result<String, String> {
    serde_json::to_string(value).map_err(|error| error.to_string())
}
