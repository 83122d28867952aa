//! Real model providers over HTTP: the OpenAI-compatible chat-completions API and Anthropic's
//! Messages API, sharing one transport (retries, timeouts, SSE decoding).

#[cfg(feature = "fuzzing")]
pub mod fuzz;
mod http;
mod sse;

#[cfg(feature = "anthropic")]
mod anthropic;
#[cfg(feature = "openai")]
mod openai;
#[cfg(feature = "anthropic")]
mod output_tool;

pub use http::{HttpSettings, RetryPolicy};

#[cfg(feature = "anthropic")]
pub use anthropic::Anthropic;
#[cfg(feature = "openai")]
pub use openai::OpenAiCompatible;

/// A tool's arguments schema as a provider's request carries it: without the `$schema` dialect
/// marker, which some OpenAI-compatible servers refuse (the rest of the schema is unchanged).
pub(crate) fn parameters_for_model(parameters: &serde_json::Value) -> serde_json::Value {
    match parameters {
        serde_json::Value::Object(schema) if schema.contains_key("$schema") => {
            let mut schema = schema.clone();
            schema.remove("$schema");
            serde_json::Value::Object(schema)
        }
        other => other.clone(),
    }
}
