//! Turning the model's final text into the agent's `OUT`.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::AgentError;

/// How the final answer becomes `OUT`: verbatim text for a string output, JSON (with its schema
/// sent to the model as the response format) for anything else.
#[derive(Debug, Clone)]
pub(crate) struct OutputFormat {
    /// `OUT`'s JSON Schema, or `None` when `OUT` is a string and takes the text as it is.
    pub schema: Option<Value>,
}

impl OutputFormat {
    pub(crate) fn of<OUT: JsonSchema>() -> Self {
        let schema = serde_json::to_value(schemars::schema_for!(OUT)).unwrap_or(Value::Null);
        let is_plain_string = schema.get("type") == Some(&Value::String("string".into()))
            && schema.get("enum").is_none();
        OutputFormat {
            schema: (!is_plain_string).then_some(schema),
        }
    }

    /// Parse `raw` into `OUT`; a clear [`AgentError::Output`] holding the raw text otherwise.
    pub(crate) fn parse<OUT: DeserializeOwned>(&self, raw: String) -> Result<OUT, AgentError> {
        let parsed = if self.schema.is_none() {
            serde_json::from_value(Value::String(raw.clone())).map_err(|error| error.to_string())
        } else {
            serde_json::from_str(unfenced(&raw)).map_err(|error| error.to_string())
        };
        parsed.map_err(|reason| AgentError::Output { raw, reason })
    }
}

/// The JSON inside a Markdown code fence (```json … ```), or the trimmed text when unfenced.
fn unfenced(raw: &str) -> &str {
    let text = raw.trim();
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let body = rest.split_once('\n').map_or("", |(_language, body)| body);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
    struct Forecast {
        city: String,
        celsius: i32,
    }

    #[test]
    fn string_output_takes_the_text_verbatim_even_when_it_looks_like_json() {
        let format = OutputFormat::of::<String>();
        assert!(format.schema.is_none());
        let out: String = format.parse("\"quoted\" {\"a\":1}".into()).unwrap();
        assert_eq!(out, "\"quoted\" {\"a\":1}");
    }

    #[test]
    fn structured_output_parses_plain_and_fenced_json() {
        let format = OutputFormat::of::<Forecast>();
        assert!(format.schema.is_some());
        let plain: Forecast = format
            .parse(r#"{"city":"Oslo","celsius":3}"#.into())
            .unwrap();
        let fenced: Forecast = format
            .parse("```json\n{\"city\":\"Oslo\",\"celsius\":3}\n```".into())
            .unwrap();
        assert_eq!(plain, fenced);
    }

    #[test]
    fn unparsable_output_is_an_output_error_with_the_raw_text() {
        let format = OutputFormat::of::<Forecast>();
        let error = format
            .parse::<Forecast>("sunny, 3 degrees".into())
            .unwrap_err();
        match error {
            AgentError::Output { raw, reason } => {
                assert_eq!(raw, "sunny, 3 degrees");
                assert!(!reason.is_empty());
            }
            other => panic!("expected an output error, got {other:?}"),
        }
    }
}
