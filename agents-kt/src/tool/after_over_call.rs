//! After-tool interceptors over the call as well as its output — `(&Args, &Output)` — which name
//! their tool through the arguments' type, so `.after_tool_call(f)` infers it as
//! `.before_tool_call(f)` does. They read the arguments the call ran with (after every
//! before-tool rewrite) from the call's JSON, which is kept for them.

use std::marker::PhantomData;

use serde::de::DeserializeOwned;

use super::Tool;
use super::typed_interceptor::{IntoAfterToolInterceptor, ToolArguments, ToolInterceptorOf};
use crate::chain::interceptor::markers::{ValueOnly, WithContext};
use crate::chain::interceptor::name_of;
use crate::{Decision, InterceptContext, Intercepted, Interceptor, InterceptorReturn};

/// Marker for an after-tool interceptor over the call's arguments and its output.
#[doc(hidden)]
pub struct OverCall<A, D, M>(PhantomData<(A, D, M)>);

/// A function over `(&A, &O)` (and optionally the context), as an interceptor of `O`.
struct AfterOverCall<F, A, Shape> {
    f: F,
    _shape: PhantomData<fn(&A) -> Shape>,
}

impl<F, A, Shape> AfterOverCall<F, A, Shape> {
    fn new(f: F) -> Self {
        AfterOverCall {
            f,
            _shape: PhantomData,
        }
    }
}

/// The arguments the call ran with, as `A`; a call whose arguments cannot be read is withheld
/// (the closed side: an interceptor that cannot see the call cannot clear its result).
fn arguments<A: DeserializeOwned>(ctx: &InterceptContext<'_>) -> Result<A, String> {
    let Some(json) = ctx.args else {
        return Err("the after-tool interceptor was not given the call's arguments".to_string());
    };
    A::deserialize(json).map_err(|error| {
        format!("the after-tool interceptor could not read the call's arguments: {error}")
    })
}

impl<O, A, F, D, M> Interceptor<O, O> for AfterOverCall<F, A, ValueOnly<M>>
where
    A: DeserializeOwned,
    F: Fn(&A, &O) -> D + Send + Sync,
    D: InterceptorReturn<O, O, M>,
{
    fn intercept<'a>(&'a self, output: &O, ctx: &InterceptContext<'_>) -> Intercepted<'a, O, O> {
        match arguments::<A>(ctx) {
            Ok(args) => (self.f)(&args, output).into_intercepted(),
            Err(reason) => Intercepted::Ready(Decision::Deny(reason)),
        }
    }
}

impl<O, A, F, D, M> Interceptor<O, O> for AfterOverCall<F, A, WithContext<M>>
where
    A: DeserializeOwned,
    F: Fn(&A, &O, &InterceptContext<'_>) -> D + Send + Sync,
    D: InterceptorReturn<O, O, M>,
{
    fn intercept<'a>(&'a self, output: &O, ctx: &InterceptContext<'_>) -> Intercepted<'a, O, O> {
        match arguments::<A>(ctx) {
            Ok(args) => (self.f)(&args, output, ctx).into_intercepted(),
            Err(reason) => Intercepted::Ready(Decision::Deny(reason)),
        }
    }
}

#[diagnostic::do_not_recommend]
impl<T, A, F, D, M> IntoAfterToolInterceptor<T, OverCall<A, D, ValueOnly<M>>> for F
where
    T: Tool<Args = A>,
    A: ToolArguments<Tool = T> + DeserializeOwned + 'static,
    F: Fn(&A, &T::Output) -> D + Send + Sync + 'static,
    D: InterceptorReturn<T::Output, T::Output, M> + 'static,
    M: 'static,
{
    fn into_after_tool_interceptor(self) -> ToolInterceptorOf<T::Output> {
        ToolInterceptorOf {
            name: name_of::<F>(),
            inner: std::sync::Arc::new(AfterOverCall::<F, A, ValueOnly<M>>::new(self)),
            reads_args: true,
        }
    }
}

#[diagnostic::do_not_recommend]
impl<T, A, F, D, M> IntoAfterToolInterceptor<T, OverCall<A, D, WithContext<M>>> for F
where
    T: Tool<Args = A>,
    A: ToolArguments<Tool = T> + DeserializeOwned + 'static,
    F: Fn(&A, &T::Output, &InterceptContext<'_>) -> D + Send + Sync + 'static,
    D: InterceptorReturn<T::Output, T::Output, M> + 'static,
    M: 'static,
{
    fn into_after_tool_interceptor(self) -> ToolInterceptorOf<T::Output> {
        ToolInterceptorOf {
            name: name_of::<F>(),
            inner: std::sync::Arc::new(AfterOverCall::<F, A, WithContext<M>>::new(self)),
            reads_args: true,
        }
    }
}
