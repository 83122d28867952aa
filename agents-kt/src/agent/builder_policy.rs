//! The tree's policy on an agent's builder: a shared [`Policy`] attached, its links appended to
//! the agent's own where they stand in registration order.

use super::{AgentBuilder, AgentInput, AgentOutput};
use crate::Policy;

impl<IN: AgentInput, OUT: AgentOutput> AgentBuilder<IN, OUT> {
    /// Attach `policy`: its interceptors and gates join this agent's, in registration order at
    /// this call, as if registered here one by one — so its gates flow down to every agent this
    /// one runs, and its interceptors do when the agent opts in
    /// ([`AgentBuilder::interceptors_apply_to_children`]). The same policy may be attached to
    /// any number of agents and to an [`McpServer`](crate::McpServer).
    ///
    /// ```
    /// use agents_kt::{Agent, Policy, Reply, ScriptedModel, Verdict};
    /// let no_exports = Policy::builder("no-exports")
    ///     .gate_skill(|skill: &str| match skill {
    ///         "export" => Verdict::deny("exports are off"),
    ///         _ => Verdict::Allow,
    ///     })
    ///     .build();
    /// let agent = Agent::<String, String>::builder("desk")
    ///     .model(ScriptedModel::new([Reply::text("hi")]))
    ///     .policy(&no_exports)
    ///     .build()
    ///     .unwrap();
    /// # let _ = agent;
    /// ```
    pub fn policy(mut self, policy: &Policy) -> Self {
        let links = policy.links();
        self.tool_links.extend(links.tools.iter().cloned());
        for gate in &links.skill_gates {
            self.links.skill_gates.push(gate.link());
            self.tree.skill_gates.push(gate.clone());
        }
        for gate in &links.turn_gates {
            self.links.turn_gates.push(gate.link());
            self.tree.turn_gates.push(gate.clone());
        }
        self.errors.extend(policy.errors().iter().cloned());
        self.policies.push(policy.name().to_string());
        self
    }
}
