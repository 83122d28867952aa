//! The agent's [`Journal`] inside a Restate workflow, as a channel: the run asks for each step,
//! and the workflow handler, which owns the Restate context, records it (`ctx.run`, a durable
//! promise) and answers. The run never holds the context, so nothing borrows across the two.

use agents_kt::{ApprovalRequest, Journal, JournalError};
use futures::channel::{mpsc, oneshot};
use futures::future::BoxFuture;
use serde_json::Value;
use serde_json::value::RawValue;

/// What the run asks the workflow handler for.
pub(crate) enum Request {
    /// Record (or replay) a step.
    Step {
        name: String,
        work: BoxFuture<'static, Result<Box<RawValue>, String>>,
        reply: oneshot::Sender<Result<Box<RawValue>, JournalError>>,
    },
    /// Wait (durably) for an approval.
    Approval {
        name: String,
        request: ApprovalRequest,
        reply: oneshot::Sender<Result<Value, JournalError>>,
    },
}

/// The run's side: sends requests, awaits answers.
pub(crate) struct ChannelJournal {
    run_id: String,
    requests: mpsc::UnboundedSender<Request>,
}

impl ChannelJournal {
    pub(crate) fn new(run_id: String) -> (Self, mpsc::UnboundedReceiver<Request>) {
        let (requests, inbox) = mpsc::unbounded();
        (ChannelJournal { run_id, requests }, inbox)
    }

    async fn ask<T>(
        &self,
        request: impl FnOnce(oneshot::Sender<Result<T, JournalError>>) -> Request,
    ) -> Result<T, JournalError> {
        let (reply, answer) = oneshot::channel();
        self.requests
            .unbounded_send(request(reply))
            .map_err(|_| JournalError::Failed("the workflow handler has stopped".to_string()))?;
        answer.await.map_err(|_| {
            JournalError::Failed("the workflow handler dropped the step".to_string())
        })?
    }
}

impl Journal for ChannelJournal {
    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn step(
        &self,
        name: &str,
        work: BoxFuture<'static, Result<Box<RawValue>, String>>,
    ) -> BoxFuture<'_, Result<Box<RawValue>, JournalError>> {
        let name = name.to_string();
        Box::pin(self.ask(move |reply| Request::Step { name, work, reply }))
    }

    fn approval(
        &self,
        name: &str,
        request: ApprovalRequest,
    ) -> BoxFuture<'_, Result<Value, JournalError>> {
        let name = name.to_string();
        Box::pin(self.ask(move |reply| Request::Approval {
            name,
            request,
            reply,
        }))
    }
}
