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
    let adapted = Adapted {
        inner: Arc::clone(&typed.inner),
        open: SharedArgs::get::<T::Args>,
        value: SharedArgs::of::<T>,
        result: SharedOutput::of::<T>,
        what: "arguments",
    };
    ToolInterceptor {
        inner: Arc::new(adapted),
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
    let adapted = Adapted {
        inner: Arc::clone(&typed.inner),
        open: SharedOutput::get::<T::Output>,
        value: SharedOutput::of::<T>,
        result: SharedOutput::of::<T>,
        what: "output",
    };
    ToolInterceptorOf {
        inner: Arc::new(adapted),
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

/// A typed interceptor over `X` (replacements `X`, substitutes `R`) as one over the shared
/// values `SX`/`SR`: `open` finds the tool's own value inside, `value` and `result` box its
/// answers back.
struct Adapted<X, R, SX, SR> {
    inner: Arc<dyn Interceptor<X, R>>,
    open: for<'v> fn(&'v SX) -> Option<&'v X>,
    value: fn(X) -> SX,
    result: fn(R) -> SR,
    what: &'static str,
}

impl<X, R, SX, SR> Interceptor<SX, SR> for Adapted<X, R, SX, SR>
where
    X: 'static,
    R: 'static,
    SX: 'static,
    SR: 'static,
{
    fn intercept<'a>(&'a self, shared: &SX, ctx: &InterceptContext<'_>) -> Intercepted<'a, SX, SR> {
        let Some(own) = (self.open)(shared) else {
            return Intercepted::Ready(Decision::Deny(another_tools(self.what)));
        };
        let (value, result) = (self.value, self.result);
        match self.inner.intercept(own, ctx) {
            Intercepted::Ready(decision) => Intercepted::Ready(boxed(decision, value, result)),
            Intercepted::Pending(future) => {
                Intercepted::Pending(Box::pin(async move { boxed(future.await, value, result) }))
            }
        }
    }
}

/// The typed decision with its replacement or substitute boxed back.
fn boxed<X, R, SX, SR>(
    decision: Decision<X, R>,
    value: fn(X) -> SX,
    result: fn(R) -> SR,
) -> Decision<SX, SR> {
    match decision {
        Decision::Proceed => Decision::Proceed,
        Decision::ProceedWith(replacement) => Decision::ProceedWith(value(replacement)),
        Decision::Deny(reason) => Decision::Deny(reason),
        Decision::Substitute(substitute) => Decision::Substitute(result(substitute)),
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
