//! What both transports check of a JSON-RPC message before rmcp reads it: rmcp would answer a
//! malformed `tools/call` with "method not found", and an `id` or `params` of the wrong JSON type
//! with a plain-text HTTP error. Both transports answer these in JSON-RPC, with the same texts.

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Why `message` is not one JSON-RPC 2.0 message (request, notification or response), if not.
/// Answered `-32600 Invalid Request` with a null id.
pub(crate) fn not_a_message(message: &Value) -> Option<&'static str> {
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
    if let Some(problem) = object.get("id").and_then(|id| id_problem(Kind::of(id))) {
        return Some(problem);
    }
    match object.get("method") {
        Some(method) if !method.is_string() => Some("`method` must be a string"),
        Some(_) => None,
        None if object.contains_key("result") || object.contains_key("error") => None,
        None => Some("a message has a `method`, or a `result` or `error`"),
    }
}

/// Why an `id` of this kind is refused, if it is: JSON-RPC ids are strings or numbers (MCP
/// forbids null for requests; a null id is left to rmcp, which knows the message's role).
pub(crate) fn id_problem(id: Kind) -> Option<&'static str> {
    match id {
        Kind::String | Kind::Number | Kind::Null => None,
        _ => Some("`id` must be a string or a number"),
    }
}

/// The id to answer a refused message with: its own when JSON-RPC allows echoing it (a string
/// or a number), null otherwise.
pub(crate) fn echoable_id(id: Option<&Value>) -> Value {
    match id {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// Why a request's `params` are invalid for its method, if they are. Answered `-32602 Invalid
/// params` with the request's id.
pub(crate) fn invalid_params(method: &str, params: &Params) -> Option<&'static str> {
    match params {
        Params::Absent | Params::Object { .. } => {}
        Params::Other => return Some("Invalid params: `params` must be a JSON object"),
    }
    if method != "tools/call" {
        return None;
    }
    let (name, arguments) = match params {
        Params::Object { name, arguments } => (*name, *arguments),
        _ => (Kind::Absent, Kind::Absent),
    };
    if name != Kind::String {
        return Some("Invalid params: tools/call needs the tool's `name`, a string");
    }
    match arguments {
        Kind::Absent | Kind::Null | Kind::Object => None,
        _ => Some("Invalid params: tools/call `arguments` must be a JSON object"),
    }
}

/// The JSON type of a value, read without keeping its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Absent,
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl Kind {
    pub(crate) fn of(value: &Value) -> Kind {
        match value {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Number(_) => Kind::Number,
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }
}

/// What a request's `params` hold, as far as the checks above look: the kinds of `name` and
/// `arguments` when it is an object. Deserialized without building the values (stdio reads
/// every message through it).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) enum Params {
    #[default]
    Absent,
    Object {
        name: Kind,
        arguments: Kind,
    },
    /// An array, or anything else that is not an object.
    Other,
}

impl Params {
    pub(crate) fn of(params: Option<&Value>) -> Params {
        match params {
            None | Some(Value::Null) => Params::Absent,
            Some(Value::Object(object)) => Params::Object {
                name: object.get("name").map_or(Kind::Absent, Kind::of),
                arguments: object.get("arguments").map_or(Kind::Absent, Kind::of),
            },
            Some(_) => Params::Other,
        }
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = Kind;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Kind, E> {
        Ok(Kind::Bool)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Kind, E> {
        Ok(Kind::Number)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Kind, E> {
        Ok(Kind::Number)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Kind, E> {
        Ok(Kind::Number)
    }
    fn visit_str<E>(self, _: &str) -> Result<Kind, E> {
        Ok(Kind::String)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Kind::Array)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Kind::Object)
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ParamsVisitor)
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Params;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a request's params")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Params, A::Error> {
        let (mut name, mut arguments) = (Kind::Absent, Kind::Absent);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "name" => name = map.next_value()?,
                "arguments" => arguments = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Params::Object { name, arguments })
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Params, A::Error> {
        KindVisitor.visit_seq(seq).map(|_| Params::Other)
    }
    // `"params": null` is read as no params: lenient, as rmcp is.
    fn visit_unit<E>(self) -> Result<Params, E> {
        Ok(Params::Absent)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Params, E> {
        Ok(Params::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Params, E> {
        Ok(Params::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Params, E> {
        Ok(Params::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Params, E> {
        Ok(Params::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<Params, E> {
        Ok(Params::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn streamed(params: Value) -> Params {
        serde_json::from_str(&params.to_string()).unwrap()
    }

    #[test]
    fn both_readings_of_params_agree_and_refuse_the_same_shapes() {
        let cases = [
            (json!({"name": "t", "arguments": {}}), None),
            (json!({"name": "t"}), None),
            (json!({"name": "t", "arguments": null}), None),
            (json!({"name": "t", "arguments": [1]}), Some("arguments")),
            (json!({"name": "t", "arguments": "x"}), Some("arguments")),
            (json!({"arguments": {}}), Some("name")),
            (json!({"name": 7}), Some("name")),
            (json!([1, 2]), Some("`params`")),
            (json!("x"), Some("`params`")),
        ];
        for (params, refused) in cases {
            for read in [Params::of(Some(&params)), streamed(params.clone())] {
                let problem = invalid_params("tools/call", &read);
                match refused {
                    None => assert_eq!(problem, None, "{params}"),
                    Some(word) => assert!(problem.is_some_and(|p| p.contains(word)), "{params}"),
                }
            }
        }
        assert_eq!(invalid_params("tools/list", &Params::Absent), None);
        assert!(invalid_params("tools/list", &streamed(json!([]))).is_some());
    }

    #[test]
    fn an_object_or_array_id_is_not_a_message() {
        assert!(not_a_message(&json!({"jsonrpc": "2.0", "id": {}, "method": "ping"})).is_some());
        assert!(not_a_message(&json!({"jsonrpc": "2.0", "id": [1], "method": "ping"})).is_some());
        assert!(not_a_message(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).is_none());
        assert!(not_a_message(&json!({"jsonrpc": "2.0", "id": "a", "method": "ping"})).is_none());
    }
}
