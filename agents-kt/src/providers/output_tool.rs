//! Structured output on the Messages API, which has no response format: the answer is the input
//! of a tool the model is made to call, whose input schema is the output type's schema.

use serde_json::{Map, Value, json};

use crate::ChatRequest;

/// The name of the tool whose input is the answer. While a structured answer is asked for, a call
/// of this name is read as the answer, never run as a tool.
pub(crate) const OUTPUT_TOOL: &str = "agents_kt_output";

/// How a structured answer travels for one request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct OutputTool {
    /// A tool's input must be an object: an output type that is not one (a list, a number, an
    /// enum of strings) travels as `{"value": …}`.
    wrapped: bool,
}

impl OutputTool {
    /// The output tool of `request`, if it asks for a structured answer.
    pub(crate) fn of(request: &ChatRequest) -> Option<Self> {
        request.response_format.as_ref().map(|schema| OutputTool {
            wrapped: schema.get("type").and_then(Value::as_str) != Some("object"),
        })
    }

    /// The tool's definition, with `schema` (the output type's) as its input schema.
    pub(crate) fn definition(self, schema: &Value) -> Value {
        let input_schema = if self.wrapped {
            wrap(schema)
        } else {
            schema.clone()
        };
        json!({
            "name": OUTPUT_TOOL,
            "description": "Give your final answer: the input of this call is the answer.",
            "input_schema": input_schema,
        })
    }

    /// The tool choice: this tool when it is the only one, else the user's choice or, by default,
    /// `any` — every turn then ends in a tool call, and the last one is the answer.
    pub(crate) fn choice(self, other_tools: bool, user: Option<&Value>) -> Value {
        match (other_tools, user) {
            // One answer: a second call of the tool would be a second, conflicting answer.
            (false, _) => {
                json!({"type": "tool", "name": OUTPUT_TOOL, "disable_parallel_tool_use": true})
            }
            (true, Some(choice)) => choice.clone(),
            (true, None) => json!({"type": "any"}),
        }
    }

    /// The answer's JSON text, from the tool's streamed input text: the model's bytes as they
    /// came, unwrapped if need be. Text that is not JSON is passed on as it is, so the output
    /// error shows what the model sent.
    pub(crate) fn answer_text(self, input: String) -> String {
        if !self.wrapped {
            return input;
        }
        match serde_json::from_str::<Value>(&input) {
            Ok(input) => self.answer(&input),
            Err(_) => input,
        }
    }

    /// The answer's JSON text, from the tool's input.
    pub(crate) fn answer(self, input: &Value) -> String {
        if self.wrapped {
            input.get("value").unwrap_or(&Value::Null).to_string()
        } else {
            input.to_string()
        }
    }
}

/// `{"type": "object", "properties": {"value": schema}}`, with the schema's definitions moved to
/// the root so that its `#/$defs/…` references still resolve.
fn wrap(schema: &Value) -> Value {
    let mut inner = schema.clone();
    let mut root = Map::new();
    if let Some(inner) = inner.as_object_mut() {
        inner.remove("$schema");
        for key in ["$defs", "definitions"] {
            if let Some(definitions) = inner.remove(key) {
                root.insert(key.into(), definitions);
            }
        }
    }
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), json!({ "value": inner }));
    root.insert("required".into(), json!(["value"]));
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(schema: Value) -> ChatRequest {
        ChatRequest {
            response_format: Some(schema),
            ..ChatRequest::new(Vec::new())
        }
    }

    #[test]
    fn an_object_schema_is_the_tools_input_schema_and_the_input_is_the_answer() {
        let schema = json!({"type": "object", "properties": {"celsius": {"type": "integer"}}});
        let tool = OutputTool::of(&request(schema.clone())).unwrap();
        assert_eq!(tool.definition(&schema)["input_schema"], schema);
        assert_eq!(tool.answer(&json!({"celsius": 3})), r#"{"celsius":3}"#);
    }

    #[test]
    fn a_non_object_schema_is_wrapped_with_its_definitions_at_the_root() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "array",
            "items": {"$ref": "#/$defs/City"},
            "$defs": {"City": {"type": "string"}},
        });
        let tool = OutputTool::of(&request(schema.clone())).unwrap();
        let input = &tool.definition(&schema)["input_schema"];
        assert_eq!(input["type"], "object");
        assert_eq!(input["$defs"]["City"]["type"], "string");
        assert_eq!(
            input["properties"]["value"]["items"]["$ref"],
            "#/$defs/City"
        );
        assert!(input["properties"]["value"].get("$defs").is_none());
        assert_eq!(tool.answer(&json!({"value": ["Oslo"]})), r#"["Oslo"]"#);
        assert_eq!(tool.answer_text(r#"{"value": [1]}"#.into()), "[1]");
        assert_eq!(tool.answer_text("not json".into()), "not json");
    }

    #[test]
    fn the_output_tool_is_forced_alone_and_any_tool_is_required_beside_others() {
        let tool = OutputTool { wrapped: false };
        assert_eq!(tool.choice(false, None)["name"], OUTPUT_TOOL);
        assert_eq!(tool.choice(true, None), json!({"type": "any"}));
        let auto = json!({"type": "auto"});
        assert_eq!(tool.choice(true, Some(&auto)), auto);
    }

    #[test]
    fn a_plain_text_request_has_no_output_tool() {
        assert_eq!(OutputTool::of(&ChatRequest::new(Vec::new())), None);
    }
}
