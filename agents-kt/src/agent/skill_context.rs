//! A code skill's handle on the run it serves: its tool and model calls go through the run, so
//! they pass the same chains, gates, budget and observers as the agentic loop's.

use std::sync::Arc;

use super::run::Run;
use crate::{AgentError, ChatResponse, Message, RunIds, Tool, ToolArguments};

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
