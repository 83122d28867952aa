//! One tool of an MCP server, called through the agent's own pipeline: to the runtime it is a
//! tool whose arguments and output are JSON, whose name is the server's (possibly prefixed), and
//! whose body is a `tools/call` on the connection.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientRequest, RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient};

use super::connection::{Connection, Service};
use super::listing::Unlisted;
use serde_json::Value;

use crate::{Tool, ToolContext, ToolError};

/// The body of a remote tool: a `tools/call` of `remote_name` on the connection, which every
/// registered tool keeps open (the last one dropped closes it and stops the server's process).
pub(crate) struct RemoteCall {
    pub connection: Arc<Connection>,
    /// The server's name for the tool (before any prefix).
    pub remote_name: Arc<str>,
    /// The input schema it was registered with: the one the model writes arguments for.
    pub schema: Arc<Value>,
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

    fn manifest_source(&self) -> Option<Value> {
        Some(serde_json::json!({ "mcp_tool": &*self.remote_name }))
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
        // The calling span's trace continues on the server (MCP's `_meta.traceparent`).
        #[cfg(feature = "otel")]
        {
            let mut meta = rmcp::model::RequestMetaObject::default();
            crate::telemetry::inject_trace(&mut meta.0.0);
            if !meta.0.0.is_empty() {
                params.meta = Some(meta);
            }
        }
        let unanswered = |error: rmcp::ServiceError| match error {
            rmcp::ServiceError::TransportClosed => ToolError::new(
                "the MCP server closed the connection before answering (the next call reconnects)",
            ),
            // The transport's own error, without rmcp's internal type names around it.
            rmcp::ServiceError::TransportSend(error) => ToolError::new(format!(
                "the MCP server did not answer the call: {}",
                super::plain_error::plain(&*error.error, &self.connection.server)
            )),
            error => ToolError::new(format!("the MCP server did not answer the call: {error}")),
        };
        let service =
            self.connection.live().await.map_err(|error| {
                ToolError::new(format!("the MCP server is unreachable: {error}"))
            })?;
        // Checked against what the server lists now, after any reconnection (see `listing`):
        // never send arguments to a tool that is gone, or that now takes something else.
        match self
            .connection
            .listing
            .check(&self.remote_name, &self.schema)
        {
            Err(Unlisted::Gone) => {
                return Err(ToolError::new(format!(
                    "the MCP server no longer lists the tool `{}` (its tool list changed after this agent was built); the call was not sent",
                    self.remote_name
                )));
            }
            Err(Unlisted::Changed) => {
                return Err(ToolError::new(format!(
                    "the MCP server changed the input schema of `{}` after this agent was built; the call was not sent (build the agent again to use the new one)",
                    self.remote_name
                )));
            }
            Ok(()) => {}
        }
        // A server that refuses the call for want of authorization (OAuth) did not run it:
        // it is sent again once authorized.
        let mut authorizations = 0;
        let answer = loop {
            let seen = self.connection.authorization();
            match self.send(&service, params.clone()).await? {
                Err(error)
                    if self
                        .connection
                        .reauthorized(&error, seen, &mut authorizations)
                        .await
                        .map_err(|error| ToolError::new(error.to_string()))? => {}
                answer => break answer,
            }
        };
        let result = match answer.map_err(unanswered)? {
            ServerResult::CallToolResult(result) => result,
            other => {
                return Err(ToolError::new(format!(
                    "the MCP server answered tools/call with something else: {other:?}"
                )));
            }
        };
        let text: String = result
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
            .collect::<Vec<_>>()
            .join("\n");
        if result.is_error == Some(true) {
            return Err(ToolError::new(text));
        }
        // Images, audio, resource links and embedded resources are kept, every block as the
        // server sent it: the result is MCP's own content shape, which the model reads as a
        // summary (`ToolContent`) and an MCP server built on this agent forwards untouched.
        if result.content.iter().any(|block| block.as_text().is_none()) {
            let mut content = serde_json::Map::new();
            content.insert("content".into(), Value::Array(blocks(&result.content)?));
            if let Some(structured) = result.structured_content {
                content.insert("structuredContent".into(), structured);
            }
            return Ok(Value::Object(content));
        }
        // Structured content is kept as it is; otherwise the text is the result — as JSON when
        // it is a JSON object or array (servers often send their JSON as text), so observers and
        // code skills can read its fields.
        if let Some(structured) = result.structured_content {
            return Ok(structured);
        }
        let trimmed = text.trim_start();
        if (trimmed.starts_with('{') || trimmed.starts_with('['))
            && let Ok(value) = serde_json::from_str::<Value>(&text)
        {
            return Ok(value);
        }
        Ok(Value::String(text))
    }
}

/// A result's blocks in MCP's JSON shape, as they came.
fn blocks(content: &[rmcp::model::ContentBlock]) -> Result<Vec<Value>, ToolError> {
    content
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<_, _>>()
        .map_err(|error| ToolError::new(format!("the MCP server's content is not JSON: {error}")))
}

impl RemoteCall {
    /// One `tools/call` on `service`: the server's answer (or why it gave none), or an error
    /// when it did not answer within `call_timeout` (the call is then cancelled on the server).
    async fn send(
        &self,
        service: &Service,
        params: CallToolRequestParams,
    ) -> Result<Result<ServerResult, rmcp::ServiceError>, ToolError> {
        let handle = match service
            .peer()
            .send_cancellable_request(
                ClientRequest::CallToolRequest(CallToolRequest::new(params)),
                PeerRequestOptions::no_options(),
            )
            .await
        {
            Ok(handle) => handle,
            Err(error) => return Ok(Err(error)),
        };
        // Dropped before the answer (the per-tool timeout, a cancelled run): tell the server.
        let mut pending = CancelOnDrop {
            peer: handle.peer.clone(),
            id: Some(handle.id.clone()),
        };
        // A frozen server fails the call after `call_timeout`; `pending` then tells it the call
        // was cancelled, and the connection stays usable.
        let Ok(answer) =
            tokio::time::timeout(self.connection.call_timeout, handle.await_response()).await
        else {
            return Err(ToolError::new(format!(
                "the MCP server did not answer the call of `{}` within {:?} (`call_timeout`); it was cancelled",
                self.remote_name, self.connection.call_timeout
            )));
        };
        pending.id = None;
        Ok(answer)
    }
}

/// Sends `notifications/cancelled` for a request still in flight when it is dropped.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    /// `None` once answered.
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let (Some(id), Ok(runtime)) = (self.id.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let notice = CancelledNotification::new(CancelledNotificationParam::new(
                Some(id),
                Some("the caller stopped waiting (timeout or cancelled run)".into()),
            ));
            if let Err(error) = peer.send_notification(notice.into()).await {
                tracing::debug!(%error, "could not tell the MCP server a call was cancelled");
            }
        });
    }
}
