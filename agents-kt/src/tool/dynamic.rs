//! Dynamic tool interceptors: they see every tool's call as `(name, JSON arguments)` and take part
//! in each typed tool's chain through a converting adapter.

use std::marker::PhantomData;
use std::sync::Arc;

use serde_json::Value;

use super::Tool;
use crate::{Decision, Intercepted, Interceptor, InterceptorReturn};

/// An interceptor over any tool's call, seen as JSON.
pub(crate) trait DynToolInterceptor: Send + Sync {
    fn intercept(&self, tool: &'static str, args: &Value) -> Intercepted<'static, Value, Value>;
}

/// A [`DynToolInterceptor`] made from a `Fn(&str, &Value) -> …` closure.
pub(crate) struct FnDynToolInterceptor<F, M> {
    f: F,
    _returns: PhantomData<fn() -> M>,
}

impl<F, M> FnDynToolInterceptor<F, M> {
    pub(crate) fn new(f: F) -> Self {
        FnDynToolInterceptor {
            f,
            _returns: PhantomData,
        }
    }
}

impl<F, D, M> DynToolInterceptor for FnDynToolInterceptor<F, M>
where
    F: Fn(&str, &Value) -> D + Send + Sync,
    D: InterceptorReturn<Value, Value, M>,
{
    fn intercept(&self, tool: &'static str, args: &Value) -> Intercepted<'static, Value, Value> {
        (self.f)(tool, args).into_intercepted()
    }
}

/// Places a dynamic interceptor in tool `T`'s typed chain: it shows the interceptor the arguments
/// as JSON and converts a JSON replacement or substitute back to `T`'s types. A value that does not
/// convert denies the call, saying why (fail closed).
pub(crate) struct DynamicInToolChain<T> {
    inner: Arc<dyn DynToolInterceptor>,
    _tool: PhantomData<fn() -> T>,
}

impl<T> DynamicInToolChain<T> {
    pub(crate) fn new(inner: Arc<dyn DynToolInterceptor>) -> Self {
        DynamicInToolChain {
            inner,
            _tool: PhantomData,
        }
    }
}

impl<T: Tool> Interceptor<T::Args, T::Output> for DynamicInToolChain<T> {
    fn intercept<'a>(&'a self, args: &'a T::Args) -> Intercepted<'a, T::Args, T::Output> {
        let args = match serde_json::to_value(args) {
            Ok(args) => args,
            Err(error) => {
                return Intercepted::Ready(Decision::Deny(format!(
                    "arguments of tool '{}' could not be shown to an interceptor as JSON: {error}",
                    T::NAME
                )));
            }
        };
        match self.inner.intercept(T::NAME, &args) {
            Intercepted::Ready(decision) => Intercepted::Ready(typed::<T>(decision)),
            Intercepted::Pending(future) => {
                Intercepted::Pending(Box::pin(async move { typed::<T>(future.await) }))
            }
        }
    }
}

/// Convert a JSON decision into `T`'s types.
fn typed<T: Tool>(decision: Decision<Value, Value>) -> Decision<T::Args, T::Output> {
    match decision {
        Decision::Proceed => Decision::Proceed,
        Decision::Deny(reason) => Decision::Deny(reason),
        Decision::ProceedWith(args) => match from_json(&args) {
            Ok(args) => Decision::ProceedWith(args),
            Err(error) => Decision::Deny(format!(
                "interceptor's replacement arguments do not fit tool '{}': {error}",
                T::NAME
            )),
        },
        Decision::Substitute(result) => match from_json(&result) {
            Ok(result) => Decision::Substitute(result),
            Err(error) => Decision::Deny(format!(
                "interceptor's substitute result does not fit the output of tool '{}': {error}",
                T::NAME
            )),
        },
    }
}

/// A typed value from a JSON value, read back from its text: every tool already parses its
/// arguments from text, so this reuses that code instead of instantiating serde_json's `Value`
/// deserializer for each tool's types (hundreds of lines of LLVM IR per tool, for a rare path).
fn from_json<V: serde::de::DeserializeOwned>(value: &Value) -> Result<V, serde_json::Error> {
    serde_json::from_str(&value.to_string())
}
