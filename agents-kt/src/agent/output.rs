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
    /// `OUT`'s name, for errors and for the model when it is asked to repair an answer.
    pub type_name: &'static str,
}

impl OutputFormat {
    pub(crate) fn of<OUT: JsonSchema>() -> Self {
        let schema = serde_json::to_value(schemars::schema_for!(OUT)).unwrap_or(Value::Null);
        let is_plain_string = schema.get("type") == Some(&Value::String("string".into()))
            && schema.get("enum").is_none();
        OutputFormat {
            schema: (!is_plain_string).then_some(schema),
            type_name: std::any::type_name::<OUT>(),
        }
    }

    /// Parse `raw` into `OUT`; a clear [`AgentError::Output`] holding the raw text otherwise.
    pub(crate) fn parse<OUT: DeserializeOwned>(&self, raw: String) -> Result<OUT, AgentError> {
        let parsed = if self.schema.is_none() {
            serde_json::from_value(Value::String(raw.clone())).map_err(|error| error.to_string())
        } else {
            serde_json::from_str(unfenced(&raw)).map_err(|error| error.to_string())
        };
        parsed.map_err(|reason| AgentError::Output {
            expected: self.type_name.to_string(),
            raw,
            reason,
        })
    }

    /// What the model is told when its answer did not parse: the error, and what to send.
    pub(crate) fn repair_request(&self, reason: &str) -> String {
        format!(
            "Your answer is not a valid `{}`: {reason}. Answer again with only the JSON value, \
             following the required schema.",
            short_name(self.type_name)
        )
    }
}

/// `Forecast` for `my_crate::weather::Forecast`; generic arguments are kept.
fn short_name(type_name: &str) -> &str {
    let path = type_name.split('<').next().unwrap_or(type_name);
    let start = path.rfind("::").map_or(0, |at| at + 2);
    &type_name[start..]
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
    fn the_repair_request_names_the_type_without_its_path_and_says_why() {
        let format = OutputFormat::of::<Forecast>();
        let text = format.repair_request("missing field `celsius`");
        assert!(
            text.starts_with("Your answer is not a valid `Forecast`: missing field `celsius`."),
            "{text}"
        );
        assert_eq!(short_name("a::b::Wrapper<c::D>"), "Wrapper<c::D>");
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
            AgentError::Output {
                expected,
                raw,
                reason,
            } => {
                assert!(expected.ends_with("Forecast"), "{expected}");
                assert_eq!(raw, "sunny, 3 degrees");
                assert!(!reason.is_empty());
            }
            other => panic!("expected an output error, got {other:?}"),
        }
    }
}
