//! Call constraints, as gates counted across the whole tree of a run: how often a tool may be
//! called, and in which order tools may run — `never_after::<SendEmail, ReadSecrets>()` stops
//! the exfiltration pattern (secrets read, then mailed out) wherever in the tree either happens.

use std::sync::Arc;

use crate::{Gate, Gated, InterceptContext, Tool, Verdict};

/// One constraint on the tool calls of an agent and every agent under it, in one run — and,
/// when the run continues a remembered conversation ([`Agent::run_in`](crate::Agent::run_in),
/// [`Agent::session_in`](crate::Agent::session_in)), across the conversation's runs: the calls
/// its earlier runs made are read back from the stored messages (a call that returned a result,
/// whose result was withheld, or whose body failed counts; a denied one does not; one without
/// a stored result counts). A sub-agent's calls are not part of the conversation: they count in
/// their own run only.
///
/// ```
/// use agents_kt::Constraint;
/// let at_most_three = Constraint::max_calls_named("send_email", 3);
/// let no_exfiltration = Constraint::never_after_named("send_email", "read_secrets");
/// let order = Constraint::only_after_named("deploy", "run_tests");
/// assert_eq!(at_most_three.tool(), "send_email");
/// # let _ = (no_exfiltration, order);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Constraint {
    tool: String,
    rule: Rule,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Rule {
    MaxCalls(u32),
    OnlyAfter(String),
    NeverAfter(String),
}

impl Constraint {
    /// Tool `T` may be called at most `max` times in the run, across the tree (a denied call
    /// counts once it got past this constraint, as denied calls count toward `max_tool_calls`).
    pub fn max_calls<T: Tool>(max: u32) -> Self {
        Constraint::max_calls_named(T::NAME, max)
    }

    /// Tool `T` may be called only once tool `U` has run and returned an output.
    pub fn only_after<T: Tool, U: Tool>() -> Self {
        Constraint::only_after_named(T::NAME, U::NAME)
    }

    /// Tool `T` may not be called once tool `U` was let through (its call need not have
    /// finished: a parallel call of `T` is refused too).
    pub fn never_after<T: Tool, U: Tool>() -> Self {
        Constraint::never_after_named(T::NAME, U::NAME)
    }

    /// [`Constraint::max_calls`] by the tool's name.
    pub fn max_calls_named(tool: impl Into<String>, max: u32) -> Self {
        Constraint {
            tool: tool.into(),
            rule: Rule::MaxCalls(max),
        }
    }

    /// [`Constraint::only_after`] by the tools' names.
    pub fn only_after_named(tool: impl Into<String>, after: impl Into<String>) -> Self {
        Constraint {
            tool: tool.into(),
            rule: Rule::OnlyAfter(after.into()),
        }
    }

    /// [`Constraint::never_after`] by the tools' names.
    pub fn never_after_named(tool: impl Into<String>, after: impl Into<String>) -> Self {
        Constraint {
            tool: tool.into(),
            rule: Rule::NeverAfter(after.into()),
        }
    }

    /// The tool constrained.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The constraint in words, as the permission manifest lists it.
    pub fn describe(&self) -> String {
        match &self.rule {
            Rule::MaxCalls(max) => format!("max_calls({}, {max})", self.tool),
            Rule::OnlyAfter(after) => format!("only_after({}, {after})", self.tool),
            Rule::NeverAfter(after) => format!("never_after({}, {after})", self.tool),
        }
    }
}

/// An agent's constraints as one gate over every tool call, reading the tree's ledger.
pub(crate) struct ConstraintsGate {
    /// Who declared them, for the denial text.
    owner: String,
    constraints: Vec<Constraint>,
}

impl ConstraintsGate {
    pub(crate) fn new(owner: &str, constraints: &[Constraint]) -> Arc<Self> {
        Arc::new(ConstraintsGate {
            owner: owner.to_string(),
            constraints: constraints.to_vec(),
        })
    }
}

impl Gate<()> for ConstraintsGate {
    fn check<'a>(&'a self, _: &(), ctx: &InterceptContext<'_>) -> Gated<'a> {
        let (Some(tool), Some(ledger)) = (ctx.tool(), ctx.ledger) else {
            // Not a tool call of a run (nothing to count): nothing to constrain.
            return Gated::Ready(Verdict::Allow);
        };
        // The call's number in the tree (the model's call ids may repeat, and so may agents'
        // names and run ids).
        let call = match ctx.ledger_call {
            // Unnumbered (the ledger was not watching): a call of its own, the closed side.
            0 => ledger.next_call(),
            call => call,
        };
        let owner = &self.owner;
        // Refusals first, so a call refused by one constraint reserves nothing under another.
        for constraint in self.constraints.iter().filter(|c| c.tool == tool) {
            match &constraint.rule {
                Rule::OnlyAfter(after) if !ledger.has_succeeded(after) => {
                    return Gated::Ready(Verdict::Deny(format!(
                        "tool '{tool}' may run only after '{after}' has succeeded (only_after, declared by '{owner}')"
                    )));
                }
                Rule::NeverAfter(after) if ledger.let_through(after) => {
                    return Gated::Ready(Verdict::Deny(format!(
                        "tool '{tool}' may not run once '{after}' has run (never_after, declared by '{owner}')"
                    )));
                }
                _ => {}
            }
        }
        for constraint in self.constraints.iter().filter(|c| c.tool == tool) {
            if let Rule::MaxCalls(max) = constraint.rule
                && let Err(count) = ledger.reserve_within(tool, call, max)
            {
                return Gated::Ready(Verdict::Deny(format!(
                    "tool '{tool}' may be called at most {max} times in a run (or remembered conversation); it was called {count} times (max_calls, declared by '{owner}')"
                )));
            }
        }
        // A call another constraint must not follow is noted as let through.
        let watched = self.constraints.iter().any(|c| match &c.rule {
            Rule::NeverAfter(after) => after == tool,
            _ => false,
        });
        if watched {
            ledger.note(tool, call);
        }
        Gated::Ready(Verdict::Allow)
    }
}
