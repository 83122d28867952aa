//! What a tool declared by [`agent_tool!`](crate::agent_tool) or `remote_tool!` holds and
//! forwards its calls to — an agent, or a remote MCP server's tool — so one macro writes the
//! [`Tool`](super::Tool) impl of both.

use std::future::Future;

use super::{ToolContext, ToolError};

/// The target of a declared tool: what it is said to do, and the call of it under the name the
/// tool is registered by. Generated code only; not part of the API.
#[doc(hidden)]
pub trait ToolTarget<A, O>: Send + Sync {
    /// What the calling model is told the tool does.
    fn description(&self) -> &str;

    /// What the permission manifest says the target runs (an agent's manifest).
    fn manifest_source(&self) -> Option<serde_json::Value> {
        None
    }

    /// Call the target with `args`, for the call `ctx` describes of the tool named `tool`.
    fn call(
        &self,
        tool: &'static str,
        args: A,
        ctx: &ToolContext,
    ) -> impl Future<Output = Result<O, ToolError>> + Send;
}

/// The `Tool` impl of a tool declared over a [`ToolTarget`], and what ties its `Args` and
/// `Output` to it for typed interceptors.
#[doc(hidden)]
#[macro_export]
macro_rules! __forwarding_tool {
    ($(@$wrapped:ident)? $name:ident, $registered:literal, $args:ty, $output:ty, runs_agent: $runs_agent:literal) => {
        impl $crate::Tool for $name {
            const NAME: &'static str = $registered;
            const RUNS_AGENT: bool = $runs_agent;
            type Args = $args;
            type Output = $output;

            fn description(&self) -> $crate::__private::Cow<'static, str> {
                let description =
                    $crate::__private::ToolTarget::<$args, $output>::description(&self.0);
                $crate::__private::Cow::Owned(description.to_string())
            }

            fn manifest_source(
                &self,
            ) -> ::core::option::Option<$crate::__private::serde_json::Value> {
                $crate::__private::ToolTarget::<$args, $output>::manifest_source(&self.0)
            }

            async fn call(
                &self,
                args: $args,
                ctx: &$crate::ToolContext,
            ) -> ::core::result::Result<$output, $crate::ToolError> {
                $crate::__private::ToolTarget::<$args, $output>::call(
                    &self.0,
                    $registered,
                    args,
                    ctx,
                )
                .await
            }
        }

        $crate::__typed_tool_links!($(@$wrapped)? $name, $args, $output);
    };
}
