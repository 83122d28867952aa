//! The tree's policy on an agent's builder: a shared [`Policy`] attached, its links appended to
//! the agent's own where they stand in registration order.

use super::AgentBuilder;
use crate::Policy;

impl<IN, OUT> AgentBuilder<IN, OUT> {
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
        self.grants.extend(policy.grants().iter().cloned());
        self.constraints
            .extend(policy.constraints().iter().cloned());
        self.errors.extend(policy.errors().iter().cloned());
        self.policies.push(policy.name().to_string());
        self
    }

    /// Grant this agent a tool. With any grant declared, the agent — and every agent under it,
    /// sub-agents and handoff targets at any depth — may call only granted tools: `build` fails
    /// with [`BuildError::ToolNotGranted`](crate::BuildError::ToolNotGranted) for a tool of its
    /// own that is not granted (sub-agents and handoffs are tools too: grant them by name), and
    /// a descendant's call of one is denied (`tool '<name>' is not granted by '<agent>'`). A
    /// [`Grant::confirm`](crate::Grant::confirm)ed tool runs only once a human approves the call
    /// — through the agent's [`ApprovalDesk`](crate::ApprovalDesk) (or its parent's), or the
    /// journal in a journaled run; with no approver the call is denied, and the denial says so.
    ///
    /// ```
    /// use agents_kt::{Agent, BuildError, Grant, Reply, ScriptedModel};
    /// # use agents_kt::{Tool, ToolContext, ToolError};
    /// # #[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
    /// # pub struct PathArgs { pub path: String }
    /// # pub struct WriteFile;
    /// # impl Tool for WriteFile {
    /// #     const NAME: &'static str = "write_file";
    /// #     type Args = PathArgs;
    /// #     type Output = String;
    /// #     fn description(&self) -> std::borrow::Cow<'static, str> { "Write.".into() }
    /// #     async fn call(&self, _: PathArgs, _: &ToolContext) -> Result<String, ToolError> { Ok(String::new()) }
    /// # }
    /// let built = Agent::<String, String>::builder("writer")
    ///     .model(ScriptedModel::new([Reply::text("done")]))
    ///     .tool(WriteFile)
    ///     .grant(Grant::allow_named("read_file"))
    ///     .build();
    /// assert!(matches!(built, Err(BuildError::ToolNotGranted { tool, .. }) if tool == "write_file"));
    /// ```
    pub fn grant(mut self, grant: crate::Grant) -> Self {
        self.grants.push(grant);
        self
    }

    /// Constrain the tool calls of this agent and every agent under it, counted across the
    /// whole tree of one run: [`Constraint::max_calls`](crate::Constraint::max_calls),
    /// [`only_after`](crate::Constraint::only_after),
    /// [`never_after`](crate::Constraint::never_after). A call a constraint refuses is denied
    /// like any gate's (`tool 'send_email' may not run once 'read_secrets' has run
    /// (never_after, declared by '<agent>')`). Parallel calls are decided one at a time, each
    /// reserving its place before it runs, so eight parallel calls against `max_calls(3)` run
    /// exactly three.
    ///
    /// ```
    /// use agents_kt::{Agent, Constraint, Reply, ScriptedModel};
    /// let agent = Agent::<String, String>::builder("mailer")
    ///     .model(ScriptedModel::new([Reply::text("done")]))
    ///     .constraint(Constraint::never_after_named("send_email", "read_secrets"))
    ///     .constraint(Constraint::max_calls_named("send_email", 3))
    ///     .build()
    ///     .unwrap();
    /// # let _ = agent;
    /// ```
    pub fn constraint(mut self, constraint: crate::Constraint) -> Self {
        self.constraints.push(constraint);
        self
    }
}
