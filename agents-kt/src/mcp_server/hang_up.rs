//! A client that hangs up on a request's answer stream, without ending its session: streamable
//! HTTP lets it come back for the answer (a `GET` with `Last-Event-ID` resumes the stream), so
//! the call is not dropped at once; if the client has not come back within the grace period, the
//! call is cancelled as if the client had sent `notifications/cancelled` — its slot freed, its
//! tool's future dropped — instead of running, unread, until the session expires.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};

/// When each session's client last came back for a stream (`GET` with `Last-Event-ID`).
#[derive(Clone, Default)]
pub(super) struct Resumes(Arc<Mutex<HashMap<String, Instant>>>);

impl Resumes {
    pub(super) fn record(&self, session: &str) {
        self.lock().insert(session.to_string(), Instant::now());
    }

    /// Whether the client of `session` came back for a stream after `at`.
    fn since(&self, session: &str, at: Instant) -> bool {
        self.lock().get(session).is_some_and(|when| *when >= at)
    }

    /// Forget the sessions that are gone.
    pub(super) fn retain(&self, live: impl Fn(&str) -> bool) {
        self.lock().retain(|session, _| live(session));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Instant>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What cancelling one request of a session takes, should its client hang up on the answer.
pub(super) struct HangUp {
    pub session: String,
    /// The request's JSON-RPC id.
    pub id: Value,
    pub live: Arc<LocalSessionManager>,
    pub grace: Duration,
    pub resumes: Resumes,
}

impl HangUp {
    /// The client hung up now: cancel the request after the grace period unless it came back.
    /// A request answered meanwhile is not hurt: a cancellation of an id no longer in flight is
    /// ignored (the spec's rule, and rmcp's).
    pub(super) fn cancel_later(self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let hung_up = Instant::now();
        runtime.spawn(async move {
            tokio::time::sleep(self.grace).await;
            if self.resumes.since(&self.session, hung_up) {
                return;
            }
            let notice = json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {
                    "requestId": self.id,
                    "reason": "the client hung up on the answer and did not come back for it",
                },
            });
            let Ok(notice) = serde_json::from_value::<ClientJsonRpcMessage>(notice) else {
                return;
            };
            let session = Arc::from(self.session.as_str());
            match self.live.accept_message(&session, notice).await {
                Ok(()) => tracing::info!(
                    session = %self.session,
                    id = %self.id,
                    "MCP client hung up on a call and did not come back; the call is cancelled"
                ),
                // The session ended meanwhile, and its calls with it.
                Err(error) => tracing::debug!(%error, "hung-up call's session is gone"),
            }
        });
    }
}
