//! Conversations in memory: for tests, and for a process that remembers only while it lives.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    /// Per conversation: who holds its lease, and until when — on the coarse clock: a lease
    /// lasts minutes, and every remembered run takes and renews one.
    leases: Arc<Mutex<HashMap<String, (String, coarsetime::Instant)>>>,
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
        // Looked up, not `entry`: a conversation's every turn appends, and only its first needs
        // its name copied into the map.
        let result = match conversations.get_mut(conversation) {
            Some(stored) if stored.len() as u64 == version => {
                stored.extend(messages);
                Ok(stored.len() as u64)
            }
            None if version == 0 => {
                let length = messages.len() as u64;
                conversations.insert(conversation.to_string(), messages);
                Ok(length)
            }
            stored => Err(StoreError::Conflict {
                conversation: conversation.to_string(),
                expected: version,
                found: stored.map_or(0, |stored| stored.len() as u64),
            }),
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
        let now = crate::coarse_clock::now();
        let ttl = coarsetime::Duration::from(ttl);
        let free = match leases.get_mut(conversation) {
            // Renewed in place: a run renews its lease every turn.
            Some((owner, until)) if owner == holder => {
                *until = now + ttl;
                return Box::pin(std::future::ready(Ok(true)));
            }
            Some((_, until)) => *until <= now,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run<T>(future: BoxFuture<'_, T>) -> T {
        futures::executor::block_on(future)
    }

    #[test]
    fn appending_continues_only_the_version_read() {
        let store = InMemoryStore::new();
        let unknown = run(store.append("c", 3, vec![Message::user("a")]));
        assert!(matches!(
            unknown,
            Err(StoreError::Conflict {
                expected: 3,
                found: 0,
                ..
            })
        ));
        assert_eq!(run(store.append("c", 0, vec![Message::user("a")])), Ok(1));
        assert_eq!(run(store.append("c", 1, vec![Message::user("b")])), Ok(2));
        let stale = run(store.append("c", 1, vec![Message::user("c")]));
        assert!(matches!(
            stale,
            Err(StoreError::Conflict {
                expected: 1,
                found: 2,
                ..
            })
        ));
        let messages = run(store.load("c")).map(Conversation::into_messages);
        let texts: Vec<String> = messages
            .unwrap_or_default()
            .into_iter()
            .map(|m| m.content)
            .collect();
        assert_eq!(texts, ["a", "b"]);
    }

    #[test]
    fn a_lease_renewed_by_its_holder_keeps_others_out_until_it_runs_out() {
        let store = InMemoryStore::new();
        // Long enough that consecutive calls on a loaded machine fall well inside it.
        let short = Duration::from_millis(300);
        assert_eq!(run(store.lease("c", "first", short)), Ok(true));
        assert_eq!(run(store.lease("c", "first", short)), Ok(true));
        assert_eq!(run(store.lease("c", "second", short)), Ok(false));
        std::thread::sleep(short * 2);
        assert_eq!(run(store.lease("c", "second", short)), Ok(true));
        assert_eq!(run(store.lease("c", "first", short)), Ok(false));
        run(store.release("c", "second")).ok();
        assert_eq!(run(store.lease("c", "first", short)), Ok(true));
    }
}
