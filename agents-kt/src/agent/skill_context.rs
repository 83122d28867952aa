//! A code skill's handle on the run it serves: its tool and model calls go through the run, so
//! they pass the same chains, gates, budget and observers as the agentic loop's.

use std::sync::Arc;

use super::run::Run;
use crate::{AgentError, ChatResponse, LinkedAgent, Message, RunIds, Tool, ToolArguments};

/// A code skill's handle on its run: tool calls and model calls made through it pass the same
/// interceptor chains, budget and observers as the agent loop's.
///
/// ```
/// use agents_kt::{Message, Skill, SkillContext, SkillError};
/// let summarize = Skill::code("summarize", |text: String, ctx: SkillContext<String>| async move {
///     let answer = ctx.chat(vec![Message::user(format!("Summarize: {text}"))]).await?;
///     Ok::<_, SkillError>(answer.content)
/// });
/// # let _ = summarize;
/// ```
pub struct SkillContext<OUT> {
    pub(crate) run: Arc<Run<OUT>>,
}

impl<OUT: Clone + Send + 'static> SkillContext<OUT> {
    /// Call the tool these arguments are for (`#[tool]`'s `<Tool>Args`, or any type implementing
    /// [`ToolArguments`]), through its interceptor chain and gates: `ctx.call_tool(GetWeatherArgs
    /// { city })`. A denial is [`AgentError::ToolDenied`], a failure [`AgentError::ToolFailed`].
    pub async fn call_tool<A: ToolArguments>(
        &self,
        args: A,
    ) -> Result<<A::Tool as Tool>::Output, AgentError> {
        self.run.call_typed_tool::<A::Tool>(args).await
    }

    /// Call the tool `name` with JSON arguments, through its interceptor chain and gates — for
    /// tools known only at run time, such as those of an MCP server
    /// ([`McpToolset`](crate::McpToolset)). The output comes back as JSON; a denial is
    /// [`AgentError::ToolDenied`], a failure [`AgentError::ToolFailed`], a name the agent does
    /// not have [`AgentError::UnknownTool`].
    pub async fn call_tool_named(
        &self,
        name: &str,
        arguments: serde_json::Value,
    ) -> Result<serde_json::Value, AgentError> {
        self.run.call_named_tool(name, arguments).await
    }

    /// Call tool `T`, named explicitly: for a hand-written tool whose argument type is not its
    /// own (a `String`, say, shared by several tools). Otherwise as [`SkillContext::call_tool`].
    pub async fn call_tool_as<T: Tool>(&self, args: T::Args) -> Result<T::Output, AgentError> {
        self.run.call_typed_tool::<T>(args).await
    }

    /// Run `agent` on `input` as a sub-agent of this run — linked as a tool's
    /// [`ToolContext::run_agent`](crate::ToolContext::run_agent) run is: one level deeper, on
    /// the same budget, judged by this agent's gates and every ancestor's, recorded inside this
    /// run's journal. A failure of the child is [`AgentError::ToolFailed`] naming it; a budget
    /// it exhausted ends this run too, and is returned as itself.
    ///
    /// ```
    /// use agents_kt::{Agent, Reply, ScriptedModel, Skill, SkillContext, SkillError};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let expert = Agent::<String, String>::builder("expert")
    ///     .model(ScriptedModel::new([Reply::text("42")]))
    ///     .build()
    ///     .unwrap();
    /// let desk = Agent::<String, String>::builder("desk")
    ///     .skill(Skill::code("ask", move |question: String, ctx: SkillContext<String>| {
    ///         let expert = expert.clone();
    ///         async move { Ok::<_, SkillError>(ctx.run_agent(&expert, question).await?) }
    ///     }))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(desk.run("why?".into()).await.unwrap(), "42");
    /// # }
    /// ```
    pub async fn run_agent<I2, O2>(
        &self,
        agent: &impl LinkedAgent<I2, O2>,
        input: I2,
    ) -> Result<O2, AgentError> {
        let call_id = self.run.next_call_id();
        let name = agent.agent_name();
        let mut ctx = self.run.tool_context(&call_id);
        if let Some(journal) = self.run.journal() {
            // Its steps go inside a step of this run, as a sub-agent tool's do.
            ctx = ctx.with_journal_scope(Arc::clone(journal), self.run.next_tool_step(&name));
        }
        let result = agent.run_linked(input, &ctx).await;
        if let Some(error) = self.run.ended() {
            return Err(error.clone());
        }
        result.map_err(|error| AgentError::ToolFailed {
            tool: name,
            error: error.to_string(),
        })
    }

    /// Call the model once with `messages`, through the turn chain and the budget. If an
    /// `on_before_turn` interceptor substitutes, this returns [`AgentError::TurnSubstituted`]
    /// and the substitute becomes the run's output whatever the skill returns.
    pub async fn chat(&self, messages: Vec<Message>) -> Result<ChatResponse, AgentError> {
        self.run.chat_once(messages).await
    }

    /// The run this skill serves.
    pub fn ids(&self) -> &RunIds {
        self.run.ids()
    }
}
