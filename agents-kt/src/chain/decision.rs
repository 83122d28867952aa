//! What an interceptor answers: go on, go on with a replacement, refuse, or short-circuit.

use std::fmt;

/// The answer of one interceptor about the value it inspected.
///
/// `T` is the inspected value's type (a skill name, the outbound messages, a tool's arguments) and
/// `R` the type a short-circuit must produce (the agent's output, or the tool's output). Because
/// `R` is a type parameter, a `Substitute` of the wrong type is a compile error rather than a
/// failed cast at run time.
///
/// Deliberately exhaustive: these four answers are the seed's contract (Agents.KT has exactly
/// them), so a `match` over them needs no `_` arm and a fifth would be a breaking change.
///
/// ```
/// use agents_kt::Decision;
///
/// fn no_mars(city: &str) -> Decision<String, f64> {
///     match city {
///         "Mars" => Decision::deny("no weather service on Mars"),
///         "mars" => Decision::ProceedWith("Mars".to_string()),
///         "cached" => Decision::Substitute(21.5),
///         _ => Decision::Proceed,
///     }
/// }
/// assert_eq!(no_mars("Paris"), Decision::Proceed);
/// assert_eq!(no_mars("cached"), Decision::Substitute(21.5));
/// ```
#[must_use = "an interceptor's decision only takes effect when it is returned"]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision<T, R> {
    /// Let the guarded thing run with the value as it is.
    Proceed,
    /// Let it run with this replacement value instead; later interceptors observe the replacement.
    ProceedWith(T),
    /// Refuse: the guarded thing does not run, and the reason is reported.
    Deny(String),
    /// Skip the guarded thing and use this result as if it had produced it.
    Substitute(R),
}

impl<T, R> Decision<T, R> {
    /// A [`Decision::Deny`] with the given reason.
    ///
    /// ```
    /// use agents_kt::Decision;
    /// let d: Decision<(), ()> = Decision::deny("not today");
    /// assert_eq!(d, Decision::Deny("not today".into()));
    /// ```
    pub fn deny(reason: impl Into<String>) -> Self {
        Decision::Deny(reason.into())
    }

    /// Which of the four decisions this is, without its payload.
    ///
    /// ```
    /// use agents_kt::{Decision, DecisionKind};
    /// assert_eq!(Decision::<u8, u8>::Substitute(1).kind(), DecisionKind::Substitute);
    /// ```
    pub fn kind(&self) -> DecisionKind {
        match self {
            Decision::Proceed => DecisionKind::Proceed,
            Decision::ProceedWith(_) => DecisionKind::ProceedWith,
            Decision::Deny(_) => DecisionKind::Deny,
            Decision::Substitute(_) => DecisionKind::Substitute,
        }
    }
}

/// The kind of a [`Decision`], as reported to observers and in [`crate::PipelineEvent`]s.
/// Exhaustive, as [`Decision`] is.
///
/// ```
/// use agents_kt::DecisionKind;
/// assert_eq!(DecisionKind::ProceedWith.to_string(), "ProceedWith");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum DecisionKind {
    /// [`Decision::Proceed`].
    Proceed,
    /// [`Decision::ProceedWith`].
    ProceedWith,
    /// [`Decision::Deny`].
    Deny,
    /// [`Decision::Substitute`].
    Substitute,
}

impl DecisionKind {
    /// The decision's name, as displayed.
    ///
    /// ```
    /// assert_eq!(agents_kt::DecisionKind::Deny.as_str(), "Deny");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            DecisionKind::Proceed => "Proceed",
            DecisionKind::ProceedWith => "ProceedWith",
            DecisionKind::Deny => "Deny",
            DecisionKind::Substitute => "Substitute",
        }
    }
}

impl fmt::Display for DecisionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
