//! Who may reach the A2A server, and with what: the same hardening as the MCP HTTP server.
//! Browser origins other than the listed ones (and, on loopback, loopback ones) are refused; with
//! an authenticator, a request without an accepted `Authorization` header is refused (401) and
//! the principal it names is put on the request for the handler — in a header this layer owns,
//! removed from whatever a client sent; bodies are capped in size and in time; the HTTP+JSON
//! binding must name A2A version 1 (`A2A-Version`), as the JSON-RPC binding checks itself.

use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::PRINCIPAL_HEADER;
use super::card::REST_PATH;
use crate::mcp_server::{Authenticator, Origins};

/// What every request passes before it reaches a binding.
pub(super) struct Admission {
    pub authenticator: Option<Authenticator>,
    pub origins: Origins,
    pub max_body_bytes: usize,
    pub body_timeout: Duration,
}

fn refuse(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({ "error": { "code": status.as_u16(), "message": message } });
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

impl Admission {
    pub(super) async fn admit(&self, request: Request, next: Next) -> Response {
        if let Some(origin) = request.headers().get(axum::http::header::ORIGIN) {
            let origin = origin.to_str().unwrap_or_default();
            if !self.origins.allow(origin) {
                tracing::warn!(origin, "A2A request from a foreign origin refused");
                return refuse(StatusCode::FORBIDDEN, "this origin is not allowed");
            }
        }
        let (mut parts, body) = request.into_parts();
        // Only this layer says who is calling.
        parts.headers.remove(PRINCIPAL_HEADER);
        let card = parts.uri.path() == a2a_server::WELL_KNOWN_AGENT_CARD_PATH;
        if let (Some(authenticate), false) = (&self.authenticator, card) {
            let header = parts
                .headers
                .get(axum::http::header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok());
            let principal = header.and_then(|value| authenticate(value));
            let Some(value) = principal.and_then(|p| HeaderValue::from_str(&p).ok()) else {
                let mut refused = refuse(
                    StatusCode::UNAUTHORIZED,
                    "missing or rejected Authorization header",
                );
                refused.headers_mut().insert(
                    axum::http::header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer"),
                );
                return refused;
            };
            parts.headers.insert(PRINCIPAL_HEADER, value);
        }
        if parts.uri.path().starts_with(REST_PATH) && !names_version_one(&parts.headers) {
            return refuse(
                StatusCode::BAD_REQUEST,
                "this server speaks A2A 1.0: send the header A2A-Version: 1.0",
            );
        }
        let read = axum::body::to_bytes(body, self.max_body_bytes);
        let bytes = match tokio::time::timeout(self.body_timeout, read).await {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(_)) => {
                return refuse(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &format!("the request body is over {} bytes", self.max_body_bytes),
                );
            }
            Err(_) => {
                return refuse(
                    StatusCode::REQUEST_TIMEOUT,
                    "the request body did not arrive in time",
                );
            }
        };
        next.run(Request::from_parts(parts, axum::body::Body::from(bytes)))
            .await
    }
}

/// Whether the request names A2A version 1.x.
fn names_version_one(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get("a2a-version")
        .and_then(|value| value.to_str().ok())
        .and_then(|version| version.trim().split('.').next())
        .is_some_and(|major| major == "1")
}
