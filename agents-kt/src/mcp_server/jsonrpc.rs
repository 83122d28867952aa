//! What both transports check of a JSON-RPC message before rmcp reads it: rmcp would answer a
//! malformed `tools/call` with "method not found", and an `id` or `params` of the wrong JSON type
//! with a plain-text HTTP error. Both transports answer these in JSON-RPC, with the same texts.

use std::borrow::Cow;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// A JSON-RPC message as far as the checks look: its envelope, its small values borrowed as
/// their text and read only as far as a check needs (both transports read every message through
/// it: building values here cost as much as the rest of the guard).
#[derive(serde::Deserialize)]
pub(crate) struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<&'a RawValue>,
    /// `null` reads as absent: a null id is left to rmcp, as [`id_problem`] says.
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    /// Only the kinds the checks look at.
    #[serde(default)]
    params: Params,
    /// Skipped, not borrowed: only their presence is checked, and an answer's result is most
    /// of its bytes.
    result: Option<IgnoredAny>,
    error: Option<IgnoredAny>,
}

/// The JSON-RPC error a message is refused with before rmcp reads it.
#[derive(Debug)]
pub(crate) struct Refusal {
    /// The id to answer with (null when the message's cannot be echoed).
    pub id: Value,
    /// `-32700` not JSON, `-32600` not one message, `-32602` invalid params.
    pub code: i64,
    pub message: String,
}

impl<'a> Envelope<'a> {
    /// Read `bytes` as one JSON-RPC message and check it, as both transports do: the envelope,
    /// or the refusal to answer — `-32700 Parse error` for what is not JSON, `-32600 Invalid
    /// Request` for what is not one message, `-32602 Invalid params` for a request whose params
    /// do not fit its method (a notification is never answered, whatever its params).
    pub(crate) fn check(bytes: &'a [u8]) -> Result<Envelope<'a>, Refusal> {
        // UTF-8 checked once, over the whole message: read from a `&str`, serde_json checks no
        // string or borrowed value again (from bytes it checked each of them on its own).
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(error) => {
                return Err(Refusal {
                    id: Value::Null,
                    code: -32700,
                    message: format!("Parse error: {error}"),
                });
            }
        };
        let message: Envelope = match serde_json::from_str(text) {
            Ok(message) => message,
            Err(error) if error.is_data() => {
                // JSON, but not one message: re-read as a value to say why.
                let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
                let problem = not_a_message(&value).unwrap_or("not a message");
                return Err(Refusal::invalid(echoable_id(value.get("id")), problem));
            }
            Err(error) => {
                return Err(Refusal {
                    id: Value::Null,
                    code: -32700,
                    message: format!("Parse error: {error}"),
                });
            }
        };
        if let Some(problem) = message.problem() {
            return Err(Refusal::invalid(
                echoable_id(message.id().as_ref()),
                problem,
            ));
        }
        if let (Some(Some(method)), Some(_)) = (message.method.map(string), message.id)
            && let Some(problem) = invalid_params(&method, &message.params)
        {
            return Err(Refusal {
                id: message.id().unwrap_or(Value::Null),
                code: -32602,
                message: problem.to_string(),
            });
        }
        Ok(message)
    }

    /// The id of a request (a message with a method and an id), which its answer repeats.
    pub(crate) fn request_id(&self) -> Option<Value> {
        self.method.and(self.id())
    }

    /// Whether this is a request (it has a method and an id).
    pub(crate) fn is_request(&self) -> bool {
        self.method.is_some() && self.id.is_some()
    }

    /// The id, read.
    fn id(&self) -> Option<Value> {
        self.id.and_then(|id| serde_json::from_str(id.get()).ok())
    }

    /// Why this is not one JSON-RPC 2.0 message, if not (as [`not_a_message`]).
    fn problem(&self) -> Option<&'static str> {
        if self.jsonrpc.and_then(string).as_deref() != Some("2.0") {
            return Some("`jsonrpc` must be \"2.0\"");
        }
        if let Some(problem) = self.id.and_then(|id| id_problem(Kind::of_text(id.get()))) {
            return Some(problem);
        }
        match self.method {
            Some(method) if Kind::of_text(method.get()) != Kind::String => {
                Some("`method` must be a string")
            }
            Some(_) => None,
            None if self.result.is_some() || self.error.is_some() => None,
            None => Some("a message has a `method`, or a `result` or `error`"),
        }
    }
}

/// A JSON string's text, unescaped only when it has escapes; `None` for anything else.
fn string(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    match inner.contains('\\') {
        false => Some(Cow::Borrowed(inner)),
        true => serde_json::from_str::<String>(text).ok().map(Cow::Owned),
    }
}

impl Refusal {
    fn invalid(id: Value, problem: &str) -> Refusal {
        Refusal {
            id,
            code: -32600,
            message: format!("Invalid Request: {problem}"),
        }
    }
}

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
    /// The kind of a JSON value's text (valid JSON, as the parser handed it over).
    fn of_text(text: &str) -> Kind {
        match text.trim_start().as_bytes().first() {
            None => Kind::Absent,
            Some(b'n') => Kind::Null,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'"') => Kind::String,
            Some(b'[') => Kind::Array,
            Some(b'{') => Kind::Object,
            Some(_) => Kind::Number,
        }
    }

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

/// Whether `line` — a message rmcp wrote — answers a request: a response or an error, not a
/// request or a notification of its own. Read only up to the first key that decides it (rmcp
/// writes `jsonrpc`, `id`, then `result` or `error`; `method` before `params`), so an answer's
/// result — most of its bytes — is never scanned. What does not read as an object is not an
/// answer.
pub(crate) fn answers_a_request(line: &[u8]) -> bool {
    use std::cell::Cell;
    struct Decide<'c>(&'c Cell<bool>);
    impl<'de> Visitor<'de> for Decide<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON-RPC message")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<TopKey>()? {
                match key {
                    TopKey::Answer => {
                        self.0.set(true);
                        // Decided: stop reading here (the error only ends the read).
                        return Err(serde::de::Error::custom("decided"));
                    }
                    TopKey::Method => return Err(serde::de::Error::custom("decided")),
                    TopKey::Other => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }
    let answer = Cell::new(false);
    let _ = serde_json::Deserializer::from_slice(line).deserialize_map(Decide(&answer));
    answer.get()
}

/// A top-level key of a message rmcp wrote, as [`answers_a_request`] reads it.
enum TopKey {
    /// `result` or `error`.
    Answer,
    Method,
    Other,
}

impl<'de> Deserialize<'de> for TopKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(KeyVisitor(|key| match key {
            "result" | "error" => TopKey::Answer,
            "method" => TopKey::Method,
            _ => TopKey::Other,
        }))
    }
}

/// Reads an object's key as its function names it, without copying the key (an escaped key is
/// unescaped by the deserializer first).
struct KeyVisitor<K>(fn(&str) -> K);

impl<K> Visitor<'_> for KeyVisitor<K> {
    type Value = K;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, key: &str) -> Result<K, E> {
        Ok((self.0)(key))
    }
}

/// A key of `params`, read without copying it.
enum ParamsKey {
    Name,
    Arguments,
    Other,
}

impl<'de> Deserialize<'de> for ParamsKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(KeyVisitor(|key| match key {
            "name" => ParamsKey::Name,
            "arguments" => ParamsKey::Arguments,
            _ => ParamsKey::Other,
        }))
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
        while let Some(key) = map.next_key::<ParamsKey>()? {
            // Their text only: a parse of `arguments` is the tool's, later.
            match key {
                ParamsKey::Name => name = Kind::of_text(map.next_value::<&'de RawValue>()?.get()),
                ParamsKey::Arguments => {
                    arguments = Kind::of_text(map.next_value::<&'de RawValue>()?.get())
                }
                ParamsKey::Other => {
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
    fn params_of_the_wrong_shape_are_refused() {
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
            let problem = invalid_params("tools/call", &streamed(params.clone()));
            match refused {
                None => assert_eq!(problem, None, "{params}"),
                Some(word) => assert!(problem.is_some_and(|p| p.contains(word)), "{params}"),
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

    #[test]
    fn check_refuses_each_malformed_message_with_its_code_and_passes_the_rest() {
        let refused = |text: &str| match Envelope::check(text.as_bytes()) {
            Err(refusal) => (refusal.code, refusal.id, refusal.message),
            Ok(_) => panic!("{text} passed"),
        };
        let (code, id, message) = refused("{\"jsonrpc\": \"2.0\", \"id\": 1,");
        assert_eq!((code, id), (-32700, Value::Null));
        assert!(message.starts_with("Parse error: "), "{message}");
        let (code, _, message) =
            refused("[{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}]");
        assert_eq!(code, -32600);
        assert!(message.contains("batches"), "{message}");
        // Read as JSON but not as an envelope: the reason comes from the whole value.
        let (code, id, message) = refused("{\"jsonrpc\": 2, \"id\": 7, \"method\": \"ping\"}");
        assert_eq!((code, id), (-32600, json!(7)));
        assert!(message.contains("`jsonrpc`"), "{message}");
        let (code, id, _) = refused("{\"jsonrpc\": \"2.0\", \"id\": {}, \"method\": \"ping\"}");
        assert_eq!((code, id), (-32600, Value::Null));
        let (code, id, _) = refused("{\"jsonrpc\": \"2.0\", \"id\": \"a\", \"method\": 5}");
        assert_eq!((code, id), (-32600, json!("a")));
        let call = "{\"jsonrpc\": \"2.0\", \"id\": \"c\", \"method\": \"tools/call\", \"params\": {\"name\": 1}}";
        let (code, id, message) = refused(call);
        assert_eq!((code, id), (-32602, json!("c")));
        assert!(message.contains("`name`"), "{message}");

        fn passes(text: &str) -> Envelope<'_> {
            match Envelope::check(text.as_bytes()) {
                Ok(message) => message,
                Err(refusal) => panic!("{text} refused: {refusal:?}"),
            }
        }
        // A notification is never answered, whatever its params.
        let notification =
            passes("{\"jsonrpc\": \"2.0\", \"method\": \"tools/call\", \"params\": 3}");
        assert_eq!(notification.request_id(), None);
        let request = passes(
            "{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"tools/call\", \"params\": {\"name\": \"t\", \"arguments\": {\"x\": [1, {}]}}}",
        );
        assert_eq!(request.request_id(), Some(json!(9)));
        // Escaped strings are read as their text; values keep their own spacing.
        let escaped = passes(
            "{\"jsonrpc\": \"2\\u002e0\", \"id\" : \"a\\\"b\", \"method\": \"tools\\/call\", \"params\": {\"name\": \"t\", \"arguments\" :  {}}}",
        );
        assert_eq!(escaped.request_id(), Some(json!("a\"b")));
        let (code, _, _) = refused(
            "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools\\/call\", \"params\": {\"name\": \"t\", \"arguments\": [1]}}",
        );
        assert_eq!(code, -32602, "an escaped method name is still tools/call");
        let answer = passes("{\"jsonrpc\": \"2.0\", \"id\": 9, \"result\": {}}");
        assert!(!answer.is_request() && answer.request_id().is_none());
    }

    #[test]
    fn a_message_that_is_not_utf8_is_a_parse_error_and_non_ascii_text_passes() {
        let mut bytes =
            b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\", \"x\": \"".to_vec();
        bytes.extend_from_slice(&[0xff, 0xfe]);
        bytes.extend_from_slice(b"\"}");
        let Err(refusal) = Envelope::check(&bytes) else {
            panic!("invalid UTF-8 passed");
        };
        assert_eq!((refusal.code, refusal.id), (-32700, Value::Null));
        assert!(
            refusal.message.starts_with("Parse error: "),
            "{}",
            refusal.message
        );
        let text = "{\"jsonrpc\": \"2.0\", \"id\": \"Reykjavík\", \"method\": \"tools/call\", \"params\": {\"name\": \"t\", \"arguments\": {\"city\": \"Þórshöfn\"}}}";
        let request = Envelope::check(text.as_bytes())
            .ok()
            .and_then(|m| m.request_id());
        assert_eq!(request, Some(json!("Reykjavík")));
    }

    #[test]
    fn only_responses_and_errors_answer_a_request_whatever_their_keys_hold() {
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}"#,
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}"#,
                true,
            ),
            (r#"{"id":1,"jsonrpc":"2.0","result":{}}"#, true),
            (
                r#"{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{"result":1}}"#,
                false,
            ),
            (
                r#"{"jsonrpc":"2.0","params":{"result":1,"error":2},"method":"notifications/progress"}"#,
                false,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/message"}"#,
                false,
            ),
            (r#"{"jsonrpc":"2.0","id":3}"#, false),
            ("[1, 2]", false),
            ("not json", false),
            ("", false),
        ];
        for (line, answers) in cases {
            assert_eq!(answers_a_request(line.as_bytes()), answers, "{line}");
        }
    }
}
