//! An agent named before it exists, so an agent can run itself (recursion) or two agents each
//! other: the handle is given to the builder (as a sub-agent tool, or to a tool that calls
//! `ctx.run_agent`) and bound once the agent is built. It holds the agent weakly — an agent
//! holding a strong handle on itself would never be dropped — and the linked run stops at
//! `Budget::max_agent_depth` like any sub-agent.

use std::sync::{Arc, OnceLock, Weak};

use super::{Agent, AgentInner, AgentInput, AgentOutput, AgentTool};
use crate::ToolError;

/// A handle on an agent that is bound after it is built: the way for an agent to call itself.
///
/// ```
/// use agents_kt::{Agent, AgentError, AgentRef, Budget, Reply, ScriptedModel};
/// use serde_json::json;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// // A model that always asks the agent to run itself again.
/// let model = ScriptedModel::new((0..10).map(|_| Reply::tool_call("recurse", json!({"input": "deeper"}))));
/// let me = AgentRef::<String, String>::new();
/// let fractal = Agent::<String, String>::builder("fractal")
///     .model(model)
///     .budget(Budget::default().max_agent_depth(2))
///     .sub_agent(me.as_tool("recurse", "Runs this agent again."))
///     .build()
///     .unwrap();
/// assert!(me.bind(&fractal));
/// // Stopped at depth 3, past the limit: the whole run ends with a budget error.
/// let error = fractal.run("go".into()).await.unwrap_err();
/// assert!(matches!(error, AgentError::BudgetExceeded { .. }), "{error}");
/// # }
/// ```
pub struct AgentRef<IN, OUT> {
    slot: Arc<OnceLock<Weak<AgentInner<IN, OUT>>>>,
}

impl<IN, OUT> Clone for AgentRef<IN, OUT> {
    fn clone(&self) -> Self {
        AgentRef {
            slot: Arc::clone(&self.slot),
        }
    }
}

impl<IN, OUT> Default for AgentRef<IN, OUT> {
    fn default() -> Self {
        AgentRef {
            slot: Arc::new(OnceLock::new()),
        }
    }
}

impl<IN, OUT> std::fmt::Debug for AgentRef<IN, OUT> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let agent = self.get().map(|agent| agent.inner.core.name.clone());
        f.debug_struct("AgentRef").field("agent", &agent).finish()
    }
}

impl<IN, OUT> AgentRef<IN, OUT> {
    /// A handle bound to nothing yet.
    pub fn new() -> Self {
        AgentRef::default()
    }

    /// Bind the handle to `agent`; `false` (and nothing changes) when it was bound already.
    pub fn bind(&self, agent: &Agent<IN, OUT>) -> bool {
        self.slot.set(Arc::downgrade(&agent.inner)).is_ok()
    }

    /// The bound agent, if the handle is bound and the agent still exists.
    pub fn get(&self) -> Option<Agent<IN, OUT>> {
        let inner = self.slot.get()?.upgrade()?;
        Some(Agent { inner })
    }

    /// The bound agent, or why a call cannot run it (said to the caller's model).
    pub(crate) fn resolve(&self) -> Result<Agent<IN, OUT>, ToolError> {
        match self.slot.get() {
            None => Err(ToolError::new(
                "the agent this tool runs was never bound (call `AgentRef::bind` after `build`)",
            )),
            Some(weak) => weak
                .upgrade()
                .map(|inner| Agent { inner })
                .ok_or_else(|| ToolError::new("the agent this tool runs no longer exists")),
        }
    }
}

impl<IN: AgentInput, OUT: AgentOutput> AgentRef<IN, OUT> {
    /// The bound agent as a tool named `name` for another agent's model — or its own — as
    /// [`Agent::as_tool`] makes one.
    pub fn as_tool(
        &self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> AgentTool<IN, OUT> {
        AgentTool::late(self.clone(), name.into(), description.into())
    }
}
