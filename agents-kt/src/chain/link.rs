//! A link of a chain known at run time, and the options a chain and a guard run with.

use std::sync::Arc;
use std::time::Duration;

use super::GateOwner;
use super::gate::GateInChain;
use crate::{DecisionStage, Gate, InterceptContext, Intercepted, Interceptor};

/// One interceptor of a chain, with the name it is reported by.
///
/// ```
/// use std::sync::Arc;
/// use agents_kt::chain::Link;
/// use agents_kt::{Decision, FnInterceptor, Interceptor};
/// let shout = FnInterceptor::<_, u32, _>::new(|v: &u32| Decision::<u32, ()>::ProceedWith(v * 2));
/// let link: Link<u32, ()> = Link::new(Arc::new(shout)).named("double");
/// assert_eq!(link.name(), Some("double"));
/// ```
pub struct Link<T, R> {
    pub(super) interceptor: Arc<dyn Interceptor<T, R>>,
    name: Option<Arc<str>>,
    /// The ancestor the link came from, when it judges a descendant's call.
    pub(super) owner: Option<Arc<GateOwner>>,
}

impl<T, R> Link<T, R> {
    /// An unnamed link: it is reported as `#<index>`.
    pub fn new(interceptor: Arc<dyn Interceptor<T, R>>) -> Self {
        Link {
            interceptor,
            name: None,
            owner: None,
        }
    }

    /// The link reported by `name`.
    pub fn named(mut self, name: impl Into<Arc<str>>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The link reported by `name` when there is one (a registered function's own name).
    pub(crate) fn maybe_named(self, name: Option<Arc<str>>) -> Self {
        match name {
            Some(name) => self.named(name),
            None => self,
        }
    }

    /// A gate, as a link that only proceeds or denies (for [`guard`](super::guard)'s `gates`).
    pub fn gate(gate: Arc<dyn Gate<T>>) -> Self
    where
        T: 'static,
    {
        Link::new(Arc::new(GateInChain(gate)))
    }

    /// The name given, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The link as an ancestor's, judging a descendant's call: its decisions name `owner`, and
    /// it is asked with `owner` as the context's [`gate_owner`](crate::InterceptContext::gate_owner).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use agents_kt::chain::{GateOwner, Link};
    /// use agents_kt::{IntoGate, Verdict};
    /// let gate = IntoGate::<u32, u32, _>::into_gate(|_: &u32| Verdict::Allow);
    /// let link: Link<u32, ()> = Link::gate(gate).owned_by(Arc::new(GateOwner::new("planner", 0)));
    /// assert_eq!(link.owner().map(|o| o.depth), Some(0));
    /// ```
    pub fn owned_by(self, owner: Arc<GateOwner>) -> Self
    where
        T: 'static,
        R: 'static,
    {
        let interceptor = Arc::new(AsOwner {
            inner: self.interceptor,
            owner: Arc::clone(&owner),
        });
        Link {
            interceptor,
            name: self.name,
            owner: Some(owner),
        }
    }

    /// The ancestor the link came from, if it judges a descendant's call.
    pub fn owner(&self) -> Option<&GateOwner> {
        self.owner.as_deref()
    }
}

impl<T, R> Clone for Link<T, R> {
    fn clone(&self) -> Self {
        Link {
            interceptor: Arc::clone(&self.interceptor),
            name: self.name.clone(),
            owner: self.owner.clone(),
        }
    }
}

/// An ancestor's link, asked with its owner in the context (wrapped once, when the link is
/// inherited, so an agent's own links are asked as they always were).
struct AsOwner<T, R> {
    inner: Arc<dyn Interceptor<T, R>>,
    owner: Arc<GateOwner>,
}

impl<T, R> Interceptor<T, R> for AsOwner<T, R> {
    fn intercept<'a>(&'a self, value: &T, ctx: &InterceptContext<'_>) -> Intercepted<'a, T, R> {
        let ctx = InterceptContext {
            owner: Some(&self.owner),
            ..*ctx
        };
        self.inner.intercept(value, &ctx)
    }
}

/// Told of a link that proceeded (its index and name): a `Proceed` is not a decision and is not
/// recorded, but a gate's `Allow` is a verdict a trace may want to show.
pub type AllowReport = fn(index: usize, name: Option<&str>);

/// How a chain is run: which stage it is, how long an undecided interceptor may take, and whom
/// to tell of a `Proceed`.
///
/// ```
/// use std::time::Duration;
/// use agents_kt::{DecisionStage, chain::ChainOptions};
/// let options = ChainOptions::default()
///     .stage(DecisionStage::Gate)
///     .timeout(Duration::from_secs(5));
/// assert_eq!(options.timeout, Some(Duration::from_secs(5)));
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ChainOptions {
    /// Interceptors or gates.
    pub stage: DecisionStage,
    /// An interceptor whose future has not decided by then denies (`None`: no limit).
    pub timeout: Option<Duration>,
    /// Called for every link that proceeds (`None`: nobody is told).
    pub on_allow: Option<AllowReport>,
    /// A panicking link's `Deny` reads a fixed text ("an interceptor failed", "a gate failed")
    /// instead of the panic's: its decision (events, traces, logs) keeps the panic's text.
    pub hide_panics: bool,
}

impl ChainOptions {
    /// Run the links as interceptors or as gates (how their decisions are reported).
    ///
    /// ```
    /// use agents_kt::{DecisionStage, chain::ChainOptions};
    /// assert_eq!(ChainOptions::default().stage(DecisionStage::Gate).stage, DecisionStage::Gate);
    /// ```
    pub fn stage(mut self, stage: DecisionStage) -> Self {
        self.stage = stage;
        self
    }

    /// A link whose future has not decided after `timeout` denies.
    ///
    /// ```
    /// use std::time::Duration;
    /// let o = agents_kt::chain::ChainOptions::default().timeout(Duration::from_millis(50));
    /// assert_eq!(o.timeout, Some(Duration::from_millis(50)));
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Tell `report` of every link that proceeds.
    ///
    /// ```
    /// fn traced(index: usize, name: Option<&str>) { println!("{index} {name:?} proceeded"); }
    /// let o = agents_kt::chain::ChainOptions::default().on_allow(traced);
    /// assert!(o.on_allow.is_some());
    /// ```
    pub fn on_allow(mut self, report: AllowReport) -> Self {
        self.on_allow = Some(report);
        self
    }

    /// A panicking link denies with a fixed text, its panic's kept for its decision only.
    ///
    /// ```
    /// assert!(agents_kt::chain::ChainOptions::default().hide_panics(true).hide_panics);
    /// ```
    pub fn hide_panics(mut self, hide: bool) -> Self {
        self.hide_panics = hide;
        self
    }
}

impl Default for ChainOptions {
    fn default() -> Self {
        ChainOptions {
            stage: DecisionStage::Interceptor,
            timeout: None,
            on_allow: None,
            hide_panics: false,
        }
    }
}

/// How [`guard`](super::guard) runs: how long an undecided interceptor or gate may take, and
/// whom to tell of a gate's `Allow`. A [`Duration`] converts into options with that timeout and
/// no report.
///
/// ```
/// use std::time::Duration;
/// use agents_kt::chain::GuardOptions;
/// fn traced(index: usize, name: Option<&str>) { println!("gate {index} {name:?} allowed"); }
/// let options = GuardOptions::new(Duration::from_secs(60)).on_gate_allow(traced);
/// assert_eq!(options.timeout, Duration::from_secs(60));
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct GuardOptions {
    /// An interceptor or gate that has not decided by then denies.
    pub timeout: Duration,
    /// Called for every gate that allows.
    pub gate_allowed: Option<AllowReport>,
    /// See [`ChainOptions::hide_panics`].
    pub hide_panics: bool,
}

impl GuardOptions {
    /// `timeout` for each interceptor and gate; no report of allows.
    pub fn new(timeout: Duration) -> Self {
        GuardOptions {
            timeout,
            gate_allowed: None,
            hide_panics: false,
        }
    }

    /// Tell `report` of every gate that allows.
    pub fn on_gate_allow(mut self, report: AllowReport) -> Self {
        self.gate_allowed = Some(report);
        self
    }

    /// See [`ChainOptions::hide_panics`].
    ///
    /// ```
    /// use std::time::Duration;
    /// let o = agents_kt::chain::GuardOptions::new(Duration::from_secs(1)).hide_panics(true);
    /// assert!(o.hide_panics);
    /// ```
    pub fn hide_panics(mut self, hide: bool) -> Self {
        self.hide_panics = hide;
        self
    }
}

impl From<Duration> for GuardOptions {
    fn from(timeout: Duration) -> Self {
        GuardOptions::new(timeout)
    }
}
