//! What a chain runs over: a sequence of interceptors, known at run time (a slice of [`Link`]s,
//! each an `Arc<dyn Interceptor>`) or at compile time (a [`Then`] list of [`StaticLink`]s, each
//! a concrete interceptor the optimizer can inline), or one followed by the other ([`Joined`]).
//! The runner ([`run_chain`](super::run_chain)) is the same for all of them: it asks links by
//! index, and a compile-time list answers its synchronous part by recursion instead of a loop, so
//! no call goes through a vtable.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::{Asked, GateOwner, Link, Running, caught};
use crate::{Decision, InterceptContext, Intercepted, Interceptor};

/// A sequence of interceptors over `T` (substitute type `R`), in registration order, as the
/// chain runner reads it. Implemented for `&[Link<T, R>]` (and `&Vec<Link<T, R>>`), for a
/// compile-time [`Then`] list, and for [`Joined`] sequences; an implementation of its own needs
/// only [`Links::len`], [`Links::name`] and [`Links::ask`].
///
/// ```
/// use std::sync::Arc;
/// use agents_kt::chain::{Link, Links, StaticLink, Then};
/// use agents_kt::{Decision, FnInterceptor};
/// let double = FnInterceptor::<_, u32, _>::new(|v: &u32| Decision::<u32, ()>::ProceedWith(v * 2));
/// let at_run_time: Vec<Link<u32, ()>> = vec![Link::new(Arc::new(double))];
/// let at_compile_time = Then((), StaticLink::new(FnInterceptor::<_, u32, _>::new(
///     |_: &u32| Decision::<u32, ()>::Proceed,
/// )));
/// assert_eq!((&at_run_time).len(), 1);
/// assert_eq!((&at_compile_time).len(), 1);
/// ```
pub trait Links<'a, T, R>: Copy + Send + 'a {
    /// How many interceptors.
    fn len(self) -> usize;

    /// Whether there are none.
    fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The name interceptor `index` is reported by, if it was given one.
    fn name(self, index: usize) -> Option<&'a str>;

    /// The ancestor interceptor `index` came from, when it judges a descendant's call (its
    /// decisions name it); `None` for an agent's own links.
    fn owner(self, index: usize) -> Option<&'a GateOwner> {
        let _ = index;
        None
    }

    /// Ask interceptor `index` about `value`.
    fn ask(self, index: usize, value: &T, ctx: &InterceptContext<'_>) -> Intercepted<'a, T, R>;

    /// Ask every interceptor in order, numbering them from `base`, while they answer at once;
    /// the first one that awaits is returned with its number, for the runner to finish the chain
    /// in a future. A compile-time list overrides this to recurse rather than loop.
    #[doc(hidden)]
    #[inline]
    fn ask_ready(
        self,
        base: usize,
        chain: &mut Running<T, R>,
        ctx: &InterceptContext<'_>,
    ) -> Option<Waiting<'a, T, R>> {
        for index in 0..self.len() {
            let asked = caught(
                || self.ask(index, &chain.value, ctx),
                self.name(index),
                base + index,
            );
            if let Some(waiting) = chain.step(base + index, self.name(index), asked) {
                return Some(waiting);
            }
        }
        None
    }
}

/// The first interceptor of a chain that did not answer at once: its number and its future.
#[doc(hidden)]
pub struct Waiting<'a, T, R> {
    pub(super) index: usize,
    pub(super) pending: BoxFuture<'a, Decision<T, R>>,
}

impl<'a, T: 'a, R: 'a> Links<'a, T, R> for &'a [Link<T, R>] {
    #[inline]
    fn len(self) -> usize {
        <[Link<T, R>]>::len(self)
    }

    fn name(self, index: usize) -> Option<&'a str> {
        self.get(index).and_then(Link::name)
    }

    fn owner(self, index: usize) -> Option<&'a GateOwner> {
        self.get(index).and_then(Link::owner)
    }

    #[inline]
    fn ask(self, index: usize, value: &T, ctx: &InterceptContext<'_>) -> Intercepted<'a, T, R> {
        match self.get(index) {
            Some(link) => link.interceptor.intercept(value, ctx),
            None => Intercepted::Ready(Decision::Proceed),
        }
    }
}

impl<'a, T: 'a, R: 'a> Links<'a, T, R> for &'a Vec<Link<T, R>> {
    #[inline]
    fn len(self) -> usize {
        self.as_slice().len()
    }

    fn name(self, index: usize) -> Option<&'a str> {
        self.as_slice().name(index)
    }

    fn owner(self, index: usize) -> Option<&'a GateOwner> {
        self.as_slice().owner(index)
    }

    #[inline]
    fn ask(self, index: usize, value: &T, ctx: &InterceptContext<'_>) -> Intercepted<'a, T, R> {
        self.as_slice().ask(index, value, ctx)
    }

    #[inline]
    fn ask_ready(
        self,
        base: usize,
        chain: &mut Running<T, R>,
        ctx: &InterceptContext<'_>,
    ) -> Option<Waiting<'a, T, R>> {
        self.as_slice().ask_ready(base, chain, ctx)
    }
}

/// A concrete interceptor in a compile-time chain, with the name it is reported by.
///
/// ```
/// use agents_kt::chain::StaticLink;
/// use agents_kt::{Decision, InterceptContext, Intercepted, Interceptor};
/// struct Pass;
/// impl Interceptor<u32, ()> for Pass {
///     fn intercept<'a>(&'a self, _: &u32, _: &InterceptContext<'_>) -> Intercepted<'a, u32, ()> {
///         Intercepted::Ready(Decision::Proceed)
///     }
/// }
/// let link = StaticLink::new(Pass).named("pass");
/// assert_eq!(link.name(), Some("pass"));
/// ```
pub struct StaticLink<I> {
    interceptor: I,
    name: Option<Arc<str>>,
}

impl<I> StaticLink<I> {
    /// An unnamed link: it is reported as `#<index>`.
    pub fn new(interceptor: I) -> Self {
        StaticLink {
            interceptor,
            name: None,
        }
    }

    /// The link reported by `name`.
    pub fn named(mut self, name: impl Into<Arc<str>>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The name given, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

/// A compile-time chain: the links before, then one more. `()` is the empty chain, so a chain of
/// three is `Then(Then(Then((), a), b), c)`, and its type says which interceptors it holds.
pub struct Then<P, L>(pub P, pub L);

/// A compile-time chain whose last link can be renamed (for a builder's `.named(..)`).
#[doc(hidden)]
pub trait RenameLast {
    /// Give the last link `name`; the empty chain has none to rename.
    fn rename_last(&mut self, name: Arc<str>);
}

impl RenameLast for () {
    fn rename_last(&mut self, _: Arc<str>) {}
}

impl<P, I> RenameLast for Then<P, StaticLink<I>> {
    fn rename_last(&mut self, name: Arc<str>) {
        self.1.name = Some(name);
    }
}

impl<'a, T, R> Links<'a, T, R> for &'a () {
    #[inline(always)]
    fn len(self) -> usize {
        0
    }

    fn name(self, _: usize) -> Option<&'a str> {
        None
    }

    fn ask(self, _: usize, _: &T, _: &InterceptContext<'_>) -> Intercepted<'a, T, R> {
        Intercepted::Ready(Decision::Proceed)
    }

    #[inline(always)]
    fn ask_ready(
        self,
        _: usize,
        _: &mut Running<T, R>,
        _: &InterceptContext<'_>,
    ) -> Option<Waiting<'a, T, R>> {
        None
    }
}

impl<'a, T, R, P, I> Links<'a, T, R> for &'a Then<P, StaticLink<I>>
where
    &'a P: Links<'a, T, R>,
    P: Sync,
    I: Interceptor<T, R> + 'a,
{
    #[inline(always)]
    fn len(self) -> usize {
        (&self.0).len() + 1
    }

    fn name(self, index: usize) -> Option<&'a str> {
        let last = (&self.0).len();
        if index == last {
            self.1.name()
        } else {
            (&self.0).name(index)
        }
    }

    #[inline]
    fn ask(self, index: usize, value: &T, ctx: &InterceptContext<'_>) -> Intercepted<'a, T, R> {
        if index == (&self.0).len() {
            self.1.interceptor.intercept(value, ctx)
        } else {
            (&self.0).ask(index, value, ctx)
        }
    }

    /// The links before, then this one: recursion the optimizer unrolls into straight-line code.
    #[inline(always)]
    fn ask_ready(
        self,
        base: usize,
        chain: &mut Running<T, R>,
        ctx: &InterceptContext<'_>,
    ) -> Option<Waiting<'a, T, R>> {
        if let Some(waiting) = (&self.0).ask_ready(base, chain, ctx) {
            return Some(waiting);
        }
        let index = base + (&self.0).len();
        let asked: Asked<'a, T, R> = caught(
            || self.1.interceptor.intercept(&chain.value, ctx),
            self.1.name(),
            index,
        );
        chain.step(index, self.1.name(), asked)
    }
}

/// One sequence of links followed by another, numbered on from the first: the compile-time links
/// `#[agent]` registers, then the ones added to the builder at run time.
///
/// ```
/// use std::sync::Arc;
/// use agents_kt::chain::{Joined, Link, Links, StaticLink, Then};
/// use agents_kt::{Decision, FnInterceptor};
/// let first = Then((), StaticLink::new(FnInterceptor::<_, u32, _>::new(|_: &u32| Decision::<u32, ()>::Proceed)));
/// let later: Vec<Link<u32, ()>> = vec![Link::new(Arc::new(FnInterceptor::<_, u32, _>::new(
///     |_: &u32| Decision::<u32, ()>::Proceed,
/// ))).named("later")];
/// let both = Joined(&first, &later);
/// assert_eq!(both.len(), 2);
/// assert_eq!(both.name(1), Some("later"));
/// ```
#[derive(Clone, Copy)]
pub struct Joined<A, B>(pub A, pub B);

impl<'a, T, R, A, B> Links<'a, T, R> for Joined<A, B>
where
    A: Links<'a, T, R>,
    B: Links<'a, T, R>,
{
    #[inline]
    fn len(self) -> usize {
        self.0.len() + self.1.len()
    }

    fn name(self, index: usize) -> Option<&'a str> {
        let split = self.0.len();
        if index < split {
            self.0.name(index)
        } else {
            self.1.name(index - split)
        }
    }

    fn owner(self, index: usize) -> Option<&'a GateOwner> {
        let split = self.0.len();
        if index < split {
            self.0.owner(index)
        } else {
            self.1.owner(index - split)
        }
    }

    #[inline]
    fn ask(self, index: usize, value: &T, ctx: &InterceptContext<'_>) -> Intercepted<'a, T, R> {
        let split = self.0.len();
        if index < split {
            self.0.ask(index, value, ctx)
        } else {
            self.1.ask(index - split, value, ctx)
        }
    }

    #[inline(always)]
    fn ask_ready(
        self,
        base: usize,
        chain: &mut Running<T, R>,
        ctx: &InterceptContext<'_>,
    ) -> Option<Waiting<'a, T, R>> {
        if let Some(waiting) = self.0.ask_ready(base, chain, ctx) {
            return Some(waiting);
        }
        self.1.ask_ready(base + self.0.len(), chain, ctx)
    }
}
