//! What a chain decides: the value after it, the effect, and every decision it reports.

use crate::{DecisionKind, DecisionStage};

/// What a chain of interceptors decided about a value (built by the chain; read its fields).
#[derive(Debug)]
#[non_exhaustive]
pub struct ChainOutcome<T, R> {
    /// The value after the chain: the replacement if the effective decision was `ProceedWith`,
    /// the original otherwise.
    pub value: T,
    /// The effective decision: the first one that was not `Proceed` (a gate's `Deny` overrides
    /// an interceptor's `Proceed` or `ProceedWith`).
    pub effect: Effect<R>,
    /// Every non-`Proceed` decision, effective or not, in chain order (interceptors, then gates).
    pub decisions: Vec<ChainDecision>,
}

/// The effective decision of a chain, with the replacement already moved into
/// [`ChainOutcome::value`]. Exhaustive, as [`crate::Decision`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect<R> {
    /// Every interceptor proceeded.
    Proceed,
    /// An interceptor replaced the value; it is in [`ChainOutcome::value`].
    ProceedWith,
    /// An interceptor (or a gate) denied, for this reason.
    Deny(String),
    /// An interceptor short-circuited with this result.
    Substitute(R),
}

impl<R> Effect<R> {
    /// The decision this effect came from.
    ///
    /// ```
    /// use agents_kt::{DecisionKind, chain::Effect};
    /// assert_eq!(Effect::<()>::Deny("no".into()).kind(), DecisionKind::Deny);
    /// ```
    pub fn kind(&self) -> DecisionKind {
        match self {
            Effect::Proceed => DecisionKind::Proceed,
            Effect::ProceedWith => DecisionKind::ProceedWith,
            Effect::Deny(_) => DecisionKind::Deny,
            Effect::Substitute(_) => DecisionKind::Substitute,
        }
    }
}

/// One non-`Proceed` decision taken in a chain, as reported to observers.
///
/// ```
/// use agents_kt::{DecisionKind, chain::ChainDecision};
/// let d = ChainDecision::new(1, DecisionKind::Deny).with_reason("no");
/// assert_eq!((d.name.as_str(), d.effective), ("#1", true));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChainDecision {
    /// Position of the interceptor (or gate) among its stage's, in registration order, from 0.
    pub index: usize,
    /// Its name: the function's or type's, the one given with `.named(..)`, else `#<index>`.
    pub name: String,
    /// Whether an interceptor or a gate decided.
    pub stage: DecisionStage,
    /// What it decided.
    pub decision: DecisionKind,
    /// The reason, for a `Deny`.
    pub reason: Option<String>,
    /// Whether this decision was its stage's effective one.
    pub effective: bool,
    /// The ancestor whose gate (or opted-in interceptor) decided, when it judged a descendant's
    /// call; `None` for the agent's own links.
    pub owner: Option<GateOwner>,
}

impl ChainDecision {
    /// The effective `decision` of the interceptor at `index`, unnamed (`#<index>`), without a
    /// reason; the `with_*` methods change the rest.
    ///
    /// ```
    /// use agents_kt::{DecisionKind, DecisionStage, chain::ChainDecision};
    /// let d = ChainDecision::new(0, DecisionKind::Deny).with_stage(DecisionStage::Gate);
    /// assert_eq!(d.stage, DecisionStage::Gate);
    /// ```
    pub fn new(index: usize, decision: DecisionKind) -> Self {
        ChainDecision {
            index,
            name: format!("#{index}"),
            stage: DecisionStage::Interceptor,
            decision,
            reason: None,
            effective: true,
            owner: None,
        }
    }

    /// Named `name` (a function's, a type's, or the one given with `.named(..)`).
    ///
    /// ```
    /// use agents_kt::{DecisionKind, chain::ChainDecision};
    /// assert_eq!(ChainDecision::new(0, DecisionKind::Deny).with_name("no_mars").name, "no_mars");
    /// ```
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Taken by an interceptor or a gate.
    ///
    /// ```
    /// use agents_kt::{DecisionKind, DecisionStage, chain::ChainDecision};
    /// let d = ChainDecision::new(0, DecisionKind::Deny).with_stage(DecisionStage::Gate);
    /// assert_eq!(d.stage, DecisionStage::Gate);
    /// ```
    pub fn with_stage(mut self, stage: DecisionStage) -> Self {
        self.stage = stage;
        self
    }

    /// With this reason (a `Deny`'s).
    ///
    /// ```
    /// use agents_kt::{DecisionKind, chain::ChainDecision};
    /// let d = ChainDecision::new(0, DecisionKind::Deny).with_reason("no");
    /// assert_eq!(d.reason.as_deref(), Some("no"));
    /// ```
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// Whether it was its stage's effective decision.
    ///
    /// ```
    /// use agents_kt::{DecisionKind, chain::ChainDecision};
    /// assert!(!ChainDecision::new(2, DecisionKind::Deny).with_effective(false).effective);
    /// ```
    pub fn with_effective(mut self, effective: bool) -> Self {
        self.effective = effective;
        self
    }

    /// Decided by `owner`'s link, an ancestor of the agent whose call it judged.
    ///
    /// ```
    /// use agents_kt::{DecisionKind, chain::{ChainDecision, GateOwner}};
    /// let d = ChainDecision::new(0, DecisionKind::Deny).with_owner(GateOwner::new("planner", 0));
    /// assert_eq!(d.owner.unwrap().agent, "planner");
    /// ```
    pub fn with_owner(mut self, owner: GateOwner) -> Self {
        self.owner = Some(owner);
        self
    }
}

/// Which agent of the tree registered a link that judged a descendant's call, and how deep that
/// agent runs (0 for the run a caller started): a parent's gate flows down to every agent it
/// runs, and its decisions say whose they are.
///
/// ```
/// use agents_kt::chain::GateOwner;
/// let owner = GateOwner::new("planner", 0);
/// assert_eq!((owner.agent.as_str(), owner.depth), ("planner", 0));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct GateOwner {
    /// The agent's name.
    pub agent: String,
    /// The depth of that agent's run in the tree.
    pub depth: u32,
}

impl GateOwner {
    /// The links of `agent`, running at `depth`.
    pub fn new(agent: impl Into<String>, depth: u32) -> Self {
        GateOwner {
            agent: agent.into(),
            depth,
        }
    }
}
