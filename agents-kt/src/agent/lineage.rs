//! What a sub-agent's run inherits from the run whose tool call started it: the MCP principal,
//! the caller's extensions, the one budget, the depth, the journal and the event stream. The
//! parent is seen through [`ParentRun`] (declared with the tool context that carries it), so a
//! child of any output type can reach a parent of any other.

use std::sync::Arc;

use crate::tool::ParentRun;
use crate::{AgentError, ParentCall};

/// A sub-agent run's link to its parent.
pub(crate) struct Lineage {
    pub parent: Arc<dyn ParentRun>,
    pub call: ParentCall,
    /// The deepest a sub-agent below this run may be.
    pub max_depth: u32,
}

impl Lineage {
    /// The link for a child started by `parent`'s tool call `call_id` of `tool`; an error when
    /// the child would be deeper than any limit on the way down allows.
    pub(crate) fn new(
        parent: Arc<dyn ParentRun>,
        tool: &str,
        call_id: &str,
        own_max_depth: u32,
    ) -> Result<Self, AgentError> {
        let depth = parent.depth() + 1;
        let max_depth = parent.max_depth().min(own_max_depth);
        if depth > parent.max_depth() {
            return Err(crate::budget::exceeded(
                crate::BudgetLimit::MaxAgentDepth,
                format!(
                    "agent '{}' calling '{tool}' would run a sub-agent at depth {depth}, deeper than {} (max_agent_depth)",
                    parent.agent(),
                    parent.max_depth()
                ),
            ));
        }
        let call = ParentCall::new(parent.agent(), parent.ids().clone(), tool, call_id, depth);
        Ok(Lineage {
            parent,
            call,
            max_depth,
        })
    }
}
