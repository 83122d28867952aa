//! Sessions a server starts for a remote caller (an A2A task): on the stream path, as the
//! caller's principal, with the task's approval desk and, when the server remembers, in the
//! caller's conversation.

use std::sync::Arc;

use super::run::Caller;
use std::future::Future;

use futures::channel::mpsc::UnboundedReceiver;

use super::{Agent, AgentInput, AgentOutput};
use crate::memory::Remembered;
use crate::tool::inherited::Ancestor;
use crate::{AgentError, AgentEvent};
use crate::{ApprovalDesk, ConversationStore};

/// Who a served session is for, and what it may use.
pub(crate) struct Served {
    /// The authenticated principal (`InterceptContext::client`), if the server authenticates.
    pub client: Option<String>,
    /// Where the session's approvals go unless the agent has a desk of its own.
    pub desk: ApprovalDesk,
    /// The conversation it continues: a store and the conversation's id.
    pub memory: Option<(Arc<dyn ConversationStore>, String)>,
    /// Policies of the server, judging from above.
    pub above: Vec<Ancestor>,
    /// The conversation so far that a caller's handoff carried (user and assistant text).
    pub history: Vec<crate::Message>,
}

/// A served session's run, not yet started: its events, and the run for the server to poll on
/// a task of its own (with whatever else that task does — one task, not two, per served run).
pub(crate) struct ServedRun<OUT, F> {
    pub events: UnboundedReceiver<AgentEvent<OUT>>,
    pub run: F,
}

impl<IN: AgentInput, OUT: AgentOutput> Agent<IN, OUT> {
    /// A session on `input` for a remote caller.
    pub(crate) fn served_run(
        &self,
        input: IN,
        served: Served,
    ) -> ServedRun<OUT, impl Future<Output = Result<OUT, AgentError>> + Send + 'static> {
        let mut ids = self.next_ids("a2a");
        if let Some((_, conversation)) = &served.memory {
            ids.session_id = conversation.clone();
        }
        let wait = self.inner.core.conversation_wait;
        let caller = Caller {
            client: served.client,
            desk: Some(served.desk),
            above: served.above,
            history: served.history,
            memory: served
                .memory
                .map(|(store, conversation)| Remembered::new(store, conversation, wait)),
            ..Caller::default()
        };
        let (_, events, run) = self.session_parts(input, ids, caller);
        ServedRun { events, run }
    }
}
