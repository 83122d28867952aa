//! The `rmcp` server handler: `tools/list` and `tools/call` over the exposed tools and skills.

use std::sync::Arc;

use futures::FutureExt;
#[allow(deprecated)] // `SetLevelRequestParams`: see `set_level`.
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    SetLevelRequestParams, Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tracing::instrument::WithSubscriber;

use super::client_log::ClientLog;
use super::principal::Principal;
use super::progress::McpProgress;
use super::{Exposed, McpClient, McpServeError, McpServer};
use crate::agent::SkillCall;
use crate::agent::in_span::in_span;
use crate::{AgentInput, AgentOutput};

/// What an exposed skill's input and output must be to cross MCP.
pub trait McpSkillTypes: AgentInput + DeserializeOwned + JsonSchema {}
impl<T: AgentInput + DeserializeOwned + JsonSchema> McpSkillTypes for T {}

impl<IN, OUT> McpServer<IN, OUT>
where
    IN: McpSkillTypes + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    /// Serve over stdin/stdout until the client disconnects.
    pub async fn serve_stdio(self) -> Result<(), McpServeError> {
        self.serve(rmcp::transport::stdio()).await
    }

    /// Serve over any byte stream pair (a pipe, a socket, an in-process duplex), one JSON-RPC
    /// message per line. Lines that are not JSON-RPC messages are answered with JSON-RPC errors,
    /// and at most 64 requests are read ahead of their answers: a client that stops reading
    /// replies is stopped from sending more, so the server's memory stays bounded.
    pub async fn serve<R, W>(self, transport: (R, W)) -> Result<(), McpServeError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let handler = Handler::new(Arc::clone(&self.inner));
        let running = handler
            .serve(super::lines::guard(transport))
            .await
            .map_err(|error| McpServeError(error.to_string()))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|error| McpServeError(error.to_string()))
    }
}

/// One MCP session's handler: the exposed agent, and this session's logging level.
pub(crate) struct Handler<IN, OUT> {
    exposed: Arc<Exposed<IN, OUT>>,
    log: ClientLog,
}

impl<IN, OUT> Handler<IN, OUT> {
    /// A handler for a new session.
    pub(crate) fn new(exposed: Arc<Exposed<IN, OUT>>) -> Self {
        Handler {
            exposed,
            log: ClientLog::default(),
        }
    }
}

/// The client of this request: over HTTP the principal the authenticator derived, else the name
/// it gave in its `initialize` request.
fn client_of(context: &RequestContext<RoleServer>) -> McpClient {
    let principal = context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Principal>());
    if let Some(Principal(name)) = principal {
        return McpClient {
            name: name.clone(),
            version: String::new(),
        };
    }
    match context.peer.peer_info() {
        Some(info) => McpClient {
            name: info.client_info.name.clone(),
            version: info.client_info.version.clone(),
        },
        None => McpClient {
            name: "(unknown)".into(),
            version: String::new(),
        },
    }
}

impl<IN, OUT> Handler<IN, OUT>
where
    IN: McpSkillTypes + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    fn allowed(&self, client: &McpClient, name: &str) -> bool {
        self.exposed
            .policy
            .as_ref()
            .is_none_or(|policy| policy(client, name))
    }

    /// Every exposed tool and skill this client may call, as MCP tools.
    fn listing(&self, client: &McpClient) -> Vec<McpTool> {
        let agent = &self.exposed.agent;
        let tools = self.exposed.tools.iter().filter_map(|name| {
            let spec = agent.tool_spec(name)?;
            let mut tool = McpTool::new(spec.name, spec.description, object(spec.parameters));
            tool.output_schema = spec.output_schema.map(|schema| Arc::new(object(schema)));
            Some(tool)
        });
        let schema = Arc::new(self.skill_input().schema.clone());
        let skills = self.exposed.skills.iter().map(|name| {
            McpTool::new(
                name.clone(),
                format!("Skill '{name}' of agent '{}'.", agent.name()),
                Arc::clone(&schema),
            )
        });
        tools
            .chain(skills)
            .filter(|tool| self.allowed(client, &tool.name))
            .collect()
    }

    async fn call(
        &self,
        client: &McpClient,
        request: CallToolRequestParams,
        progress: Option<McpProgress>,
    ) -> Result<CallToolResult, ErrorData> {
        let name = request.name.to_string();
        let exposed_tool = self.exposed.tools.iter().any(|tool| **tool == *name);
        let exposed_skill = self.exposed.skills.contains(&name);
        // A tool hidden from this client is answered exactly as a missing one: the answer must
        // not tell an attacker which names exist. The audit log keeps the real reason.
        let unknown = || {
            ErrorData::invalid_params(
                format!("unknown tool '{name}'"),
                Some(json!({"tool": name})),
            )
        };
        if !exposed_tool && !exposed_skill {
            return Err(unknown());
        }
        if !self.allowed(client, &name) {
            let reason = format!("client '{}' may not call '{name}'", client.name);
            self.exposed
                .agent
                .audit_refusal(&client.name, &name, &reason);
            return Err(unknown());
        }
        let _slots = self
            .exposed
            .calls
            .enter(&client.name)
            .await
            .ok_or_else(|| ErrorData::internal_error("the server is shutting down", None))?;
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        // Each branch's future is boxed: held inline, a skill's whole run (and a tool call's
        // chain) made this future tens of kilobytes, copied by every layer that moves it — rmcp's
        // task spawn and axum's middleware — on every call (BENCHMARKS.md, MCP under load).
        if exposed_tool {
            let answer = match Box::pin(self.exposed.agent.call_tool_for(
                &client.name,
                &name,
                arguments.to_string(),
                progress.map(|progress| Arc::new(progress) as _),
                &self.exposed.above,
            ))
            .await
            {
                Ok(answer) => answer,
                // A run-ending error (a tool past its timeout): the caller reads why.
                Err(error) => return Ok(error_result(format!("ERROR: {error}"))),
            };
            return Ok(answer_result(answer));
        }
        let skill = Box::pin(self.exposed.agent.call_skill_for(
            &client.name,
            &name,
            arguments,
            &self.exposed.above,
            |arguments| self.skill_input().read(arguments),
        ))
        .await;
        Ok(match skill {
            Ok(SkillCall::Output(output)) => output_result(&name, &output),
            // Denied or substituted by the tool chain: answered like a tool call.
            Ok(SkillCall::Answered(answer)) => answer_result(answer),
            Ok(SkillCall::InvalidInput(reason)) => {
                return Err(ErrorData::invalid_params(
                    format!("invalid input for skill '{name}': {reason}"),
                    None,
                ));
            }
            Err(error) => error_result(format!("ERROR: {error}")),
        })
    }
}

fn error_result(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// A tool call's answer as an MCP result: its text, and its JSON object as structured content.
fn answer_result(answer: crate::agent::step::Answer) -> CallToolResult {
    if let Some(output) = &answer.output
        && let Some(result) = content_result(output)
    {
        return result;
    }
    let mut result = if answer.is_error {
        CallToolResult::error(vec![ContentBlock::text(answer.text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(answer.text)])
    };
    if let Some(output @ Value::Object(_)) = answer.output {
        result.structured_content = Some(output);
    }
    result
}

/// A content result (a `ToolContent`, or JSON in its shape) as MCP's result, every block as
/// the tool gave it — what a gateway owes its clients. `None` when it is not one, or holds a
/// block MCP does not know: the caller then sends the text the model would read, which names
/// every part.
fn content_result(output: &Value) -> Option<CallToolResult> {
    if !crate::tool::content::ToolContent::is_shape(output) {
        return None;
    }
    // Read from the value in place: a content result carries its images, no copy of it first.
    match CallToolResult::deserialize(output) {
        Ok(result) => Some(result),
        Err(error) => {
            tracing::warn!(%error, "a tool's content is not MCP content; its summary is sent");
            None
        }
    }
}

/// A skill's output as an MCP result: a string as text, anything else as JSON text, an object as
/// structured content too.
fn output_result<OUT: Serialize>(name: &str, output: &OUT) -> CallToolResult {
    let value = match serde_json::to_value(output) {
        Ok(value) => value,
        Err(error) => {
            return error_result(format!(
                "ERROR: the output of skill '{name}' is not JSON: {error}"
            ));
        }
    };
    if let Some(result) = content_result(&value) {
        return result;
    }
    match value {
        Value::String(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        value => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
            if value.is_object() {
                result.structured_content = Some(value);
            }
            result
        }
    }
}

/// A JSON Schema as MCP's object map; schemas here are always objects.
fn object(schema: Value) -> Map<String, Value> {
    match schema {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// How an exposed skill's input crosses MCP: `IN`'s own schema when it is an object, else
/// wrapped as `{input: IN}`. Worked out once per server.
pub(crate) struct SkillInput {
    schema: Map<String, Value>,
    wrapped: bool,
}

impl SkillInput {
    fn of<IN: JsonSchema>() -> Self {
        let mut schema = serde_json::to_value(schemars::schema_for!(IN)).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut schema {
            map.remove("$schema");
        }
        if schema.get("type") == Some(&json!("object")) {
            SkillInput {
                schema: object(schema),
                wrapped: false,
            }
        } else {
            let wrapped =
                json!({"type": "object", "properties": {"input": schema}, "required": ["input"]});
            SkillInput {
                schema: object(wrapped),
                wrapped: true,
            }
        }
    }

    /// The skill's input from a call's arguments.
    fn read<IN: DeserializeOwned>(&self, arguments: Value) -> Result<IN, String> {
        let value = if self.wrapped {
            arguments.get("input").cloned().unwrap_or(Value::Null)
        } else {
            arguments
        };
        serde_json::from_value(value).map_err(|error| error.to_string())
    }
}

impl<IN, OUT> Handler<IN, OUT>
where
    IN: McpSkillTypes + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    fn skill_input(&self) -> &SkillInput {
        self.exposed.skill_input.get_or_init(SkillInput::of::<IN>)
    }
}

impl<IN, OUT> ServerHandler for Handler<IN, OUT>
where
    IN: McpSkillTypes + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    #[allow(deprecated)] // `enable_logging`: see `set_level`.
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.exposed.client_logging {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_logging()
                .build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.exposed.agent.name(),
            env!("CARGO_PKG_VERSION"),
        ))
    }

    #[allow(deprecated)] // rmcp marks logging deprecated (SEP-2577); MCP clients still send it.
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !self.exposed.client_logging {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "logging is not offered by this server",
                None,
            ));
        }
        self.log.set(request.level);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let client = client_of(&context);
        Ok(ListToolsResult::with_all_items(self.listing(&client)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let client = client_of(&context);
        let tool = request.name.clone();
        let progress_outbox = context
            .meta
            .get_progress_token()
            .map(|token| (token, McpProgress::outbox(&context.peer)));
        let progress = progress_outbox
            .as_ref()
            .map(|(token, outbox)| McpProgress::new(token.clone(), outbox.clone()));
        let log = self.log.dispatch_for(&context.peer);
        let span = tracing::info_span!(
            "mcp_tools_call",
            otel.name = %format!("tools/call {tool}"),
            otel.kind = "server",
            "mcp.method.name" = "tools/call",
            "gen_ai.tool.name" = %tool,
            "jsonrpc.request.id" = %context.id,
        );
        // One trace from the calling agent through this one, when the client sent its context.
        #[cfg(feature = "otel")]
        crate::telemetry::continue_trace(&span, &context.meta.0.0);
        let call = in_span(span, self.call(&client, request, progress));
        // The call's `tracing` events go to the client too, when it set a logging level.
        let call = match &log {
            Some((dispatch, _)) => call.with_subscriber(dispatch.clone()).left_future(),
            None => call.right_future(),
        };
        // Its progress and log messages reach the client before its answer.
        let call = async {
            let result = call.await;
            if let Some((_, outbox)) = &progress_outbox {
                outbox.flush().await;
            }
            if let Some((_, outbox)) = &log {
                outbox.flush().await;
            }
            result
        };
        // A client's `notifications/cancelled` cancels the request's token: the call (and the
        // tool's future with it) is dropped, not left running for an answer nobody waits for.
        tokio::select! {
            result = call => result.map(CallToolResponse::from),
            () = context.ct.cancelled() => {
                tracing::info!(tool = %tool, client = %client.name, "tools/call cancelled by the client; the call was dropped");
                Err(ErrorData::new(
                    rmcp::model::ErrorCode::INTERNAL_ERROR,
                    format!("tools/call of '{tool}' was cancelled by the client"),
                    None,
                ))
            }
        }
    }
}
