//! OpenTelemetry for agents (feature `otel`): GenAI spans exported over OTLP, GenAI metrics, and
//! trace context carried across MCP.
//!
//! # Setup
//!
//! [`init`] is the one call: it reads the usual OpenTelemetry environment variables —
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (default `http://localhost:4318`, OTLP over HTTP/protobuf; the
//! per-signal `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `…_METRICS_ENDPOINT` and
//! `OTEL_EXPORTER_OTLP_HEADERS` too), `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`,
//! `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` (`otlp`, or `none` to switch one off) and
//! `OTEL_SDK_DISABLED` — installs a `tracing` subscriber that turns the agents' spans into
//! OpenTelemetry spans (and prints warnings to stderr), sets the global meter provider and the
//! W3C trace-context propagator, and returns a guard that flushes everything when dropped.
//! To compose your own subscriber instead, build a [`Telemetry`] and add [`Telemetry::layer`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let telemetry = agents_kt::telemetry::init()?; // keep it alive: dropping it flushes
//! // … build agents (after `init`: they record metrics with the global meter) and run them …
//! telemetry.shutdown()?;
//! # Ok(()) }
//! ```
//!
//! # What is recorded
//!
//! Spans follow the OpenTelemetry GenAI semantic conventions as released in
//! `open-telemetry/semantic-conventions-genai` **v0.1.0** (the conventions of
//! `semantic-conventions` v1.41.0 moved there), with no deprecated attribute (`gen_ai.system`,
//! `gen_ai.usage.prompt_tokens`, … are never written):
//!
//! | span | kind | attributes |
//! |---|---|---|
//! | `invoke_agent {agent}` — one run | internal | `gen_ai.operation.name`=`invoke_agent`, `gen_ai.provider.name`, `gen_ai.agent.name`, `gen_ai.conversation.id` (the session id), `gen_ai.request.model`; `agents_kt.run.id`, `agents_kt.skill.name`, `agents_kt.mcp.client`; `error.type` when the run fails |
//! | `chat {model}` — one model turn, its guard included | client | `gen_ai.operation.name`=`chat`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `gen_ai.conversation.id`, `server.address`, `server.port`; `agents_kt.turn`, `agents_kt.executed` (false: the model was not called), `agents_kt.decision`; `error.type` |
//! | `execute_tool {tool}` — one tool call, denied and rejected ones included | internal | `gen_ai.operation.name`=`execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`=`function`; `agents_kt.executed` (false: denied, substituted or rejected — the tool body never ran), `agents_kt.decision`, `agents_kt.mcp.client`; `error.type` (`denied`, `withheld`, `rejected`, `failed`) and an error status when the caller got an error |
//! | `tools/call {name}` — an MCP request served | server | `mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id`; continues the client's `traceparent` |
//!
//! Content is opt-in ([`AgentBuilder::capture_content`](crate::AgentBuilder::capture_content)):
//! `gen_ai.system_instructions`, `gen_ai.input.messages`, `gen_ai.output.messages` on `chat`
//! spans (the conventions' JSON message format), `gen_ai.tool.call.arguments` and
//! `gen_ai.tool.call.result` on `execute_tool` spans. A result is captured as the model reads it:
//! after the after-tool interceptors, so their redaction comes first.
//!
//! # Decisions in the trace
//!
//! Every non-`Proceed` decision and every gate verdict (`Allow` included) is an event named
//! `agents_kt.decision` on the span of the point it guards (`invoke_agent` for a skill,
//! `chat` for a turn, `execute_tool` for a tool call and its result). Its attributes follow the
//! GenAI guardrail proposal (`semantic-conventions-genai` pull request 427, in development; the
//! conventions define no guardrail attributes yet), mapped so:
//!
//! | attribute | value |
//! |---|---|
//! | `gen_ai.security.guardrail.name` | the interceptor's or gate's name (`fn` name, `.named(..)`, else `#index`) |
//! | `gen_ai.security.guardrail.type` | `interceptor` or `gate` |
//! | `gen_ai.security.target.type` | `agent_invocation` (skill), `llm_input` (turn), `tool_call`, `tool_result` (after-tool) |
//! | `gen_ai.security.verdict.type` | `allow` (gate), `modify` (`ProceedWith`), `deny`, `substitute` |
//! | `gen_ai.security.verdict.reason` | a `Deny`'s reason |
//! | `gen_ai.security.action.type` | what the framework enforced: `block`, `modify`, `substitute`, or `none` for a decision that was not the effective one |
//! | `agents_kt.decision`, `.target`, `.index`, `.effective` | the decision as observers see it ([`InterceptorDecision`](crate::InterceptorDecision)) |
//! | `agents_kt.decision.point` | `skill`, `turn`, `tool_call`, `after_tool_call` |
//!
//! # Metrics
//!
//! `gen_ai.client.token.usage` (histogram, `{token}`, by `gen_ai.token.type`),
//! `gen_ai.client.operation.duration` (histogram, seconds, `error.type` on failures) — both per
//! model call with the conventions' attributes and bucket advice — and `agents_kt.decisions`
//! (counter, `{decision}`) by point, decision, interceptor, stage and effectiveness.
//!
//! # Trace context across MCP
//!
//! An [`McpToolset`](crate::McpToolset) call sends the calling `execute_tool` span's context as
//! `traceparent` (and `tracestate`) in the request's `_meta`; [`McpServer`](crate::McpServer)
//! continues a `traceparent` it receives, so one trace runs from the calling agent through the
//! server's agent. Across A2A the same: an [`A2aAgent`](crate::A2aAgent) call sends
//! `traceparent` as an HTTP header, and [`A2aServer`](crate::A2aServer) runs the task under a
//! server span (`a2a SendMessage`) continuing it (features `otel` and `a2a`).

mod metrics;
mod propagation;
mod setup;

pub(crate) use metrics::{GenAiMetrics, global_meter};
#[cfg(feature = "mcp")]
pub(crate) use propagation::continue_trace;
#[cfg(feature = "a2a")]
pub(crate) use propagation::continue_trace_headers;
pub(crate) use propagation::finish_reasons;
#[cfg(feature = "mcp-client")]
pub(crate) use propagation::inject_trace;
#[cfg(feature = "a2a-client")]
pub(crate) use propagation::inject_trace_headers;
pub use setup::{Telemetry, TelemetryError, init};
