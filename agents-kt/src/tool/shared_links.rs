//! A typed link of one tool as a link of the shared runtime (`shared.rs`): it sees the tool's own
//! arguments or output inside the shared value — borrowed, never converted — and its replacement
//! or substitute goes back in the same box. Built where the link is registered, which is the only
//! place its tool's types are known; only tools with typed links compile these.

use std::marker::PhantomData;
use std::sync::Arc;

use super::Tool;
use super::shared::{SharedArgs, SharedOutput, SharedTool};
use super::typed_interceptor::{ToolGate, ToolInterceptor, ToolInterceptorOf};
use crate::{Decision, Gate, Gated, InterceptContext, Intercepted, Interceptor, Verdict};

/// `T`'s before-tool interceptor over the shared values.
pub(crate) fn before<T: Tool>(typed: &ToolInterceptor<T>) -> ToolInterceptor<SharedTool> {
    ToolInterceptor {
        inner: Arc::new(Before::<T>(Arc::clone(&typed.inner))),
        name: typed.name,
    }
}

/// `T`'s gate over the shared arguments.
pub(crate) fn gate<T: Tool>(typed: &ToolGate<T>) -> ToolGate<SharedTool> {
    ToolGate {
        inner: Arc::new(GateOf::<T>(Arc::clone(&typed.inner), PhantomData)),
        name: typed.name,
    }
}

/// `T`'s after-tool interceptor over the shared output.
pub(crate) fn after<T: Tool>(
    typed: &ToolInterceptorOf<T::Output>,
) -> ToolInterceptorOf<SharedOutput> {
    ToolInterceptorOf {
        inner: Arc::new(After::<T>(Arc::clone(&typed.inner))),
        name: typed.name,
        reads_args: typed.reads_args,
    }
}

/// A shared value that is not the link's tool's cannot be judged by it: denied, never passed.
fn another_tools(what: &str) -> String {
    format!(
        "a typed interceptor was asked about another tool's {what} (a bug in agents-kt); the call is denied"
    )
}

struct Before<T: Tool>(Arc<dyn Interceptor<T::Args, T::Output>>);

impl<T: Tool> Interceptor<SharedArgs, SharedOutput> for Before<T> {
    fn intercept<'a>(
        &'a self,
        value: &SharedArgs,
        ctx: &InterceptContext<'_>,
    ) -> Intercepted<'a, SharedArgs, SharedOutput> {
        let Some(args) = value.get::<T::Args>() else {
            return Intercepted::Ready(Decision::Deny(another_tools("arguments")));
        };
        match self.0.intercept(args, ctx) {
            Intercepted::Ready(decision) => Intercepted::Ready(shared_before::<T>(decision)),
            Intercepted::Pending(future) => {
                Intercepted::Pending(Box::pin(async move { shared_before::<T>(future.await) }))
            }
        }
    }
}

fn shared_before<T: Tool>(
    decision: Decision<T::Args, T::Output>,
) -> Decision<SharedArgs, SharedOutput> {
    match decision {
        Decision::Proceed => Decision::Proceed,
        Decision::ProceedWith(args) => Decision::ProceedWith(SharedArgs::of::<T>(args)),
        Decision::Deny(reason) => Decision::Deny(reason),
        Decision::Substitute(output) => Decision::Substitute(SharedOutput::of::<T>(output)),
    }
}

struct GateOf<T: Tool>(Arc<dyn Gate<T::Args>>, PhantomData<fn() -> T>);

impl<T: Tool> Gate<SharedArgs> for GateOf<T> {
    fn check<'a>(&'a self, value: &SharedArgs, ctx: &InterceptContext<'_>) -> Gated<'a> {
        match value.get::<T::Args>() {
            Some(args) => self.0.check(args, ctx),
            None => Gated::Ready(Verdict::Deny(another_tools("arguments"))),
        }
    }
}

struct After<T: Tool>(Arc<dyn Interceptor<T::Output, T::Output>>);

impl<T: Tool> Interceptor<SharedOutput, SharedOutput> for After<T> {
    fn intercept<'a>(
        &'a self,
        value: &SharedOutput,
        ctx: &InterceptContext<'_>,
    ) -> Intercepted<'a, SharedOutput, SharedOutput> {
        let Some(output) = value.get::<T::Output>() else {
            return Intercepted::Ready(Decision::Deny(another_tools("output")));
        };
        match self.0.intercept(output, ctx) {
            Intercepted::Ready(decision) => Intercepted::Ready(shared_after::<T>(decision)),
            Intercepted::Pending(future) => {
                Intercepted::Pending(Box::pin(async move { shared_after::<T>(future.await) }))
            }
        }
    }
}

fn shared_after<T: Tool>(
    decision: Decision<T::Output, T::Output>,
) -> Decision<SharedOutput, SharedOutput> {
    match decision {
        Decision::Proceed => Decision::Proceed,
        Decision::ProceedWith(output) => Decision::ProceedWith(SharedOutput::of::<T>(output)),
        Decision::Deny(reason) => Decision::Deny(reason),
        Decision::Substitute(output) => Decision::Substitute(SharedOutput::of::<T>(output)),
    }
}
