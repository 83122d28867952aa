//! The one runner of an interception point: guard the value (the chain, then the gates), report
//! the decisions through the one report path, and say what the point's effect is. Skill choice,
//! model turns and an MCP call of an exposed skill all pass here; a tool call's guard runs inside
//! its runtime (typed, per tool) and its decisions come back in the call's record, reported by
//! [`Run::report_decisions`] too.

use super::run::Run;
use super::step::{Passed, Step};
use crate::chain::{Effect, Joined, Link, Links, guard};
#[cfg(feature = "mcp")]
use serde_json::Value;

use crate::{InterceptContext, InterceptionPoint, Message};

/// A point's interceptors, then its gates: the agent's own, and those its run inherits from the
/// runs above it (after its own).
pub(crate) type Guards<'a, T, R> = (&'a [Link<T, R>], Gates<'a, T, R>);

/// A point's gates: the agent's own, then its ancestors'.
pub(crate) type Gates<'a, T, R> = Joined<&'a [Link<T, R>], &'a [Link<T, R>]>;

/// The dynamic tool links an MCP call of an exposed skill passes: interceptors, then gates, each
/// the agent's own then its ancestors'.
#[cfg(feature = "mcp")]
pub(crate) type AnyToolGuards<'a> = (Gates<'a, Value, Value>, Gates<'a, Value, Value>);

impl<OUT: Clone + Send + 'static> Run<OUT> {
    /// Pass `value` through `point`'s interceptors, then its gates; report every non-`Proceed`
    /// decision once. `target` names what is guarded (for the report and a denial), read only
    /// when there is something to say.
    pub(crate) async fn pass<'l, T, R, C, G>(
        &self,
        point: InterceptionPoint,
        (chain, gates): (C, G),
        value: T,
        ctx: &'l InterceptContext<'l>,
        target: impl Fn(&T) -> String,
    ) -> Passed<T, R>
    where
        T: Send + 'l,
        R: Send + 'l,
        C: Links<'l, T, R>,
        G: Links<'l, T, R>,
    {
        let outcome = guard(chain, gates, value, ctx, self.guard_options()).await;
        if !outcome.decisions.is_empty() {
            self.report_decisions(point, &target(&outcome.value), &outcome.decisions);
        }
        let value = outcome.value;
        match outcome.effect {
            Effect::Proceed => Passed::Go {
                value,
                rewritten: false,
            },
            Effect::ProceedWith => Passed::Go {
                value,
                rewritten: true,
            },
            Effect::Substitute(result) => Passed::Substituted { value, result },
            Effect::Deny(reason) => Passed::Denied {
                target: target(&value),
                value,
                reason,
            },
        }
    }

    /// The skill point's interceptors and gates: the agent's own, then its ancestors' gates.
    pub(crate) fn skill_guards(&self) -> Guards<'_, String, OUT> {
        let links = &self.core.links;
        let inherited = self.inherited();
        let inherited = inherited.map_or(&[][..], |inherited| &inherited.skill_gates[..]);
        (
            &links.skill_chain[..],
            Joined(&links.skill_gates[..], inherited),
        )
    }

    /// The dynamic tool interceptors and gates, the agent's own then its ancestors', as an MCP
    /// call of an exposed skill passes them.
    #[cfg(feature = "mcp")]
    pub(crate) fn any_tool_guards(&self) -> AnyToolGuards<'_> {
        let core = &self.core;
        let (chain, gates) = match self.inherited() {
            Some(inherited) => (&inherited.any_tool_chain[..], &inherited.any_tool_gates[..]),
            None => (&[][..], &[][..]),
        };
        (
            Joined(&core.any_tool_chain[..], chain),
            Joined(&core.any_tool_gates[..], gates),
        )
    }

    /// The turn point's interceptors and gates: the agent's own, then its ancestors' gates.
    pub(crate) fn turn_guards(&self) -> Guards<'_, Vec<Message>, OUT> {
        let links = &self.core.links;
        let inherited = self.inherited();
        let inherited = inherited.map_or(&[][..], |inherited| &inherited.turn_gates[..]);
        (
            &links.turn_chain[..],
            Joined(&links.turn_gates[..], inherited),
        )
    }

    /// The decisions one point took on `target`, told once to every listener.
    pub(crate) fn report_decisions(
        &self,
        point: InterceptionPoint,
        target: &str,
        decisions: &[crate::chain::ChainDecision],
    ) {
        if !decisions.is_empty() {
            self.report(Step::Decisions {
                point,
                target,
                decisions,
            });
        }
    }
}
