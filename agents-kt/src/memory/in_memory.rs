//! Conversations in memory: for tests, and for a process that remembers only while it lives.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;

use super::{Conversation, ConversationStore, StoreError};
use crate::Message;

/// A [`ConversationStore`] in memory, shared by its clones.
///
/// ```
/// use agents_kt::{Agent, InMemoryStore, Reply, ScriptedModel};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let model = ScriptedModel::new([Reply::text("Hello Ada."), Reply::text("You are Ada.")]);
/// let agent = Agent::<String, String>::builder("a").model(model.clone()).build()?;
/// let store = InMemoryStore::new();
/// agent.run_in(&store, "conv-1", "I am Ada".into()).await?;
/// agent.run_in(&store, "conv-1", "Who am I?".into()).await?;
/// // The second run's model read the first run's conversation.
/// assert_eq!(model.requests()[1].messages[0].content, "I am Ada");
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default)]
pub struct InMemoryStore {
    conversations: Arc<Mutex<HashMap<String, Vec<Message>>>>,
    /// Per conversation: who holds its lease, and until when.
    leases: Arc<Mutex<HashMap<String, (String, Instant)>>>,
}

impl InMemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        InMemoryStore::default()
    }
}

impl ConversationStore for InMemoryStore {
    fn load<'a>(
        &'a self,
        conversation: &'a str,
    ) -> BoxFuture<'a, Result<Conversation, StoreError>> {
        let conversations = self.conversations.lock().unwrap_or_else(|p| p.into_inner());
        let messages = conversations.get(conversation).cloned().unwrap_or_default();
        Box::pin(std::future::ready(Ok(Conversation::new(messages))))
    }

    fn append<'a>(
        &'a self,
        conversation: &'a str,
        version: u64,
        messages: Vec<Message>,
    ) -> BoxFuture<'a, Result<u64, StoreError>> {
        let mut conversations = self.conversations.lock().unwrap_or_else(|p| p.into_inner());
        let stored = conversations.entry(conversation.to_string()).or_default();
        let result = if stored.len() as u64 == version {
            stored.extend(messages);
            Ok(stored.len() as u64)
        } else {
            Err(StoreError::Conflict {
                conversation: conversation.to_string(),
                expected: version,
                found: stored.len() as u64,
            })
        };
        Box::pin(std::future::ready(result))
    }

    fn lease<'a>(
        &'a self,
        conversation: &'a str,
        holder: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut leases = self.leases.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        let free = match leases.get(conversation) {
            Some((owner, until)) => owner == holder || *until <= now,
            None => true,
        };
        if free {
            leases.insert(conversation.to_string(), (holder.to_string(), now + ttl));
        }
        Box::pin(std::future::ready(Ok(free)))
    }

    fn release<'a>(
        &'a self,
        conversation: &'a str,
        holder: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut leases = self.leases.lock().unwrap_or_else(|p| p.into_inner());
        if leases
            .get(conversation)
            .is_some_and(|(owner, _)| owner == holder)
        {
            leases.remove(conversation);
        }
        Box::pin(std::future::ready(Ok(())))
    }
}
