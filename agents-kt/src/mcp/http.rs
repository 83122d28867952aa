//! The streamable-HTTP transport: rmcp's service behind an authenticator (no or a rejected
//! `Authorization` header → 401), with rmcp's Host/Origin allow-lists (DNS-rebinding protection,
//! loopback-only by default) and request body limit. Each MCP session is bound to the principal
//! that opened it: a request on it by anyone else is refused (404, as if it did not exist) and
//! audited, so it can neither call tools in it nor read its streams.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Serialize;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::handler::{Handler, McpSkillTypes};
use super::{McpServeError, McpServer};
use crate::AgentOutput;

/// The principal an authenticator derived from a request's `Authorization` header; the client
/// policy sees it as the client's name.
#[derive(Debug, Clone)]
pub(crate) struct Principal(pub String);

/// A running HTTP server: where it listens, and how to stop it.
#[derive(Debug)]
pub struct McpHttpServer {
    address: SocketAddr,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<Result<(), McpServeError>>,
}

impl McpHttpServer {
    /// The address it listens on (useful after binding port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// Stop accepting requests and end every session.
    pub async fn shutdown(self) -> Result<(), McpServeError> {
        self.stop.cancel();
        self.task
            .await
            .map_err(|error| McpServeError(error.to_string()))?
    }

    /// Serve until the process ends.
    pub async fn wait(self) -> Result<(), McpServeError> {
        self.task
            .await
            .map_err(|error| McpServeError(error.to_string()))?
    }
}

impl<IN, OUT> McpServer<IN, OUT>
where
    IN: McpSkillTypes + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    /// Serve over streamable HTTP at `address` (path `/mcp`) until the process ends.
    pub async fn serve_http(self, address: SocketAddr) -> Result<(), McpServeError> {
        self.bind_http(address).await?.wait().await
    }

    /// Start serving over streamable HTTP at `address` (path `/mcp`); port 0 picks a free port.
    pub async fn bind_http(self, address: SocketAddr) -> Result<McpHttpServer, McpServeError> {
        let stop = CancellationToken::new();
        let http = &self.inner.http;
        let mut config = StreamableHttpServerConfig::default();
        config.cancellation_token = stop.child_token();
        if let Some(hosts) = &http.allowed_hosts {
            config.allowed_hosts = hosts.clone();
        }
        config.allowed_origins = http.allowed_origins.clone();
        config.max_request_body_bytes = http.max_body_bytes;
        let handler = Handler::new(Arc::clone(&self.inner));
        let service = StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let guard = Arc::new(Admission {
            authenticator: http.authenticator.clone(),
            sessions: Mutex::new(HashMap::new()),
            max_body_bytes: http.max_body_bytes,
            audit: {
                let exposed = Arc::clone(&self.inner);
                Box::new(move |principal: &str, what: &str, reason: &str| {
                    exposed.agent.audit_refusal(principal, what, reason)
                })
            },
        });
        let router = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(middleware::from_fn(move |request: Request, next: Next| {
                let guard = Arc::clone(&guard);
                async move { guard.admit(request, next).await }
            }));
        let listener = TcpListener::bind(address)
            .await
            .map_err(|error| McpServeError(format!("cannot listen on {address}: {error}")))?;
        let address = listener
            .local_addr()
            .map_err(|error| McpServeError(error.to_string()))?;
        let shutdown = stop.clone();
        let task = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async move { shutdown.cancelled().await })
                .await
                .map_err(|error| McpServeError(error.to_string()))
        });
        Ok(McpHttpServer {
            address,
            stop,
            task,
        })
    }
}

/// Derives the principal from the `Authorization` header value; `None` rejects the request.
pub(crate) type Authenticator = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Who may send a request, and on which session: the authenticator, and each session's owner.
struct Admission {
    authenticator: Option<Authenticator>,
    /// MCP session id → the principal that opened it (`None` without an authenticator).
    sessions: Mutex<HashMap<String, Option<String>>>,
    max_body_bytes: usize,
    audit: Audit,
}

/// Records a refused request: principal, what it targeted, why.
type Audit = Box<dyn Fn(&str, &str, &str) + Send + Sync>;

const SESSION_HEADER: &str = "mcp-session-id";

impl Admission {
    async fn admit(&self, mut request: Request, next: Next) -> Response {
        let principal = match &self.authenticator {
            None => None,
            Some(authenticate) => {
                let header = request
                    .headers()
                    .get(axum::http::header::AUTHORIZATION)
                    .and_then(|value| value.to_str().ok());
                match header.and_then(|value| authenticate(value)) {
                    Some(principal) => Some(principal),
                    None => {
                        return (
                            StatusCode::UNAUTHORIZED,
                            [(axum::http::header::WWW_AUTHENTICATE, "Bearer")],
                            "missing or rejected Authorization header",
                        )
                            .into_response();
                    }
                }
            }
        };
        let session = request
            .headers()
            .get(SESSION_HEADER)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string);
        if let Some(session) = &session
            && let Some(owner) = self.owner(session)
            && owner != principal
        {
            let who = principal.as_deref().unwrap_or("(anonymous)");
            (self.audit)(
                who,
                &format!("(session {session})"),
                "a request on another principal's MCP session was refused",
            );
            tracing::warn!(
                principal = who,
                session,
                "request on another principal's MCP session refused"
            );
            return (StatusCode::NOT_FOUND, "no such session").into_response();
        }
        if let Some(principal) = &principal {
            request
                .extensions_mut()
                .insert(Principal(principal.clone()));
        }
        let request = match self.check_arguments(request).await {
            Ok(request) => request,
            Err(refusal) => return refusal,
        };
        let closing = request.method() == axum::http::Method::DELETE;
        let response = next.run(request).await;
        let opened = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|value| value.to_str().ok());
        let mut sessions = self.lock();
        match (opened, &session) {
            // A session the response names is owned by whoever opened it; it never changes hands.
            (Some(opened), _) => {
                sessions.entry(opened.to_string()).or_insert(principal);
            }
            (None, Some(session)) if closing && response.status().is_success() => {
                sessions.remove(session);
            }
            _ => {}
        }
        drop(sessions);
        response
    }

    fn owner(&self, session: &str) -> Option<Option<String>> {
        self.lock().get(session).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<String>>> {
        // A map of owners stays consistent whatever a panicking holder was doing.
        self.sessions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A `tools/call` whose `arguments` is not an object is answered `-32602 Invalid params`
    /// here, with the request's id: rmcp would fail to read the request and answer "method not
    /// found", which misleads the client. Anything else passes through untouched.
    async fn check_arguments(&self, request: Request) -> Result<Request, Response> {
        if request.method() != axum::http::Method::POST {
            return Ok(request);
        }
        let (parts, body) = request.into_parts();
        // Over the limit: rmcp's own limit answers it, from the bytes we hand back.
        let bytes = match axum::body::to_bytes(body, self.max_body_bytes.saturating_add(1)).await {
            Ok(bytes) => bytes,
            Err(_) => {
                return Err(
                    (StatusCode::PAYLOAD_TOO_LARGE, "request body too large").into_response()
                );
            }
        };
        if let Ok(message) = serde_json::from_slice::<serde_json::Value>(&bytes)
            && message.get("method").and_then(|m| m.as_str()) == Some("tools/call")
            && let Some(arguments) = message.pointer("/params/arguments")
            && !arguments.is_object()
            && !arguments.is_null()
        {
            let error = serde_json::json!({
                "jsonrpc": "2.0",
                "id": message.get("id").cloned().unwrap_or(serde_json::Value::Null),
                "error": {
                    "code": -32602,
                    "message": "Invalid params: tools/call `arguments` must be a JSON object",
                },
            });
            return Err((
                StatusCode::OK,
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                error.to_string(),
            )
                .into_response());
        }
        Ok(Request::from_parts(parts, axum::body::Body::from(bytes)))
    }
}
