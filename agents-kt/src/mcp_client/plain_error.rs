//! What went wrong with a server, said plainly: rmcp's errors name its internal types
//! (`Transport [rmcp::transport::worker::WorkerTransport<…StreamableHttpClientWorker<…>>] error:
//! …`); a person wants "connection refused at http://…" or "401 from the server".

use std::error::Error;

use rmcp::transport::streamable_http_client::StreamableHttpError;

/// `error` said plainly, for the server at `server` (its URL or command line).
pub(crate) fn plain(error: &(dyn Error + 'static), server: &str) -> String {
    let mut current: Option<&(dyn Error + 'static)> = Some(error);
    let mut innermost = error;
    while let Some(error) = current {
        if let Some(said) = known(error, server) {
            return said;
        }
        innermost = error;
        current = error.source();
    }
    innermost.to_string()
}

/// The errors we can say better than their `Display`.
fn known(error: &(dyn Error + 'static), server: &str) -> Option<String> {
    // rmcp's wrappers do not name the transport's error as their source: unwrap them by hand.
    if let Some(rmcp::service::ClientInitializeError::TransportError { error, .. }) =
        error.downcast_ref()
    {
        return Some(plain(&*error.error, server));
    }
    if let Some(transport) = error.downcast_ref::<rmcp::transport::DynamicTransportError>() {
        return Some(plain(&*transport.error, server));
    }
    if let Some(http) = error.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
        return match http {
            StreamableHttpError::AuthRequired(_) => Some(format!(
                "401 from the server at {server}: authorization required (give a token with `.bearer(..)`, or authorize with `.oauth(..)`)"
            )),
            StreamableHttpError::InsufficientScope(_) => Some(format!(
                "403 from the server at {server}: the token lacks a scope this request needs"
            )),
            StreamableHttpError::SessionExpired => Some(format!(
                "the server at {server} no longer knows this session (HTTP 404); the next call opens a new one"
            )),
            StreamableHttpError::UnexpectedServerResponse(text) => Some(format!(
                "the server at {server} answered with something else than MCP: {text}"
            )),
            StreamableHttpError::Client(request) => Some(plain(request, server)),
            _ => None,
        };
    }
    if let Some(request) = error.downcast_ref::<reqwest::Error>() {
        if request.is_timeout() {
            return Some(format!("the request to {server} timed out"));
        }
        if let Some(status) = request.status() {
            return Some(format!("HTTP {status} from the server at {server}"));
        }
        if request.is_connect() {
            // The io error underneath says which; rarely, there is none to say.
            let mut source = request.source();
            while let Some(error) = source {
                if let Some(said) = error
                    .downcast_ref::<std::io::Error>()
                    .and_then(|_| known(error, server))
                {
                    return Some(said);
                }
                source = error.source();
            }
            return Some(format!("could not connect to {server}"));
        }
        return None;
    }
    if let Some(io) = error.downcast_ref::<std::io::Error>() {
        use std::io::ErrorKind;
        return Some(match io.kind() {
            ErrorKind::ConnectionRefused => format!("connection refused at {server}"),
            ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted => {
                format!("the connection to {server} was reset")
            }
            ErrorKind::TimedOut => format!("connecting to {server} timed out"),
            _ => format!("{io} ({server})"),
        });
    }
    None
}
