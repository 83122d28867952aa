//! The one HTTP service every connection serves: `/mcp` through the admission (`http.rs`) to
//! rmcp's `StreamableHttpService`, any other path `404`. Written out rather than built from an
//! axum `Router` and middleware: each of those layers boxed, cloned or wrapped the request or its
//! future once more, and axum clones a route's service for every request — rmcp's clones its
//! whole configuration (the host and origin allow-lists: 36 strings per request here). Here a
//! request costs two reference counts and one boxed future (BENCHMARKS.md, MCP under load).

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::future::BoxFuture;
use hyper::body::Incoming;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::http::Admission;

/// The MCP endpoint's path; a path under it is served too (rmcp reads none of it).
const PATH: &str = "/mcp";

/// Admission, then rmcp's service, shared by every connection.
pub(crate) struct McpService<S> {
    admission: Arc<Admission>,
    rmcp: Arc<StreamableHttpService<S, LocalSessionManager>>,
}

impl<S> McpService<S> {
    pub(crate) fn new(
        admission: Admission,
        rmcp: StreamableHttpService<S, LocalSessionManager>,
    ) -> Self {
        McpService {
            admission: Arc::new(admission),
            rmcp: Arc::new(rmcp),
        }
    }
}

// By hand: a derived `Clone` would ask `S: Clone`, which the handler is not.
impl<S> Clone for McpService<S> {
    fn clone(&self) -> Self {
        McpService {
            admission: Arc::clone(&self.admission),
            rmcp: Arc::clone(&self.rmcp),
        }
    }
}

impl<S> tower_service::Service<Request<Incoming>> for McpService<S>
where
    S: rmcp::ServerHandler + Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Incoming>) -> Self::Future {
        let path = request.uri().path();
        let ours = path
            .strip_prefix(PATH)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
        if !ours {
            return Box::pin(std::future::ready(
                Ok(StatusCode::NOT_FOUND.into_response()),
            ));
        }
        let request = request.map(Body::new);
        let (admission, rmcp) = (Arc::clone(&self.admission), Arc::clone(&self.rmcp));
        Box::pin(async move {
            let answer = admission
                .admit(request, |request| async move {
                    rmcp.handle(request).await.map(Body::new)
                })
                .await;
            Ok(answer)
        })
    }
}
