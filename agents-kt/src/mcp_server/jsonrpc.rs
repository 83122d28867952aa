//! What both transports check of a JSON-RPC message before rmcp reads it.

/// Why `message` is not one JSON-RPC 2.0 message (request, notification or response), if not.
pub(crate) fn not_a_message(message: &serde_json::Value) -> Option<&'static str> {
    let Some(object) = message.as_object() else {
        return Some(if message.is_array() {
            "batches are not supported (MCP 2025-06-18)"
        } else {
            "a message is a JSON object"
        });
    };
    if object.get("jsonrpc").and_then(|v| v.as_str()) != Some("2.0") {
        return Some("`jsonrpc` must be \"2.0\"");
    }
    match object.get("method") {
        Some(method) if !method.is_string() => Some("`method` must be a string"),
        Some(_) => None,
        None if object.contains_key("result") || object.contains_key("error") => None,
        None => Some("a message has a `method`, or a `result` or `error`"),
    }
}
