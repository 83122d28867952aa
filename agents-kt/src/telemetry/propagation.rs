//! What only the OpenTelemetry side of a span can hold: array attributes, and trace context
//! carried in an MCP request's `_meta` (W3C `traceparent`/`tracestate`, as MCP's SEP-414 names
//! them).

#[cfg(feature = "mcp")]
use opentelemetry::propagation::Extractor;
#[cfg(feature = "mcp-client")]
use opentelemetry::propagation::Injector;
#[cfg(any(feature = "mcp", feature = "mcp-client"))]
use serde_json::{Map, Value};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::ChatResponse;

/// `gen_ai.response.finish_reasons` is a string array, which a `tracing` field cannot be.
pub(crate) fn finish_reasons(span: &Span, response: &ChatResponse) {
    if let Some(reason) = &response.finish_reason {
        span.set_attribute(
            "gen_ai.response.finish_reasons",
            opentelemetry::Value::Array(
                vec![opentelemetry::StringValue::from(reason.clone())].into(),
            ),
        );
    }
}

/// Put the current span's trace context into an outgoing request's `_meta`.
#[cfg(feature = "mcp-client")]
pub(crate) fn inject_trace(meta: &mut Map<String, Value>) {
    let context = Span::current().context();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut Carrier(&mut *meta));
    });
}

/// Make `span` a child of the trace context an incoming request's `_meta` carries, if it carries
/// one; call before the span is first entered.
#[cfg(feature = "mcp")]
pub(crate) fn continue_trace(span: &Span, meta: &Map<String, Value>) {
    if !meta.contains_key("traceparent") {
        return;
    }
    let context = opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&Carrier(meta))
    });
    if let Err(error) = span.set_parent(context) {
        tracing::debug!(%error, "the MCP request's traceparent could not be continued");
    }
}

/// `_meta` as a propagation carrier: string fields only.
#[cfg(any(feature = "mcp", feature = "mcp-client"))]
struct Carrier<M>(M);

#[cfg(feature = "mcp-client")]
impl Injector for Carrier<&mut Map<String, Value>> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_string(), Value::String(value));
    }
}

#[cfg(feature = "mcp")]
impl Extractor for Carrier<&Map<String, Value>> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// Put the current span's trace context into an outgoing A2A request's HTTP headers
/// (`traceparent`, `tracestate`).
#[cfg(feature = "a2a-client")]
pub(crate) fn inject_trace_headers(headers: &mut reqwest::header::HeaderMap) {
    let context = Span::current().context();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut HeaderCarrier(headers));
    });
}

/// Make `span` a child of the trace context an incoming A2A request's headers carry, if they
/// carry one; call before the span is first entered.
#[cfg(feature = "a2a")]
pub(crate) fn continue_trace_headers(span: &Span, headers: &reqwest::header::HeaderMap) {
    if !headers.contains_key("traceparent") {
        return;
    }
    let context = opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&HeaderReader(headers))
    });
    if let Err(error) = span.set_parent(context) {
        tracing::debug!(%error, "the A2A request's traceparent could not be continued");
    }
}

/// HTTP headers as a propagation carrier.
#[cfg(feature = "a2a-client")]
struct HeaderCarrier<'a>(&'a mut reqwest::header::HeaderMap);

#[cfg(feature = "a2a-client")]
impl opentelemetry::propagation::Injector for HeaderCarrier<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            reqwest::header::HeaderName::from_bytes(key.as_bytes()),
            reqwest::header::HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

/// Incoming HTTP headers as a propagation carrier.
#[cfg(feature = "a2a")]
struct HeaderReader<'a>(&'a reqwest::header::HeaderMap);

#[cfg(feature = "a2a")]
impl opentelemetry::propagation::Extractor for HeaderReader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|name| name.as_str()).collect()
    }
}
