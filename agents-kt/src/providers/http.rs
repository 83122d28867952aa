//! The transport both providers share: one request with retries (exponential backoff with jitter
//! on 429, 5xx and connection failures, honouring `Retry-After`), and timeouts.

use std::time::Duration;

use rand::Rng;
use reqwest::{RequestBuilder, Response, StatusCode};

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt, TryStreamExt, stream};

use super::sse::{self, Decoder};
use crate::error_chain::error_chain;
use crate::{ChatRequest, ChatResponse, ChatStream, ModelError};

/// What differs between providers; `chat` and `chat_stream` below are the same for all.
pub(crate) trait Provider: Send + Sync {
    /// Turns the provider's stream events into chunks.
    type Decoder: Decoder;
    /// The request body for `request`.
    fn body(&self, request: &ChatRequest, stream: bool) -> serde_json::Value;
    /// The HTTP client, or why it could not be built.
    fn client(&self) -> Result<&reqwest::Client, ModelError>;
    /// A POST of `body` to the provider's endpoint, with its headers.
    fn post(&self, client: &reqwest::Client, body: &str) -> RequestBuilder;
    /// Timeouts and retries.
    fn settings(&self) -> &HttpSettings;
    /// The decoder of the streamed answer to `request`.
    fn decoder(&self, request: &ChatRequest) -> Self::Decoder;
    /// The whole (non-streamed) answer to `request`.
    fn response(
        &self,
        request: &ChatRequest,
        body: &serde_json::Value,
    ) -> Result<ChatResponse, ModelError>;
    /// The telemetry facts of the provider ([`model_info`]).
    fn info(&self) -> crate::ModelInfo;
}

/// `ModelClient` for a [`Provider`]: every provider chats and streams through this module, so
/// the impl is the same for each.
macro_rules! model_client {
    ($provider:ty) => {
        impl $crate::ModelClient for $provider {
            fn chat<'a>(
                &'a self,
                request: &'a $crate::ChatRequest,
            ) -> ::futures::future::BoxFuture<
                'a,
                ::core::result::Result<$crate::ChatResponse, $crate::ModelError>,
            > {
                $crate::providers::http::chat(self, request)
            }

            fn chat_stream<'a>(
                &'a self,
                request: &'a $crate::ChatRequest,
            ) -> $crate::ChatStream<'a> {
                $crate::providers::http::chat_stream(self, request)
            }

            fn info(&self) -> $crate::ModelInfo {
                $crate::providers::http::Provider::info(self)
            }
        }
    };
}
pub(crate) use model_client;

/// `ModelClient::chat` for any provider: send with retries, parse the whole answer.
pub(crate) fn chat<'a, P: Provider>(
    provider: &'a P,
    request: &'a ChatRequest,
) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
    async move {
        let client = provider.client()?;
        let body = provider.body(request, false).to_string();
        let reply = send(|| provider.post(client, &body), provider.settings()).await?;
        provider.response(request, &json_body(reply).await?)
    }
    .boxed()
}

/// `ModelClient::chat_stream` for any provider: retries only until the stream starts delivering.
pub(crate) fn chat_stream<'a, P: Provider>(
    provider: &'a P,
    request: &'a ChatRequest,
) -> ChatStream<'a> {
    let body = provider.body(request, true).to_string();
    let idle = provider.settings().idle_timeout;
    let decoder = provider.decoder(request);
    stream::once(async move {
        let client = provider.client()?;
        let reply = send(|| provider.post(client, &body), provider.settings()).await?;
        Ok(sse::chunks(reply, idle, decoder))
    })
    .try_flatten()
    .boxed()
}

/// When and how often a failed request is retried. A streamed answer is never retried once it
/// has started delivering.
///
/// ```
/// use std::time::Duration;
/// let policy = agents_kt::RetryPolicy::default().max_retries(2);
/// assert_eq!(policy.max_retries, 2);
/// assert_eq!(policy.initial_backoff, Duration::from_millis(500));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 3).
    pub max_retries: u32,
    /// Backoff before the first retry, doubled for each later one (default 500 ms).
    pub initial_backoff: Duration,
    /// The longest backoff, and the longest `Retry-After` honoured (default 30 s).
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// Retry at most `retries` times after the first attempt (0: never retry).
    ///
    /// ```
    /// assert_eq!(agents_kt::RetryPolicy::default().max_retries(0).max_retries, 0);
    /// ```
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// Wait `backoff` before the first retry (doubled for each later one).
    ///
    /// ```
    /// use std::time::Duration;
    /// let p = agents_kt::RetryPolicy::default().initial_backoff(Duration::from_millis(10));
    /// assert_eq!(p.initial_backoff, Duration::from_millis(10));
    /// ```
    pub fn initial_backoff(mut self, backoff: Duration) -> Self {
        self.initial_backoff = backoff;
        self
    }

    /// Never wait longer than `backoff` before a retry, whatever `Retry-After` says.
    ///
    /// ```
    /// use std::time::Duration;
    /// let p = agents_kt::RetryPolicy::default().max_backoff(Duration::from_secs(2));
    /// assert_eq!(p.max_backoff, Duration::from_secs(2));
    /// ```
    pub fn max_backoff(mut self, backoff: Duration) -> Self {
        self.max_backoff = backoff;
        self
    }

    /// The wait before retry number `retry` (from 0): the server's `Retry-After` if it gave one,
    /// else exponential backoff with full jitter; never above `max_backoff`.
    fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.max_backoff);
        }
        let ceiling = self
            .initial_backoff
            .saturating_mul(1u32 << retry.min(16))
            .min(self.max_backoff);
        let millis = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(rand::rng().random_range(millis / 2..=millis.max(1)))
    }
}

/// Timeouts and retries of a provider client.
///
/// ```
/// use std::time::Duration;
/// let settings = agents_kt::HttpSettings::default().idle_timeout(Duration::from_secs(30));
/// assert_eq!(settings.request_timeout, Duration::from_secs(120));
/// assert_eq!(settings.idle_timeout, Duration::from_secs(30));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HttpSettings {
    /// Longest wait for a whole (non-streamed) answer, and for a stream's response headers.
    pub request_timeout: Duration,
    /// Longest silence between two events of a streamed answer.
    pub idle_timeout: Duration,
    /// Longest wait for a connection.
    pub connect_timeout: Duration,
    /// Retries of failed requests.
    pub retry: RetryPolicy,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            request_timeout: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            retry: RetryPolicy::default(),
        }
    }
}

impl HttpSettings {
    /// Wait at most `timeout` for a whole answer (and for a stream's response headers).
    ///
    /// ```
    /// use std::time::Duration;
    /// let s = agents_kt::HttpSettings::default().request_timeout(Duration::from_secs(5));
    /// assert_eq!(s.request_timeout, Duration::from_secs(5));
    /// ```
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Give up on a stream silent for longer than `timeout`.
    ///
    /// ```
    /// use std::time::Duration;
    /// let s = agents_kt::HttpSettings::default().idle_timeout(Duration::from_secs(5));
    /// assert_eq!(s.idle_timeout, Duration::from_secs(5));
    /// ```
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Wait at most `timeout` for a connection.
    ///
    /// ```
    /// use std::time::Duration;
    /// let s = agents_kt::HttpSettings::default().connect_timeout(Duration::from_secs(1));
    /// assert_eq!(s.connect_timeout, Duration::from_secs(1));
    /// ```
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Retry failed requests as `policy` says.
    ///
    /// ```
    /// use agents_kt::{HttpSettings, RetryPolicy};
    /// let s = HttpSettings::default().retry(RetryPolicy::default().max_retries(0));
    /// assert_eq!(s.retry.max_retries, 0);
    /// ```
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    pub(crate) fn client(&self) -> Result<reqwest::Client, ModelError> {
        reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .build()
            .map_err(|error| {
                ModelError::Transport(format!("could not build the HTTP client: {error}"))
            })
    }
}

/// Send the request `build` makes, retrying what is worth retrying. Returns the successful
/// response (its body not yet read), or the provider's error with status and body.
pub(crate) async fn send(
    build: impl Fn() -> RequestBuilder,
    settings: &HttpSettings,
) -> Result<Response, ModelError> {
    let mut retry = 0;
    let mut resent = false;
    loop {
        let attempt = build().timeout(settings.request_timeout).send().await;
        let (error, retry_after) = match attempt {
            Ok(response) if response.status().is_success() => return Ok(response),
            Ok(response) => {
                let status = response.status();
                let retry_after = retry_after(&response);
                let body = response.text().await.unwrap_or_default();
                let error = ModelError::Http {
                    status: status.as_u16(),
                    body,
                };
                if !retryable(status) {
                    return Err(error);
                }
                (error, retry_after)
            }
            Err(error) if !resent && closed_before_answering(&error) => {
                // A kept-alive connection the server had already closed (llama-server closes one
                // after every streamed answer without saying so). Not a failure of the request:
                // sent again at once, on a fresh connection, once — not after a backoff.
                tracing::debug!(error = %error_chain(&error), "kept-alive connection was closed; resending");
                resent = true;
                continue;
            }
            Err(error) => {
                let retryable = error.is_connect() || error.is_timeout() || error.is_request();
                let error = ModelError::Transport(error_chain(&error));
                if !retryable {
                    return Err(error);
                }
                (error, None)
            }
        };
        if retry >= settings.retry.max_retries {
            return Err(error);
        }
        let wait = settings.retry.delay(retry, retry_after);
        tracing::warn!(%error, retry = retry + 1, wait_ms = wait.as_millis() as u64, "model request failed; retrying");
        tokio::time::sleep(wait).await;
        retry += 1;
    }
}

fn retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

/// Whether the connection closed before any of the answer arrived (hyper's "connection closed
/// before message completed").
fn closed_before_answering(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(hyper) = cause.downcast_ref::<hyper::Error>() {
            return hyper.is_incomplete_message();
        }
        source = cause.source();
    }
    false
}

/// `Retry-After` in seconds, when the server sent one.
fn retry_after(response: &Response) -> Option<Duration> {
    let value = response.headers().get(reqwest::header::RETRY_AFTER)?;
    let seconds: f64 = value.to_str().ok()?.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// A provider's telemetry facts: its name, the model asked for, and the host and port called
/// (OpenAI-compatible servers are named `openai`: the semantic conventions name the API a client
/// speaks when the real provider is not known).
pub(crate) fn model_info(provider: &str, model: &str, base_url: &str) -> crate::ModelInfo {
    let info = crate::ModelInfo::new(provider).model(model);
    match reqwest::Url::parse(base_url) {
        Ok(url) => match (url.host_str(), url.port_or_known_default()) {
            (Some(host), Some(port)) => info.server(host, port),
            _ => info,
        },
        Err(_) => info,
    }
}

/// Read a successful response's JSON body.
pub(crate) async fn json_body(response: Response) -> Result<serde_json::Value, ModelError> {
    let text = response
        .text()
        .await
        .map_err(|error| ModelError::Transport(error_chain(&error)))?;
    parse_body(&text)
}

/// A response body's JSON.
pub(crate) fn parse_body(text: &str) -> Result<serde_json::Value, ModelError> {
    serde_json::from_str(text).map_err(|error| {
        ModelError::InvalidResponse(format!("the body is not JSON ({error}): {}", preview(text)))
    })
}

/// The start of a long text, for error messages.
pub(crate) fn preview(text: &str) -> String {
    const LIMIT: usize = 500;
    match text.char_indices().nth(LIMIT) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_with_jitter_and_is_capped() {
        let policy = RetryPolicy {
            max_retries: 5,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(1000),
        };
        for _ in 0..100 {
            let first = policy.delay(0, None);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
            let later = policy.delay(10, None);
            assert!(later >= Duration::from_millis(500) && later <= Duration::from_millis(1000));
        }
    }

    #[test]
    fn retry_after_wins_but_is_capped() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(999))),
            policy.max_backoff
        );
    }
}
