//! Entry points for `cargo fuzz` (the `fuzz/` crate; cargo feature `fuzzing`, not part of the
//! API): the providers' real parsers — the SSE event parser, the stream decoders, the answer
//! assembler and the whole-answer parsers — fed arbitrary bytes.

use std::time::Duration;

use futures::StreamExt;
use serde_json::json;

use super::http::{Provider, parse_body};
use super::sse::chunks_of;
use crate::{ChatRequest, ChatResponse, Message, ModelError, ResponseAssembler};

/// Whose wire format the bytes are in.
#[derive(Debug, Clone, Copy)]
pub enum Wire {
    /// OpenAI chat completions.
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
}

/// The request the bytes answer: plain text, or a structured answer (a response format; on
/// Anthropic, the forced output tool).
fn request(structured: bool) -> ChatRequest {
    let mut request = ChatRequest::new(vec![Message::user("fuzz")]);
    if structured {
        request.response_format = Some(json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        }));
    }
    request
}

// Built once: a provider's HTTP client loads the system's root certificates, which would
// dominate every input's time.
#[cfg(feature = "openai")]
fn openai() -> &'static crate::OpenAiCompatible {
    static CLIENT: std::sync::OnceLock<crate::OpenAiCompatible> = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| crate::OpenAiCompatible::new("http://127.0.0.1:9/v1", "fuzz"))
}

#[cfg(feature = "anthropic")]
fn anthropic() -> &'static crate::Anthropic {
    static CLIENT: std::sync::OnceLock<crate::Anthropic> = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| crate::Anthropic::new("fuzz"))
}

thread_local! {
    static RUNTIME: Option<tokio::runtime::Runtime> = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .ok();
}

/// A streamed answer arriving in `pieces` (split where the fuzzer chose), decoded and assembled
/// as `ModelClient::chat_stream` and the agent loop do.
pub fn stream(
    wire: Wire,
    structured: bool,
    pieces: Vec<Vec<u8>>,
) -> Result<ChatResponse, ModelError> {
    let request = request(structured);
    let bytes = futures::stream::iter(
        pieces
            .into_iter()
            .map(|piece| Ok::<_, std::io::Error>(bytes::Bytes::from(piece))),
    );
    let idle = Duration::from_secs(3600);
    let chunks = match wire {
        #[cfg(feature = "openai")]
        Wire::OpenAi => chunks_of(bytes, idle, openai().decoder(&request)),
        #[cfg(feature = "anthropic")]
        Wire::Anthropic => chunks_of(bytes, idle, anthropic().decoder(&request)),
        #[allow(unreachable_patterns)]
        _ => return Err(ModelError::Other("provider not built".into())),
    };
    let assemble = async move {
        let mut answer = ResponseAssembler::default();
        let mut chunks = chunks;
        while let Some(chunk) = chunks.next().await {
            answer.push(chunk?);
        }
        answer.finish()
    };
    RUNTIME.with(|runtime| match runtime {
        Some(runtime) => runtime.block_on(assemble),
        None => Err(ModelError::Other("no runtime".into())),
    })
}

/// A whole (non-streamed) answer body, parsed as `ModelClient::chat` does.
pub fn whole(wire: Wire, structured: bool, body: &[u8]) -> Result<ChatResponse, ModelError> {
    let request = request(structured);
    let text = String::from_utf8_lossy(body);
    let value = parse_body(&text)?;
    match wire {
        #[cfg(feature = "openai")]
        Wire::OpenAi => openai().response(&request, &value),
        #[cfg(feature = "anthropic")]
        Wire::Anthropic => anthropic().response(&request, &value),
        #[allow(unreachable_patterns)]
        _ => Err(ModelError::Other("provider not built".into())),
    }
}
