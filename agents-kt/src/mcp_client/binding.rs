//! Typed bindings: a Rust `Args`/`Output` pair for one remote tool, so typed interceptors, gates
//! and after-interceptors guard it with the compiler checking their replacements — and the pair
//! is checked against the server's input schema when it is bound, never trusted blindly.

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::RemoteCall;
use crate::tool::ToolTarget;
use crate::{Tool, ToolContext, ToolError};

/// Declare a typed binding of a remote MCP tool: a type implementing [`Tool`] for it, with the
/// `Args` and `Output` you give, so typed interceptors (`#[before_tool_call(Name)]`,
/// `#[gate(Name)]`, `#[after_tool_call(Name)]`, `ToolInterceptor::<Name>`) guard it with the
/// compiler checking their replacements and substitutes, and code skills call it with
/// `ctx.call_tool(args)`. The string is the name the tool is registered under (the server's
/// name, or `<prefix>_<name>` after [`McpToolset::prefix`](crate::McpToolset::prefix)).
/// Connect it with [`McpToolset::bind`](crate::McpToolset::bind), which checks `Args` against
/// the server's input schema.
///
/// ```
/// /// Arguments of the server's `read_text_file`.
/// #[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
/// pub struct ReadTextFileArgs {
///     pub path: String,
/// }
///
/// agents_kt::remote_tool! {
///     /// The filesystem server's `read_text_file`, typed.
///     pub struct ReadTextFile("read_text_file"): ReadTextFileArgs => String;
/// }
///
/// use agents_kt::Tool;
/// assert_eq!(ReadTextFile::NAME, "read_text_file");
/// ```
///
/// One arguments type binds one tool (it names its tool, as a `#[tool]`'s arguments do). A
/// decision of the wrong types for it does not compile — here a substitute that is not the
/// bound `Output`:
///
/// ```compile_fail,E0277
/// # #[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
/// # pub struct ReadTextFileArgs { pub path: String }
/// # agents_kt::remote_tool! { pub struct ReadTextFile("read_text_file"): ReadTextFileArgs => String; }
/// use agents_kt::prelude::*;
///
/// #[before_tool_call(ReadTextFile)]
/// fn cached(args: &ReadTextFileArgs) -> Decision<ReadTextFileArgs, u32> {
///     Decision::Substitute(42)
/// }
/// ```
#[macro_export]
macro_rules! remote_tool {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident($registered:literal): $args:ty => $output:ty;
    ) => {
        $(#[$meta])*
        $vis struct $name($crate::RemoteBinding);

        $crate::__forwarding_tool!($name, $registered, $args, $output, runs_agent: false);

        impl $crate::RemoteToolBinding for $name {
            fn bind(remote: $crate::RemoteBinding) -> Self {
                $name(remote)
            }
        }

    };
}

/// A remote tool with Rust types: implemented by [`remote_tool!`](crate::remote_tool), which
/// users call rather than implementing this by hand.
pub trait RemoteToolBinding: Tool + Sized {
    /// The typed tool over `remote`, the server's tool it was bound to.
    fn bind(remote: RemoteBinding) -> Self;
}

/// The server's side of a bound tool: its connection and the tool's name there. A
/// [`remote_tool!`](crate::remote_tool) type holds one and calls through it.
pub struct RemoteBinding {
    call: RemoteCall,
    description: Arc<str>,
}

impl RemoteBinding {
    pub(crate) fn new(call: RemoteCall, description: &str) -> Self {
        RemoteBinding {
            call,
            description: Arc::from(description),
        }
    }

    /// The server's description of the tool.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Call the tool with typed arguments; its result, read as `O`. A result that does not fit
    /// `O` is a failed call saying why (the model is told; nothing is guessed).
    pub async fn call<A: Serialize, O: DeserializeOwned>(
        &self,
        args: &A,
        ctx: &ToolContext,
    ) -> Result<O, ToolError> {
        let args = serde_json::to_value(args)
            .map_err(|error| ToolError::new(format!("the arguments do not serialize: {error}")))?;
        let result = self.call.call(args, ctx).await?;
        let fitted = match &result {
            // A text result read as a type other than a string: try the text as JSON.
            Value::String(text) => {
                O::deserialize(&result).or_else(|_| serde_json::from_str::<O>(text))
            }
            _ => O::deserialize(&result),
        };
        fitted.map_err(|error| {
            ToolError::new(format!(
                "the server's result does not fit `{}`: {error}",
                std::any::type_name::<O>()
            ))
        })
    }
}

/// Whether arguments described by `ours` fit the MCP server's input schema `theirs` (see
/// [`schema_fit::fits`](crate::schema_fit::fits)).
pub(crate) fn fits(ours: &Value, theirs: &Value) -> Result<(), String> {
    let sides = crate::schema_fit::Sides {
        ours: "the arguments type",
        theirs: "the server",
    };
    crate::schema_fit::fits(ours, theirs, sides)
}

/// A tool declared with [`remote_tool!`](crate::remote_tool) calls the server's tool it was
/// bound to.
impl<A: Serialize + Send + Sync, O: DeserializeOwned> ToolTarget<A, O> for RemoteBinding {
    fn description(&self) -> &str {
        &self.description
    }

    async fn call(&self, _tool: &'static str, args: A, ctx: &ToolContext) -> Result<O, ToolError> {
        RemoteBinding::call(self, &args, ctx).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server() -> Value {
        json!({
            "type": "object",
            "properties": { "path": { "type": "string" }, "count": { "type": "number" } },
            "required": ["path"],
            "additionalProperties": false
        })
    }

    #[test]
    fn matching_arguments_fit_and_an_integer_fits_a_number() {
        let ours = json!({
            "properties": { "path": { "type": "string" }, "count": { "type": ["integer", "null"] } },
            "required": ["path"]
        });
        assert_eq!(fits(&ours, &server()), Ok(()));
    }

    #[test]
    fn a_missing_or_optional_required_property_is_named() {
        let missing = json!({ "properties": { "count": { "type": "number" } } });
        let error = fits(&missing, &server()).unwrap_err();
        assert!(
            error.contains("`path`") && error.contains("lacks"),
            "{error}"
        );
        let optional = json!({ "properties": { "path": { "type": ["string", "null"] } } });
        let error = fits(&optional, &server()).unwrap_err();
        assert!(
            error.contains("`path`") && error.contains("optional"),
            "{error}"
        );
    }

    #[test]
    fn a_wrong_type_or_an_unknown_property_is_named() {
        let wrong =
            json!({ "properties": { "path": { "type": "integer" } }, "required": ["path"] });
        let error = fits(&wrong, &server()).unwrap_err();
        assert!(
            error.contains("`path` is integer") && error.contains("string"),
            "{error}"
        );
        let extra = json!({
            "properties": { "path": { "type": "string" }, "mode": { "type": "string" } },
            "required": ["path"]
        });
        let error = fits(&extra, &server()).unwrap_err();
        assert!(error.contains("`mode`"), "{error}");
    }

    #[test]
    fn a_referenced_definition_is_followed() {
        let ours = json!({
            "properties": { "path": { "$ref": "#/$defs/Path" } },
            "required": ["path"],
            "$defs": { "Path": { "type": "object" } }
        });
        let error = fits(&ours, &server()).unwrap_err();
        assert!(error.contains("`path` is object"), "{error}");
    }
}
