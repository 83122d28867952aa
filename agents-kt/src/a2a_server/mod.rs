//! Serving an agent over A2A v1.0 (feature `a2a`): its card, and the JSON-RPC and HTTP+JSON
//! bindings of the official `a2a-server-lf` crate over a handler of our own
//! (`handler.rs`), so every inbound message runs the agent on its session path, through every
//! chain and gate, as the caller's principal.

mod admission;
mod card;
mod execution;
#[cfg(feature = "fuzzing")]
pub mod fuzz;
mod handler;
#[cfg(feature = "sqlite")]
mod task_file;
mod tasks;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::middleware::{self, Next};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::mcp_server::{Authenticator, ConnectionLimits, Origins, serve};
use crate::tool::inherited::Ancestor;
use crate::{Agent, AgentInput, AgentOutput, BuildError, ConversationStore};
use admission::Admission;
use handler::A2aHandler;
use tasks::TaskTable;

/// The header the admission layer puts the authenticated principal in (and removes from what
/// clients send).
const PRINCIPAL_HEADER: &str = "x-agents-kt-principal";

/// An agent served over A2A v1.0: the agent card at `/.well-known/agent-card.json`, JSON-RPC at
/// the base URL, HTTP+JSON under `/rest`. Each message starts (or continues) a task: the agent's
/// session as the caller's principal (its `Authorization` header through the
/// [`authenticator`](A2aServerBuilder::authenticator); `InterceptContext::client` in every
/// interceptor), its events as the task's status and artifact updates. A run that waits for an
/// approval — when the agent has no `ApprovalDesk` of its own — is a task in `input-required`
/// whose client answers it with its next message (an [`ApprovalAnswer`](crate::ApprovalAnswer)
/// as a data part, bound to the request's fingerprint). A task is visible only to the principal
/// that created it; a context id is a conversation of that principal (with
/// [`memory`](A2aServerBuilder::memory)).
///
/// ```no_run
/// use agents_kt::{A2aServer, Agent, ScriptedModel};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let agent = Agent::<String, String>::builder("triage").model(ScriptedModel::default()).build()?;
/// let server = A2aServer::builder(agent)
///     .description("Sorts incoming tickets.")
///     .authenticator(|header| header.strip_prefix("Bearer ").map(str::to_string))
///     .build()?;
/// let running = server.bind("127.0.0.1:0".parse()?).await?;
/// println!("card at {}/.well-known/agent-card.json", running.url());
/// running.wait().await?;
/// # Ok(()) }
/// ```
pub struct A2aServer<IN, OUT> {
    settings: Settings<IN, OUT>,
}

/// Builds an [`A2aServer`] ([`A2aServer::builder`]).
pub struct A2aServerBuilder<IN, OUT> {
    settings: Settings<IN, OUT>,
    errors: Vec<BuildError>,
}

struct Settings<IN, OUT> {
    agent: Agent<IN, OUT>,
    description: String,
    version: String,
    public_url: Option<String>,
    authenticator: Option<Authenticator>,
    allowed_origins: Vec<String>,
    max_body_bytes: usize,
    body_timeout: Duration,
    header_timeout: Duration,
    max_connections: usize,
    max_tasks: usize,
    memory: Option<Arc<dyn ConversationStore>>,
    above: Vec<Ancestor>,
    /// The SQLite file a durable server keeps its tasks and their journals in.
    task_file: Option<std::path::PathBuf>,
}

/// A server's routes, the URL its card announces, and the card.
struct Routed {
    router: axum::Router,
    url: String,
    card: a2a::AgentCard,
}

/// A running A2A server: where it listens, its card, and how to stop it.
#[derive(Debug)]
pub struct A2aHttpServer {
    address: SocketAddr,
    url: String,
    card: a2a::AgentCard,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

/// Why the A2A server could not start or stopped.
///
/// ```
/// let e = agents_kt::A2aServeError::new("address in use");
/// assert!(e.to_string().contains("address in use"));
/// ```
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error("A2A server failed: {0}")]
#[non_exhaustive]
pub struct A2aServeError(pub String);

impl A2aServeError {
    /// Serving stopped for this reason.
    pub fn new(reason: impl Into<String>) -> Self {
        A2aServeError(reason.into())
    }
}

impl<IN, OUT> A2aServer<IN, OUT>
where
    IN: AgentInput + DeserializeOwned + JsonSchema + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    /// Start describing the server of `agent` (defaults: no authentication, loopback origins,
    /// 1 MiB bodies, 1,000 tasks).
    pub fn builder(agent: Agent<IN, OUT>) -> A2aServerBuilder<IN, OUT> {
        A2aServerBuilder {
            settings: Settings {
                agent,
                description: String::new(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                public_url: None,
                authenticator: None,
                allowed_origins: Vec::new(),
                max_body_bytes: 1024 * 1024,
                body_timeout: Duration::from_secs(30),
                header_timeout: Duration::from_secs(10),
                max_connections: 1024,
                max_tasks: 1000,
                memory: None,
                above: Vec::new(),
                task_file: None,
            },
            errors: Vec::new(),
        }
    }

    /// Start serving at `address` (port 0 picks a free one).
    pub async fn bind(self, address: SocketAddr) -> Result<A2aHttpServer, A2aServeError> {
        let listener = TcpListener::bind(address)
            .await
            .map_err(|error| A2aServeError(format!("cannot listen on {address}: {error}")))?;
        let address = listener
            .local_addr()
            .map_err(|error| A2aServeError(error.to_string()))?;
        let limits = ConnectionLimits {
            max_connections: self.settings.max_connections,
            header_timeout: self.settings.header_timeout,
        };
        let Routed { router, url, card } = self.into_router(address)?;
        let stop = CancellationToken::new();
        let task = tokio::spawn(serve(listener, router, limits, stop.clone()));
        Ok(A2aHttpServer {
            address,
            url,
            card,
            stop,
            task,
        })
    }

    /// Everything the server answers, for a listener at `address`: the card, both bindings,
    /// behind the admission layer; its kept tasks back and the live ones running again.
    fn into_router(self, address: SocketAddr) -> Result<Routed, A2aServeError> {
        let settings = self.settings;
        let url = settings
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{address}"));
        let bearer = settings.authenticator.is_some();
        let card = card::card(
            &settings.agent,
            &settings.description,
            &settings.version,
            &url,
            bearer,
        );
        let admission = Arc::new(Admission {
            authenticator: settings.authenticator,
            origins: Origins::new(settings.allowed_origins, address),
            max_body_bytes: settings.max_body_bytes,
            body_timeout: settings.body_timeout,
        });
        let (records, kept) = kept_tasks(settings.task_file.as_deref())?;
        let handler = Arc::new(A2aHandler {
            agent: settings.agent,
            tasks: TaskTable::new(settings.max_tasks, records),
            memory: settings.memory,
            above: settings.above,
        });
        let live = handler.tasks.restore(kept);
        handler.rerun(live);
        let cards = Arc::new(a2a_server::StaticAgentCard::new(card.clone()));
        let router = axum::Router::new()
            .merge(a2a_server::agent_card::agent_card_router(cards))
            .merge(a2a_server::jsonrpc::jsonrpc_router(Arc::clone(&handler)))
            .nest(card::REST_PATH, a2a_server::rest::rest_router(handler))
            .layer(middleware::from_fn(move |request: Request, next: Next| {
                let admission = Arc::clone(&admission);
                async move { admission.admit(request, next).await }
            }));
        Ok(Routed { router, url, card })
    }

    /// Serve at `address` until the process ends.
    pub async fn serve(self, address: SocketAddr) -> Result<(), A2aServeError> {
        self.bind(address).await?.wait().await
    }
}

impl<IN, OUT> A2aServerBuilder<IN, OUT>
where
    IN: AgentInput + DeserializeOwned + JsonSchema + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    /// What the card says the agent does.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.settings.description = description.into();
        self
    }

    /// The agent's version on its card (default: this crate's).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.settings.version = version.into();
        self
    }

    /// The base URL the card announces (default `http://<bound address>`): set it behind a
    /// proxy.
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.settings.public_url = Some(url.into());
        self
    }

    /// Derive each request's principal from its `Authorization` header value; `None` (or no
    /// header) refuses it with 401. The card stays public.
    pub fn authenticator(
        mut self,
        authenticate: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.settings.authenticator = Some(Arc::new(authenticate));
        self
    }

    /// Browser `Origin`s accepted besides, on a loopback address, the loopback ones.
    pub fn allowed_origins<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.settings.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The largest request body accepted (default 1 MiB); larger ones get 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.settings.max_body_bytes = bytes;
        self
    }

    /// How many tasks the server keeps (default 1,000): past it the oldest finished task is
    /// forgotten, and while every one is live a new message is refused with a clear error.
    pub fn max_tasks(mut self, tasks: usize) -> Self {
        self.settings.max_tasks = tasks;
        self
    }

    /// Remember conversations in `store`: a message's context id continues the conversation of
    /// that principal and context.
    pub fn memory<S: ConversationStore + Clone>(mut self, store: &S) -> Self {
        self.settings.memory = Some(Arc::new(store.clone()));
        self
    }

    /// Keep the server's tasks, and every step of their runs, in the SQLite database file at
    /// `path` (feature `sqlite`): a server started again on the same file — after a crash, a
    /// deploy — shows every task it had, and runs each live one on from its journal. What a run
    /// did is replayed, not done again (the model is not asked, a tool does not run again); a
    /// task that waited in `input-required` asks the same question again (same fingerprint), so
    /// the client's answer still fits. A tool call in flight at the crash runs again, with the
    /// same [`idempotency_key`](crate::ToolContext::idempotency_key). One server process per
    /// file: two would run the same tasks (their journals refuse the second writer's steps).
    ///
    /// ```no_run
    /// use agents_kt::{A2aServer, Agent, ScriptedModel};
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let agent = Agent::<String, String>::builder("triage").model(ScriptedModel::default()).build()?;
    /// let server = A2aServer::builder(agent).durable("/var/lib/triage/tasks.db").build()?;
    /// # let _ = server; Ok(()) }
    /// ```
    #[cfg(feature = "sqlite")]
    pub fn durable(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.settings.task_file = Some(path.into());
        self
    }

    /// Judge every run the server starts by `policy` too, above the agent's own links (as
    /// [`McpServerBuilder::policy`](crate::McpServerBuilder::policy) does for MCP).
    pub fn policy(mut self, policy: &crate::Policy) -> Self {
        self.errors.extend(policy.errors().iter().cloned());
        self.settings.above.push(policy.as_ancestor());
        self
    }

    /// The server, or every problem found.
    pub fn build(self) -> Result<A2aServer<IN, OUT>, BuildError> {
        if let Some(error) = BuildError::all(self.errors) {
            return Err(error);
        }
        Ok(A2aServer {
            settings: self.settings,
        })
    }
}

/// Where a durable server keeps its tasks, and the tasks kept there.
type Kept = (Option<Arc<dyn tasks::TaskRecords>>, Vec<tasks::KeptTask>);

/// The task records of a durable server, and the tasks they kept; none without a task file.
fn kept_tasks(path: Option<&std::path::Path>) -> Result<Kept, A2aServeError> {
    let Some(path) = path else {
        return Ok((None, Vec::new()));
    };
    #[cfg(feature = "sqlite")]
    {
        let file = task_file::TaskFile::open(path).map_err(A2aServeError)?;
        let kept = file.load().map_err(A2aServeError)?;
        Ok((Some(Arc::new(file)), kept))
    }
    #[cfg(not(feature = "sqlite"))]
    Err(A2aServeError(format!(
        "a task file ({}) needs the feature `sqlite`",
        path.display()
    )))
}

impl A2aHttpServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// The base URL its card announces.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The agent card it serves, as JSON.
    pub fn card(&self) -> serde_json::Value {
        serde_json::to_value(&self.card).unwrap_or(serde_json::Value::Null)
    }

    /// Stop accepting requests.
    pub async fn shutdown(self) -> Result<(), A2aServeError> {
        self.stop.cancel();
        self.task
            .await
            .map_err(|error| A2aServeError(error.to_string()))
    }

    /// Serve until the process ends.
    pub async fn wait(self) -> Result<(), A2aServeError> {
        self.task
            .await
            .map_err(|error| A2aServeError(error.to_string()))
    }
}

impl<IN, OUT> std::fmt::Debug for A2aServer<IN, OUT> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2aServer")
            .field("agent", &self.settings.agent)
            .field("authenticator", &self.settings.authenticator.is_some())
            .finish_non_exhaustive()
    }
}

impl<IN, OUT> std::fmt::Debug for A2aServerBuilder<IN, OUT> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2aServerBuilder")
            .field("agent", &self.settings.agent)
            .finish_non_exhaustive()
    }
}

crate::error_debug::readable_debug!(A2aServeError);
