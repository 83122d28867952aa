//! The model side: the [`ModelClient`] trait every provider implements, and the offline
//! [`ScriptedModel`].

mod assemble;
mod scripted;

pub use assemble::ResponseAssembler;
pub use scripted::{Reply, ScriptedModel};

use futures::future::BoxFuture;
use futures::stream::BoxStream;

use crate::{ChatChunk, ChatRequest, ChatResponse};

/// A streamed answer: chunks in order, or an error that ends the stream.
pub type ChatStream<'a> = BoxStream<'a, Result<ChatChunk, ModelError>>;

/// A chat model the agent loop can call, whole (`chat`, the `run` path) or streamed
/// (`chat_stream`, the `session` path).
///
/// ```
/// use agents_kt::{ChatChunk, ChatRequest, ChatResponse, ChatStream, ModelClient, ModelError};
/// use futures::future::BoxFuture;
/// use futures::{FutureExt, StreamExt};
///
/// /// Answers every request with the last user message, reversed.
/// struct Reverser;
/// impl ModelClient for Reverser {
///     fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
///         let text: String = request.messages.last().map(|m| m.content.chars().rev().collect()).unwrap_or_default();
///         async move { Ok(ChatResponse::text(text)) }.boxed()
///     }
///     fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a> {
///         self.chat(request)
///             .map(|answer| answer.map(|r| ChatChunk::Text(r.content)))
///             .into_stream()
///             .boxed()
///     }
/// }
/// let answer = futures::executor::block_on(Reverser.chat(&ChatRequest::new(vec![agents_kt::Message::user("abc")])));
/// assert_eq!(answer.unwrap().content, "cba");
/// ```
pub trait ModelClient: Send + Sync + 'static {
    /// Send `request` and wait for the whole answer.
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>>;

    /// Send `request` and stream the answer as it is produced.
    fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a>;

    /// Which provider and model this client talks to, for traces and metrics
    /// (`gen_ai.provider.name`, `gen_ai.request.model`, `server.address`). Read once, when an
    /// agent is built. The default names no model and the provider `unknown`.
    ///
    /// ```
    /// use agents_kt::{ModelClient, ScriptedModel};
    /// assert_eq!(ScriptedModel::new([]).info().provider, "agents_kt.scripted");
    /// ```
    fn info(&self) -> ModelInfo {
        ModelInfo::new("unknown")
    }
}

/// What telemetry says about a model client: see [`ModelClient::info`].
///
/// ```
/// let info = agents_kt::ModelInfo::new("openai").model("gpt-4o").server("api.example.com", 443);
/// assert_eq!(info.model.as_deref(), Some("gpt-4o"));
/// assert_eq!(info.server_port, Some(443));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModelInfo {
    /// `gen_ai.provider.name`: `openai`, `anthropic`, … or a name of the client's own.
    pub provider: String,
    /// `gen_ai.request.model`: the model asked for, when the client names one.
    pub model: Option<String>,
    /// `server.address`: the host the client calls.
    pub server_address: Option<String>,
    /// `server.port`: the port the client calls.
    pub server_port: Option<u16>,
}

impl ModelInfo {
    /// A provider, no model and no server.
    pub fn new(provider: impl Into<String>) -> Self {
        ModelInfo {
            provider: provider.into(),
            model: None,
            server_address: None,
            server_port: None,
        }
    }

    /// With the model asked for.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// With the server called.
    pub fn server(mut self, address: impl Into<String>, port: u16) -> Self {
        self.server_address = Some(address.into());
        self.server_port = Some(port);
        self
    }
}

/// Why a model call failed.
///
/// ```
/// let e = agents_kt::ModelError::http(503, "overloaded");
/// assert!(matches!(e, agents_kt::ModelError::Http { status: 503, .. }));
/// ```
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A [`ScriptedModel`] received more requests than it has replies.
    #[error(
        "scripted model has no reply left for request {request}: add more replies to the script"
    )]
    #[non_exhaustive]
    ScriptExhausted {
        /// The 1-based number of the request that found the script empty.
        request: usize,
    },
    /// The provider answered with an HTTP error.
    #[error("model provider answered HTTP {status}: {body}")]
    #[non_exhaustive]
    Http {
        /// The HTTP status code.
        status: u16,
        /// The provider's error body, as received.
        body: String,
    },
    /// The request could not be sent or the connection failed.
    #[error("model transport failed: {0}")]
    Transport(String),
    /// The answer could not be understood.
    #[error("model answer is malformed: {0}")]
    InvalidResponse(String),
    /// The stream broke before the answer was complete; nothing of the partial answer is used.
    #[error("model stream broke mid-answer: {0}")]
    StreamBroken(String),
    /// Any other failure, described.
    #[error("model failed: {0}")]
    Other(String),
}

impl ModelError {
    /// The provider answered with HTTP `status` and this error body (what a `ModelClient` of
    /// your own returns for an error status).
    ///
    /// ```
    /// let e = agents_kt::ModelError::http(429, "slow down");
    /// assert_eq!(e.to_string(), "model provider answered HTTP 429: slow down");
    /// ```
    pub fn http(status: u16, body: impl Into<String>) -> Self {
        ModelError::Http {
            status,
            body: body.into(),
        }
    }
}

crate::error_debug::readable_debug!(ModelError);
