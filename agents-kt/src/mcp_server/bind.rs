//! The HTTP server put together: rmcp's streamable-HTTP service with a handler per session,
//! behind admission (`http.rs`) in the one service of `service.rs`, served on a listener
//! (`serve.rs`). Above the three, so none of them imports another's user.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Serialize;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::handler::{Handler, McpSkillTypes};
use super::http::Admission;
use super::origin::Origins;
use super::serve::{ConnectionLimits, serve};
use super::service::McpService;
use super::{McpServeError, McpServer};
use crate::AgentOutput;

/// A running HTTP server: where it listens, and how to stop it.
#[derive(Debug)]
pub struct McpHttpServer {
    address: SocketAddr,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
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
            .map_err(|error| McpServeError(error.to_string()))
    }

    /// Serve until the process ends.
    pub async fn wait(self) -> Result<(), McpServeError> {
        self.task
            .await
            .map_err(|error| McpServeError(error.to_string()))
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
        let origins = Origins::new(http.allowed_origins.clone(), address);
        config.allowed_origins = origins.for_rmcp();
        config.max_request_body_bytes = http.max_body_bytes;
        let exposed = Arc::clone(&self.inner);
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(http.session_idle_timeout);
        let manager = Arc::new(manager);
        let service =
            // A handler per session: each has its own logging level.
            StreamableHttpService::new(
                move || Ok(Handler::new(Arc::clone(&exposed))),
                Arc::clone(&manager),
                config,
            );
        let audit = {
            let exposed = Arc::clone(&self.inner);
            Box::new(move |principal: &str, what: &str, reason: &str| {
                exposed.agent.audit_refusal(principal, what, reason)
            })
        };
        let admission = Admission::new(http, origins, manager, audit);
        let service = McpService::new(admission, service);
        let listener = TcpListener::bind(address)
            .await
            .map_err(|error| McpServeError(format!("cannot listen on {address}: {error}")))?;
        let address = listener
            .local_addr()
            .map_err(|error| McpServeError(error.to_string()))?;
        let limits = ConnectionLimits {
            max_connections: http.max_connections,
            header_timeout: http.header_timeout,
        };
        let task = tokio::spawn(serve(listener, service, limits, stop.clone()));
        Ok(McpHttpServer {
            address,
            stop,
            task,
        })
    }
}
