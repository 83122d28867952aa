//! Tools: the [`Tool`] trait, the context a tool runs in, and how a tool call is dispatched
//! through its interceptor chain.

mod after_over_call;
mod call_future;
pub(crate) mod chains;
pub(crate) mod content;
pub(crate) mod context;
mod dynamic;
pub(crate) mod inherited;
mod journaled;
mod readers;
pub(crate) mod record;
pub(crate) mod register;
pub(crate) mod registry;
pub(crate) mod runtime;
pub(crate) mod shared;
mod shared_links;
mod static_chain;
mod target;
mod typed_interceptor;
pub(crate) mod view;

pub use crate::macro_support::{ToolOutput, ToolOutputType, ToolParameter, ToolParameterType};
pub use content::{ContentBlock, ToolContent};
pub use context::{LinkedAgent, ToolContext};
#[doc(hidden)]
pub use dynamic::DynFn;
pub use dynamic::{IntoAfterToolCallInterceptor, IntoToolCallGate, IntoToolCallInterceptor};
#[doc(hidden)]
pub use static_chain::BoxedChain;
pub use static_chain::{IntoToolChain, ToolChain};
#[doc(hidden)]
pub use target::ToolTarget;
#[doc(hidden)]
pub use typed_interceptor::{FromFn, ToolInterceptorOf};
pub use typed_interceptor::{
    IntoAfterToolInterceptor, IntoToolGate, IntoToolInterceptor, ToolArguments, ToolGate,
    ToolInterceptor,
};

pub(crate) use context::{ChildOf, ParentRun, ToolEvents};

use std::borrow::Cow;
use std::future::Future;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A function the model (or a code skill, or an MCP client) can call.
///
/// `#[tool]` writes this impl for an annotated function; a hand-written impl is just as
/// first-class.
///
/// ```
/// use std::borrow::Cow;
/// use agents_kt::{Tool, ToolContext, ToolError};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Deserialize, Serialize, JsonSchema)]
/// pub struct AddArgs { pub a: i64, pub b: i64 }
///
/// pub struct Add;
/// impl Tool for Add {
///     const NAME: &'static str = "add";
///     type Args = AddArgs;
///     type Output = i64;
///     fn description(&self) -> Cow<'static, str> { "Adds two integers.".into() }
///     async fn call(&self, args: AddArgs, _ctx: &ToolContext) -> Result<i64, ToolError> {
///         args.a.checked_add(args.b).ok_or_else(|| ToolError::new("overflow"))
///     }
/// }
/// let sum = futures::executor::block_on(Add.call(AddArgs { a: 2, b: 3 }, &ToolContext::detached("c1")));
/// assert_eq!(sum.unwrap(), 5);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "expected a type implementing `Tool`",
    note = "`#[tool] fn get_weather` generates the tool `GetWeather` and its arguments `GetWeatherArgs`: name the tool"
)]
pub trait Tool: Send + Sync + 'static {
    /// The name the model calls the tool by; unique within an agent.
    const NAME: &'static str;
    /// The arguments; their JSON Schema (an object) is what the model is shown.
    type Args: DeserializeOwned + Serialize + JsonSchema + Clone + Send + Sync + 'static;
    /// What the tool returns; serialized to JSON for the model.
    type Output: Serialize + DeserializeOwned + Send + Sync + 'static;

    /// What the tool does, for the model.
    fn description(&self) -> Cow<'static, str>;

    /// JSON Schema of the output, shown to MCP clients as `outputSchema` when it describes an
    /// object. `#[tool]` fills it in whenever the output type implements `JsonSchema`.
    fn output_schema(&self) -> Option<serde_json::Value> {
        None
    }

    /// Whether the tool runs an agent (a sub-agent or a handoff). Such a call is timed by the
    /// sub-agent's own `max_duration` rather than `per_tool_timeout`, and in a journaled run its
    /// steps are recorded inside the parent's journal one by one instead of its result as one
    /// step. Set by `agent_tool!` and `Agent::as_tool`; not for hand-written tools.
    #[doc(hidden)]
    const RUNS_AGENT: bool = false;

    /// What the permission manifest says the tool runs beyond itself: the agent a sub-agent
    /// tool runs (its own manifest), the remote tool an MCP tool calls. Not for hand-written
    /// tools.
    #[doc(hidden)]
    fn manifest_source(&self) -> Option<serde_json::Value> {
        None
    }

    /// Whether this tool runs an agent ([`Tool::RUNS_AGENT`]); the shared runtime's one tool
    /// type answers for the tool it holds. Not for hand-written tools.
    #[doc(hidden)]
    fn __runs_agent(&self) -> bool {
        Self::RUNS_AGENT
    }

    /// How the runtime reads this tool's values from JSON: serde's way. Only the shared runtime
    /// of tools without compile-time links (whose one type stands for many tools' values) reads
    /// otherwise. Not for hand-written tools.
    #[doc(hidden)]
    fn __readers(&self) -> readers::Readers<Self>
    where
        Self: Sized,
    {
        readers::Readers::serde()
    }

    /// Run the tool.
    fn call(
        &self,
        args: Self::Args,
        ctx: &ToolContext,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;
}

/// A tool body's failure; its text goes to the model as `ERROR: Tool '<name>' failed: <text>`.
///
/// ```
/// let e = agents_kt::ToolError::new("city not found");
/// assert_eq!(e.to_string(), "city not found");
/// ```
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// A failure described by `message`.
    pub fn new(message: impl std::fmt::Display) -> Self {
        ToolError {
            message: message.to_string(),
        }
    }

    /// The failure's description.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError { message }
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        ToolError::new(message)
    }
}

crate::error_debug::readable_debug!(ToolError);
