//! A future run inside its span: `tracing`'s `Instrumented`, less one span entry. `Instrumented`
//! enters its span to poll and again to drop the future — even a future already finished, whose
//! drop has nothing left to report. Entering a span is cheap with nobody listening, but under the
//! OpenTelemetry layer each entry and exit is a span lookup (BENCHMARKS.md, OTel per turn: two
//! per span per turn). Here the finished future is dropped inside the poll that finished it,
//! while the span is still entered, and a future dropped unfinished is dropped inside the span,
//! as `Instrumented` does.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tracing::Span;

pin_project_lite::pin_project! {
    /// `future`, each poll and its drop inside `span` (see the module).
    pub(crate) struct InSpan<F> {
        span: Span,
        #[pin]
        future: Option<F>,
    }

    impl<F> PinnedDrop for InSpan<F> {
        fn drop(this: Pin<&mut Self>) {
            let mut this = this.project();
            if this.future.is_some() {
                let _entered = this.span.enter();
                this.future.set(None);
            }
        }
    }
}

/// Run `future` inside `span`.
pub(crate) fn in_span<F: Future>(span: Span, future: F) -> InSpan<F> {
    InSpan {
        span,
        future: Some(future),
    }
}

impl<F: Future> Future for InSpan<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let mut this = self.project();
        let _entered = this.span.enter();
        let Some(future) = this.future.as_mut().as_pin_mut() else {
            // Polled after it finished: a caller's bug, as for any future.
            panic!("InSpan polled after it finished");
        };
        let output = std::task::ready!(future.poll(cx));
        // Dropped now, inside the span, so its drop needs no entry of its own.
        this.future.set(None);
        Poll::Ready(output)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing::span::{Attributes, Id, Record};
    use tracing::subscriber::with_default;
    use tracing::{Event, Metadata, Subscriber};

    use super::*;

    /// Counts how often its one span is entered, and in which span each event happened.
    #[derive(Default, Clone)]
    struct Entries {
        entered: Arc<Mutex<u32>>,
        depth: Arc<Mutex<u32>>,
        events_inside: Arc<Mutex<Vec<bool>>>,
    }

    impl Subscriber for Entries {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {
            let inside = *self.depth.lock().unwrap() > 0;
            self.events_inside.lock().unwrap().push(inside);
        }
        fn enter(&self, _: &Id) {
            *self.entered.lock().unwrap() += 1;
            *self.depth.lock().unwrap() += 1;
        }
        fn exit(&self, _: &Id) {
            *self.depth.lock().unwrap() -= 1;
        }
    }

    /// Emits an event when dropped.
    struct Noisy;
    impl Drop for Noisy {
        fn drop(&mut self) {
            tracing::info!("dropped");
        }
    }

    /// A future holding a `Noisy`, in a span, under a counting subscriber: run to its end (its
    /// output checked), or dropped unfinished.
    fn watched(finish: bool) -> Entries {
        let entries = Entries::default();
        with_default(entries.clone(), || {
            let noisy = Noisy;
            let future = in_span(tracing::info_span!("work"), async move {
                let _held = noisy;
                if !finish {
                    std::future::pending::<()>().await;
                }
                tracing::info!("working");
                7
            });
            match finish {
                true => assert_eq!(futures::executor::block_on(future), 7),
                false => drop(future),
            }
        });
        entries
    }

    #[test]
    fn a_finished_future_is_entered_once_and_dropped_inside_its_span() {
        let entries = watched(true);
        let entered = *entries.entered.lock().unwrap();
        assert_eq!(entered, 1, "one entry for one poll");
        assert_eq!(*entries.events_inside.lock().unwrap(), [true, true]);
    }

    #[test]
    fn an_unfinished_future_is_dropped_inside_its_span() {
        let entries = watched(false);
        assert_eq!(*entries.events_inside.lock().unwrap(), [true]);
    }
}
