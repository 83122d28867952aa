//! The connection to one MCP server, kept alive: when its transport has closed (the server's
//! process died, an HTTP session expired), the next call connects again, with a short backoff.
//! The call that met the closed connection fails with a clear error; nothing is retried behind
//! the caller's back (a tool call may have effects).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::service::{RoleClient, RunningService};

use super::McpClientError;
use super::listing::{Listing, Notices};

pub(crate) type Service = RunningService<RoleClient, Notices>;

/// Starts (or reaches) the server and completes the MCP handshake.
pub(crate) type Connect =
    Arc<dyn Fn() -> BoxFuture<'static, Result<Service, McpClientError>> + Send + Sync>;

/// Attempts to reconnect before a call gives up, and the first wait between them.
const ATTEMPTS: u32 = 3;
const FIRST_BACKOFF: Duration = Duration::from_millis(100);

pub(crate) struct Connection {
    connect: Connect,
    current: tokio::sync::Mutex<Arc<Service>>,
    /// What the server lists now (shared with every service's [`Notices`]).
    pub listing: Arc<Listing>,
    /// The protocol version of the last handshake.
    agreed: std::sync::RwLock<String>,
    /// How long one request (a call; a reconnection's handshake and listing) may go unanswered.
    pub call_timeout: Duration,
    /// The server's command line or URL, for errors.
    pub server: String,
}

/// The protocol version `service`'s server agreed to.
fn agreed(service: &Service) -> String {
    service
        .peer()
        .peer_info()
        .map(|info| info.protocol_version.as_str().to_string())
        .unwrap_or_default()
}

impl Connection {
    pub(crate) fn new(
        server: String,
        connect: Connect,
        first: Service,
        listing: Arc<Listing>,
        call_timeout: Duration,
    ) -> Self {
        Connection {
            server,
            call_timeout,
            connect,
            agreed: std::sync::RwLock::new(agreed(&first)),
            current: tokio::sync::Mutex::new(Arc::new(first)),
            listing,
        }
    }

    /// The protocol version the current service's server agreed to.
    pub(crate) fn protocol_version(&self) -> String {
        self.agreed
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The current service while its transport is open; otherwise a new one.
    pub(crate) async fn live(&self) -> Result<Arc<Service>, McpClientError> {
        let mut current = self.current.lock().await;
        if !current.is_closed() && !current.peer().is_transport_closed() {
            return Ok(Arc::clone(&current));
        }
        let mut backoff = FIRST_BACKOFF;
        let mut attempt = 1;
        loop {
            // A frozen server fails the attempt after `call_timeout`, never hangs it.
            let handshake = self.call_timeout.max(super::HANDSHAKE_FLOOR);
            let attempted = tokio::time::timeout(handshake, (self.connect)())
                .await
                .unwrap_or_else(|_| {
                    Err(McpClientError {
                        server: self.server.clone(),
                        reason: format!("the MCP handshake got no answer within {handshake:?}"),
                    })
                });
            match attempted {
                Ok(service) => {
                    tracing::info!(attempt, "reconnected to the MCP server");
                    // A restarted server may list other tools: calls are checked against these.
                    match tokio::time::timeout(self.call_timeout, service.list_all_tools()).await {
                        Ok(Ok(tools)) => self.listing.replace(&tools),
                        Ok(Err(error)) => {
                            tracing::warn!(%error, "re-listing the reconnected MCP server's tools failed")
                        }
                        Err(_) => {
                            tracing::warn!(
                                "re-listing the reconnected MCP server's tools timed out"
                            )
                        }
                    }
                    *self
                        .agreed
                        .write()
                        .unwrap_or_else(|poisoned| poisoned.into_inner()) = agreed(&service);
                    *current = Arc::new(service);
                    return Ok(Arc::clone(&current));
                }
                Err(error) if attempt >= ATTEMPTS => return Err(error),
                Err(error) => {
                    tracing::warn!(%error, attempt, "reconnecting to the MCP server failed; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff *= 4;
                    attempt += 1;
                }
            }
        }
    }
}
