//! One tool of an MCP server, called through the agent's own pipeline: to the runtime it is a
//! tool whose arguments and output are JSON, whose name is the server's (possibly prefixed), and
//! whose body is a `tools/call` on the connection.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use serde_json::Value;

use crate::{Tool, ToolContext, ToolError};

/// The body of a remote tool: a `tools/call` of `remote_name` on the connection, which every
/// registered tool keeps open (the last one dropped closes it and stops the server's process).
pub(crate) struct RemoteCall {
    pub service: Arc<RunningService<RoleClient, ()>>,
    /// The server's name for the tool (before any prefix).
    pub remote_name: Arc<str>,
}

impl Tool for RemoteCall {
    // Never used as a name: a remote tool is registered under its own, with `ToolRuntime::named`.
    const NAME: &'static str = "(remote MCP tool)";
    type Args = Value;
    type Output = Value;

    fn description(&self) -> Cow<'static, str> {
        // The server's description goes into the tool's spec directly.
        Cow::Borrowed("")
    }

    async fn call(&self, args: Value, _: &ToolContext) -> Result<Value, ToolError> {
        let mut params = CallToolRequestParams::new(self.remote_name.to_string());
        match args {
            Value::Object(arguments) => params = params.with_arguments(arguments),
            Value::Null => {}
            other => {
                return Err(ToolError::new(format!(
                    "the arguments must be a JSON object, not {other}"
                )));
            }
        }
        let result = self
            .service
            .peer()
            .call_tool(params)
            .await
            .map_err(|error| {
                ToolError::new(format!("the MCP server did not answer the call: {error}"))
            })?;
        let text: String = result
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
            .collect::<Vec<_>>()
            .join("\n");
        if result.is_error == Some(true) {
            return Err(ToolError::new(text));
        }
        // Structured content is kept as it is; otherwise the text is the result.
        Ok(result.structured_content.unwrap_or(Value::String(text)))
    }
}
