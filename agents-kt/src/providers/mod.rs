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
