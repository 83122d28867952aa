//! What a sub-agent's run inherits from the run whose tool call started it: the MCP principal,
//! the caller's extensions, the one budget, the depth, the journal and the event stream. The
//! parent is seen through [`ParentRun`] (declared with the tool context that carries it), so a
//! child of any output type can reach a parent of any other.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::journal::{Journal, JournalError};
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

/// A parent's journal seen from a child: every step the child records is named inside the
/// parent's step for the call (`tool#2:research/turn#1`), so a replay of the parent replays the
/// child's steps in place — the child's model is not asked again and its tools do not act twice.
pub(crate) struct ScopedJournal {
    inner: Arc<dyn Journal>,
    scope: String,
    run_id: String,
}

impl ScopedJournal {
    pub(crate) fn new(inner: Arc<dyn Journal>, scope: String) -> Self {
        let run_id = format!("{}/{scope}", inner.run_id());
        ScopedJournal {
            inner,
            scope,
            run_id,
        }
    }
}

impl Journal for ScopedJournal {
    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn step(
        &self,
        name: &str,
        work: BoxFuture<'static, Result<Box<RawValue>, String>>,
    ) -> BoxFuture<'_, Result<Box<RawValue>, JournalError>> {
        // Recorded under the scoped name — the run's envelope below writes it into the entry
        // and checks it on replay — so a replay that meets a parent's step where the child's
        // was recorded (or the reverse) is seen to diverge.
        let scoped = format!("{}/{name}", self.scope);
        Box::pin(async move { self.inner.step(&scoped, work).await })
    }

    fn approval(
        &self,
        name: &str,
        request: crate::ApprovalRequest,
    ) -> BoxFuture<'_, Result<Value, JournalError>> {
        let name = format!("{}/{name}", self.scope);
        // An approver answers the durable run (the journal's), at the step it is named by there.
        let mut request = request;
        request.step = name.clone();
        request.run_id = self.inner.run_id().to_string();
        Box::pin(async move { self.inner.approval(&name, request).await })
    }
}
