//! Notifications a `tools/call` sends its client while it runs (progress, log messages), queued
//! from synchronous code and sent in order by one task; flushed before the call's answer, so the
//! client reads them before it reads the result (after which it may stop listening).

use futures::future::BoxFuture;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;

enum Item<T> {
    Send(T),
    /// Everything queued before it has been sent (or the client is gone).
    Flush(oneshot::Sender<()>),
}

/// The queue of one call's notifications of one kind.
pub(crate) struct Outbox<T> {
    queue: UnboundedSender<Item<T>>,
}

impl<T> Clone for Outbox<T> {
    fn clone(&self) -> Self {
        Outbox {
            queue: self.queue.clone(),
        }
    }
}

impl<T: Send + 'static> Outbox<T> {
    /// A queue whose items `send` delivers, one at a time, until one fails (the client is gone).
    pub(crate) fn new(send: impl Fn(T) -> BoxFuture<'static, bool> + Send + 'static) -> Self {
        let (queue, mut items) = unbounded_channel::<Item<T>>();
        tokio::spawn(async move {
            let mut connected = true;
            while let Some(item) = items.recv().await {
                match item {
                    Item::Send(notification) if connected => connected = send(notification).await,
                    Item::Send(_) => {}
                    Item::Flush(done) => {
                        let _ = done.send(());
                    }
                }
            }
        });
        Outbox { queue }
    }

    pub(crate) fn push(&self, notification: T) {
        let _ = self.queue.send(Item::Send(notification));
    }

    /// Wait until everything queued so far has been sent.
    pub(crate) async fn flush(&self) {
        let (done, sent) = oneshot::channel();
        if self.queue.send(Item::Flush(done)).is_ok() {
            let _ = sent.await;
        }
    }
}
