//! The spans of a run, shaped after the OpenTelemetry GenAI semantic conventions (see
//! [`crate::telemetry`] for the version and the whole mapping): `invoke_agent {agent}` per run,
//! `chat {model}` per model turn, `execute_tool {tool}` per tool call — denied, substituted and
//! rejected ones included — and every decision recorded as an event on the span it guards.
//!
//! They are plain `tracing` spans: any subscriber sees them; with the `otel` feature,
//! `tracing-opentelemetry` turns them into OpenTelemetry spans (`otel.name`, `otel.kind` and
//! `otel.status_*` are its special fields).

use std::borrow::Cow;

use serde_json::{Value, json};
use tracing::Span;
use tracing::field::Empty;

use super::step::ToolOutcome;
use crate::{
    ChatResponse, DecisionKind, InterceptorDecision, Message, ModelInfo, Role, RunIds, ToolCall,
};

/// The target of every decision event, so a subscriber can keep or drop them as one.
pub(crate) const DECISION_TARGET: &str = "agents_kt::decision";

/// `first second`, as a span's name. A span's strings are given as `&str`, not through
/// `Display` (`%`): the OpenTelemetry layer copies a `&str` as it is, where a `Display` value
/// goes through the formatting machinery — on every turn and tool call.
fn spaced(first: &str, second: &str) -> String {
    let mut name = String::with_capacity(first.len() + 1 + second.len());
    name.push_str(first);
    name.push(' ');
    name.push_str(second);
    name
}

/// The span of one run of agent `agent`.
pub(crate) fn invoke_agent(
    agent: &str,
    ids: &RunIds,
    model: Option<&ModelInfo>,
    client: Option<&str>,
) -> Span {
    tracing::info_span!(
        "invoke_agent",
        otel.name = spaced("invoke_agent", agent).as_str(),
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        "gen_ai.operation.name" = "invoke_agent",
        "gen_ai.provider.name" = model.map_or("unknown", |model| model.provider.as_str()),
        "gen_ai.agent.name" = agent,
        "gen_ai.conversation.id" = ids.session_id.as_str(),
        "gen_ai.request.model" = model.and_then(|model| model.model.as_deref()),
        "agents_kt.run.id" = ids.run_id.as_str(),
        "agents_kt.manifest.hash" = ids.manifest.as_deref(),
        "agents_kt.skill.name" = Empty,
        "agents_kt.mcp.client" = client,
        "error.type" = Empty,
    )
}

/// The span of model turn `turn`: its guard (turn chain and gates) and the model call.
pub(crate) fn chat(model: Option<&ModelInfo>, ids: &RunIds, turn: u32) -> Span {
    let requested = model.and_then(|model| model.model.as_deref());
    tracing::info_span!(
        "chat",
        otel.name = requested
            .map_or_else(
                || Cow::Borrowed("chat"),
                |model| Cow::Owned(spaced("chat", model))
            )
            .as_ref(),
        otel.kind = "client",
        otel.status_code = Empty,
        otel.status_description = Empty,
        "gen_ai.operation.name" = "chat",
        "gen_ai.provider.name" = model.map_or("unknown", |model| model.provider.as_str()),
        "gen_ai.request.model" = requested,
        "server.address" = model.and_then(|model| model.server_address.as_deref()),
        "server.port" = model.and_then(|model| model.server_port).map(i64::from),
        "gen_ai.conversation.id" = ids.session_id.as_str(),
        "gen_ai.response.model" = Empty,
        "gen_ai.usage.input_tokens" = Empty,
        "gen_ai.usage.output_tokens" = Empty,
        "gen_ai.system_instructions" = Empty,
        "gen_ai.input.messages" = Empty,
        "gen_ai.output.messages" = Empty,
        "agents_kt.turn" = i64::from(turn),
        "agents_kt.executed" = Empty,
        "agents_kt.decision" = Empty,
        "error.type" = Empty,
    )
}

/// The span of one tool call: its guard, the tool, and the after-tool chain.
pub(crate) fn execute_tool(tool: &str, call_id: &str, client: Option<&str>) -> Span {
    tracing::info_span!(
        "execute_tool",
        otel.name = spaced("execute_tool", tool).as_str(),
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        "gen_ai.operation.name" = "execute_tool",
        "gen_ai.tool.name" = tool,
        "gen_ai.tool.call.id" = call_id,
        "gen_ai.tool.type" = "function",
        "gen_ai.tool.call.arguments" = Empty,
        "gen_ai.tool.call.result" = Empty,
        "agents_kt.executed" = Empty,
        "agents_kt.decision" = Empty,
        "agents_kt.mcp.client" = client,
        "error.type" = Empty,
    )
}

/// Mark `span` as ended in error: `error.type` (a short, fixed class) and the span's status.
pub(crate) fn failed(span: &Span, class: &str, description: &str) {
    tracing::record_all!(
        span,
        "error.type" = class,
        otel.status_code = "error",
        otel.status_description = description,
    );
}

/// A turn its chain denied or substituted: the decision, and that the model was not called.
pub(crate) fn not_executed(span: &Span, decision: &str) {
    tracing::record_all!(
        span,
        "agents_kt.decision" = decision,
        "agents_kt.executed" = false,
    );
}

/// What a turn's span learns from the model's answer, with the decision its chain took: one
/// record (under OpenTelemetry each record is a span lookup).
pub(crate) fn answered(span: &Span, response: &ChatResponse, decision: &str) {
    let usage = response.usage;
    tracing::record_all!(
        span,
        "agents_kt.decision" = decision,
        "agents_kt.executed" = true,
        "gen_ai.response.model" = response.model.as_deref(),
        "gen_ai.usage.input_tokens" = usage.map(|usage| int(usage.prompt_tokens)),
        "gen_ai.usage.output_tokens" = usage.map(|usage| int(usage.completion_tokens)),
    );
    #[cfg(feature = "otel")]
    crate::telemetry::finish_reasons(span, response);
}

/// One decision, as an event on the span of the point it guards; its attributes follow the
/// GenAI guardrail proposal (see [`crate::telemetry`]).
pub(crate) fn decision(decision: &InterceptorDecision) {
    tracing::event!(
        target: DECISION_TARGET,
        tracing::Level::INFO,
        message = "agents_kt.decision",
        gen_ai.security.guardrail.name = %decision.name,
        gen_ai.security.guardrail.type = decision.stage.name(),
        gen_ai.security.target.type = decision.point.row().target_type,
        gen_ai.security.verdict.type = verdict(decision.decision),
        gen_ai.security.verdict.reason = decision.reason.as_deref(),
        gen_ai.security.action.type = action(decision.decision, decision.effective),
        agents_kt.decision.point = decision.point.row().attribute,
        agents_kt.decision.target = %decision.target,
        agents_kt.decision = %decision.decision,
        agents_kt.decision.index = int(decision.index),
        agents_kt.decision.effective = decision.effective,
        agents_kt.decision.owner = decision.owner.as_ref().map(|owner| owner.agent.as_str()),
        agents_kt.decision.owner_depth = decision.owner.as_ref().map(|owner| int(owner.depth)),
    );
}

/// How the agent's guards run: `timeout` for each interceptor and gate, and every gate's `Allow`
/// recorded in the trace.
pub(crate) fn guard_options(timeout: std::time::Duration) -> crate::chain::GuardOptions {
    crate::chain::GuardOptions::new(timeout).on_gate_allow(gate_allowed)
}

/// A gate's `Allow`, which no observer hears of (it is not a decision): only the trace records
/// it, so a backend shows which gates passed a call. Called by the chain runner, inside the span
/// of the point being guarded; costs a check of the subscriber's interest when nobody listens.
#[inline(never)]
pub(crate) fn gate_allowed(index: usize, name: Option<&str>) {
    tracing::event!(
        target: DECISION_TARGET,
        tracing::Level::INFO,
        message = "agents_kt.decision",
        gen_ai.security.guardrail.name = %Label(name, index),
        gen_ai.security.guardrail.type = "gate",
        gen_ai.security.verdict.type = "allow",
        gen_ai.security.action.type = "none",
        agents_kt.decision = "Allow",
        agents_kt.decision.index = int(index),
        agents_kt.decision.effective = false,
    );
}

/// A link's reported name, written only when an event is recorded.
struct Label<'a>(Option<&'a str>, usize);

impl std::fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(name) => f.write_str(name),
            None => write!(f, "#{}", self.1),
        }
    }
}

/// An integer attribute: OpenTelemetry's are `i64`, and `tracing-opentelemetry` writes other
/// integer types as text.
fn int(value: impl TryInto<i64>) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

fn verdict(kind: DecisionKind) -> &'static str {
    match kind {
        DecisionKind::Proceed => "allow",
        DecisionKind::ProceedWith => "modify",
        DecisionKind::Deny => "deny",
        DecisionKind::Substitute => "substitute",
    }
}

/// What the framework enforced because of this decision: only the effective one acts.
fn action(kind: DecisionKind, effective: bool) -> &'static str {
    match (kind, effective) {
        (_, false) | (DecisionKind::Proceed, _) => "none",
        (DecisionKind::ProceedWith, true) => "modify",
        (DecisionKind::Deny, true) => "block",
        (DecisionKind::Substitute, true) => "substitute",
    }
}

/// The GenAI instrumentations' switch for content capture: on only when
/// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` says `true`.
pub(crate) fn capture_content_from_env() -> bool {
    std::env::var("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
        .is_ok_and(|value| value.trim().eq_ignore_ascii_case("true"))
}

/// A turn's request as the conventions' content attributes: the system instructions, and the
/// other messages in their JSON message format (`role` and typed `parts`).
pub(crate) fn request_content(span: &Span, messages: &[Message]) {
    let (system, conversation): (Vec<&Message>, Vec<&Message>) = messages
        .iter()
        .partition(|message| message.role == Role::System);
    if !system.is_empty() {
        let parts: Vec<Value> = system.iter().map(|m| text_part(&m.content)).collect();
        span.record(
            "gen_ai.system_instructions",
            Value::Array(parts).to_string(),
        );
    }
    let input: Vec<Value> = conversation.into_iter().map(message_json).collect();
    span.record("gen_ai.input.messages", Value::Array(input).to_string());
}

/// The model's answer as `gen_ai.output.messages`.
pub(crate) fn response_content(span: &Span, response: &ChatResponse) {
    let mut parts = Vec::new();
    if !response.content.is_empty() {
        parts.push(text_part(&response.content));
    }
    parts.extend(response.tool_calls.iter().map(tool_call_part));
    let mut message = json!({"role": "assistant", "parts": parts});
    if let Some(reason) = &response.finish_reason {
        message["finish_reason"] = json!(reason);
    }
    span.record("gen_ai.output.messages", json!([message]).to_string());
}

fn message_json(message: &Message) -> Value {
    let role = match message.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut parts = Vec::new();
    match message.role {
        Role::Tool => parts.push(json!({
            "type": "tool_call_response",
            "id": message.tool_call_id,
            "response": message.content,
        })),
        _ if !message.content.is_empty() => parts.push(text_part(&message.content)),
        _ => {}
    }
    parts.extend(message.tool_calls.iter().map(tool_call_part));
    json!({"role": role, "parts": parts})
}

fn text_part(text: &str) -> Value {
    json!({"type": "text", "content": text})
}

fn tool_call_part(call: &ToolCall) -> Value {
    // The arguments as the model wrote them: JSON when they parse, else the raw text.
    let arguments = serde_json::from_str::<Value>(&call.arguments)
        .unwrap_or_else(|_| Value::String(call.arguments.clone()));
    json!({"type": "tool_call", "id": call.id, "name": call.name, "arguments": arguments})
}

/// How a tool call ended, on its span: whether the tool body ran, the decision its chain took
/// (`decision`, or `Rejected` for a call refused before any chain), and the error class the
/// caller got (a blocked call is an error to the model, so backends show it as one). One record:
/// under OpenTelemetry each is a span lookup.
pub(crate) fn tool_outcome(span: &Span, outcome: &ToolOutcome, decision: Option<&str>, text: &str) {
    let (executed, error) = match outcome {
        ToolOutcome::Rejected { .. } => (false, Some("rejected")),
        ToolOutcome::Used { substituted, .. } => (!substituted, None),
        ToolOutcome::Denied { .. } => (false, Some("denied")),
        ToolOutcome::Withheld { .. } => (true, Some("withheld")),
        ToolOutcome::Failed { .. } => (true, Some("failed")),
    };
    let decision = match outcome {
        ToolOutcome::Rejected { .. } => Some("Rejected"),
        _ => decision,
    };
    tracing::record_all!(
        span,
        "agents_kt.executed" = executed,
        "agents_kt.decision" = decision,
        "error.type" = error,
        otel.status_code = error.map(|_| "error"),
        otel.status_description = error.map(|_| text),
    );
}

/// A tool call's arguments (those it ran with; a denied call's as asked) and its result as the
/// caller reads it — after the after-tool interceptors.
pub(crate) fn tool_content(span: &Span, args: &Value, text: &str) {
    let arguments = match args {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    };
    span.record("gen_ai.tool.call.arguments", arguments);
    span.record("gen_ai.tool.call.result", text);
}
