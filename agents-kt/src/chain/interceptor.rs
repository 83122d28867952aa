//! The interceptor abstraction: anything that inspects a value and answers with a [`Decision`],
//! synchronously or after awaiting (an approval flow waits for a human).

use std::borrow::Borrow;
use std::fmt::Display;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use futures::future::BoxFuture;

use crate::{Decision, InterceptContext};

/// A decision that is either known now or will be known once a future completes.
///
/// Synchronous interceptors answer [`Intercepted::Ready`], which costs no allocation; only
/// asynchronous ones box a future.
///
/// ```
/// use agents_kt::{Decision, Intercepted};
/// let now: Intercepted<'static, u8, u8> = Intercepted::Ready(Decision::Proceed);
/// assert!(matches!(now, Intercepted::Ready(Decision::Proceed)));
/// ```
pub enum Intercepted<'a, T, R> {
    /// The decision, available at once.
    Ready(Decision<T, R>),
    /// A future that yields the decision.
    Pending(BoxFuture<'a, Decision<T, R>>),
}

/// Inspects a value of type `T` before the guarded thing runs and decides what happens.
///
/// The builder methods of [`crate::AgentBuilder`] accept plain closures (with or without a
/// trailing `&InterceptContext`) and wrap them; implement this trait directly for an interceptor
/// with state of its own, and pass it to the same builder methods.
///
/// ```
/// use agents_kt::{Decision, Extensions, InterceptContext, Intercepted, Interceptor, RunIds};
///
/// struct OnlyEven;
/// impl Interceptor<u32, u32> for OnlyEven {
///     fn intercept<'a>(&'a self, value: &u32, _ctx: &InterceptContext<'_>) -> Intercepted<'a, u32, u32> {
///         Intercepted::Ready(if value % 2 == 0 { Decision::Proceed } else { Decision::deny("odd") })
///     }
/// }
/// let (ids, extensions) = (RunIds::default(), Extensions::new());
/// let ctx = InterceptContext::detached(&ids, &extensions);
/// assert!(matches!(OnlyEven.intercept(&3, &ctx), Intercepted::Ready(Decision::Deny(_))));
/// ```
pub trait Interceptor<T, R>: Send + Sync {
    /// Decide about `value`, knowing whose call it is from `ctx`.
    fn intercept<'a>(&'a self, value: &T, ctx: &InterceptContext<'_>) -> Intercepted<'a, T, R>;
}

/// Marker types that keep the blanket conversions below apart; users never name them.
#[doc(hidden)]
pub mod markers {
    use std::marker::PhantomData;
    /// The closure answers now.
    pub struct Now;
    /// The closure returns a future that answers.
    pub struct Later;
    /// The closure takes the inspected value alone.
    pub struct ValueOnly<M>(PhantomData<M>);
    /// The closure also takes the [`crate::InterceptContext`].
    pub struct WithContext<M>(PhantomData<M>);
    /// A hand-written [`crate::Interceptor`] (or [`crate::Gate`]) implementation.
    pub struct Stateful;
    /// A dynamic closure before a tool call: `|name, args|`.
    pub struct Before<M>(PhantomData<M>);
    /// A dynamic closure after a tool call: `|name, args, result|`.
    pub struct After<M>(PhantomData<M>);
}

use markers::{Stateful, ValueOnly, WithContext};

/// What an interceptor may return without awaiting: a [`Decision`], or `Result<Decision, E>`
/// where `Err(e)` means `Deny(e.to_string())`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a decision about `{T}` with substitute type `{R}`",
    label = "this must be `Decision<{T}, {R}>` or `Result<Decision<{T}, {R}>, E>`",
    note = "the replacement type and the substitute type are fixed by the interception point: check both"
)]
pub trait IntoDecision<T, R> {
    /// The decision this value stands for.
    fn into_decision(self) -> Decision<T, R>;
}

impl<T, R> IntoDecision<T, R> for Decision<T, R> {
    fn into_decision(self) -> Decision<T, R> {
        self
    }
}

impl<T, R, E: Display> IntoDecision<T, R> for Result<Decision<T, R>, E> {
    fn into_decision(self) -> Decision<T, R> {
        self.unwrap_or_else(|error| Decision::Deny(error.to_string()))
    }
}

/// What an interceptor closure may return: anything [`IntoDecision`] accepts, or a `Send` future
/// whose output it accepts.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by an interceptor deciding about `{T}` with substitute type `{R}`",
    label = "expected `Decision<{T}, {R}>`, `Result<Decision<{T}, {R}>, E>`, or a future of either",
    note = "an async interceptor's future must be `Send + 'static`: clone what it needs from its arguments before `async move`"
)]
pub trait InterceptorReturn<T, R, M>: Send {
    /// Turn the returned value into an [`Intercepted`].
    fn into_intercepted(self) -> Intercepted<'static, T, R>;
}

impl<T, R, D> InterceptorReturn<T, R, markers::Now> for D
where
    D: IntoDecision<T, R> + Send,
{
    fn into_intercepted(self) -> Intercepted<'static, T, R> {
        Intercepted::Ready(self.into_decision())
    }
}

impl<T, R, F> InterceptorReturn<T, R, markers::Later> for F
where
    F: Future + Send + 'static,
    F::Output: IntoDecision<T, R>,
{
    fn into_intercepted(self) -> Intercepted<'static, T, R> {
        Intercepted::Pending(Box::pin(async move { self.await.into_decision() }))
    }
}

/// An [`Interceptor`] made from a closure that borrows the inspected value as `&U` (`&str` for a
/// skill name, `&[Message]` for a turn, `&Args` for a tool), and optionally the
/// [`InterceptContext`]; `M` tells the two shapes apart.
///
/// ```
/// use agents_kt::{Decision, Extensions, FnInterceptor, InterceptContext, Intercepted, Interceptor, RunIds};
/// let shout = FnInterceptor::<_, str, _>::new(|name: &str| -> Decision<String, ()> {
///     Decision::ProceedWith(name.to_uppercase())
/// });
/// let (ids, extensions) = (RunIds::default(), Extensions::new());
/// let ctx = InterceptContext::detached(&ids, &extensions);
/// let Intercepted::Ready(d) = shout.intercept(&"hi".to_string(), &ctx) else { unreachable!() };
/// assert_eq!(d, Decision::ProceedWith("HI".into()));
/// ```
pub struct FnInterceptor<F, U: ?Sized, M> {
    f: F,
    _shape: PhantomData<fn(&U) -> M>,
}

impl<F, U: ?Sized, M> FnInterceptor<F, U, M> {
    /// Wrap `f`.
    pub fn new(f: F) -> Self {
        FnInterceptor {
            f,
            _shape: PhantomData,
        }
    }
}

impl<T, U, R, F, D, M> Interceptor<T, R> for FnInterceptor<F, U, ValueOnly<M>>
where
    T: Borrow<U>,
    U: ?Sized,
    F: Fn(&U) -> D + Send + Sync,
    D: InterceptorReturn<T, R, M>,
{
    #[inline]
    fn intercept<'a>(&'a self, value: &T, _: &InterceptContext<'_>) -> Intercepted<'a, T, R> {
        (self.f)(value.borrow()).into_intercepted()
    }
}

impl<T, U, R, F, D, M> Interceptor<T, R> for FnInterceptor<F, U, WithContext<M>>
where
    T: Borrow<U>,
    U: ?Sized,
    F: Fn(&U, &InterceptContext<'_>) -> D + Send + Sync,
    D: InterceptorReturn<T, R, M>,
{
    #[inline]
    fn intercept<'a>(&'a self, value: &T, ctx: &InterceptContext<'_>) -> Intercepted<'a, T, R> {
        (self.f)(value.borrow(), ctx).into_intercepted()
    }
}

/// What a builder method accepts as an interceptor over `T` seen as `&U`: a closure over `&U`, a
/// closure over `(&U, &InterceptContext)`, or a hand-written [`Interceptor`]. The closure's
/// return is anything [`InterceptorReturn`] accepts.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an interceptor deciding about `{T}` with substitute type `{R}`",
    label = "expected a closure over `&{U}` (optionally with a trailing `&InterceptContext`) returning `Decision<{T}, {R}>`, or an `impl Interceptor<{T}, {R}>`",
    note = "the replacement type and the substitute type are fixed by the interception point: check both"
)]
pub trait IntoInterceptor<T, R, U: ?Sized, M> {
    /// The concrete interceptor: what a compile-time chain holds without boxing.
    type Interceptor: Interceptor<T, R> + 'static;

    /// The interceptor itself, for a compile-time chain.
    fn into_concrete(self) -> Self::Interceptor;

    /// The interceptor, shared, for a chain assembled at run time.
    fn into_interceptor(self) -> Arc<dyn Interceptor<T, R>>
    where
        Self: Sized,
    {
        Arc::new(self.into_concrete())
    }
}

#[diagnostic::do_not_recommend]
impl<T, R, U, F, D, M> IntoInterceptor<T, R, U, ValueOnly<M>> for F
where
    T: Borrow<U> + 'static,
    R: 'static,
    U: ?Sized + 'static,
    F: Fn(&U) -> D + Send + Sync + 'static,
    D: InterceptorReturn<T, R, M> + 'static,
    M: 'static,
{
    type Interceptor = FnInterceptor<F, U, ValueOnly<M>>;

    fn into_concrete(self) -> Self::Interceptor {
        FnInterceptor::new(self)
    }
}

#[diagnostic::do_not_recommend]
impl<T, R, U, F, D, M> IntoInterceptor<T, R, U, WithContext<M>> for F
where
    T: Borrow<U> + 'static,
    R: 'static,
    U: ?Sized + 'static,
    F: Fn(&U, &InterceptContext<'_>) -> D + Send + Sync + 'static,
    D: InterceptorReturn<T, R, M> + 'static,
    M: 'static,
{
    type Interceptor = FnInterceptor<F, U, WithContext<M>>;

    fn into_concrete(self) -> Self::Interceptor {
        FnInterceptor::new(self)
    }
}

impl<T, R, U: ?Sized, I> IntoInterceptor<T, R, U, Stateful> for I
where
    I: Interceptor<T, R> + 'static,
{
    type Interceptor = I;

    fn into_concrete(self) -> I {
        self
    }
}

/// A shared interceptor decides as the one it shares.
impl<T, R, I: Interceptor<T, R> + ?Sized> Interceptor<T, R> for Arc<I> {
    #[inline]
    fn intercept<'a>(&'a self, value: &T, ctx: &InterceptContext<'_>) -> Intercepted<'a, T, R> {
        (**self).intercept(value, ctx)
    }
}

/// The name an interceptor of type `F` is reported by: a function's own name (`no_mars`), a
/// hand-written interceptor's type name; `None` for a closure, which has none.
pub(crate) fn name_of<F: ?Sized>() -> Option<&'static str> {
    let full = std::any::type_name::<F>();
    if full.contains("{{closure}}") || full.contains("{closure") {
        return None;
    }
    // `a::b::Name<x::Y>` → `Name`: drop generic arguments, then the path.
    let bare = full.split('<').next().unwrap_or(full);
    Some(bare.rsplit("::").next().unwrap_or(bare))
}

#[cfg(test)]
mod tests {
    use super::name_of;

    fn no_mars() {}
    struct ApprovalDesk;

    #[test]
    fn functions_and_types_are_named_closures_are_not() {
        assert_eq!(name_of_val(&no_mars), Some("no_mars"));
        assert_eq!(name_of::<ApprovalDesk>(), Some("ApprovalDesk"));
        assert_eq!(name_of_val(&|| ()), None);
    }

    fn name_of_val<F>(_: &F) -> Option<&'static str> {
        name_of::<F>()
    }
}
