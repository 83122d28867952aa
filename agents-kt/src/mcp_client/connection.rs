//! The connection to one MCP server, kept alive: when its transport has closed (the server's
//! process died, an HTTP session expired), the next call connects again, with a short backoff.
//! The call that met the closed connection fails with a clear error; nothing is retried behind
//! the caller's back (a tool call may have effects).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::service::{RoleClient, RunningService};

use super::McpClientError;
use super::authorizer::{Authorizer, MAX_AUTHORIZATIONS};
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
    /// How to authorize when the server asks (OAuth); `None`: its refusal is the answer.
    authorizer: Option<Arc<Authorizer>>,
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
            authorizer: None,
        }
    }

    /// This connection, authorizing with `authorizer` when the server asks.
    pub(crate) fn authorized_by(mut self, authorizer: Option<Arc<Authorizer>>) -> Self {
        self.authorizer = authorizer;
        self
    }

    /// What to pass to [`reauthorized`](Self::reauthorized) for a request about to be sent.
    pub(crate) fn authorization(&self) -> u64 {
        self.authorizer
            .as_ref()
            .map_or(0, |authorizer| authorizer.generation())
    }

    /// Whether `error` was the server asking for (more) authorization and it is now given, so
    /// the refused request may be sent again: at most [`MAX_AUTHORIZATIONS`] times for one
    /// request (`authorizations` counts them). A 401 or 403 means the server did not act on
    /// the request, so sending it again runs nothing twice.
    pub(crate) async fn reauthorized(
        &self,
        error: &rmcp::ServiceError,
        seen: u64,
        authorizations: &mut u32,
    ) -> Result<bool, McpClientError> {
        let (Some(authorizer), Some(challenge)) = (&self.authorizer, error.auth_challenge()) else {
            return Ok(false);
        };
        if *authorizations >= MAX_AUTHORIZATIONS {
            return Ok(false);
        }
        *authorizations += 1;
        authorizer.authorize(challenge, seen).await?;
        Ok(true)
    }

    /// Every page of the server's tools, into the listing; each attempt bounded by
    /// `call_timeout`, authorizing between attempts when the server asks.
    pub(crate) async fn list_tools(&self, service: &Service) -> Result<(), McpClientError> {
        let mut authorizations = 0;
        loop {
            let seen = self.authorization();
            let listed = tokio::time::timeout(self.call_timeout, service.list_all_tools())
                .await
                .map_err(|_| McpClientError {
                    server: self.server.clone(),
                    reason: format!(
                        "tools/list got no answer within {:?} (`call_timeout`)",
                        self.call_timeout
                    ),
                })?;
            match listed {
                Ok(tools) => {
                    self.listing.replace(&tools);
                    return Ok(());
                }
                Err(error) if self.reauthorized(&error, seen, &mut authorizations).await? => {}
                Err(error) => {
                    return Err(McpClientError {
                        server: self.server.clone(),
                        reason: format!(
                            "tools/list failed: {}",
                            super::plain_error::plain(&error, &self.server)
                        ),
                    });
                }
            }
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
            // A frozen server fails the attempt's handshake after its timeout, never hangs it.
            match (self.connect)().await {
                Ok(service) => {
                    tracing::info!(attempt, "reconnected to the MCP server");
                    // A restarted server may list other tools: calls are checked against these.
                    if let Err(error) = self.list_tools(&service).await {
                        tracing::warn!(%error, "re-listing the reconnected MCP server's tools failed");
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
