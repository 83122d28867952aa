//! What a run inherits from the runs above it in the agent tree: every ancestor's gates (skill,
//! turn and tool-call gates) and, from an ancestor that opted in, its tool interceptors. A child
//! adds its own links; it can never remove an ancestor's, because they are not its to hold: they
//! reach its calls through the run that started it ([`ParentRun::ancestors`](super::ParentRun)).
//!
//! Inherited links run after the agent's own, nearest ancestor first, as if each ancestor in
//! turn had appended its links to the child's lists. A tool's inherited links are joined for it
//! once per run, at its first call.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::Tool;
use super::chains::ToolChains;
use super::registry::{ToolEntry, ToolKey, any_tool_links, push_link};
use crate::chain::interceptor::name_of;
use crate::chain::{GateOwner, Link};
use crate::{Decision, Gate, InterceptContext, Intercepted, Interceptor, IntoGate, Message};

/// A gate of a point whose value does not depend on the agent's types (the skill's name, the
/// turn's messages), as registered, so an agent of any output type can run it.
pub(crate) struct NamedGate<T> {
    pub gate: Arc<dyn Gate<T>>,
    pub name: Option<Arc<str>>,
}

impl<T: 'static> NamedGate<T> {
    /// A gate, named after its function or type when it has one.
    pub(crate) fn of<U: ?Sized, M, G: IntoGate<T, U, M>>(gate: G) -> Self {
        NamedGate {
            name: name_of::<G>().map(Arc::from),
            gate: gate.into_gate(),
        }
    }

    /// Name the last of `gates` `name` (a builder's `.named(..)`).
    pub(crate) fn rename_last(gates: &mut [NamedGate<T>], name: Arc<str>) {
        if let Some(last) = gates.last_mut() {
            last.name = Some(name);
        }
    }

    /// The gate as a link of a chain whose substitutes are `R`s.
    pub(crate) fn link<R>(&self) -> Link<T, R> {
        Link::gate(Arc::clone(&self.gate)).maybe_named(self.name.clone())
    }
}

impl<T> Clone for NamedGate<T> {
    fn clone(&self) -> Self {
        NamedGate {
            gate: Arc::clone(&self.gate),
            name: self.name.clone(),
        }
    }
}

/// One agent's links as the agents it runs inherit them.
#[derive(Clone, Default)]
pub(crate) struct TreeLinks {
    pub skill_gates: Vec<NamedGate<String>>,
    pub turn_gates: Vec<NamedGate<Vec<Message>>>,
    /// Its tool gates and — when it opted in — its tool interceptors, before and after.
    pub tools: Vec<ToolEntry>,
    /// Whether it constrains calls (`max_calls`, …): then the tree's ledger records them.
    pub counts_calls: bool,
}

impl TreeLinks {
    /// Whether there is nothing to inherit.
    pub(crate) fn is_empty(&self) -> bool {
        self.skill_gates.is_empty() && self.turn_gates.is_empty() && self.tools.is_empty()
    }

    /// Whether these links, or any of `ancestors`', constrain calls.
    pub(crate) fn counts_calls(&self, ancestors: &[Ancestor]) -> bool {
        self.counts_calls || ancestors.iter().any(|ancestor| ancestor.links.counts_calls)
    }
}

/// An ancestor of a run: whose links, at which depth.
#[derive(Clone)]
pub(crate) struct Ancestor {
    pub owner: Arc<GateOwner>,
    pub links: Arc<TreeLinks>,
}

/// Every ancestor's links as one run holds them: the skill and turn gates as links of the run's
/// output type, and the tool links joined per tool at its first call.
pub(crate) struct Inherited<OUT> {
    pub skill_gates: Vec<Link<String, OUT>>,
    pub turn_gates: Vec<Link<Vec<Message>, OUT>>,
    /// The dynamic tool interceptors and gates alone, over JSON: what an MCP call of an exposed
    /// skill passes.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub any_tool_chain: Vec<Link<Value, Value>>,
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub any_tool_gates: Vec<Link<Value, Value>>,
    pub tools: InheritedTools,
}

/// The ancestors' tool links of one run, joined for each of its agent's tools at its first call.
pub(crate) struct InheritedTools {
    /// Nearest ancestor first; only those with something to inherit.
    ancestors: Vec<Ancestor>,
    /// One slot per tool of the run's agent (by its index): that tool's inherited chains.
    slots: Box<[OnceLock<Box<dyn Any + Send + Sync>>]>,
}

/// A tool call's share of what its run inherits: the run's inherited tool links and the tool's
/// slot among them.
#[derive(Clone, Copy)]
pub(crate) struct InheritedFor<'a> {
    pub tools: &'a InheritedTools,
    pub index: usize,
}

impl<OUT: 'static> Inherited<OUT> {
    /// What a run of an agent with `tools` tools inherits from `ancestors` (nearest first);
    /// `None` when no ancestor has a link to pass down.
    pub(crate) fn new(ancestors: Vec<Ancestor>, tools: usize) -> Option<Self> {
        let ancestors: Vec<Ancestor> = ancestors
            .into_iter()
            .filter(|ancestor| !ancestor.links.is_empty())
            .collect();
        if ancestors.is_empty() {
            return None;
        }
        let skill_gates = owned_gates(&ancestors, |links| &links.skill_gates);
        let turn_gates = owned_gates(&ancestors, |links| &links.turn_gates);
        let (mut any_tool_chain, mut any_tool_gates) = (Vec::new(), Vec::new());
        for ancestor in &ancestors {
            let (chain, gates) = any_tool_links(&ancestor.links.tools);
            let owned = |link: Link<Value, Value>| link.owned_by(Arc::clone(&ancestor.owner));
            any_tool_chain.extend(chain.into_iter().map(owned));
            any_tool_gates.extend(gates.into_iter().map(owned));
        }
        Some(Inherited {
            skill_gates,
            turn_gates,
            any_tool_chain,
            any_tool_gates,
            tools: InheritedTools {
                ancestors,
                slots: (0..tools).map(|_| OnceLock::new()).collect(),
            },
        })
    }

    /// The ancestors, nearest first.
    pub(crate) fn ancestors(&self) -> &[Ancestor] {
        &self.tools.ancestors
    }
}

impl<'a> InheritedFor<'a> {
    /// The inherited links of `tool` (run as `T`), as its chains: joined at the first call,
    /// read back after. A typed link of an ancestor for a tool of this name but another Rust
    /// type cannot judge it, so it denies the call rather than let it through unjudged (fail
    /// closed); so does a slot that holds another tool's chains (a bug, said so).
    pub(crate) fn chains<T: Tool>(self, tool: ToolKey<'_, T>) -> Result<&'a ToolChains<T>, String> {
        let tools = self.tools;
        let name = tool.name;
        let slot = tools.slots.get(self.index);
        let chains = slot.map(|slot| slot.get_or_init(|| Box::new(tools.join(tool))));
        chains
            .and_then(|chains| chains.downcast_ref::<ToolChains<T>>())
            .ok_or_else(|| {
                format!(
                    "the inherited gates of tool '{name}' could not be found (a bug in agents-kt)"
                )
            })
    }
}

impl InheritedTools {
    /// Every ancestor's tool links for tool `T`, nearest ancestor first.
    fn join<T: Tool>(&self, tool: ToolKey<'_, T>) -> ToolChains<T> {
        let (mut chains, name) = (ToolChains::<T>::default(), tool.name);
        for ancestor in &self.ancestors {
            for entry in &ancestor.links.tools {
                if push_link(&mut chains, entry, tool, Some(&ancestor.owner)).is_err() {
                    let reason = format!(
                        "a gate of agent '{}' is for another tool named '{name}' (a different Rust type), so it cannot judge this one",
                        ancestor.owner.agent
                    );
                    chains.gates.push(refusal(reason, &ancestor.owner));
                }
            }
        }
        chains
    }
}

/// The gates `pick` chooses from every ancestor, as links of this run's output type, each naming
/// its owner.
fn owned_gates<T: 'static, OUT: 'static>(
    ancestors: &[Ancestor],
    pick: impl Fn(&TreeLinks) -> &Vec<NamedGate<T>>,
) -> Vec<Link<T, OUT>> {
    ancestors
        .iter()
        .flat_map(|ancestor| {
            pick(&ancestor.links)
                .iter()
                .map(|gate| gate.link().owned_by(Arc::clone(&ancestor.owner)))
        })
        .collect()
}

/// A gate that denies every call with `reason`, as `owner`'s.
fn refusal<T: 'static, R: 'static>(reason: String, owner: &Arc<GateOwner>) -> Link<T, R> {
    Link::new(Arc::new(Refuse(reason)))
        .named("inherited_gate_for_another_tool_type")
        .owned_by(Arc::clone(owner))
}

/// Denies whatever it is asked about.
struct Refuse(String);

impl<T, R> Interceptor<T, R> for Refuse {
    fn intercept<'a>(&'a self, _: &T, _: &InterceptContext<'_>) -> Intercepted<'a, T, R> {
        Intercepted::Ready(Decision::Deny(self.0.clone()))
    }
}
