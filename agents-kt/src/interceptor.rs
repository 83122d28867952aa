//! The interceptor abstraction: anything that inspects a value and answers with a [`Decision`],
//! synchronously or after awaiting (an approval flow waits for a human).

use std::borrow::Borrow;
use std::fmt::Display;
use std::future::Future;
use std::marker::PhantomData;

use futures::future::BoxFuture;

use crate::Decision;

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
/// The builder methods of [`crate::AgentBuilder`] accept plain closures and wrap them; implement
/// this trait directly only for an interceptor with state of its own.
///
/// ```
/// use agents_kt::{Decision, Intercepted, Interceptor};
///
/// struct OnlyEven;
/// impl Interceptor<u32, u32> for OnlyEven {
///     fn intercept<'a>(&'a self, value: &'a u32) -> Intercepted<'a, u32, u32> {
///         Intercepted::Ready(if value % 2 == 0 { Decision::Proceed } else { Decision::deny("odd") })
///     }
/// }
/// assert!(matches!(OnlyEven.intercept(&3), Intercepted::Ready(Decision::Deny(_))));
/// ```
pub trait Interceptor<T, R>: Send + Sync {
    /// Decide about `value`.
    fn intercept<'a>(&'a self, value: &'a T) -> Intercepted<'a, T, R>;
}

/// Marker types that keep the blanket conversions below apart; users never name them.
#[doc(hidden)]
pub mod markers {
    use std::marker::PhantomData;
    /// The closure returns a [`crate::Decision`].
    pub struct Plain;
    /// The closure returns `Result<Decision, E>`.
    pub struct Fallible;
    /// The closure answers now, in the way `M` says.
    pub struct Now<M>(PhantomData<M>);
    /// The closure returns a future that answers in the way `M` says.
    pub struct Later<M>(PhantomData<M>);
}

/// What an interceptor may return without awaiting: a [`Decision`], or `Result<Decision, E>`
/// where `Err(e)` means `Deny(e.to_string())`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a decision about `{T}` with substitute type `{R}`",
    label = "this must be `Decision<{T}, {R}>` or `Result<Decision<{T}, {R}>, E>`",
    note = "the replacement type and the substitute type are fixed by the interception point: check both"
)]
pub trait IntoDecision<T, R, M> {
    /// The decision this value stands for.
    fn into_decision(self) -> Decision<T, R>;
}

impl<T, R> IntoDecision<T, R, markers::Plain> for Decision<T, R> {
    fn into_decision(self) -> Decision<T, R> {
        self
    }
}

impl<T, R, E: Display> IntoDecision<T, R, markers::Fallible> for Result<Decision<T, R>, E> {
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

impl<T, R, M, D> InterceptorReturn<T, R, markers::Now<M>> for D
where
    D: IntoDecision<T, R, M> + Send,
{
    fn into_intercepted(self) -> Intercepted<'static, T, R> {
        Intercepted::Ready(self.into_decision())
    }
}

impl<T, R, M, F> InterceptorReturn<T, R, markers::Later<M>> for F
where
    F: Future + Send + 'static,
    F::Output: IntoDecision<T, R, M>,
{
    fn into_intercepted(self) -> Intercepted<'static, T, R> {
        Intercepted::Pending(Box::pin(async move { self.await.into_decision() }))
    }
}

/// An [`Interceptor`] made from a closure that borrows the inspected value as `&U`
/// (`&str` for a skill name, `&[Message]` for a turn, `&Args` for a tool).
///
/// ```
/// use agents_kt::{Decision, FnInterceptor, Intercepted, Interceptor};
/// let shout = FnInterceptor::<_, str, _>::new(|name: &str| -> Decision<String, ()> {
///     Decision::ProceedWith(name.to_uppercase())
/// });
/// let Intercepted::Ready(d) = shout.intercept(&"hi".to_string()) else { unreachable!() };
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

impl<T, U, R, F, D, M> Interceptor<T, R> for FnInterceptor<F, U, M>
where
    T: Borrow<U>,
    U: ?Sized,
    F: Fn(&U) -> D + Send + Sync,
    D: InterceptorReturn<T, R, M>,
{
    fn intercept<'a>(&'a self, value: &'a T) -> Intercepted<'a, T, R> {
        match (self.f)(value.borrow()).into_intercepted() {
            Intercepted::Ready(decision) => Intercepted::Ready(decision),
            Intercepted::Pending(future) => Intercepted::Pending(future),
        }
    }
}
