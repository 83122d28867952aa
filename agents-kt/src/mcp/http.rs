//! The streamable-HTTP transport: rmcp's service behind an authenticator (no or a rejected
//! `Authorization` header → 401), with rmcp's Host/Origin allow-lists (DNS-rebinding protection,
//! loopback-only by default) and request body limit.

use std::net::SocketAddr;
use std::sync::Arc;

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
        let authenticator = http.authenticator.clone();
        let router = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(middleware::from_fn(move |request: Request, next: Next| {
                let authenticator = authenticator.clone();
                async move { authenticate(authenticator, request, next).await }
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

async fn authenticate(
    authenticator: Option<Authenticator>,
    mut request: Request,
    next: Next,
) -> Response {
    if let Some(authenticate) = authenticator {
        let header = request
            .headers()
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok());
        match header.and_then(|value| authenticate(value)) {
            Some(principal) => {
                request.extensions_mut().insert(Principal(principal));
            }
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
    next.run(request).await
}
