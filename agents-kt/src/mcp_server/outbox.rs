//! Notifications a `tools/call` sends its client while it runs (progress, log messages), queued
//! from synchronous code and sent in order by one task; flushed before the call's answer, so the
//! client reads them before it reads the result (after which it may stop listening).
//!
//! The task is started by the first notification, not with the queue: most calls send none
//! (a client that asks for progress on every request still gets none from a tool that reports
//! none), and for them the queue costs no task, no channel, and no round trip to flush.

use std::sync::{Arc, OnceLock};

use futures::future::BoxFuture;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;

enum Item<T> {
    Send(T),
    /// Everything queued before it has been sent (or the client is gone).
    Flush(oneshot::Sender<()>),
}

/// How a queue's items are delivered: `true` while the client is there.
type Deliver<T> = Box<dyn Fn(T) -> BoxFuture<'static, bool> + Send + Sync>;

/// The queue of one call's notifications of one kind.
pub(crate) struct Outbox<T> {
    shared: Arc<Shared<T>>,
}

struct Shared<T> {
    /// Taken by the task when the first notification starts it.
    deliver: std::sync::Mutex<Option<Deliver<T>>>,
    queue: OnceLock<UnboundedSender<Item<T>>>,
    /// The runtime the queue was made on: the first notification may come from any thread (a
    /// tool's own `std::thread`), where there is no runtime to start the task on.
    runtime: Option<tokio::runtime::Handle>,
}

impl<T> Clone for Outbox<T> {
    fn clone(&self) -> Self {
        Outbox {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T: Send + 'static> Outbox<T> {
    /// A queue whose items `send` delivers, one at a time, until one fails (the client is gone).
    pub(crate) fn new(
        send: impl Fn(T) -> BoxFuture<'static, bool> + Send + Sync + 'static,
    ) -> Self {
        Outbox {
            shared: Arc::new(Shared {
                deliver: std::sync::Mutex::new(Some(Box::new(send))),
                queue: OnceLock::new(),
                runtime: tokio::runtime::Handle::try_current().ok(),
            }),
        }
    }

    pub(crate) fn push(&self, notification: T) {
        let queue = self.shared.queue.get_or_init(|| self.start());
        let _ = queue.send(Item::Send(notification));
    }

    /// Wait until everything queued so far has been sent; at once when nothing ever was.
    pub(crate) async fn flush(&self) {
        let Some(queue) = self.shared.queue.get() else {
            return;
        };
        let (done, sent) = oneshot::channel();
        if queue.send(Item::Flush(done)).is_ok() {
            let _ = sent.await;
        }
    }

    /// The task that sends the queue's items, in order.
    fn start(&self) -> UnboundedSender<Item<T>> {
        let (queue, mut items) = unbounded_channel::<Item<T>>();
        let deliver = self
            .shared
            .deliver
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        let runtime = self.shared.runtime.clone();
        let Some(runtime) = runtime.or_else(|| tokio::runtime::Handle::try_current().ok()) else {
            // No runtime anywhere: nothing can be sent; the queue's items are dropped.
            return queue;
        };
        runtime.spawn(async move {
            let mut connected = deliver.is_some();
            while let Some(item) = items.recv().await {
                match (item, &deliver) {
                    (Item::Send(notification), Some(send)) if connected => {
                        connected = send(notification).await;
                    }
                    (Item::Send(_), _) => {}
                    (Item::Flush(done), _) => {
                        let _ = done.send(());
                    }
                }
            }
        });
        queue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;
    use std::sync::Mutex;

    #[tokio::test]
    async fn items_are_sent_in_order_before_a_flush_returns() {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&sent);
        let outbox = Outbox::new(move |item: u32| {
            let log = Arc::clone(&log);
            async move {
                tokio::task::yield_now().await;
                log.lock().unwrap().push(item);
                true
            }
            .boxed()
        });
        let other = outbox.clone();
        outbox.push(1);
        other.push(2);
        outbox.push(3);
        other.flush().await;
        assert_eq!(*sent.lock().unwrap(), vec![1, 2, 3]);
    }

    #[tokio::test]
    async fn a_first_notification_from_a_thread_outside_the_runtime_is_still_sent() {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&sent);
        let outbox = Outbox::new(move |item: u32| {
            log.lock().unwrap().push(item);
            async { true }.boxed()
        });
        let from_thread = outbox.clone();
        std::thread::spawn(move || from_thread.push(7))
            .join()
            .unwrap();
        outbox.flush().await;
        assert_eq!(*sent.lock().unwrap(), vec![7]);
    }

    #[tokio::test]
    async fn a_queue_nothing_was_pushed_to_starts_no_task_and_flushes_at_once() {
        let outbox = Outbox::new(|_: u32| async { true }.boxed());
        outbox.flush().await;
        assert!(outbox.shared.queue.get().is_none());
        assert!(outbox.shared.deliver.lock().unwrap().is_some());
    }

    #[tokio::test]
    async fn after_a_failed_send_the_rest_are_dropped_and_flush_still_returns() {
        let tries = Arc::new(Mutex::new(0));
        let count = Arc::clone(&tries);
        let outbox = Outbox::new(move |_: u32| {
            *count.lock().unwrap() += 1;
            async { false }.boxed()
        });
        for item in 0..3 {
            outbox.push(item);
        }
        outbox.flush().await;
        assert_eq!(*tries.lock().unwrap(), 1);
    }
}
