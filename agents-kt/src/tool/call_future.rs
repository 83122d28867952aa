//! The futures of a tool call, written by hand so that a call holds no more than it uses: the
//! tool body under its deadline with panics caught ([`Body`]), and the call around it
//! ([`CallFuture`]) — the body and what its record keeps, nothing for the branches it did not
//! take. A compiler-built `async` state machine keeps every branch's locals side by side and
//! was ten times the tool's own future; this one is the body plus a few words.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::BoxFuture;
use pin_project_lite::pin_project;

use super::record::{CallRecord, CallSetup, Parts, ToolFailure};
use super::{Tool, ToolError};
use crate::coarse_clock::{now, since};

/// What finishes a call once its body returned: the runtime that started it. A trait, so the
/// future knows how a call ends without knowing the runtime's insides.
pub(crate) trait Finish<T: Tool>: Sync {
    /// The record when the call is complete, or the output and parts when its after-tool chain
    /// has to run.
    fn finished(
        &self,
        result: Result<T::Output, ToolFailure>,
        parts: Parts,
    ) -> Result<CallRecord<T::Output>, (T::Output, Parts)>;

    /// The after-tool chain over `output`, finishing the record.
    fn after<'a>(
        &'a self,
        output: T::Output,
        parts: Parts,
        setup: &'a CallSetup<'a>,
    ) -> BoxFuture<'a, CallRecord<T::Output>>;
}

pin_project! {
    /// A tool body with panics caught and the per-tool timeout applied. Interceptors are timed
    /// separately (`Budget::interceptor_timeout`).
    ///
    /// The timeout is wall time from the body's first poll, so work done before its first
    /// `.await` counts: a body that returns after its deadline is a timeout, and its result is
    /// dropped. The timer is armed (boxed) only when the body does not finish on its first poll.
    /// The start is read from the coarse monotonic clock (a memory read, where the precise one is
    /// a slow call on virtual machines), so the deadline of an inline body is judged to within the
    /// clock's tick (a few milliseconds).
    pub(crate) struct Body<F> {
        #[pin]
        body: F,
        limit: Option<Duration>,
        started: Option<coarsetime::Instant>,
        timer: Option<Pin<Box<tokio::time::Sleep>>>,
    }
}

impl<F> Body<F> {
    /// `body` with at most `limit` to run (`None`: no limit).
    pub(crate) fn new(body: F, limit: Option<Duration>) -> Self {
        Body {
            body,
            limit,
            started: None,
            timer: None,
        }
    }
}

impl<F, O> Future for Body<F>
where
    F: Future<Output = Result<O, ToolError>>,
{
    type Output = Result<O, ToolFailure>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let limit = *this.limit;
        let started = match (limit, *this.started) {
            (None, _) => None,
            (Some(_), Some(started)) => Some(started),
            (Some(_), None) => Some(*this.started.insert(now())),
        };
        match catch_unwind(AssertUnwindSafe(|| this.body.poll(cx))) {
            Ok(Poll::Ready(result)) => {
                if let (Some(start), Some(limit)) = (started, limit)
                    && since(start) > limit
                {
                    // It finished, but late: an inline body no timer could interrupt.
                    return Poll::Ready(Err(ToolFailure::TimedOut(limit)));
                }
                return Poll::Ready(result.map_err(|error| ToolFailure::Error(error.to_string())));
            }
            Ok(Poll::Pending) => {}
            // A panicking tool fails its call, not the agent.
            Err(payload) => {
                return Poll::Ready(Err(ToolFailure::Panicked(crate::chain::panic_message(
                    payload.as_ref(),
                ))));
            }
        }
        let (Some(start), Some(limit)) = (started, limit) else {
            return Poll::Pending;
        };
        let timer = this.timer.get_or_insert_with(|| {
            Box::pin(tokio::time::sleep(limit.saturating_sub(since(start))))
        });
        timer
            .as_mut()
            .poll(cx)
            .map(|()| Err(ToolFailure::TimedOut(limit)))
    }
}

pin_project! {
    /// A guarded tool call: already decided (denied, or substituted with nothing after it), the
    /// body running with the parts of the record it will finish, or a boxed future for
    /// whatever may wait (an asynchronous guard, an approval, a journaled or sub-agent
    /// execution, an after-tool chain).
    #[project = CallProjection]
    pub(crate) enum CallFuture<'a, T: Tool, F, R> {
        Decided { record: Option<CallRecord<T::Output>> },
        Running {
            #[pin]
            body: Body<F>,
            parts: Option<Parts>,
            runtime: &'a R,
            setup: &'a CallSetup<'a>,
            after: Option<BoxFuture<'a, CallRecord<T::Output>>>,
        },
        Waiting { future: BoxFuture<'a, CallRecord<T::Output>> },
    }
}

impl<'a, T, F, R> Future for CallFuture<'a, T, F, R>
where
    T: Tool,
    F: Future<Output = Result<T::Output, ToolError>>,
    R: Finish<T>,
{
    type Output = CallRecord<T::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            CallProjection::Decided { record } => match record.take() {
                Some(record) => Poll::Ready(record),
                None => panic!("a tool call was polled after it finished"),
            },
            CallProjection::Waiting { future } => future.as_mut().poll(cx),
            CallProjection::Running {
                body,
                parts,
                runtime,
                setup,
                after,
            } => {
                if let Some(after) = after {
                    return after.as_mut().poll(cx);
                }
                let result = std::task::ready!(body.poll(cx));
                let Some(taken) = parts.take() else {
                    panic!("a tool call was polled after it finished");
                };
                match runtime.finished(result, taken) {
                    Ok(record) => Poll::Ready(record),
                    // Only a tool with an after-tool chain pays for its future.
                    Err((output, taken)) => {
                        let (runtime, setup) = (*runtime, *setup);
                        after
                            .insert(runtime.after(output, taken, setup))
                            .as_mut()
                            .poll(cx)
                    }
                }
            }
        }
    }
}
