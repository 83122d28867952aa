//! A running session: its event stream and its awaitable output.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use futures::channel::mpsc::{Receiver, UnboundedReceiver};
use tokio::task::JoinHandle;

use crate::chain::panic_message;
use crate::{AgentError, AgentEvent, RunIds};

/// A stream of events (a session's [`AgentEvent`]s, or an agent's
/// [`PipelineEvent`](crate::PipelineEvent)s). It ends when its source is done.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use futures::StreamExt;
/// use agents_kt::{Agent, PipelineEvent, Reply, ScriptedModel};
/// let agent = Agent::<String, String>::builder("a")
///     .model(ScriptedModel::new([Reply::text("ok")]))
///     .build()
///     .unwrap();
/// let mut events = agent.observe();
/// agent.run("hi".into()).await.unwrap();
/// assert!(matches!(events.next().await, Some(PipelineEvent::RunStarted { .. })));
/// # }
/// ```
#[must_use = "streams do nothing unless polled"]
pub struct EventStream<T> {
    receiver: Option<Source<T>>,
}

/// Where a stream's events come from: a session's own queue (bounded by its run's budget), or
/// an `observe()` stream's bounded one.
enum Source<T> {
    Session(UnboundedReceiver<T>),
    Observed(Receiver<T>),
}

impl<T> EventStream<T> {
    pub(crate) fn new(receiver: UnboundedReceiver<T>) -> Self {
        EventStream {
            receiver: Some(Source::Session(receiver)),
        }
    }

    pub(crate) fn observed(receiver: Receiver<T>) -> Self {
        EventStream {
            receiver: Some(Source::Observed(receiver)),
        }
    }

    fn ended() -> Self {
        EventStream { receiver: None }
    }
}

impl<T> Stream for EventStream<T> {
    type Item = T;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        match &mut self.receiver {
            Some(Source::Session(receiver)) => Pin::new(receiver).poll_next(cx),
            Some(Source::Observed(receiver)) => Pin::new(receiver).poll_next(cx),
            None => Poll::Ready(None),
        }
    }
}

/// A session started by [`Agent::session`](crate::Agent::session): the run goes on in its own
/// task; [`AgentSession::events`] streams what happens and awaiting the session (or
/// [`AgentSession::output`]) gives the output. Dropping it stops the run.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use futures::StreamExt;
/// use agents_kt::{Agent, AgentEvent, Reply, ScriptedModel};
/// let agent = Agent::<String, String>::builder("a")
///     .model(ScriptedModel::new([Reply::text("streamed answer")]))
///     .build()
///     .unwrap();
/// let mut session = agent.session("hi".into());
/// let events: Vec<_> = session.events().collect().await;
/// assert!(events.iter().any(|e| matches!(e, AgentEvent::Token { .. })));
/// assert_eq!(session.await.unwrap(), "streamed answer");
/// # }
/// ```
#[must_use = "a session stops its run when dropped: await it, or read its events"]
pub struct AgentSession<OUT> {
    ids: RunIds,
    events: Option<UnboundedReceiver<AgentEvent<OUT>>>,
    task: Option<JoinHandle<Result<OUT, AgentError>>>,
}

impl<T> std::fmt::Debug for EventStream<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventStream")
            .field("ended", &self.receiver.is_none())
            .finish()
    }
}

impl<OUT> std::fmt::Debug for AgentSession<OUT> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSession")
            .field("ids", &self.ids)
            .field("events_taken", &self.events.is_none())
            .finish_non_exhaustive()
    }
}

impl<OUT: Send + 'static> AgentSession<OUT> {
    pub(crate) fn new(
        ids: RunIds,
        events: UnboundedReceiver<AgentEvent<OUT>>,
        task: JoinHandle<Result<OUT, AgentError>>,
    ) -> Self {
        AgentSession {
            ids,
            events: Some(events),
            task: Some(task),
        }
    }

    /// The session's ids.
    pub fn ids(&self) -> &RunIds {
        &self.ids
    }

    /// The session's events, from the start. The stream can be taken once; later calls get an
    /// empty stream. It ends after [`AgentEvent::Completed`] or [`AgentEvent::Failed`].
    ///
    /// A reader never slows the run (no back-pressure): events wait for a slow reader, and what
    /// they hold is bounded by the run itself — a few events per turn and per tool call (the
    /// budget caps both) and one per streamed piece of the model's text. Events not taken before
    /// the session is awaited are dropped; dropping the stream stops the queueing.
    pub fn events(&mut self) -> EventStream<AgentEvent<OUT>> {
        match self.events.take() {
            Some(receiver) => EventStream::new(receiver),
            None => EventStream::ended(),
        }
    }

    /// Wait for the session's output.
    pub async fn output(mut self) -> Result<OUT, AgentError> {
        // Events nobody took can no longer be read: stop queueing them.
        self.events = None;
        let Some(task) = self.task.take() else {
            return Err(AgentError::Aborted(
                "the session's output was already taken".into(),
            ));
        };
        match task.await {
            Ok(result) => result,
            Err(error) if error.is_panic() => Err(AgentError::Aborted(format!(
                "the session's task panicked: {}",
                panic_message(error.into_panic().as_ref())
            ))),
            Err(error) => Err(AgentError::Aborted(error.to_string())),
        }
    }
}

impl<OUT: Send + 'static> IntoFuture for AgentSession<OUT> {
    type Output = Result<OUT, AgentError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.output())
    }
}

impl<OUT> Drop for AgentSession<OUT> {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}
