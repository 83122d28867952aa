//! Skills: what an agent can do. A code skill runs Rust; an agentic skill runs the model loop with
//! an allow-list of tools.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;

use super::skill_context::SkillContext;
use crate::{AgentError, Tool};

type CodeFn<IN, OUT> =
    Arc<dyn Fn(IN, SkillContext<OUT>) -> BoxFuture<'static, Result<OUT, SkillError>> + Send + Sync>;

/// Something an [`Agent<IN, OUT>`](crate::Agent) can do. Every skill of an agent has the agent's
/// `IN` and `OUT`, so rerouting from one skill to another is type-safe by construction.
///
/// ```
/// use agents_kt::{Skill, SkillContext, SkillError};
///
/// // An agentic skill: the model loop, allowed to call two tools.
/// let forecast: Skill<String, String> = Skill::agentic("forecast")
///     .description("Answers weather questions.")
///     .tool_names(["get_weather", "get_time"]); // or `.tools::<(GetWeather, GetTime)>()`
///
/// // A code skill: plain Rust, which may call tools and the model through its context.
/// let echo = Skill::code("echo", |input: String, _ctx: SkillContext<String>| async move {
///     Ok::<_, SkillError>(input)
/// });
/// assert_eq!(echo.name(), "echo");
/// ```
pub struct Skill<IN, OUT> {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) kind: SkillKind<IN, OUT>,
}

pub(crate) enum SkillKind<IN, OUT> {
    Code(CodeFn<IN, OUT>),
    Agentic {
        tools: Vec<String>,
        instructions: Option<String>,
    },
}

impl<IN, OUT> Skill<IN, OUT> {
    /// A skill that runs the model loop. It may call no tools until [`Skill::tools`] allows some.
    pub fn agentic(name: impl Into<String>) -> Self {
        Skill {
            name: name.into(),
            description: String::new(),
            kind: SkillKind::Agentic {
                tools: Vec::new(),
                instructions: None,
            },
        }
    }

    /// A skill that runs `body`, an async closure or fn of `(IN, SkillContext<OUT>)`.
    pub fn code<F, Fut>(name: impl Into<String>, body: F) -> Self
    where
        F: Fn(IN, SkillContext<OUT>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<OUT, SkillError>> + Send + 'static,
    {
        Skill {
            name: name.into(),
            description: String::new(),
            kind: SkillKind::Code(Arc::new(move |input, ctx| body(input, ctx).boxed())),
        }
    }

    /// What the skill does (shown to MCP clients).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Allow an agentic skill to call tool `T`: its name comes from the type, so a misspelling
    /// is a compile error. No effect on a code skill, which may call any of the agent's tools
    /// through its context.
    ///
    /// ```
    /// # use agents_kt::{Skill, Tool, ToolContext, ToolError};
    /// # struct GetWeather;
    /// # impl Tool for GetWeather {
    /// #     const NAME: &'static str = "get_weather";
    /// #     type Args = String;
    /// #     type Output = String;
    /// #     fn description(&self) -> std::borrow::Cow<'static, str> { "".into() }
    /// #     async fn call(&self, city: String, _: &ToolContext) -> Result<String, ToolError> { Ok(city) }
    /// # }
    /// let forecast: Skill<String, String> = Skill::agentic("forecast").tool::<GetWeather>();
    /// # let _ = forecast;
    /// ```
    pub fn tool<T: Tool>(self) -> Self {
        self.tool_names([T::NAME])
    }

    /// Allow an agentic skill to call each tool of the tuple `L`:
    /// `.tools::<(ReadFile, RunShell)>()`, checked at compile time like [`Skill::tool`].
    pub fn tools<L: ToolSet>(self) -> Self {
        self.tool_names(L::names())
    }

    /// Allow an agentic skill to call the tools of these names — for tools known only at run
    /// time (dynamic tools); [`Skill::tool`] and [`Skill::tools`] check names at compile time.
    /// An unknown name is a [`BuildError`](crate::BuildError) when the agent is built.
    pub fn tool_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        if let SkillKind::Agentic { tools, .. } = &mut self.kind {
            tools.extend(names.into_iter().map(Into::into));
        }
        self
    }

    /// Extra system instructions for an agentic skill, after the agent's system prompt.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        if let SkillKind::Agentic { instructions, .. } = &mut self.kind {
            *instructions = Some(text.into());
        }
        self
    }

    /// The skill's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl<IN, OUT> fmt::Debug for Skill<IN, OUT> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.kind {
            SkillKind::Code(_) => "code",
            SkillKind::Agentic { .. } => "agentic",
        };
        f.debug_struct("Skill")
            .field("name", &self.name)
            .field("kind", &kind)
            .finish()
    }
}

/// What [`AgentBuilder::skill`](crate::AgentBuilder::skill) accepts: a [`Skill`], or the type
/// `#[skill]` generates for a function.
///
/// ```
/// use agents_kt::{IntoSkill, Skill};
/// let skill: Skill<String, String> = Skill::agentic("chat").into_skill();
/// assert_eq!(skill.name(), "chat");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a skill of an agent with input `{IN}` and output `{OUT}`",
    label = "this skill's input or output type differs from the agent's",
    note = "every skill of an `Agent<IN, OUT>` takes `IN` and returns `OUT`, so a reroute between skills is always type-safe"
)]
pub trait IntoSkill<IN, OUT> {
    /// The skill.
    fn into_skill(self) -> Skill<IN, OUT>;
}

impl<IN, OUT> IntoSkill<IN, OUT> for Skill<IN, OUT> {
    fn into_skill(self) -> Skill<IN, OUT> {
        self
    }
}

/// A code skill's failure: any error type converts into it with `?`. An [`AgentError`] (from a
/// tool or model call through the context) is passed through unchanged.
///
/// ```
/// use agents_kt::SkillError;
/// fn parse(text: &str) -> Result<u32, SkillError> {
///     Ok(text.parse::<u32>()?)
/// }
/// assert!(parse("x").is_err());
/// assert_eq!(SkillError::msg("no input").to_string(), "no input");
/// ```
pub struct SkillError(Box<dyn std::error::Error + Send + Sync>);

impl SkillError {
    /// An error with this message.
    pub fn msg(message: impl fmt::Display) -> Self {
        SkillError(message.to_string().into())
    }

    /// The run's error for this failure of skill `skill`.
    pub(crate) fn into_agent_error(self, skill: &str) -> AgentError {
        match self.0.downcast::<AgentError>() {
            Ok(agent_error) => *agent_error,
            Err(other) => AgentError::Skill {
                skill: skill.to_string(),
                message: other.to_string(),
            },
        }
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for SkillError {
    fn from(error: E) -> Self {
        SkillError(Box::new(error))
    }
}

impl fmt::Display for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// A tuple of tool types, for [`Skill::tools`]: `(ReadFile,)`, `(ReadFile, RunShell)`, … up to
/// twelve.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tuple of tools",
    label = "expected a tuple of `Tool` types",
    note = "write `.tools::<(ReadFile, RunShell)>()`, or `.tool::<ReadFile>()` for one tool"
)]
pub trait ToolSet {
    /// The tools' names, in order.
    fn names() -> Vec<&'static str>;
}

macro_rules! tool_set {
    ($($tool:ident),+) => {
        impl<$($tool: Tool),+> ToolSet for ($($tool,)+) {
            fn names() -> Vec<&'static str> {
                vec![$($tool::NAME),+]
            }
        }
    };
}

tool_set!(A);
tool_set!(A, B);
tool_set!(A, B, C);
tool_set!(A, B, C, D);
tool_set!(A, B, C, D, E);
tool_set!(A, B, C, D, E, F);
tool_set!(A, B, C, D, E, F, G);
tool_set!(A, B, C, D, E, F, G, H);
tool_set!(A, B, C, D, E, F, G, H, I);
tool_set!(A, B, C, D, E, F, G, H, I, J);
tool_set!(A, B, C, D, E, F, G, H, I, J, K);
tool_set!(A, B, C, D, E, F, G, H, I, J, K, L);
