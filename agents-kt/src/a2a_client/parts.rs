//! What a message or an artifact says, read from its parts.

use a2a::{Message, Part, PartContent};
use serde_json::Value;

use super::A2aClientError;

/// Parts as one JSON value: the first data part, else the text parts joined.
pub(super) fn value_of(parts: &[Part]) -> Result<Value, A2aClientError> {
    if let Some(data) = parts.iter().find_map(|part| match &part.content {
        PartContent::Data(value) => Some(value.clone()),
        _ => None,
    }) {
        return Ok(data);
    }
    let texts: Vec<&str> = parts.iter().filter_map(Part::as_text).collect();
    if texts.is_empty() {
        return Err(A2aClientError::protocol(
            "the output has neither a text nor a data part",
        ));
    }
    Ok(Value::String(texts.concat()))
}

/// A message's text parts, joined.
pub(super) fn text_of(message: &Message) -> String {
    let texts: Vec<&str> = message.parts.iter().filter_map(Part::as_text).collect();
    texts.join("\n")
}
