//! A tool's interceptors, gates and after-interceptors known at compile time: held as themselves
//! in a [`Then`] list (no `Arc`, no `dyn` per interceptor), so the optimizer inlines them into
//! the chain runner. `#[agent]` builds one for each of its tools; the builder takes one with
//! [`AgentBuilder::tool_with_chain`](crate::AgentBuilder::tool_with_chain). Interceptors added to
//! the builder at run time run after them, in registration order, through the same runner.

use std::marker::PhantomData;
use std::sync::Arc;

use super::Tool;
use super::chains::ToolChains;
use super::view::{TypedLink, Viewed};
use crate::chain::gate::GateInChain;
use crate::chain::interceptor::name_of;
use crate::chain::{ChainRun, GuardOptions, Joined, Links, RenameLast, StaticLink, Then, guard};
use crate::{InterceptContext, IntoGate, IntoInterceptor};

/// Tool `T`'s interceptors, gates and after-interceptors, fixed at compile time, in order. Each
/// accepts what the builder's run-time method accepts: a function or closure (optionally with a
/// trailing `&InterceptContext`), or a hand-written `Interceptor`/`Gate`.
///
/// ```
/// # use std::borrow::Cow;
/// # use agents_kt::{Tool, ToolContext, ToolError};
/// # #[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
/// # pub struct WriteArgs { pub path: String }
/// # pub struct Write;
/// # impl Tool for Write {
/// #     const NAME: &'static str = "write";
/// #     type Args = WriteArgs;
/// #     type Output = String;
/// #     fn description(&self) -> Cow<'static, str> { "Write.".into() }
/// #     async fn call(&self, args: WriteArgs, _: &ToolContext) -> Result<String, ToolError> { Ok(args.path) }
/// # }
/// use agents_kt::{Agent, Decision, Reply, ScriptedModel, ToolChain, Verdict};
/// let chain = ToolChain::<Write>::new()
///     .before(|args: &WriteArgs| Decision::<WriteArgs, String>::ProceedWith(WriteArgs {
///         path: args.path.replace('~', "/home/me"),
///     }))
///     .named("expand_home")
///     .gate(|args: &WriteArgs| {
///         if args.path.starts_with("/etc") { Verdict::deny("system path") } else { Verdict::Allow }
///     })
///     .after(|out: &String| Decision::<String, String>::ProceedWith(out.to_uppercase()));
/// let agent = Agent::<String, String>::builder("writer")
///     .model(ScriptedModel::new([Reply::text("done")]))
///     .tool_with_chain(Write, chain)
///     .build()
///     .unwrap();
/// # let _ = agent;
/// ```
pub struct ToolChain<T: Tool, B = (), G = (), A = ()> {
    before: B,
    gates: G,
    after: A,
    last: Option<Last>,
    _tool: PhantomData<fn() -> T>,
}

/// Which list `.named(..)` renames: the one added to last.
#[derive(Clone, Copy)]
enum Last {
    Before,
    Gate,
    After,
}

impl<T: Tool> ToolChain<T> {
    /// An empty chain.
    pub fn new() -> Self {
        ToolChain {
            before: (),
            gates: (),
            after: (),
            last: None,
            _tool: PhantomData,
        }
    }
}

impl<T: Tool> Default for ToolChain<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// A link named after its function or type when it has one.
fn link<I, N: ?Sized>(interceptor: I) -> StaticLink<I> {
    let link = StaticLink::new(interceptor);
    match name_of::<N>() {
        Some(name) => link.named(name),
        None => link,
    }
}

impl<T: Tool, B, G, A> ToolChain<T, B, G, A> {
    /// Add an interceptor over the tool's arguments (as
    /// [`AgentBuilder::before_tool_call`](crate::AgentBuilder::before_tool_call)).
    #[allow(clippy::type_complexity)]
    pub fn before<M, I>(
        self,
        interceptor: I,
    ) -> ToolChain<T, Then<B, StaticLink<TypedLink<I::Interceptor>>>, G, A>
    where
        I: IntoInterceptor<T::Args, T::Output, T::Args, M>,
    {
        let added = link::<_, I>(TypedLink(interceptor.into_concrete()));
        ToolChain {
            before: Then(self.before, added),
            gates: self.gates,
            after: self.after,
            last: Some(Last::Before),
            _tool: PhantomData,
        }
    }

    /// Add a gate over the tool's final arguments (as
    /// [`AgentBuilder::gate_tool_call`](crate::AgentBuilder::gate_tool_call)).
    #[allow(clippy::type_complexity)]
    pub fn gate<M, V>(
        self,
        gate: V,
    ) -> ToolChain<T, B, Then<G, StaticLink<TypedLink<GateInChain<V::Gate>>>>, A>
    where
        V: IntoGate<T::Args, T::Args, M>,
    {
        let added = link::<_, V>(TypedLink(GateInChain(gate.into_concrete())));
        ToolChain {
            before: self.before,
            gates: Then(self.gates, added),
            after: self.after,
            last: Some(Last::Gate),
            _tool: PhantomData,
        }
    }

    /// Add an interceptor over the tool's result (as
    /// [`AgentBuilder::after_tool_call`](crate::AgentBuilder::after_tool_call)).
    #[allow(clippy::type_complexity)]
    pub fn after<M, I>(
        self,
        interceptor: I,
    ) -> ToolChain<T, B, G, Then<A, StaticLink<TypedLink<I::Interceptor>>>>
    where
        I: IntoInterceptor<T::Output, T::Output, T::Output, M>,
    {
        let added = link::<_, I>(TypedLink(interceptor.into_concrete()));
        ToolChain {
            before: self.before,
            gates: self.gates,
            after: Then(self.after, added),
            last: Some(Last::After),
            _tool: PhantomData,
        }
    }

    /// Name the interceptor or gate added just before, for decision events and logs.
    pub fn named(mut self, name: impl Into<Arc<str>>) -> Self
    where
        B: RenameLast,
        G: RenameLast,
        A: RenameLast,
    {
        let name = name.into();
        match self.last {
            Some(Last::Before) => self.before.rename_last(name),
            Some(Last::Gate) => self.gates.rename_last(name),
            Some(Last::After) => self.after.rename_last(name),
            None => {}
        }
        self
    }
}

/// What [`AgentBuilder::tool_with_chain`](crate::AgentBuilder::tool_with_chain) accepts: a
/// [`ToolChain`] for tool `T`.
pub trait IntoToolChain<T: Tool> {
    #[doc(hidden)]
    fn into_guard(self) -> BoxedChain<T>;
}

/// A compile-time chain with its types erased, waiting for the agent's build to join it with the
/// builder's links ([`BoxedChain::join`]); the joined chain costs the agent one indirect call per
/// guard, not one per interceptor.
#[doc(hidden)]
pub struct BoxedChain<T: Tool>(Box<dyn JoinChains<T>>);

impl<T: Tool> BoxedChain<T> {
    /// No compile-time links: every link of the tool came from the builder.
    pub(crate) fn empty() -> Self {
        ToolChain::<T>::new().into_guard()
    }

    /// The compile-time links followed by the builder's (`dynamic`), joined once, at build.
    pub(crate) fn join(self, dynamic: ToolChains<T>) -> Box<dyn ChainGuard<T>> {
        self.0.join(dynamic)
    }
}

impl<T, B, G, A> IntoToolChain<T> for ToolChain<T, B, G, A>
where
    T: Tool,
    B: Send + Sync + 'static,
    G: Send + Sync + 'static,
    A: Send + Sync + 'static,
    for<'a> &'a B: Links<'a, Viewed<T::Args>, T::Output>,
    for<'a> &'a G: Links<'a, Viewed<T::Args>, T::Output>,
    for<'a> &'a A: Links<'a, Viewed<T::Output>, T::Output>,
{
    fn into_guard(self) -> BoxedChain<T> {
        BoxedChain(Box::new(self))
    }
}

/// A compile-time chain that becomes a tool's whole chain once the builder's links are known.
trait JoinChains<T: Tool>: Send + Sync {
    fn join(self: Box<Self>, dynamic: ToolChains<T>) -> Box<dyn ChainGuard<T>>;
}

impl<T, B, G, A> JoinChains<T> for ToolChain<T, B, G, A>
where
    T: Tool,
    B: Send + Sync + 'static,
    G: Send + Sync + 'static,
    A: Send + Sync + 'static,
    for<'a> &'a B: Links<'a, Viewed<T::Args>, T::Output>,
    for<'a> &'a G: Links<'a, Viewed<T::Args>, T::Output>,
    for<'a> &'a A: Links<'a, Viewed<T::Output>, T::Output>,
{
    fn join(self: Box<Self>, dynamic: ToolChains<T>) -> Box<dyn ChainGuard<T>> {
        Box::new(Built {
            statics: *self,
            dynamic,
        })
    }
}

/// A tool's whole chain, guarded by the one guard: its compile-time links, then the builder's.
pub(crate) trait ChainGuard<T: Tool>: Send + Sync {
    /// The before-tool interceptors, then the gates.
    fn before<'a>(
        &'a self,
        value: Viewed<T::Args>,
        ctx: &'a InterceptContext<'a>,
        options: GuardOptions,
    ) -> ChainRun<'a, Viewed<T::Args>, T::Output>;

    /// [`Self::before`] in a sub-agent's run: the ancestors' links (`inherited`) after the
    /// tool's own at each stage. Apart, so a call with no ancestors runs the code it always did.
    fn before_inherited<'a>(
        &'a self,
        value: Viewed<T::Args>,
        ctx: &'a InterceptContext<'a>,
        options: GuardOptions,
        inherited: &'a ToolChains<T>,
    ) -> ChainRun<'a, Viewed<T::Args>, T::Output>;

    /// The after-tool interceptors, the ancestors' opted-in ones (`inherited`) after the tool's
    /// own.
    fn after<'a>(
        &'a self,
        value: Viewed<T::Output>,
        ctx: &'a InterceptContext<'a>,
        options: GuardOptions,
        inherited: Option<&'a ToolChains<T>>,
    ) -> ChainRun<'a, Viewed<T::Output>, T::Output>;

    /// Whether any after-tool interceptor is registered.
    fn has_after(&self) -> bool;

    /// Whether any before-tool interceptor or gate is registered: without one, the tool's own
    /// guard has nothing to ask.
    fn has_before(&self) -> bool;

    /// The names of its interceptors, gates and after-interceptors, in order (`#<index>` for
    /// an unnamed one), for the permission manifest.
    fn link_names(&self) -> [Vec<String>; 3];
}

/// Every link's name, `#<index>` for an unnamed one.
fn names<'a, T: 'a, R: 'a>(links: impl Links<'a, T, R>) -> Vec<String> {
    (0..links.len())
        .map(|index| {
            links
                .name(index)
                .map_or_else(|| format!("#{index}"), str::to_string)
        })
        .collect()
}

/// The compile-time links and the builder's, side by side: each stage runs the first list, then
/// the second, as one chain.
struct Built<T: Tool, B, G, A> {
    statics: ToolChain<T, B, G, A>,
    dynamic: ToolChains<T>,
}

impl<T, B, G, A> ChainGuard<T> for Built<T, B, G, A>
where
    T: Tool,
    B: Send + Sync + 'static,
    G: Send + Sync + 'static,
    A: Send + Sync + 'static,
    for<'a> &'a B: Links<'a, Viewed<T::Args>, T::Output>,
    for<'a> &'a G: Links<'a, Viewed<T::Args>, T::Output>,
    for<'a> &'a A: Links<'a, Viewed<T::Output>, T::Output>,
{
    fn before<'a>(
        &'a self,
        value: Viewed<T::Args>,
        ctx: &'a InterceptContext<'a>,
        options: GuardOptions,
    ) -> ChainRun<'a, Viewed<T::Args>, T::Output> {
        guard(
            Joined(&self.statics.before, &self.dynamic.before),
            Joined(&self.statics.gates, &self.dynamic.gates),
            value,
            ctx,
            options,
        )
    }

    fn before_inherited<'a>(
        &'a self,
        value: Viewed<T::Args>,
        ctx: &'a InterceptContext<'a>,
        options: GuardOptions,
        inherited: &'a ToolChains<T>,
    ) -> ChainRun<'a, Viewed<T::Args>, T::Output> {
        let chain = Joined(&self.statics.before, &self.dynamic.before);
        let gates = Joined(&self.statics.gates, &self.dynamic.gates);
        guard(
            Joined(chain, &inherited.before),
            Joined(gates, &inherited.gates),
            value,
            ctx,
            options,
        )
    }

    fn after<'a>(
        &'a self,
        value: Viewed<T::Output>,
        ctx: &'a InterceptContext<'a>,
        options: GuardOptions,
        inherited: Option<&'a ToolChains<T>>,
    ) -> ChainRun<'a, Viewed<T::Output>, T::Output> {
        let chain = Joined(&self.statics.after, &self.dynamic.after);
        match inherited {
            None => guard(chain, &(), value, ctx, options),
            Some(inherited) => guard(Joined(chain, &inherited.after), &(), value, ctx, options),
        }
    }

    fn has_after(&self) -> bool {
        !self.dynamic.after.is_empty()
            || !<&A as Links<'_, Viewed<T::Output>, T::Output>>::is_empty(&self.statics.after)
    }

    fn has_before(&self) -> bool {
        !Joined(&self.statics.before, &self.dynamic.before).is_empty()
            || !Joined(&self.statics.gates, &self.dynamic.gates).is_empty()
    }

    fn link_names(&self) -> [Vec<String>; 3] {
        [
            names(Joined(&self.statics.before, &self.dynamic.before)),
            names(Joined(&self.statics.gates, &self.dynamic.gates)),
            names(Joined(&self.statics.after, &self.dynamic.after)),
        ]
    }
}
