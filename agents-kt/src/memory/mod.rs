//! Conversations that outlive a run: a [`ConversationStore`] keyed by conversation id. A run
//! in a conversation (`Agent::run_in`, `Agent::session_in`) starts from its stored history —
//! which the turn chain sees, and may trim or redact before the model does — and appends each
//! turn's messages after the after-tool chain, so what is stored is what the model was shown of
//! every tool result, never what an after-tool interceptor removed.
//!
//! Writers of one conversation never interleave: every append says which version of the
//! conversation it continues, and a store refuses an append to a conversation that moved on
//! ([`StoreError::Conflict`]); the run that lost ends with [`AgentError::Memory`] and
//! nothing of it is stored after that point.
//!
//! And one run at a time: before its first model call a run takes the conversation's lease
//! ([`ConversationStore::lease`]), so a second run on the same conversation waits (bounded,
//! `AgentBuilder::conversation_wait`) and then fails with [`StoreError::Busy`] before it calls a
//! model or a tool — instead of doing its work and learning of the conflict only when it
//! appends. A lease runs out after a while without renewal (each stored turn renews it), so a
//! crashed holder does not lock the conversation for good.

mod in_memory;
pub(crate) mod remembered;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use in_memory::InMemoryStore;
pub(crate) use remembered::Remembered;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use std::time::Duration;

use futures::future::BoxFuture;

use crate::{AgentError, Message};

/// Where conversations are kept, by id. Implementations must make [`append`] atomic and
/// conditional: all of `messages` or none, and only while the conversation is still at
/// `version`.
///
/// [`append`]: ConversationStore::append
///
/// ```
/// use agents_kt::{ConversationStore, InMemoryStore, Message, StoreError};
/// # futures::executor::block_on(async {
/// let store = InMemoryStore::new();
/// let version = store.append("conv-1", 0, vec![Message::user("hi")]).await.unwrap();
/// assert_eq!(version, 1);
/// // A writer that still believes the conversation is empty is refused.
/// let stale = store.append("conv-1", 0, vec![Message::user("hello")]).await;
/// assert!(matches!(stale, Err(StoreError::Conflict { .. })));
/// assert_eq!(store.load("conv-1").await.unwrap().messages().len(), 1);
/// # });
/// ```
pub trait ConversationStore: Send + Sync + 'static {
    /// The conversation's messages, oldest first, with its version; an unknown id is an empty
    /// conversation at version 0.
    fn load<'a>(&'a self, conversation: &'a str)
    -> BoxFuture<'a, Result<Conversation, StoreError>>;

    /// Append `messages` to the conversation if it is at `version` (its number of messages);
    /// the new version. Refused with [`StoreError::Conflict`] when another writer moved it on.
    fn append<'a>(
        &'a self,
        conversation: &'a str,
        version: u64,
        messages: Vec<Message>,
    ) -> BoxFuture<'a, Result<u64, StoreError>>;

    /// Take (or renew) the conversation's lease for `holder` for `ttl`: `true` when `holder` now
    /// holds it, `false` while another holder's lease runs. The default takes nothing and says
    /// `true` (a store of your own without leases keeps only the version check of `append`).
    fn lease<'a>(
        &'a self,
        conversation: &'a str,
        holder: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let _ = (conversation, holder, ttl);
        Box::pin(std::future::ready(Ok(true)))
    }

    /// Give the lease back, if `holder` holds it. The default does nothing.
    fn release<'a>(
        &'a self,
        conversation: &'a str,
        holder: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = (conversation, holder);
        Box::pin(std::future::ready(Ok(())))
    }
}

/// A stored conversation: its messages, oldest first, and its version (how many there are).
///
/// ```
/// let conversation = agents_kt::Conversation::new(vec![agents_kt::Message::user("hi")]);
/// assert_eq!(conversation.version(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Conversation {
    messages: Vec<Message>,
}

impl Conversation {
    /// A conversation of `messages`.
    pub fn new(messages: Vec<Message>) -> Self {
        Conversation { messages }
    }

    /// Its messages, oldest first.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Its messages, taken.
    pub fn into_messages(self) -> Vec<Message> {
        self.messages
    }

    /// Its version: how many messages it holds.
    pub fn version(&self) -> u64 {
        self.messages.len() as u64
    }
}

/// Why a conversation could not be read or written.
///
/// ```
/// let e = agents_kt::StoreError::conflict("c", 2, 5);
/// assert!(e.to_string().contains("another writer"));
/// ```
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Another writer appended to the conversation since this run read it.
    #[error(
        "conversation '{conversation}' was changed by another writer (this run continues version {expected}, the store holds {found}): nothing of this turn was stored; run again to continue from the new version"
    )]
    #[non_exhaustive]
    Conflict {
        /// The conversation.
        conversation: String,
        /// The version this run continued.
        expected: u64,
        /// The version the store holds.
        found: u64,
    },
    /// A stored message could not be read.
    #[error(
        "conversation '{conversation}' has an unreadable message at position {position}: {reason}"
    )]
    #[non_exhaustive]
    Corrupt {
        /// The conversation.
        conversation: String,
        /// The message's position, from 0.
        position: u64,
        /// What did not fit.
        reason: String,
    },
    /// Another run holds the conversation, and it was not free within the wait: nothing of this
    /// run happened (no model was called, no tool ran).
    #[error(
        "conversation '{conversation}' is in use by another run (waited {waited_ms} ms for it): nothing of this run happened; run again when the other has finished"
    )]
    #[non_exhaustive]
    Busy {
        /// The conversation.
        conversation: String,
        /// How long this run waited for it.
        waited_ms: u64,
    },
    /// The store itself failed (its database could not be opened, read or written).
    #[error("the conversation store failed: {0}")]
    Backend(String),
}

impl StoreError {
    /// Another writer changed `conversation`: this run continued version `expected`, the store
    /// holds `found` (what a [`ConversationStore`] of your own returns instead of appending).
    ///
    /// ```
    /// let e = agents_kt::StoreError::conflict("user-7", 3, 4);
    /// assert!(matches!(e, agents_kt::StoreError::Conflict { found: 4, .. }));
    /// ```
    pub fn conflict(conversation: impl Into<String>, expected: u64, found: u64) -> Self {
        StoreError::Conflict {
            conversation: conversation.into(),
            expected,
            found,
        }
    }

    /// The message at `position` of `conversation` could not be read, for `reason`.
    ///
    /// ```
    /// let e = agents_kt::StoreError::corrupt("user-7", 2, "not JSON");
    /// assert!(e.to_string().contains("position 2"));
    /// ```
    pub fn corrupt(
        conversation: impl Into<String>,
        position: u64,
        reason: impl Into<String>,
    ) -> Self {
        StoreError::Corrupt {
            conversation: conversation.into(),
            position,
            reason: reason.into(),
        }
    }
}

impl From<StoreError> for AgentError {
    fn from(error: StoreError) -> Self {
        AgentError::Memory(error)
    }
}

crate::error_debug::readable_debug!(StoreError);
