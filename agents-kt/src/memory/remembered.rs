//! A run's link to the conversation it continues: the version it read, and the messages it
//! has yet to append.

use std::sync::{Arc, Mutex};

use super::ConversationStore;
use crate::{AgentError, Message};

/// The conversation a run continues.
pub(crate) struct Remembered {
    store: Arc<dyn ConversationStore>,
    conversation: String,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The version of the conversation this run continues.
    version: u64,
    /// Messages of this run not yet stored.
    pending: Vec<Message>,
}

impl Remembered {
    pub(crate) fn new(store: Arc<dyn ConversationStore>, conversation: String) -> Self {
        Remembered {
            store,
            conversation,
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The stored history; this run continues its version.
    pub(crate) async fn load(&self) -> Result<Vec<Message>, AgentError> {
        let conversation = self.store.load(&self.conversation).await?;
        self.state().version = conversation.version();
        Ok(conversation.into_messages())
    }

    /// Messages of this run, to be stored at the next [`flush`](Self::flush).
    pub(crate) fn record(&self, messages: impl IntoIterator<Item = Message>) {
        self.state().pending.extend(messages);
    }

    /// Store what this run recorded since the last flush, continuing the version it read (or
    /// last wrote); refused when another writer moved the conversation on.
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
        Ok(())
    }
}
