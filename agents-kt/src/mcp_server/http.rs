//! The streamable-HTTP transport: rmcp's service behind an authenticator (no or a rejected
//! `Authorization` header → 401), with rmcp's Host/Origin allow-lists (DNS-rebinding protection,
//! loopback-only by default) and request body limit. Each MCP session is bound to the principal
//! that opened it: a request on it by anyone else is refused (404, as if it did not exist) and
//! audited, so it can neither call tools in it nor read its streams.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::HttpBody;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::HttpOptions;
use super::hang_up::{HangUp, Resumes};
use super::jsonrpc::Envelope;
use super::origin::Origins;
use super::principal::Principal;

/// A request id held in a session until its answer has been sent (or abandoned).
struct InFlight {
    set: Arc<Mutex<HashSet<(String, String)>>>,
    key: (String, String),
}

impl InFlight {
    /// Hold `id` in `session`, or `None` when a request with it is already being answered.
    fn claim(
        set: &Arc<Mutex<HashSet<(String, String)>>>,
        session: &str,
        id: &serde_json::Value,
    ) -> Option<InFlight> {
        let key = (session.to_string(), id.to_string());
        let fresh = lock(set).insert(key.clone());
        fresh.then(|| InFlight {
            set: Arc::clone(set),
            key,
        })
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        lock(&self.set).remove(&self.key);
    }
}

/// A request being answered: its id held in its session, and how to cancel it should the
/// client hang up on the answer.
struct Answering {
    claim: InFlight,
    hang_up: HangUp,
}

/// `body`, freeing the request's id when its last byte has been handed over (before the end of
/// the reply reaches the client) or when it is dropped unfinished — the client hung up, and the
/// call is cancelled unless the client comes back for it (`hang_up.rs`).
fn release_at_end(body: axum::body::Body, answering: Answering) -> axum::body::Body {
    axum::body::Body::new(Releasing {
        body,
        answering: Some(answering),
    })
}

/// The body of a reply whose request is held in its session (see [`release_at_end`]). A body of
/// its own, not a stream adapter: this wraps every answer to a call. It never says it has ended
/// before its last frame is asked for (the default `is_end_stream`), so hyper always asks, and
/// the id is freed there rather than by the drop that would count as a hang-up.
struct Releasing {
    body: axum::body::Body,
    answering: Option<Answering>,
}

impl HttpBody for Releasing {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let next = std::pin::Pin::new(&mut self.body).poll_frame(cx);
        if let std::task::Poll::Ready(None) = next {
            // Handed over whole: the id is free, and nothing is left to cancel.
            if let Some(Answering { claim, hang_up }) = self.answering.take() {
                drop(claim);
                drop(hang_up);
            }
        }
        next
    }
}

impl Drop for Releasing {
    fn drop(&mut self) {
        // Dropped unfinished: the client hung up on the answer.
        if let Some(Answering { claim, hang_up }) = self.answering.take() {
            drop(claim);
            hang_up.cancel_later();
        }
    }
}

/// A map or set that stays consistent whatever a panicking holder was doing.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A JSON-RPC error response with `status`.
fn json_rpc_error(status: StatusCode, id: serde_json::Value, code: i64, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    });
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Derives the principal from the `Authorization` header value; `None` rejects the request.
pub(crate) type Authenticator = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Who may send a request, and on which session: the authenticator, and each session's owner.
pub(crate) struct Admission {
    authenticator: Option<Authenticator>,
    /// Browser origins accepted; a request with any other `Origin` is refused.
    origins: Origins,
    /// MCP session id → the principal that opened it (`None` without an authenticator).
    sessions: Mutex<HashMap<String, Option<String>>>,
    /// Requests being answered, by session and JSON-RPC id: a second request with the same id
    /// in the same session would have its answer delivered to the wrong call, or to none.
    in_flight: Arc<Mutex<HashSet<(String, String)>>>,
    /// rmcp's sessions: the ones alive (an idle one is closed and leaves it).
    live: Arc<LocalSessionManager>,
    max_sessions: usize,
    /// Sessions being opened now (admitted, not yet in `live`): counted with the live ones, so
    /// concurrent `initialize`s cannot all pass the limit before any of them is live.
    opening: AtomicUsize,
    /// Admission of new sessions, one at a time.
    admitting: tokio::sync::Mutex<()>,
    max_body_bytes: usize,
    /// How long a request body may take to arrive.
    body_timeout: std::time::Duration,
    /// How long a call whose client hung up waits for it to come back (see `hang_up.rs`).
    hang_up_grace: std::time::Duration,
    resumes: Resumes,
    audit: Audit,
}

/// Records a refused request: principal, what it targeted, why.
pub(crate) type Audit = Box<dyn Fn(&str, &str, &str) + Send + Sync>;

const SESSION_HEADER: &str = "mcp-session-id";

impl Admission {
    /// Admission under the server's HTTP options: `origins` accepted, `live` rmcp's sessions,
    /// refusals told to `audit`.
    pub(crate) fn new(
        http: &HttpOptions,
        origins: Origins,
        live: Arc<LocalSessionManager>,
        audit: Audit,
    ) -> Self {
        Admission {
            authenticator: http.authenticator.clone(),
            origins,
            sessions: Mutex::new(HashMap::new()),
            in_flight: Arc::new(Mutex::new(HashSet::new())),
            live,
            max_sessions: http.max_sessions,
            opening: AtomicUsize::new(0),
            admitting: tokio::sync::Mutex::new(()),
            max_body_bytes: http.max_body_bytes,
            body_timeout: http.body_timeout,
            hang_up_grace: http.hang_up_grace,
            resumes: Resumes::default(),
            audit,
        }
    }

    /// Admit `request` and have `next` (rmcp) answer it, or refuse it.
    pub(crate) async fn admit<F, Answer>(&self, mut request: Request, next: F) -> Response
    where
        F: FnOnce(Request) -> Answer,
        Answer: Future<Output = Response>,
    {
        // A browser page of another origin must not reach a local server (DNS rebinding, CSRF):
        // only listed (or, on loopback, loopback) origins pass; clients that are not browsers
        // send no `Origin`.
        if let Some(origin) = request.headers().get(axum::http::header::ORIGIN) {
            let origin = origin.to_str().unwrap_or_default();
            if !self.origins.allow(origin) {
                tracing::warn!(origin, "MCP request from a foreign origin refused");
                return json_rpc_error(
                    StatusCode::FORBIDDEN,
                    serde_json::Value::Null,
                    -32600,
                    "this origin is not allowed",
                );
            }
        }
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
        let (request, id) = match self.check_body(request).await {
            Ok(checked) => checked,
            Err(refusal) => return refusal,
        };
        // A request without a session opens one: it holds a slot until it is answered.
        let _opening = if session.is_none() && request.method() == axum::http::Method::POST {
            match self.session_slot().await {
                Ok(slot) => Some(slot),
                Err(refusal) => {
                    let who = principal.as_deref().unwrap_or("(anonymous)");
                    (self.audit)(
                        who,
                        "(new session)",
                        "the server's session limit is reached",
                    );
                    return refusal;
                }
            }
        } else {
            None
        };
        // A client coming back for a stream it hung up on keeps that session's calls alive.
        if let Some(session) = &session
            && request.method() == axum::http::Method::GET
            && request.headers().contains_key("last-event-id")
        {
            self.resumes.record(session);
        }
        // One request per id per session at a time; the id is free again when its answer ends.
        let claim = match (&session, id) {
            (Some(session), Some(id)) => match InFlight::claim(&self.in_flight, session, &id) {
                Some(claim) => Some(Answering {
                    claim,
                    hang_up: HangUp {
                        session: session.clone(),
                        id,
                        live: Arc::clone(&self.live),
                        grace: self.hang_up_grace,
                        resumes: self.resumes.clone(),
                    },
                }),
                None => {
                    return json_rpc_error(
                        StatusCode::CONFLICT,
                        id,
                        -32600,
                        "Invalid Request: a request with this id is already in flight in this session",
                    );
                }
            },
            _ => None,
        };
        let closing = request.method() == axum::http::Method::DELETE;
        let response = next(request).await;
        let response = match claim {
            Some(claim) => response.map(|body| release_at_end(body, claim)),
            None => response,
        };
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

    /// A slot for one more session — held until the request that opens it is answered, by when
    /// the session is live — or the refusal. Decided one request at a time, counting the
    /// sessions being opened with the live ones, so concurrent requests cannot all pass the
    /// limit (a session just answered may briefly count twice: the safe side). Owners of
    /// sessions that have ended (closed when idle) are forgotten here, so the owner map stays
    /// as small as the live sessions.
    async fn session_slot(&self) -> Result<Opening<'_>, Response> {
        let _one_at_a_time = self.admitting.lock().await;
        let live = self.live.sessions.read().await;
        self.lock()
            .retain(|session, _| live.contains_key(session.as_str()));
        self.resumes.retain(|session| live.contains_key(session));
        let opening = self.opening.load(Ordering::Acquire);
        if live.len() + opening < self.max_sessions {
            return Ok(Opening::take(&self.opening));
        }
        tracing::warn!(
            sessions = live.len(),
            opening,
            "MCP session limit reached; new session refused"
        );
        Err(json_rpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            serde_json::Value::Null,
            -32000,
            "too many open sessions: close one (DELETE) or retry later",
        ))
    }

    fn owner(&self, session: &str) -> Option<Option<String>> {
        self.lock().get(session).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<String>>> {
        lock(&self.sessions)
    }

    /// A POST body must be one JSON-RPC message, answered in JSON-RPC otherwise: not JSON is
    /// `-32700 Parse error`, another content type, a batch or something that is not a message is
    /// `-32600 Invalid Request` (rmcp would answer in plain text, or "method not found"), and so
    /// is an `id` that is not a string or a number. `params` that are not an object, and a
    /// `tools/call` without a string `name` or with `arguments` that are not an object, are
    /// `-32602 Invalid params`, with the request's id (see `jsonrpc.rs`, shared with stdio). Anything else passes through untouched.
    /// Returns the request, and its id when it is a request (not a notification or response).
    async fn check_body(
        &self,
        request: Request,
    ) -> Result<(Request, Option<serde_json::Value>), Response> {
        if request.method() != axum::http::Method::POST {
            return Ok((request, None));
        }
        let json = request
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.trim_start().starts_with("application/json"));
        if !json {
            return Err(json_rpc_error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                serde_json::Value::Null,
                -32600,
                "Invalid Request: Content-Type must be application/json",
            ));
        }
        let (parts, body) = request.into_parts();
        // Over the limit: rmcp's own limit answers it, from the bytes we hand back.
        let read = axum::body::to_bytes(body, self.max_body_bytes.saturating_add(1));
        let bytes = match tokio::time::timeout(self.body_timeout, read).await {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(_)) => {
                return Err(
                    (StatusCode::PAYLOAD_TOO_LARGE, "request body too large").into_response()
                );
            }
            Err(_) => {
                tracing::warn!("MCP request body too slow; refused");
                return Err(json_rpc_error(
                    StatusCode::REQUEST_TIMEOUT,
                    serde_json::Value::Null,
                    -32600,
                    "the request body did not arrive in time",
                ));
            }
        };
        // The envelope only (params' values skipped unread), as stdio reads it.
        let request_id = match Envelope::check(&bytes) {
            Ok(message) => message.request_id(),
            Err(refusal) => {
                // Invalid params are a JSON-RPC error to a well-formed request: HTTP 200.
                let status = match refusal.code {
                    -32602 => StatusCode::OK,
                    _ => StatusCode::BAD_REQUEST,
                };
                return Err(json_rpc_error(
                    status,
                    refusal.id,
                    refusal.code,
                    &refusal.message,
                ));
            }
        };
        Ok((
            Request::from_parts(parts, axum::body::Body::from(bytes)),
            request_id,
        ))
    }
}

/// A session being opened: counted in `opening` until dropped (when its request is answered,
/// or abandoned).
struct Opening<'a> {
    opening: &'a AtomicUsize,
}

impl<'a> Opening<'a> {
    fn take(opening: &'a AtomicUsize) -> Self {
        opening.fetch_add(1, Ordering::AcqRel);
        Opening { opening }
    }
}

impl Drop for Opening<'_> {
    fn drop(&mut self) {
        self.opening.fetch_sub(1, Ordering::AcqRel);
    }
}
