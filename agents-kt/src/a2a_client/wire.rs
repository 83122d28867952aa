//! A2A's JSON-RPC binding over HTTP: one POST per request with the `A2A-Version` header, the
//! answer read as one JSON-RPC response or as server-sent events of them, every body capped.
//! A request is resent only when its connection could not be made — one that may have reached
//! the remote is never sent twice (it could start the same work twice).

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use a2a::jsonrpc::{JsonRpcId, JsonRpcRequest, JsonRpcResponse};
use eventsource_stream::Eventsource;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::A2aClientError;

/// The protocol version every request names (the official crates refuse a request without it).
const VERSION_HEADER: &str = "A2A-Version";

/// How requests reach one remote agent.
pub(super) struct Wire {
    pub http: reqwest::Client,
    /// The JSON-RPC endpoint, from the card.
    pub endpoint: String,
    pub bearer: Option<String>,
    /// How many times a request whose connection failed is tried again.
    pub retries: u32,
    /// The most bytes one answer (or one stream, in all) may hold.
    pub max_response_bytes: usize,
    next_id: AtomicI64,
}

impl Wire {
    pub(super) fn new(
        http: reqwest::Client,
        endpoint: String,
        bearer: Option<String>,
        retries: u32,
        max_response_bytes: usize,
    ) -> Self {
        Wire {
            http,
            endpoint,
            bearer,
            retries,
            max_response_bytes,
            next_id: AtomicI64::new(1),
        }
    }

    /// Call `method` and read its result as `T`.
    pub(super) async fn call<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, A2aClientError> {
        let response = self.post(method, params, false).await?;
        let body = capped_body(response, self.max_response_bytes, &self.endpoint).await?;
        let response: JsonRpcResponse = serde_json::from_slice(&body).map_err(|error| {
            A2aClientError::protocol(format!("not a JSON-RPC response: {error}"))
        })?;
        result_of(response)
    }

    /// Call a streaming `method`: its results as they arrive. A remote that answers with one
    /// JSON response instead (an error, or a non-streaming server) yields that one result.
    pub(super) async fn stream<T: DeserializeOwned + Send + 'static>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<BoxStream<'static, Result<T, A2aClientError>>, A2aClientError> {
        let response = self.post(method, params, true).await?;
        let is_events = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|kind| kind.starts_with("text/event-stream"));
        if !is_events {
            let body = capped_body(response, self.max_response_bytes, &self.endpoint).await?;
            let response: JsonRpcResponse = serde_json::from_slice(&body).map_err(|error| {
                A2aClientError::protocol(format!("not a JSON-RPC response: {error}"))
            })?;
            let one = result_of(response);
            return Ok(futures::stream::once(async move { one }).boxed());
        }
        Ok(events_of(
            response.bytes_stream(),
            self.max_response_bytes,
            self.endpoint.clone(),
        ))
    }

    /// POST one request, trying again (after 100 ms, 200 ms, …) only while the connection
    /// cannot be made; an HTTP error status is an error with the start of its body.
    async fn post(
        &self,
        method: &str,
        params: Value,
        events: bool,
    ) -> Result<reqwest::Response, A2aClientError> {
        let id = JsonRpcId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let body = serde_json::to_vec(&JsonRpcRequest::new(id, method, Some(params)))
            .map_err(|error| A2aClientError::protocol(format!("the request: {error}")))?;
        let headers = self.headers(events);
        let mut attempt = 0;
        loop {
            let sent = self
                .http
                .post(&self.endpoint)
                .headers(headers.clone())
                .body(body.clone())
                .send()
                .await;
            match sent {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) => {
                    let status = response.status();
                    let body = capped_body(response, 2048, &self.endpoint)
                        .await
                        .unwrap_or_default();
                    let text = String::from_utf8_lossy(&body);
                    return Err(A2aClientError::transport(
                        &self.endpoint,
                        format!("HTTP {status}: {}", text.trim()),
                    ));
                }
                Err(error) if error.is_connect() && attempt < self.retries => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(100 << attempt.min(6))).await;
                }
                Err(error) => {
                    return Err(A2aClientError::transport(
                        &self.endpoint,
                        crate::error_chain::error_chain(&error),
                    ));
                }
            }
        }
    }

    fn headers(&self, events: bool) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(VERSION_HEADER, HeaderValue::from_static(a2a::VERSION));
        let accept = match events {
            true => "text/event-stream, application/json",
            false => "application/json",
        };
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        if let Some(token) = &self.bearer
            && let Ok(value) = HeaderValue::from_str(&format!("Bearer {token}"))
        {
            headers.insert(AUTHORIZATION, value);
        }
        #[cfg(feature = "otel")]
        crate::telemetry::inject_trace_headers(&mut headers);
        headers
    }
}

/// A JSON-RPC response's result as `T`, or its error.
fn result_of<T: DeserializeOwned>(response: JsonRpcResponse) -> Result<T, A2aClientError> {
    if let Some(error) = response.error {
        return Err(A2aClientError::Remote {
            code: error.code,
            message: error.message,
        });
    }
    let result = response.result.ok_or_else(|| {
        A2aClientError::protocol("the response has neither a result nor an error")
    })?;
    serde_json::from_value(result)
        .map_err(|error| A2aClientError::protocol(format!("the result could not be read: {error}")))
}

/// Server-sent events of JSON-RPC responses, read from `bytes` (capped at `max` in all): each
/// event's result as `T`, or its error.
pub(super) fn events_of<T, S, E>(
    bytes: S,
    max: usize,
    url: String,
) -> BoxStream<'static, Result<T, A2aClientError>>
where
    T: DeserializeOwned + Send + 'static,
    S: Stream<Item = Result<bytes::Bytes, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let events = capped(bytes, max, url)
        .eventsource()
        .filter_map(|event| async move {
            match event {
                Ok(event) if event.data.trim().is_empty() => None,
                Ok(event) => Some(
                    serde_json::from_str::<JsonRpcResponse>(&event.data)
                        .map_err(|error| {
                            A2aClientError::protocol(format!(
                                "an event is not a JSON-RPC response: {error}"
                            ))
                        })
                        .and_then(result_of),
                ),
                Err(error) => Some(Err(A2aClientError::protocol(format!(
                    "the event stream broke: {error}"
                )))),
            }
        });
    events.boxed()
}

/// The whole body of `response`, refused past `max` bytes.
async fn capped_body(
    response: reqwest::Response,
    max: usize,
    url: &str,
) -> Result<Vec<u8>, A2aClientError> {
    let mut body = Vec::new();
    let mut chunks = capped(response.bytes_stream(), max, url.to_string());
    while let Some(chunk) = chunks.next().await {
        body.extend_from_slice(&chunk?);
    }
    Ok(body)
}

/// `bytes`, ended with an error once more than `max` bytes have passed.
fn capped<S, E>(
    bytes: S,
    max: usize,
    url: String,
) -> impl Stream<Item = Result<bytes::Bytes, A2aClientError>> + Send + 'static
where
    S: Stream<Item = Result<bytes::Bytes, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let mut seen = 0usize;
    let mut over = false;
    bytes
        .map(move |chunk| {
            let chunk = chunk.map_err(|error| {
                A2aClientError::transport(&url, crate::error_chain::error_chain(&error))
            })?;
            seen = seen.saturating_add(chunk.len());
            if seen > max {
                return Err(A2aClientError::protocol(format!(
                    "the answer exceeds {max} bytes"
                )));
            }
            Ok(chunk)
        })
        .take_while(move |item| {
            // Stop after the first error: a capped or broken body yields nothing more.
            let go = !over;
            over |= item.is_err();
            std::future::ready(go)
        })
}
