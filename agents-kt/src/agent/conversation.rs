//! Runs that continue a stored conversation.

use std::sync::Arc;

use super::run::{Caller, Run};
use super::{Agent, AgentInput, AgentOutput, AgentSession};
use crate::memory::Remembered;
use crate::{AgentError, ConversationStore, Extensions, RunIds};

impl<IN: AgentInput, OUT: AgentOutput> Agent<IN, OUT> {
    /// [`Agent::run`] in the conversation `conversation` of `store`: the model reads the stored
    /// history before the input (the turn chain sees it first, and may trim or redact it), and
    /// each turn's messages — the input, the model's answers, the tool results as the after-tool
    /// chain left them — are appended once the turn is done. System messages are not stored.
    /// Another writer appending to the conversation in between ends this run with
    /// [`AgentError::Memory`] ([`StoreError::Conflict`](crate::StoreError::Conflict)); what it
    /// stored before stays. An agentic skill remembers; a code skill runs as without a store.
    ///
    /// ```
    /// use agents_kt::{Agent, InMemoryStore, Reply, ScriptedModel};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let agent = Agent::<String, String>::builder("desk")
    ///     .model(ScriptedModel::new([Reply::text("Noted: blue."), Reply::text("Blue.")]))
    ///     .build()?;
    /// let store = InMemoryStore::new();
    /// agent.run_in(&store, "conv-42", "My favourite colour is blue.".into()).await?;
    /// assert_eq!(agent.run_in(&store, "conv-42", "Which colour?".into()).await?, "Blue.");
    /// # Ok(()) }
    /// ```
    pub async fn run_in<S: ConversationStore + Clone>(
        &self,
        store: &S,
        conversation: &str,
        input: IN,
    ) -> Result<OUT, AgentError> {
        self.run_in_with(store, conversation, input, Extensions::new())
            .await
    }

    /// [`Agent::run_in`], with `extensions` for this run's interceptors and gates.
    pub async fn run_in_with<S: ConversationStore + Clone>(
        &self,
        store: &S,
        conversation: &str,
        input: IN,
        extensions: Extensions,
    ) -> Result<OUT, AgentError> {
        let caller = Caller {
            extensions,
            memory: Some(remembered(
                store,
                conversation,
                self.inner.core.conversation_wait,
            )),
            ..Caller::default()
        };
        let ids = RunIds::new(self.next_run_id("run"), conversation);
        let run = Arc::new(Run::new(Arc::clone(&self.inner.core), ids, caller, None));
        self.execute(input, run, None).await
    }

    /// [`Agent::session`] in the conversation `conversation` of `store` (see
    /// [`Agent::run_in`]): the stream path, remembering.
    pub fn session_in<S: ConversationStore + Clone>(
        &self,
        store: &S,
        conversation: &str,
        input: IN,
    ) -> AgentSession<OUT> {
        let caller = Caller {
            memory: Some(remembered(
                store,
                conversation,
                self.inner.core.conversation_wait,
            )),
            ..Caller::default()
        };
        let ids = RunIds::new(self.next_run_id("session"), conversation);
        self.start_session(input, ids, caller)
    }
}

fn remembered<S: ConversationStore + Clone>(
    store: &S,
    conversation: &str,
    wait: std::time::Duration,
) -> Remembered {
    Remembered::new(Arc::new(store.clone()), conversation.to_string(), wait)
}
