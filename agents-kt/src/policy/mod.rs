//! One policy for many places: gates, interceptors, grants and call constraints built once
//! ([`Policy::builder`]) and attached with `.policy(&policy)` to any number of agents, to an
//! [`McpServer`](crate::McpServer) (every inbound call) and so to the MCP gateway (an agent
//! serving a toolset) — one value guarding local agents, inbound MCP and outbound MCP tools alike.
//!
//! Nothing here runs a call: a policy is links, which the agent's build (or the server, for its
//! calls) puts where the agent's own registrations go. On an agent they are its own links — its
//! gates flow down the tree as every gate does; on a server they judge every call above the
//! agent, as an ancestor's would, interceptors included.

mod builder;
mod constraint;
mod grant;

use std::sync::Arc;

pub use builder::PolicyBuilder;
pub use constraint::Constraint;
pub(crate) use constraint::ConstraintsGate;
pub use grant::Grant;
pub(crate) use grant::GrantsGate;

use crate::chain::GateOwner;
use crate::tool::inherited::{Ancestor, TreeLinks};
use crate::tool::registry::ToolEntry;

/// Gates, interceptors, grants and call constraints, built once and shared: cloning is cheap
/// (one `Arc`), and a policy is `Send + Sync`.
///
/// ```
/// use agents_kt::{Agent, Policy, Reply, ScriptedModel, Verdict};
/// let policy = Policy::builder("org")
///     .on_gate_tool_call(|name: &str, args: &serde_json::Value| {
///         match name == "write_file" && args["path"].as_str().is_some_and(|p| p.starts_with("/etc")) {
///             true => Verdict::deny("system paths are off-limits"),
///             false => Verdict::Allow,
///         }
///     })
///     .build();
/// let agent = Agent::<String, String>::builder("writer")
///     .model(ScriptedModel::new([Reply::text("done")]))
///     .policy(&policy)
///     .build()
///     .unwrap();
/// assert_eq!(policy.name(), "org");
/// # let _ = agent;
/// ```
#[derive(Clone)]
pub struct Policy {
    inner: Arc<PolicyInner>,
}

struct PolicyInner {
    name: String,
    links: TreeLinks,
    /// The tools it grants (none: it restricts nothing by grant).
    grants: Vec<Grant>,
    /// Its call constraints.
    constraints: Vec<Constraint>,
    /// Mistakes made building it, reported by each agent it is attached to.
    errors: Vec<crate::BuildError>,
}

impl Policy {
    /// A policy named `name` (for decision events, traces and the permission manifest).
    pub fn builder(name: impl Into<String>) -> PolicyBuilder {
        PolicyBuilder::new(name.into())
    }

    /// The policy's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Mistakes made building it.
    pub(crate) fn errors(&self) -> &[crate::BuildError] {
        &self.inner.errors
    }

    /// The tools it grants.
    pub fn grants(&self) -> &[Grant] {
        &self.inner.grants
    }

    /// Its call constraints.
    pub fn constraints(&self) -> &[Constraint] {
        &self.inner.constraints
    }

    /// Its links, in registration order.
    pub(crate) fn links(&self) -> &TreeLinks {
        &self.inner.links
    }

    /// The policy as a layer above a run it judges from outside the tree (an MCP server's):
    /// its links, interceptors included, owned by the policy.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn as_ancestor(&self) -> Ancestor {
        let owner = format!("policy:{}", self.inner.name);
        let mut links = self.inner.links.clone();
        if !self.inner.grants.is_empty() {
            links
                .tools
                .push(GrantsGate::entry(&owner, &self.inner.grants));
        }
        if !self.inner.constraints.is_empty() {
            let gate = ConstraintsGate::new(&owner, &self.inner.constraints);
            let name = Some(Arc::from("constraints"));
            links.tools.push(ToolEntry::call_gate(gate, name));
            links.counts_calls = true;
        }
        Ancestor {
            owner: Arc::new(GateOwner::new(owner, 0)),
            links: Arc::new(links),
        }
    }
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let links = &self.inner.links;
        f.debug_struct("Policy")
            .field("name", &self.inner.name)
            .field("tool_links", &links.tools.len())
            .field("skill_gates", &links.skill_gates.len())
            .field("turn_gates", &links.turn_gates.len())
            .finish()
    }
}
