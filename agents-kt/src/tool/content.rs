//! A tool result made of content blocks — text, images, audio, links to resources, embedded
//! resources — in MCP's own shapes: what a remote MCP tool returns, what a Rust tool returns when
//! its result is more than text, and what the MCP server hands its clients untouched. The model
//! reads a text summary of it (the text, and a line naming each other part); everyone else reads
//! the blocks.

use std::fmt::Write as _;

use serde::de::{Deserializer, Error as _};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// A tool result made of content blocks (and, optionally, MCP structured content).
///
/// As JSON — what observers, events, journals and dynamic after-tool interceptors see — it is
/// MCP's result shape, `{"content": [blocks], "structuredContent": …}`; a replacement written in
/// that shape is read back into blocks, so an after-tool interceptor can drop an image by
/// returning the same object without it. The model reads [`ToolContent::model_text`]: the text
/// blocks, and one line for every other block saying what it is (type, MIME type, URI, size) — it
/// is never handed base64. The MCP server answers with the blocks as they are.
///
/// ```
/// use agents_kt::{ContentBlock, ToolContent};
///
/// let shot = ToolContent::new(vec![
///     ContentBlock::text("the login page"),
///     ContentBlock::image("iVBORw0KGgo=", "image/png"),
/// ]);
/// assert_eq!(
///     shot.model_text(),
///     "the login page\n[image: image/png, 8 bytes]"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ToolContent {
    blocks: Vec<ContentBlock>,
    structured: Option<Value>,
}

impl ToolContent {
    /// A result of these blocks, in order.
    pub fn new(blocks: Vec<ContentBlock>) -> Self {
        ToolContent {
            blocks,
            structured: None,
        }
    }

    /// With MCP structured content beside the blocks (an MCP client reads it as the result's
    /// JSON; the model still reads the blocks).
    pub fn with_structured(mut self, structured: Value) -> Self {
        self.structured = Some(structured);
        self
    }

    /// The blocks, in order.
    pub fn blocks(&self) -> &[ContentBlock] {
        &self.blocks
    }

    /// The structured content, if any.
    pub fn structured(&self) -> Option<&Value> {
        self.structured.as_ref()
    }

    /// Whether any block is something other than text.
    pub fn has_non_text(&self) -> bool {
        self.blocks.iter().any(|block| block.as_text().is_none())
    }

    /// What the model reads: each text block's text, and for every other block one line naming
    /// it — `[image: image/png, 1024 bytes]`, `[resource link: file:///a.txt, name "a.txt",
    /// text/plain]`, `[resource: file:///b.md, text/markdown]` followed by an embedded text
    /// resource's text — one per line.
    pub fn model_text(&self) -> String {
        model_text(self.blocks.iter().map(|block| &block.0))
    }

    /// Whether `value` has the shape of a content result: an object with a `content` array of
    /// blocks (objects with a string `type`), and besides it at most `structuredContent`.
    pub(crate) fn is_shape(value: &Value) -> bool {
        let Value::Object(map) = value else {
            return false;
        };
        let Some(Value::Array(blocks)) = map.get("content") else {
            return false;
        };
        map.keys()
            .all(|key| key == "content" || key == "structuredContent")
            && blocks
                .iter()
                .all(|block| block.get("type").is_some_and(Value::is_string))
    }
}

impl Serialize for ToolContent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("content", &self.blocks)?;
        if let Some(structured) = &self.structured {
            map.serialize_entry("structuredContent", structured)?;
        }
        map.end()
    }
}

/// Reads the content shape; any other JSON is read as a result of one block — a string as its
/// text, other JSON as text holding it and as structured content — so a remote tool bound to
/// `ToolContent` reads every server's answer.
impl<'de> Deserialize<'de> for ToolContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if ToolContent::is_shape(&value) {
            let Value::Object(mut map) = value else {
                return Err(D::Error::custom("content must be an object"));
            };
            let blocks = match map.remove("content") {
                Some(Value::Array(blocks)) => blocks
                    .into_iter()
                    .map(|block| match block {
                        Value::Object(block) => Ok(ContentBlock(block)),
                        _ => Err(D::Error::custom("a content block must be an object")),
                    })
                    .collect::<Result<_, _>>()?,
                _ => Vec::new(),
            };
            return Ok(ToolContent {
                blocks,
                structured: map.remove("structuredContent"),
            });
        }
        Ok(match value {
            Value::String(text) => ToolContent::new(vec![ContentBlock::text(text)]),
            value => {
                ToolContent::new(vec![ContentBlock::text(value.to_string())]).with_structured(value)
            }
        })
    }
}

/// One block of a [`ToolContent`]: a JSON object in MCP's shape (`type` is `text`, `image`,
/// `audio`, `resource_link` or `resource`), kept exactly as it came — annotations and `_meta`
/// included — so a gateway forwards it untouched.
///
/// ```
/// use agents_kt::ContentBlock;
///
/// let link = ContentBlock::resource_link("file:///notes/a.md", "a.md");
/// assert_eq!(link.kind(), "resource_link");
/// assert_eq!(link.uri(), Some("file:///notes/a.md"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct ContentBlock(Map<String, Value>);

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::of(json!({"type": "text", "text": text.into()}))
    }

    /// An image, base64-encoded, of MIME type `mime_type`.
    pub fn image(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::of(json!({"type": "image", "data": base64.into(), "mimeType": mime_type.into()}))
    }

    /// Audio, base64-encoded, of MIME type `mime_type`.
    pub fn audio(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::of(json!({"type": "audio", "data": base64.into(), "mimeType": mime_type.into()}))
    }

    /// A link to a resource the client may read.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self::of(json!({"type": "resource_link", "uri": uri.into(), "name": name.into()}))
    }

    /// An embedded text resource.
    pub fn resource_text(
        uri: impl Into<String>,
        text: impl Into<String>,
        mime_type: impl Into<String>,
    ) -> Self {
        Self::of(json!({"type": "resource", "resource": {
            "uri": uri.into(), "text": text.into(), "mimeType": mime_type.into()
        }}))
    }

    /// An embedded binary resource, base64-encoded.
    pub fn resource_blob(
        uri: impl Into<String>,
        base64: impl Into<String>,
        mime_type: impl Into<String>,
    ) -> Self {
        Self::of(json!({"type": "resource", "resource": {
            "uri": uri.into(), "blob": base64.into(), "mimeType": mime_type.into()
        }}))
    }

    /// Any block in MCP's shape: a JSON object with a string `type`.
    pub fn from_json(value: Value) -> Result<Self, String> {
        match value {
            Value::Object(map) if map.get("type").is_some_and(Value::is_string) => {
                Ok(ContentBlock(map))
            }
            other => Err(format!(
                "a content block is a JSON object with a string `type`, not {other}"
            )),
        }
    }

    fn of(value: Value) -> Self {
        match value {
            Value::Object(map) => ContentBlock(map),
            _ => ContentBlock(Map::new()),
        }
    }

    /// The block's `type`: `text`, `image`, `audio`, `resource_link`, `resource`, or whatever a
    /// newer server sends.
    pub fn kind(&self) -> &str {
        self.0.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// A text block's text.
    pub fn as_text(&self) -> Option<&str> {
        (self.kind() == "text")
            .then(|| self.0.get("text")?.as_str())
            .flatten()
    }

    /// The MIME type of an image, audio, a resource link or an embedded resource.
    pub fn mime_type(&self) -> Option<&str> {
        field(&self.0, "mimeType")
    }

    /// The URI of a resource link or an embedded resource.
    pub fn uri(&self) -> Option<&str> {
        field(&self.0, "uri")
    }

    /// The block as its JSON object.
    pub fn as_json(&self) -> &Map<String, Value> {
        &self.0
    }
}

/// A block's string `key`, or its embedded resource's (which keeps its URI, MIME type and
/// contents one level down).
fn field<'a>(block: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    block
        .get(key)
        .or_else(|| block.get("resource")?.get(key))
        .and_then(Value::as_str)
}

/// What the model reads of a content result's blocks (see [`ToolContent::model_text`]); read
/// from the JSON in place, so a result that is already JSON is not copied to be summarized.
pub(crate) fn model_text<'a>(blocks: impl Iterator<Item = &'a Map<String, Value>>) -> String {
    let mut out = String::new();
    for (index, block) in blocks.enumerate() {
        if index > 0 {
            out.push('\n');
        }
        describe(block, &mut out);
    }
    out
}

/// Appends what the model reads of one block.
fn describe(block: &Map<String, Value>, out: &mut String) {
    let kind = block
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("content");
    if kind == "text" {
        out.push_str(field(block, "text").unwrap_or(""));
        return;
    }
    let mut parts: Vec<String> = Vec::new();
    if let Some(uri) = field(block, "uri") {
        parts.push(uri.to_string());
    }
    if let Some(name) = block.get("name").and_then(Value::as_str) {
        parts.push(format!("name {name:?}"));
    }
    if let Some(mime) = field(block, "mimeType") {
        parts.push(mime.to_string());
    }
    if let Some(size) = block.get("size").and_then(Value::as_u64) {
        parts.push(format!("{size} bytes"));
    } else if let Some(data) = field(block, "data").or_else(|| field(block, "blob")) {
        parts.push(format!("{} bytes", decoded_len(data)));
    }
    let kind = if kind == "resource_link" {
        "resource link"
    } else {
        kind
    };
    if parts.is_empty() {
        let _ = write!(out, "[{kind}]");
    } else {
        let _ = write!(out, "[{kind}: {}]", parts.join(", "));
    }
    // An embedded text resource is text the server meant to be read.
    if let Some(text) = field(block, "text") {
        out.push('\n');
        out.push_str(text);
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ContentBlock::from_json(Value::deserialize(deserializer)?).map_err(D::Error::custom)
    }
}

/// How many bytes `base64` decodes to, without decoding it.
fn decoded_len(base64: &str) -> usize {
    let digits = base64
        .bytes()
        .filter(|byte| !byte.is_ascii_whitespace() && *byte != b'=')
        .count();
    digits * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_reads_text_and_one_line_per_other_part_never_base64() {
        let content = ToolContent::new(vec![
            ContentBlock::text("here"),
            ContentBlock::image("AAAA", "image/png"),
            ContentBlock::audio("AAAAAA==", "audio/wav"),
            ContentBlock::resource_link("file:///a.txt", "a.txt"),
            ContentBlock::resource_text("file:///b.md", "# B", "text/markdown"),
            ContentBlock::resource_blob("file:///c.bin", "AAE=", "application/octet-stream"),
            ContentBlock::from_json(json!({"type": "hologram"})).unwrap(),
        ]);
        assert_eq!(
            content.model_text(),
            "here\n[image: image/png, 3 bytes]\n[audio: audio/wav, 4 bytes]\n\
             [resource link: file:///a.txt, name \"a.txt\"]\n\
             [resource: file:///b.md, text/markdown]\n# B\n\
             [resource: file:///c.bin, application/octet-stream, 2 bytes]\n[hologram]"
        );
    }

    #[test]
    fn content_round_trips_through_its_json_untouched() {
        let raw = json!({"content": [
            {"type": "image", "data": "AAAA", "mimeType": "image/png",
             "annotations": {"audience": ["user"]}, "_meta": {"k": 1}},
            {"type": "text", "text": "x"}
        ], "structuredContent": {"n": 1}});
        let content: ToolContent = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(content.blocks().len(), 2);
        assert_eq!(content.structured(), Some(&json!({"n": 1})));
        assert_eq!(serde_json::to_value(&content).unwrap(), raw);
    }

    #[test]
    fn other_json_reads_as_one_text_block() {
        let text: ToolContent = serde_json::from_value(json!("sunny")).unwrap();
        assert_eq!(text.model_text(), "sunny");
        let object: ToolContent = serde_json::from_value(json!({"t": 4})).unwrap();
        assert_eq!(object.model_text(), r#"{"t":4}"#);
        assert_eq!(object.structured(), Some(&json!({"t": 4})));
        assert!(!ToolContent::is_shape(&json!({"content": [1]})));
        assert!(!ToolContent::is_shape(
            &json!({"content": [], "other": true})
        ));
    }
}
