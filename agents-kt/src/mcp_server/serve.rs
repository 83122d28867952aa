//! The MCP HTTP server's accept loop: every connection is bounded in number and in time, so slow
//! or silent clients cannot hold the server's connections (or file descriptors) hostage.
//!
//! - at most `max_connections` at once; more wait in the kernel's backlog until one ends;
//! - a connection that sends nothing, or not a whole request head, within `header_timeout` is
//!   closed (hyper's header-read timer, plus a wait for the first byte, which that timer does not
//!   cover);
//! - replies are sent without Nagle's delay (`TCP_NODELAY`).
//!
//! Request bodies are bounded in time by the admission layer, which reads them.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// What a connection serves: the MCP service (`service.rs`), or the A2A server's router.
pub(crate) trait HttpService:
    tower_service::Service<
        Request<Incoming>,
        Response = axum::response::Response,
        Error = Infallible,
        Future: Send + 'static,
    > + Clone
    + Send
    + 'static
{
}

impl<S> HttpService for S where
    S: tower_service::Service<
            Request<Incoming>,
            Response = axum::response::Response,
            Error = Infallible,
            Future: Send + 'static,
        > + Clone
        + Send
        + 'static
{
}

/// How long and how many connections may take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionLimits {
    pub max_connections: usize,
    pub header_timeout: Duration,
}

/// Serve `service` on `listener` within `limits` until `stop` is cancelled; then stop accepting
/// and let open connections finish their requests.
pub(crate) async fn serve<S>(
    listener: TcpListener,
    service: S,
    limits: ConnectionLimits,
    stop: CancellationToken,
) where
    S: HttpService,
{
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    loop {
        let slot = tokio::select! {
            slot = Arc::clone(&slots).acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => return,
            },
            () = stop.cancelled() => return,
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => return,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            Err(error) => {
                // Out of descriptors, or a connection reset before it was taken: keep serving.
                tracing::warn!(%error, "accepting an MCP connection failed");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let service = service.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            connection(tcp, service, limits, stop).await;
            drop(slot);
        });
    }
}

/// One connection, from its first byte to its end.
async fn connection<S: HttpService>(
    mut tcp: TcpStream,
    service: S,
    limits: ConnectionLimits,
    stop: CancellationToken,
) {
    configure_connection(&mut tcp);
    // Connect-and-wait: hyper's header timer starts with the first byte, so wait for it here.
    let mut first = [0u8; 1];
    match tokio::time::timeout(limits.header_timeout, tcp.peek(&mut first)).await {
        Ok(Ok(read)) if read > 0 => {}
        _ => return,
    }
    let service = TowerToHyperService::new(service);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let connection = builder.serve_connection(TokioIo::new(tcp), service);
    tokio::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(error) = result {
                tracing::debug!(%error, "MCP connection ended with an error");
            }
        }
        () = stop.cancelled() => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

/// Every accepted connection: replies are small writes, streamed, and with Nagle's algorithm on
/// each waited for the client's delayed ACK — ~40 ms per call on a kept-alive connection
/// (BENCHMARKS.md, MCP over HTTP).
pub(crate) fn configure_connection(tcp: &mut TcpStream) {
    if let Err(error) = tcp.set_nodelay(true) {
        tracing::warn!(%error, "could not set TCP_NODELAY on an MCP connection");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_connections_send_small_writes_at_once() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (client, accepted) = tokio::join!(TcpStream::connect(address), listener.accept());
        let _client = client.unwrap();
        let (mut accepted, _) = accepted.unwrap();
        assert!(!accepted.nodelay().unwrap(), "Nagle is on by default");
        configure_connection(&mut accepted);
        assert!(accepted.nodelay().unwrap());
    }
}
