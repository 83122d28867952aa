//! Dynamic tool interceptors and gates: they see every tool's call as `(name, JSON arguments)` (and
//! after the call, the JSON result too). Each is an `Interceptor<Value, Value>` (or
//! `Gate<Value>`) reading the tool's name from its [`InterceptContext`], so a hand-written one is
//! registered exactly like a closure.

use std::marker::PhantomData;
use std::sync::Arc;

use serde_json::Value;

use crate::chain::interceptor::markers::{After, Before, Stateful, ValueOnly, WithContext};
use crate::{
    Gate, GateReturn, Gated, InterceptContext, Intercepted, Interceptor, InterceptorReturn,
};

/// A closure over a tool call's parts, adapted to a JSON interceptor or gate; `M` records whether
/// it takes the context. Not public API.
#[doc(hidden)]
pub struct DynFn<F, M> {
    f: F,
    _shape: PhantomData<fn() -> M>,
}

impl<F, M> DynFn<F, M> {
    fn new(f: F) -> Self {
        DynFn {
            f,
            _shape: PhantomData,
        }
    }
}

const NULL: &Value = &Value::Null;

/// The tool's name and the arguments as dynamic links see them: at the after point, the value
/// judged is the result and the arguments come from the context.
fn parts<'a>(ctx: &'a InterceptContext<'_>) -> (&'a str, &'a Value) {
    (ctx.tool.unwrap_or(""), ctx.args.unwrap_or(NULL))
}

/// `DynFn` as an interceptor or a gate, for one closure shape: the parameters the closure takes
/// (`$params`) and how they are read from the judged value and the context (`$call`).
macro_rules! dyn_fn {
    (interceptor $shape:ty, ($($params:ty),*), |$f:ident, $value:ident, $ctx:ident| $call:expr) => {
        impl<F, D, M> Interceptor<Value, Value> for DynFn<F, $shape>
        where
            F: Fn($($params),*) -> D + Send + Sync,
            D: InterceptorReturn<Value, Value, M>,
        {
            fn intercept<'a>(
                &'a self,
                $value: &Value,
                $ctx: &InterceptContext<'_>,
            ) -> Intercepted<'a, Value, Value> {
                let $f = &self.f;
                $call.into_intercepted()
            }
        }
    };
    (gate $shape:ty, ($($params:ty),*), |$f:ident, $value:ident, $ctx:ident| $call:expr) => {
        impl<F, V, M> Gate<Value> for DynFn<F, $shape>
        where
            F: Fn($($params),*) -> V + Send + Sync,
            V: GateReturn<M>,
        {
            fn check<'a>(&'a self, $value: &Value, $ctx: &InterceptContext<'_>) -> Gated<'a> {
                let $f = &self.f;
                $call.into_gated()
            }
        }
    };
}

// Before the call the value judged is the arguments; after it, the result (the arguments come
// from the context).
dyn_fn!(interceptor Before<ValueOnly<M>>, (&str, &Value),
    |f, args, ctx| f(parts(ctx).0, args));
dyn_fn!(interceptor Before<WithContext<M>>, (&str, &Value, &InterceptContext<'_>),
    |f, args, ctx| f(parts(ctx).0, args, ctx));
dyn_fn!(interceptor After<ValueOnly<M>>, (&str, &Value, &Value),
    |f, result, ctx| f(parts(ctx).0, parts(ctx).1, result));
dyn_fn!(interceptor After<WithContext<M>>, (&str, &Value, &Value, &InterceptContext<'_>),
    |f, result, ctx| f(parts(ctx).0, parts(ctx).1, result, ctx));
dyn_fn!(gate Before<ValueOnly<M>>, (&str, &Value),
    |f, args, ctx| f(parts(ctx).0, args));
dyn_fn!(gate Before<WithContext<M>>, (&str, &Value, &InterceptContext<'_>),
    |f, args, ctx| f(parts(ctx).0, args, ctx));

/// What [`AgentBuilder::on_before_tool_call`](crate::AgentBuilder::on_before_tool_call) accepts:
/// a closure `|name: &str, args: &Value|` (optionally with a trailing `&InterceptContext`)
/// returning a `Decision<Value, Value>` (or a `Result`/future of one), or an
/// `impl Interceptor<Value, Value>` that reads the tool's name from
/// [`InterceptContext::tool`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an interceptor for every tool's calls",
    label = "expected `|name: &str, args: &serde_json::Value| -> Decision<Value, Value>` (optionally with a trailing `&InterceptContext`), or an `impl Interceptor<Value, Value>`",
    note = "for one tool's typed arguments, use `.before_tool_call(..)` instead"
)]
pub trait IntoToolCallInterceptor<M> {
    /// The interceptor, shared.
    fn into_tool_call_interceptor(self) -> Arc<dyn Interceptor<Value, Value>>;
}

/// What [`AgentBuilder::on_after_tool_call`](crate::AgentBuilder::on_after_tool_call) accepts: a
/// closure `|name: &str, args: &Value, result: &Value|` (optionally with a trailing
/// `&InterceptContext`), or an `impl Interceptor<Value, Value>` over the result that reads the
/// tool's name from [`InterceptContext::tool`] and its arguments from
/// [`InterceptContext::arguments`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an after-tool interceptor for every tool",
    label = "expected `|name: &str, args: &Value, result: &Value| -> Decision<Value, Value>` (optionally with a trailing `&InterceptContext`), or an `impl Interceptor<Value, Value>`"
)]
pub trait IntoAfterToolCallInterceptor<M> {
    /// The interceptor, shared.
    fn into_after_tool_call_interceptor(self) -> Arc<dyn Interceptor<Value, Value>>;
}

/// What [`AgentBuilder::on_gate_tool_call`](crate::AgentBuilder::on_gate_tool_call) accepts: a
/// closure `|name: &str, args: &Value|` (optionally with a trailing `&InterceptContext`)
/// returning a `Verdict` (or a `Result`/future of one), or an `impl Gate<Value>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a gate for every tool's calls",
    label = "expected `|name: &str, args: &Value, ctx: &InterceptContext| -> Verdict`, or an `impl Gate<Value>`"
)]
pub trait IntoToolCallGate<M> {
    /// The gate, shared.
    fn into_tool_call_gate(self) -> Arc<dyn Gate<Value>>;
}

/// One conversion impl per closure shape: the closure is wrapped in a [`DynFn`], whose own
/// `Interceptor`/`Gate` impl above carries the bound on the closure's return.
macro_rules! closure_impls {
    ($trait:ident :: $method:ident -> $bound:path, $point:ident, $shape:ident, ($($param:ty),*)) => {
        impl<F, D, M> $trait<$point<$shape<M>>> for F
        where
            F: Fn($($param),*) -> D + Send + Sync + 'static,
            M: 'static,
            DynFn<F, $point<$shape<M>>>: $bound + 'static,
        {
            fn $method(self) -> Arc<dyn $bound> {
                Arc::new(DynFn::<F, $point<$shape<M>>>::new(self))
            }
        }
    };
}

closure_impls!(IntoToolCallInterceptor::into_tool_call_interceptor -> Interceptor<Value, Value>, Before, ValueOnly, (&str, &Value));
closure_impls!(IntoToolCallInterceptor::into_tool_call_interceptor -> Interceptor<Value, Value>, Before, WithContext, (&str, &Value, &InterceptContext<'_>));
closure_impls!(IntoAfterToolCallInterceptor::into_after_tool_call_interceptor -> Interceptor<Value, Value>, After, ValueOnly, (&str, &Value, &Value));
closure_impls!(IntoAfterToolCallInterceptor::into_after_tool_call_interceptor -> Interceptor<Value, Value>, After, WithContext, (&str, &Value, &Value, &InterceptContext<'_>));
closure_impls!(IntoToolCallGate::into_tool_call_gate -> Gate<Value>, Before, ValueOnly, (&str, &Value));
closure_impls!(IntoToolCallGate::into_tool_call_gate -> Gate<Value>, Before, WithContext, (&str, &Value, &InterceptContext<'_>));

impl<I: Interceptor<Value, Value> + 'static> IntoToolCallInterceptor<Stateful> for I {
    fn into_tool_call_interceptor(self) -> Arc<dyn Interceptor<Value, Value>> {
        Arc::new(self)
    }
}

impl<I: Interceptor<Value, Value> + 'static> IntoAfterToolCallInterceptor<Stateful> for I {
    fn into_after_tool_call_interceptor(self) -> Arc<dyn Interceptor<Value, Value>> {
        Arc::new(self)
    }
}

impl<G: Gate<Value> + 'static> IntoToolCallGate<Stateful> for G {
    fn into_tool_call_gate(self) -> Arc<dyn Gate<Value>> {
        Arc::new(self)
    }
}
