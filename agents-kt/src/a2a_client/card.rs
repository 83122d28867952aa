//! The remote's agent card: fetched, its JSON-RPC endpoint found, and its input and output
//! schemas (when it publishes them) checked against the Rust types.

use a2a::{AgentCard, TRANSPORT_PROTOCOL_JSONRPC};
use reqwest::header::{ACCEPT, AUTHORIZATION};
use schemars::JsonSchema;
use serde_json::Value;

use super::A2aClientError;
use crate::IO_SCHEMAS_EXTENSION;
use crate::schema_fit::{Sides, fits};

/// Where the card is, given the agent's base URL (or the card's own URL).
fn card_url(url: &str) -> String {
    if url.ends_with(".json") {
        return url.to_string();
    }
    format!("{}/.well-known/agent-card.json", url.trim_end_matches('/'))
}

/// Fetch and read the card of the agent at `url`.
pub(super) async fn fetch(
    http: &reqwest::Client,
    url: &str,
    bearer: Option<&str>,
    max_bytes: usize,
) -> Result<AgentCard, A2aClientError> {
    let url = card_url(url);
    let failed = |reason: String| A2aClientError::Card {
        url: url.clone(),
        reason,
    };
    let mut request = http.get(&url).header(ACCEPT, "application/json");
    if let Some(token) = bearer {
        request = request.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    let response = request
        .send()
        .await
        .map_err(|error| failed(crate::error_chain::error_chain(&error)))?;
    let status = response.status();
    if !status.is_success() {
        return Err(failed(format!("HTTP {status}")));
    }
    if response
        .content_length()
        .is_some_and(|length| length > max_bytes as u64)
    {
        return Err(failed(format!("the card exceeds {max_bytes} bytes")));
    }
    let body = response
        .bytes()
        .await
        .map_err(|error| failed(error.to_string()))?;
    if body.len() > max_bytes {
        return Err(failed(format!("the card exceeds {max_bytes} bytes")));
    }
    serde_json::from_slice(&body).map_err(|error| failed(format!("not an A2A v1.0 card: {error}")))
}

/// The URL of the card's JSON-RPC binding.
pub(super) fn json_rpc_endpoint(card: &AgentCard) -> Result<String, A2aClientError> {
    card.supported_interfaces
        .iter()
        .find(|interface| {
            interface
                .protocol_binding
                .eq_ignore_ascii_case(TRANSPORT_PROTOCOL_JSONRPC)
        })
        .map(|interface| interface.url.clone())
        .ok_or_else(|| {
            let offered: Vec<&str> = card
                .supported_interfaces
                .iter()
                .map(|interface| interface.protocol_binding.as_str())
                .collect();
            A2aClientError::Mismatch {
                agent: card.name.clone(),
                reason: format!(
                    "it offers no JSON-RPC binding (only: {})",
                    offered.join(", ")
                ),
            }
        })
}

/// Whether `IN` fits the card's input schema and its output schema fits `OUT`, when the card
/// publishes them; a card without them passes (its outputs are checked as they arrive).
pub(super) fn check_types<IN: JsonSchema, OUT: JsonSchema>(
    card: &AgentCard,
) -> Result<(), A2aClientError> {
    let params = card
        .capabilities
        .extensions
        .iter()
        .flatten()
        .find(|extension| extension.uri == IO_SCHEMAS_EXTENSION)
        .and_then(|extension| extension.params.as_ref());
    let Some(params) = params else {
        return Ok(());
    };
    let mismatch = |reason: String| A2aClientError::Mismatch {
        agent: card.name.clone(),
        reason,
    };
    let ours = |schema: schemars::Schema| serde_json::to_value(schema).unwrap_or(Value::Null);
    let in_name = format!("`{}`", short_name::<IN>());
    let out_name = format!("`{}`", short_name::<OUT>());
    if let Some(theirs) = params.get("input") {
        let ours = ours(schemars::schema_for!(IN));
        same_kind(&ours, theirs, &in_name, "the remote agent's input").map_err(&mismatch)?;
        let sides = Sides {
            ours: &in_name,
            theirs: "the remote agent's input",
        };
        fits(&ours, theirs, sides).map_err(&mismatch)?;
    }
    if let Some(theirs) = params.get("output") {
        let ours = ours(schemars::schema_for!(OUT));
        same_kind(theirs, &ours, "the remote agent's output", &out_name).map_err(&mismatch)?;
        let sides = Sides {
            ours: "the remote agent's output",
            theirs: &out_name,
        };
        fits(theirs, &ours, sides).map_err(&mismatch)?;
    }
    Ok(())
}

/// Whether two schemas' top-level JSON types agree, where both name one (an integer is a
/// number).
fn same_kind(sent: &Value, taken: &Value, sent_name: &str, taken_name: &str) -> Result<(), String> {
    let kind = |schema: &Value| {
        schema
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match (kind(sent), kind(taken)) {
        (Some(sent), Some(taken)) if sent != taken && !(sent == "integer" && taken == "number") => {
            Err(format!(
                "{sent_name} is {sent}, but {taken_name} is {taken}"
            ))
        }
        _ => Ok(()),
    }
}

/// A type's name without its module path.
fn short_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    let base = full.split('<').next().unwrap_or(full);
    base.rsplit("::").next().unwrap_or(base)
}
