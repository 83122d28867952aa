//! A run's link to the conversation it continues: its lease on it, the version it read, and the
//! messages it has yet to append.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{ConversationStore, StoreError};
use crate::{AgentError, Message};

/// How long a lease lasts without renewal (each stored turn renews it): a crashed holder frees
/// the conversation after this.
const LEASE_TTL: Duration = Duration::from_secs(120);
/// How often a waiting run asks for the lease again.
const LEASE_POLL: Duration = Duration::from_millis(50);

/// The conversation a run continues.
pub(crate) struct Remembered {
    store: Arc<dyn ConversationStore>,
    conversation: String,
    /// This run's name as a lease holder, unique in the process and across processes.
    holder: String,
    /// How long the run waits for another run's lease.
    wait: Duration,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The version of the conversation this run continues.
    version: u64,
    /// Messages of this run not yet stored.
    pending: Vec<Message>,
    /// Whether this run holds the lease (and must give it back).
    leased: bool,
}

/// A holder name no other run, here or in another process, has.
fn holder_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    // The process's part (its id and start time) is read once, not on every run.
    static PROCESS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let process = PROCESS.get_or_init(|| {
        let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        let nanos = since_epoch.map_or(0, |elapsed| elapsed.as_nanos());
        format!("{}-{nanos:x}", std::process::id())
    });
    let number = crate::decimal::Decimal::of(NEXT.fetch_add(1, Ordering::Relaxed));
    let mut name = String::with_capacity(process.len() + 1 + number.len());
    name.push_str(process);
    name.push('-');
    number.push_onto(&mut name);
    name
}

impl Remembered {
    pub(crate) fn new(
        store: Arc<dyn ConversationStore>,
        conversation: String,
        wait: Duration,
    ) -> Self {
        Remembered {
            store,
            conversation,
            holder: holder_name(),
            wait,
            state: Mutex::new(State::default()),
        }
    }

    /// The same link, holding the lease as `holder`: a journaled run's name, the same when it
    /// is replayed after a crash, so the replay takes back the lease its first life held.
    #[cfg_attr(
        not(feature = "a2a"),
        expect(dead_code, reason = "only served runs are journaled with memory")
    )]
    pub(crate) fn held_as(mut self, holder: String) -> Self {
        self.holder = holder;
        self
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Take the conversation's lease (waiting up to the run's wait for another run to finish),
    /// then the stored history; this run continues its version.
    pub(crate) async fn load(&self) -> Result<Vec<Message>, AgentError> {
        // The wait is timed from the first refusal: a lease taken at once reads no clock.
        let mut refused_at = None;
        while !self
            .store
            .lease(&self.conversation, &self.holder, LEASE_TTL)
            .await?
        {
            let started = *refused_at.get_or_insert_with(Instant::now);
            if started.elapsed() >= self.wait {
                return Err(StoreError::Busy {
                    conversation: self.conversation.clone(),
                    waited_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                }
                .into());
            }
            tokio::time::sleep(LEASE_POLL).await;
        }
        self.state().leased = true;
        let conversation = self.store.load(&self.conversation).await?;
        self.state().version = conversation.version();
        Ok(conversation.into_messages())
    }

    /// Messages of this run, to be stored at the next [`flush`](Self::flush).
    pub(crate) fn record(&self, messages: impl IntoIterator<Item = Message>) {
        self.state().pending.extend(messages);
    }

    /// Store what this run recorded since the last flush, continuing the version it read (or
    /// last wrote), and renew the lease; refused when another writer moved the conversation on.
    pub(crate) async fn flush(&self) -> Result<(), AgentError> {
        let (version, pending) = {
            let mut state = self.state();
            (state.version, std::mem::take(&mut state.pending))
        };
        if pending.is_empty() {
            return Ok(());
        }
        let version = self
            .store
            .append(&self.conversation, version, pending)
            .await?;
        self.state().version = version;
        // A renewal refused means another run took the lease after ours ran out: the version
        // check above still keeps the two apart.
        let _ = self
            .store
            .lease(&self.conversation, &self.holder, LEASE_TTL)
            .await;
        Ok(())
    }
}

impl Remembered {
    /// Give the lease back now (the run is over).
    pub(crate) async fn release(&self) {
        if !std::mem::take(&mut self.state().leased) {
            return;
        }
        if let Err(error) = self.store.release(&self.conversation, &self.holder).await {
            tracing::warn!(%error, conversation = %self.conversation, "a conversation's lease was not given back; it runs out");
        }
    }
}

impl Drop for Remembered {
    /// A run stopped before its end (cancelled, dropped): give the lease back on the runtime,
    /// when there is one; otherwise it runs out.
    fn drop(&mut self) {
        if !self.state().leased {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (store, conversation, holder) = (
            Arc::clone(&self.store),
            self.conversation.clone(),
            self.holder.clone(),
        );
        runtime.spawn(async move {
            if let Err(error) = store.release(&conversation, &holder).await {
                tracing::warn!(%error, conversation, "a conversation's lease was not given back; it runs out");
            }
        });
    }
}
