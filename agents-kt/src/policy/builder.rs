//! Building a [`Policy`]: the same registrations as an agent's builder, for every agent, server
//! and gateway the policy is attached to.

use std::sync::Arc;

use super::{Constraint, Grant, Policy, PolicyInner};
use crate::chain::interceptor::name_of;
use crate::tool::inherited::{NamedGate, TreeLinks};
use crate::tool::registry::ToolEntry;
use crate::{
    BuildError, IntoAfterToolCallInterceptor, IntoAfterToolInterceptor, IntoGate, IntoToolCallGate,
    IntoToolCallInterceptor, IntoToolGate, IntoToolInterceptor, Message, Tool,
};

/// Collects a [`Policy`]'s links; finish with [`PolicyBuilder::build`]. Each method is its
/// namesake on [`AgentBuilder`](crate::AgentBuilder). Skill and turn interceptors are not here:
/// their substitute is one agent's output type, and a policy serves agents of any.
pub struct PolicyBuilder {
    name: String,
    links: TreeLinks,
    last: Option<Last>,
    grants: Vec<Grant>,
    constraints: Vec<Constraint>,
    errors: Vec<BuildError>,
}

/// The list `.named(..)` renames.
#[derive(Clone, Copy)]
enum Last {
    Tool,
    Skill,
    Turn,
}

impl PolicyBuilder {
    pub(super) fn new(name: String) -> Self {
        PolicyBuilder {
            name,
            links: TreeLinks::default(),
            last: None,
            grants: Vec::new(),
            constraints: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn tool_link(mut self, entry: ToolEntry) -> Self {
        self.links.tools.push(entry);
        self.last = Some(Last::Tool);
        self
    }

    /// As [`AgentBuilder::on_before_tool_call`](crate::AgentBuilder::on_before_tool_call).
    pub fn on_before_tool_call<M>(self, interceptor: impl IntoToolCallInterceptor<M>) -> Self {
        let name = name_of_val(&interceptor);
        let entry = ToolEntry::any_before(interceptor.into_tool_call_interceptor(), name);
        self.tool_link(entry)
    }

    /// As [`AgentBuilder::before_tool_call`](crate::AgentBuilder::before_tool_call).
    pub fn before_tool_call<T: Tool, M>(self, interceptor: impl IntoToolInterceptor<T, M>) -> Self {
        self.tool_link(ToolEntry::before::<T>(interceptor.into_tool_interceptor()))
    }

    /// As [`AgentBuilder::after_tool_call`](crate::AgentBuilder::after_tool_call).
    pub fn after_tool_call<T: Tool, M>(
        self,
        interceptor: impl IntoAfterToolInterceptor<T, M>,
    ) -> Self {
        let entry = ToolEntry::after::<T>(interceptor.into_after_tool_interceptor());
        self.tool_link(entry)
    }

    /// As [`AgentBuilder::on_after_tool_call`](crate::AgentBuilder::on_after_tool_call).
    pub fn on_after_tool_call<M>(self, interceptor: impl IntoAfterToolCallInterceptor<M>) -> Self {
        let name = name_of_val(&interceptor);
        let entry = ToolEntry::any_after(interceptor.into_after_tool_call_interceptor(), name);
        self.tool_link(entry)
    }

    /// As [`AgentBuilder::gate_tool_call`](crate::AgentBuilder::gate_tool_call).
    pub fn gate_tool_call<T: Tool, M>(self, gate: impl IntoToolGate<T, M>) -> Self {
        self.tool_link(ToolEntry::gate::<T>(gate.into_tool_gate()))
    }

    /// As [`AgentBuilder::on_gate_tool_call`](crate::AgentBuilder::on_gate_tool_call).
    pub fn on_gate_tool_call<M>(self, gate: impl IntoToolCallGate<M>) -> Self {
        let name = name_of_val(&gate);
        self.tool_link(ToolEntry::any_gate(gate.into_tool_call_gate(), name))
    }

    /// As [`AgentBuilder::gate_skill`](crate::AgentBuilder::gate_skill).
    pub fn gate_skill<M>(mut self, gate: impl IntoGate<String, str, M>) -> Self {
        self.links.skill_gates.push(NamedGate::of(gate));
        self.last = Some(Last::Skill);
        self
    }

    /// As [`AgentBuilder::gate_turn`](crate::AgentBuilder::gate_turn).
    pub fn gate_turn<M>(mut self, gate: impl IntoGate<Vec<Message>, [Message], M>) -> Self {
        self.links.turn_gates.push(NamedGate::of(gate));
        self.last = Some(Last::Turn);
        self
    }

    /// As [`AgentBuilder::grant`](crate::AgentBuilder::grant): with any grant, an agent the
    /// policy is attached to — and every agent under it — may call only the tools granted.
    pub fn grant(mut self, grant: Grant) -> Self {
        self.grants.push(grant);
        self
    }

    /// As [`AgentBuilder::constraint`](crate::AgentBuilder::constraint).
    pub fn constraint(mut self, constraint: Constraint) -> Self {
        self.constraints.push(constraint);
        self
    }

    /// Name the interceptor or gate registered just before (for decision events and logs).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        let name: Arc<str> = Arc::from(name.into());
        match self.last {
            Some(Last::Tool) => {
                if let Some(entry) = self.links.tools.last_mut() {
                    entry.rename(name);
                }
            }
            Some(Last::Skill) => NamedGate::rename_last(&mut self.links.skill_gates, name),
            Some(Last::Turn) => NamedGate::rename_last(&mut self.links.turn_gates, name),
            // Reported by the build of every agent the policy is attached to.
            None => self.errors.push(BuildError::NothingToName {
                name: name.to_string(),
            }),
        }
        self
    }

    /// The policy. A mistake in it (a `.named(..)` with nothing before it) is reported by
    /// the build of every agent it is attached to.
    pub fn build(self) -> Policy {
        Policy {
            inner: Arc::new(PolicyInner {
                name: self.name,
                links: self.links,
                grants: self.grants,
                constraints: self.constraints,
                errors: self.errors,
            }),
        }
    }
}

impl std::fmt::Debug for PolicyBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyBuilder")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

fn name_of_val<F>(_: &F) -> Option<Arc<str>> {
    name_of::<F>().map(Arc::from)
}
