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
    /// Where its steps are recorded, on a durable server: a restart replays it from there.
    pub journal: Option<Arc<dyn crate::Journal>>,
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
        let journaled = served.journal.is_some();
        let (mut ids, mut caller) = match served.journal {
            Some(journal) => self.journaled_caller(crate::Extensions::new(), journal),
            None => (self.next_ids("a2a"), Caller::default()),
        };
        let wait = self.inner.core.conversation_wait;
        if let Some((store, conversation)) = served.memory {
            let mut remembered = Remembered::new(store, conversation.clone(), wait);
            if journaled {
                remembered = remembered.held_as(format!("run/{}", ids.run_id));
            }
            ids.session_id = conversation;
            caller.memory = Some(remembered);
        }
        caller.client = served.client;
        caller.desk = Some(served.desk);
        caller.above = served.above;
        caller.history = served.history;
        let (_, events, run) = self.session_parts(input, ids, caller);
        ServedRun { events, run }
    }

    /// The desk a served run's approvals go to: the agent's own (its operator's) when it has
    /// one, else the task's.
    pub(crate) fn served_desk(&self, task_desk: ApprovalDesk) -> ApprovalDesk {
        self.inner.core.approval_desk.clone().unwrap_or(task_desk)
    }
}
