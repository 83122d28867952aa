//! Gates: checks that run after the interceptor chain, on the final value, and always win.
//!
//! The seed's chain rule 2 makes an earlier `ProceedWith` beat a later `Deny`, so "rewrite in one
//! interceptor, check in another" is unsafe with interceptors alone. A gate cannot rewrite or
//! substitute; it only allows or denies, it sees the value after the effective replacement, and
//! any gate's `Deny` stops the guarded thing whatever the chain decided.

use std::borrow::Borrow;
use std::fmt::Display;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use futures::future::BoxFuture;

use super::interceptor::markers::{self, Stateful, ValueOnly, WithContext};
use crate::{Decision, InterceptContext, Intercepted, Interceptor};

/// A gate's answer. Deliberately exhaustive: a gate only allows or denies (it cannot rewrite
/// or substitute), and a `match` over the two needs no `_` arm.
///
/// ```
/// use agents_kt::Verdict;
/// let v = Verdict::deny("writes outside /tmp");
/// assert_eq!(v, Verdict::Deny("writes outside /tmp".into()));
/// ```
#[must_use = "a gate's verdict only takes effect when it is returned"]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The guarded thing may run (if every other gate allows it too).
    Allow,
    /// It may not; the reason is reported exactly as an interceptor's `Deny`.
    Deny(String),
}

impl Verdict {
    /// A [`Verdict::Deny`] with the given reason.
    pub fn deny(reason: impl Into<String>) -> Self {
        Verdict::Deny(reason.into())
    }
}

/// A verdict known now, or once a future completes (a gate may await a policy service).
///
/// ```
/// let now = agents_kt::Gated::Ready(agents_kt::Verdict::Allow);
/// assert!(matches!(now, agents_kt::Gated::Ready(agents_kt::Verdict::Allow)));
/// ```
pub enum Gated<'a> {
    /// The verdict, available at once.
    Ready(Verdict),
    /// A future that yields it.
    Pending(BoxFuture<'a, Verdict>),
}

/// Checks a value of type `T` after the interceptor chain; implement it for a gate with state of
/// its own (closures are accepted by the builder as they are).
///
/// ```
/// use agents_kt::{Extensions, Gate, Gated, InterceptContext, RunIds, Verdict};
/// struct UnderTmp;
/// impl Gate<String> for UnderTmp {
///     fn check<'a>(&'a self, path: &String, _ctx: &InterceptContext<'_>) -> Gated<'a> {
///         Gated::Ready(if path.starts_with("/tmp/") { Verdict::Allow } else { Verdict::deny("outside /tmp") })
///     }
/// }
/// let (ids, extensions) = (RunIds::default(), Extensions::new());
/// let ctx = InterceptContext::detached(&ids, &extensions);
/// assert!(matches!(UnderTmp.check(&"/etc/x".to_string(), &ctx), Gated::Ready(Verdict::Deny(_))));
/// ```
pub trait Gate<T>: Send + Sync {
    /// Allow or deny `value`.
    fn check<'a>(&'a self, value: &T, ctx: &InterceptContext<'_>) -> Gated<'a>;
}

/// What a gate may return without awaiting: a [`Verdict`], or `Result<Verdict, E>` where
/// `Err(e)` means `Deny(e.to_string())`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a gate's verdict",
    label = "a gate returns `Verdict` or `Result<Verdict, E>` (or a future of either)",
    note = "a gate only allows or denies; rewrite or substitute in an interceptor instead"
)]
pub trait IntoVerdict {
    /// The verdict this value stands for.
    fn into_verdict(self) -> Verdict;
}

impl IntoVerdict for Verdict {
    fn into_verdict(self) -> Verdict {
        self
    }
}

impl<E: Display> IntoVerdict for Result<Verdict, E> {
    fn into_verdict(self) -> Verdict {
        self.unwrap_or_else(|error| Verdict::Deny(error.to_string()))
    }
}

/// What a gate closure may return: anything [`IntoVerdict`] accepts, or a `Send` future of it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a gate",
    label = "expected `Verdict`, `Result<Verdict, E>`, or a future of either",
    note = "an async gate's future must be `Send + 'static`: clone what it needs before `async move`"
)]
pub trait GateReturn<M>: Send {
    /// Turn the returned value into a [`Gated`].
    fn into_gated(self) -> Gated<'static>;
}

impl<V: IntoVerdict + Send> GateReturn<markers::Now> for V {
    fn into_gated(self) -> Gated<'static> {
        Gated::Ready(self.into_verdict())
    }
}

impl<F> GateReturn<markers::Later> for F
where
    F: Future + Send + 'static,
    F::Output: IntoVerdict,
{
    fn into_gated(self) -> Gated<'static> {
        Gated::Pending(Box::pin(async move { self.await.into_verdict() }))
    }
}

/// A [`Gate`] made from a closure over `&U`, with or without the context (`M` tells which).
#[doc(hidden)]
pub struct FnGate<F, U: ?Sized, M> {
    f: F,
    _shape: PhantomData<fn(&U) -> M>,
}

impl<T, U, F, V, M> Gate<T> for FnGate<F, U, ValueOnly<M>>
where
    T: Borrow<U>,
    U: ?Sized,
    F: Fn(&U) -> V + Send + Sync,
    V: GateReturn<M>,
{
    fn check<'a>(&'a self, value: &T, _: &InterceptContext<'_>) -> Gated<'a> {
        (self.f)(value.borrow()).into_gated()
    }
}

impl<T, U, F, V, M> Gate<T> for FnGate<F, U, WithContext<M>>
where
    T: Borrow<U>,
    U: ?Sized,
    F: Fn(&U, &InterceptContext<'_>) -> V + Send + Sync,
    V: GateReturn<M>,
{
    fn check<'a>(&'a self, value: &T, ctx: &InterceptContext<'_>) -> Gated<'a> {
        (self.f)(value.borrow(), ctx).into_gated()
    }
}

/// What a builder method accepts as a gate over `T` seen as `&U`: a closure over `&U` or over
/// `(&U, &InterceptContext)`, or a hand-written [`Gate`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a gate over `{T}`",
    label = "expected a closure over `&{U}` (optionally with a trailing `&InterceptContext`) returning `Verdict`, or an `impl Gate<{T}>`"
)]
pub trait IntoGate<T, U: ?Sized, M> {
    /// The concrete gate: what a compile-time chain holds without boxing.
    type Gate: Gate<T> + 'static;

    /// The gate itself, for a compile-time chain.
    fn into_concrete(self) -> Self::Gate;

    /// The gate, shared, for a chain assembled at run time.
    fn into_gate(self) -> Arc<dyn Gate<T>>
    where
        Self: Sized,
    {
        Arc::new(self.into_concrete())
    }
}

#[diagnostic::do_not_recommend]
impl<T, U, F, V, M> IntoGate<T, U, ValueOnly<M>> for F
where
    T: Borrow<U> + 'static,
    U: ?Sized + 'static,
    F: Fn(&U) -> V + Send + Sync + 'static,
    V: GateReturn<M> + 'static,
    M: 'static,
{
    type Gate = FnGate<F, U, ValueOnly<M>>;

    fn into_concrete(self) -> Self::Gate {
        FnGate {
            f: self,
            _shape: PhantomData,
        }
    }
}

#[diagnostic::do_not_recommend]
impl<T, U, F, V, M> IntoGate<T, U, WithContext<M>> for F
where
    T: Borrow<U> + 'static,
    U: ?Sized + 'static,
    F: Fn(&U, &InterceptContext<'_>) -> V + Send + Sync + 'static,
    V: GateReturn<M> + 'static,
    M: 'static,
{
    type Gate = FnGate<F, U, WithContext<M>>;

    fn into_concrete(self) -> Self::Gate {
        FnGate {
            f: self,
            _shape: PhantomData,
        }
    }
}

impl<T, U: ?Sized, G: Gate<T> + 'static> IntoGate<T, U, Stateful> for G {
    type Gate = G;

    fn into_concrete(self) -> G {
        self
    }
}

/// A shared gate judges as the one it shares.
impl<T, G: Gate<T> + ?Sized> Gate<T> for Arc<G> {
    #[inline]
    fn check<'a>(&'a self, value: &T, ctx: &InterceptContext<'_>) -> Gated<'a> {
        (**self).check(value, ctx)
    }
}

/// A gate seen as an interceptor that only proceeds or denies, so gates run through the one chain
/// runner: every gate runs, and the first `Deny` is the effect.
#[doc(hidden)]
pub struct GateInChain<G>(pub G);

impl<T, R, G: Gate<T>> Interceptor<T, R> for GateInChain<G> {
    fn intercept<'a>(&'a self, value: &T, ctx: &InterceptContext<'_>) -> Intercepted<'a, T, R> {
        match self.0.check(value, ctx) {
            Gated::Ready(verdict) => Intercepted::Ready(decision(verdict)),
            Gated::Pending(future) => {
                Intercepted::Pending(Box::pin(async move { decision(future.await) }))
            }
        }
    }
}

fn decision<T, R>(verdict: Verdict) -> Decision<T, R> {
    match verdict {
        Verdict::Allow => Decision::Proceed,
        Verdict::Deny(reason) => Decision::Deny(reason),
    }
}
