//! Tools of MCP servers, used by an agent through the same guarded pipeline as its Rust tools
//! (cargo feature `mcp-client`, on by default).
//!
//! [`McpToolset`] connects to a server (a command spoken to over stdio), lists its tools, and
//! [`AgentBuilder::toolset`](crate::AgentBuilder::toolset) registers them: every call of a remote
//! tool passes the skill's allow-list, the budget, the dynamic interceptors and gates, then goes
//! to the server, and its result passes the after-tool chain — exactly like a Rust tool's, on
//! `run`, `session` and code skills. A remote `isError` result reaches the model as
//! `ERROR: Tool '<name>' failed: <text>`; structured content is kept.

mod authorizer;
mod binding;
mod connection;
mod elicitation;
mod identity;
mod listing;
mod oauth;
mod plain_error;
mod register;
mod remote;
mod token_store;

use std::process::Stdio;
use std::sync::Arc;

use futures::FutureExt;
use rmcp::ServiceExt;
use rmcp::service::RoleClient;
use rmcp::transport::TokioChildProcess;

use connection::{Connect, Connection, Service};
use identity::Settings;
use listing::{Listing, Notices};
use serde_json::Value;
use tokio::io::AsyncBufReadExt;

use authorizer::{Authorizer, MAX_AUTHORIZATIONS};
pub use binding::{RemoteBinding, RemoteToolBinding};
pub use elicitation::{Elicitation, ElicitationAnswer};
pub use oauth::McpOAuth;
pub(crate) use remote::RemoteCall;
pub use token_store::{FileTokens, MemoryTokens, TokenStore};

use crate::tool::registry::ToolEntry;
use crate::tool::runtime::ErasedTool;

/// The settings both ways of reaching a server share (`McpStdio`, `McpHttp`), written once.
macro_rules! client_settings {
    () => {
        /// The `clientInfo` sent in `initialize` (servers log it, and may authorize by it);
        /// `agents-kt` and its version unless set.
        ///
        /// ```no_run
        /// # async fn demo() -> Result<(), agents_kt::McpClientError> {
        /// let tools = agents_kt::McpToolset::http("http://127.0.0.1:8808/mcp")
        ///     .client_info("billing-bot", "2.1.0")
        ///     .protocol_version("2025-11-25")
        ///     .connect()
        ///     .await?;
        /// println!("speaking MCP {}", tools.protocol_version());
        /// # Ok(()) }
        /// ```
        pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
            self.settings.identity.name = name.into();
            self.settings.identity.version = version.into();
            self
        }

        /// The MCP protocol version to ask for (`"2025-11-25"`, …; the newest rmcp speaks unless
        /// set). The server may answer with an older one it supports; see
        /// [`McpToolset::protocol_version`]. An unknown version fails `connect`.
        pub fn protocol_version(mut self, version: impl Into<String>) -> Self {
            self.settings.protocol = Some(version.into());
            self
        }

        /// How long the server may take to answer one request — a `tools/call`, and the handshake
        /// and listing of a (re)connection (which get at least 30 s: starting a server takes time)
        /// — before it fails with a clear error (60 s unless set).
        /// A call past it is cancelled on the server (`notifications/cancelled`) and the connection
        /// stays usable. An agent's `per_tool_timeout`, when shorter, ends the call first.
        pub fn call_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.call_timeout = timeout;
            self
        }

        /// Answer the server's questions to a person (`elicitation/create`, form mode) with
        /// `handler`; the client then offers elicitation. An accepted answer that does not fit
        /// the schema the server asked with is not sent: the server gets an error naming the
        /// field. The tool call that asked waits (within `call_timeout`) for the answer.
        ///
        /// ```no_run
        /// use agents_kt::mcp::{Elicitation, ElicitationAnswer};
        /// # async fn demo() -> Result<(), agents_kt::McpClientError> {
        /// let tools = agents_kt::McpToolset::http("http://127.0.0.1:8808/mcp")
        ///     .on_elicitation(|asked: Elicitation| async move {
        ///         println!("{} asks: {}", asked.server, asked.message);
        ///         ElicitationAnswer::accept(asked.defaults())
        ///     })
        ///     .connect()
        ///     .await?;
        /// # let _ = tools; Ok(()) }
        /// ```
        pub fn on_elicitation<F, Fut>(mut self, handler: F) -> Self
        where
            F: Fn(Elicitation) -> Fut + Send + Sync + 'static,
            Fut: std::future::Future<Output = ElicitationAnswer> + Send + 'static,
        {
            self.settings.elicit = Some(elicitation::Elicit::handler(handler));
            self
        }

        /// Put the server's questions to a person on `desk`, as approvals of the tool
        /// `mcp_elicitation` whose arguments are `{server, message, schema, content}`
        /// (`content`: the schema's defaults): approving accepts `content` as shown, an edit
        /// accepts the edited `content`, a denial (or no answer) declines.
        pub fn elicitation_desk(mut self, desk: crate::ApprovalDesk) -> Self {
            self.settings.elicit = Some(elicitation::Elicit::desk(desk));
            self
        }
    };
}

/// Registers a bound remote tool on an agent being built: instantiated for the binding's type
/// when it is bound, so the toolset need not be generic over it.
pub(crate) type RegisterBound = fn(
    Arc<str>,
    RemoteBinding,
    crate::ToolSpec,
    &[ToolEntry],
) -> Result<Arc<dyn ErasedTool>, crate::BuildError>;

/// A remote tool bound to Rust types, by [`McpToolset::bind`].
#[derive(Clone)]
pub(crate) struct Bound {
    /// The name the binding's type gives (`Tool::NAME`): the tool's registered name.
    pub name: &'static str,
    /// The binding's type, for messages.
    pub type_name: &'static str,
    pub register: RegisterBound,
}

/// How long a request to the server may go unanswered unless the application says otherwise
/// (the MCP SDKs' own default): a frozen server fails the call, never hangs it.
pub(crate) const DEFAULT_CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// The least time a (re)connection's handshake gets, whatever `call_timeout` says: it may start
/// a process (an interpreter importing its SDK takes seconds), which a call never does.
pub(crate) const HANDSHAKE_FLOOR: std::time::Duration = std::time::Duration::from_secs(30);

/// Why connecting to an MCP server failed.
#[derive(thiserror::Error)]
#[error("MCP server `{server}`: {reason}")]
#[non_exhaustive]
pub struct McpClientError {
    /// The command (or address) of the server.
    pub server: String,
    /// What went wrong.
    pub reason: String,
}

/// The tools of one MCP server, ready to register on agents.
///
/// ```no_run
/// use agents_kt::prelude::*;
/// use agents_kt::McpToolset;
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let files = McpToolset::stdio("npx")
///     .args(["-y", "@modelcontextprotocol/server-filesystem", "/srv/notes"])
///     .connect()
///     .await?
///     .only(["read_text_file", "list_directory"])
///     .prefix("fs");
/// let agent = Agent::<String, String>::builder("notes")
///     .model(ScriptedModel::default())
///     .toolset(files) // fs_read_text_file, fs_list_directory
///     .on_before_tool_call(|name: &str, _args: &serde_json::Value| Decision::Proceed)
///     .build()?;
/// # let _ = agent; Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpToolset {
    server: String,
    connection: Arc<Connection>,
    tools: Vec<RemoteTool>,
    prefix: Option<String>,
}

impl std::fmt::Debug for McpToolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpToolset")
            .field("server", &self.server)
            .field("tools", &self.names())
            .finish()
    }
}

/// A tool as the server listed it, and its binding to Rust types if it has one.
#[derive(Clone)]
pub(crate) struct RemoteTool {
    pub remote_name: Arc<str>,
    pub description: String,
    /// Shared with the calls registered from this listing, so checking a call against the
    /// listing costs a pointer comparison until the server's list changes.
    pub input_schema: Arc<Value>,
    pub bound: Option<Bound>,
}

impl RemoteTool {
    fn listed(tool: &rmcp::model::Tool) -> Self {
        RemoteTool {
            remote_name: Arc::from(tool.name.as_ref()),
            description: tool.description.as_deref().unwrap_or_default().to_string(),
            input_schema: Arc::new(Value::Object((*tool.input_schema).clone())),
            bound: None,
        }
    }
}

/// A server to start and speak to over its stdin and stdout, before it is connected.
#[derive(Debug, Clone)]
pub struct McpStdio {
    command: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    settings: Settings,
}

/// A server reached over streamable HTTP, before it is connected.
#[derive(Clone)]
pub struct McpHttp {
    url: String,
    bearer: Option<String>,
    headers: Vec<(String, String)>,
    settings: Settings,
    oauth: Option<McpOAuth>,
    /// Made from `oauth` by `connect`, shared by every reconnection.
    authorizer: Option<Arc<Authorizer>>,
}

impl std::fmt::Debug for McpHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a secret: never printed.
        f.debug_struct("McpHttp")
            .field("url", &self.url)
            .field("bearer", &self.bearer.as_ref().map(|_| "…"))
            .field("oauth", &self.oauth)
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl McpToolset {
    /// A server at `url` (its MCP endpoint, e.g. `http://127.0.0.1:8808/mcp`), spoken to over
    /// streamable HTTP.
    pub fn http(url: impl Into<String>) -> McpHttp {
        McpHttp {
            url: url.into(),
            bearer: None,
            headers: Vec::new(),
            settings: Settings::default(),
            oauth: None,
            authorizer: None,
        }
    }

    /// A server started as `command`, spoken to over its stdin and stdout; its stderr goes to
    /// `tracing` (target `agents_kt::mcp_server_stderr`).
    pub fn stdio(command: impl Into<String>) -> McpStdio {
        McpStdio {
            command: command.into(),
            args: Vec::new(),
            env: Vec::new(),
            settings: Settings::default(),
        }
    }

    /// Keep only the tools of these (server) names.
    pub fn only<S: AsRef<str>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        let keep: Vec<String> = names.into_iter().map(|n| n.as_ref().to_string()).collect();
        self.tools
            .retain(|tool| keep.iter().any(|name| **name == *tool.remote_name));
        self
    }

    /// Leave out the tools of these (server) names.
    pub fn except<S: AsRef<str>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        let drop: Vec<String> = names.into_iter().map(|n| n.as_ref().to_string()).collect();
        self.tools
            .retain(|tool| !drop.iter().any(|name| **name == *tool.remote_name));
        self
    }

    /// Register the tools as `<prefix>_<name>`, so two servers' tools cannot clash.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// The server: its command line.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// This toolset with the tools the server lists now, on the same connection and prefix (no
    /// filter, no binding: apply them again). The server's list is re-read whenever it announces
    /// a change (`notifications/tools/list_changed`) and when it is reconnected. Agents keep the
    /// tools they were built with — a call of one the server no longer lists, or whose input
    /// schema changed, is refused before it is sent — so build a new agent from this to offer
    /// the new list.
    pub fn relisted(&self) -> McpToolset {
        McpToolset {
            server: self.server.clone(),
            connection: Arc::clone(&self.connection),
            tools: self.connection.listing.tools(),
            prefix: self.prefix.clone(),
        }
    }

    /// The MCP protocol version the server agreed to in its last `initialize` (it may be older
    /// than the one asked for).
    pub fn protocol_version(&self) -> String {
        self.connection.protocol_version()
    }

    /// The names the tools are registered under (prefixed), in the server's order.
    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|tool| self.name_of(tool)).collect()
    }

    /// The input schema the server lists for the tool registered as `name` (prefixed), as the
    /// model is shown it.
    pub fn input_schema(&self, name: &str) -> Option<&Value> {
        self.tools
            .iter()
            .find(|tool| self.name_of(tool) == name)
            .map(|tool| &*tool.input_schema)
    }

    fn name_of(&self, tool: &RemoteTool) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}_{}", tool.remote_name),
            None => tool.remote_name.to_string(),
        }
    }

    /// Bind the remote tool registered as `B::NAME` to `B`'s Rust types (`B` comes from
    /// [`remote_tool!`](crate::remote_tool)), so interceptors, gates and after-interceptors can
    /// be written for it with the compiler checking their types, as for a Rust tool. `B::NAME` is
    /// the registered name: with [`prefix`](Self::prefix), prefix first and bind
    /// `"<prefix>_<name>"`.
    ///
    /// The arguments type is checked against the server's input schema now: a property the
    /// server requires that `B::Args` lacks or makes optional, a property the server does not
    /// take, or a JSON type that differs is an error naming the property. (The model is still
    /// shown the server's schema, and the server's result is read as `B::Output` on every call:
    /// a result that does not fit fails that call.)
    ///
    /// ```no_run
    /// use agents_kt::prelude::*;
    /// use agents_kt::McpToolset;
    ///
    /// /// The filesystem server's `write_file` arguments.
    /// #[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
    /// pub struct WriteFileArgs {
    ///     pub path: String,
    ///     pub content: String,
    /// }
    ///
    /// agents_kt::remote_tool! {
    ///     /// The filesystem server's `write_file`, typed.
    ///     pub struct WriteFile("write_file"): WriteFileArgs => serde_json::Value;
    /// }
    ///
    /// /// Writes stay in /srv/notes.
    /// #[gate(WriteFile)]
    /// fn notes_only(args: &WriteFileArgs) -> Verdict {
    ///     if args.path.starts_with("/srv/notes/") { Verdict::Allow } else { Verdict::deny("outside /srv/notes") }
    /// }
    ///
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// let files = McpToolset::stdio("npx")
    ///     .args(["-y", "@modelcontextprotocol/server-filesystem", "/srv/notes"])
    ///     .connect()
    ///     .await?
    ///     .bind::<WriteFile>()?;
    /// let agent = Agent::<String, String>::builder("notes")
    ///     .model(ScriptedModel::default())
    ///     .toolset(files)
    ///     .gate_tool_call(notes_only)
    ///     .build()?;
    /// # let _ = agent; Ok(()) }
    /// ```
    #[allow(clippy::result_large_err)]
    pub fn bind<B: RemoteToolBinding>(mut self) -> Result<Self, McpClientError> {
        let registered: Vec<String> = self.names();
        let Some(index) = registered.iter().position(|name| name == B::NAME) else {
            return Err(self.failed(format!(
                "`{}` binds the tool `{}`, which is not among the server's tools as registered here: {}",
                std::any::type_name::<B>(),
                B::NAME,
                registered.join(", ")
            )));
        };
        let ours = serde_json::to_value(schemars::schema_for!(B::Args)).unwrap_or(Value::Null);
        let tool = &mut self.tools[index];
        if let Err(reason) = binding::fits(&ours, &tool.input_schema) {
            let reason = format!(
                "`{}` does not fit the tool `{}`: {reason}",
                std::any::type_name::<B::Args>(),
                B::NAME
            );
            return Err(self.failed(reason));
        }
        tool.bound = Some(Bound {
            name: B::NAME,
            type_name: std::any::type_name::<B>(),
            register: register::bound::<B>,
        });
        Ok(self)
    }

    fn failed(&self, reason: String) -> McpClientError {
        McpClientError {
            server: self.server.clone(),
            reason,
        }
    }
}

impl McpStdio {
    /// One more argument of the command.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// More arguments of the command.
    pub fn args<S: Into<String>>(mut self, args: impl IntoIterator<Item = S>) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// An environment variable of the server's process.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    client_settings!();

    /// Start the server, initialize the session, and list its tools (every page). If the
    /// server's process dies later, the next call starts it again.
    pub async fn connect(mut self) -> Result<McpToolset, McpClientError> {
        let server = std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        self.settings.resolve(&server)?;
        let label = server.clone();
        let listing = Arc::new(Listing::default());
        let notices = Arc::clone(&listing);
        let call_timeout = self.settings.call_timeout;
        let connect: Connect = Arc::new(move || {
            let spec = self.clone();
            let server = label.clone();
            let listing = Arc::clone(&notices);
            async move { spec.start(server, listing).await }.boxed()
        });
        connected(server, connect, listing, call_timeout, None).await
    }

    async fn start(self, server: String, listing: Arc<Listing>) -> Result<Service, McpClientError> {
        let failed = |reason: String| McpClientError {
            server: server.clone(),
            reason,
        };
        let mut command = tokio::process::Command::new(&self.command);
        command.args(&self.args).envs(self.env.iter().cloned());
        let (transport, stderr) = TokioChildProcess::builder(command)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| {
                // `stdio("npx -y server")`: the whole line taken as the program's name.
                let hint = if error.kind() == std::io::ErrorKind::NotFound
                    && self.command.contains(char::is_whitespace)
                {
                    " (the command is one program's name: pass its arguments with `.args(..)`)"
                } else {
                    ""
                };
                failed(format!("could not start it: {error}{hint}"))
            })?;
        if let Some(stderr) = stderr {
            let name = self.command.clone();
            tokio::spawn(async move {
                let mut lines = tokio::io::BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::info!(target: "agents_kt::mcp_server_stderr", server = %name, "{line}");
                }
            });
        }
        handshake(&server, transport, listing, &self.settings)
            .await
            .map_err(|refused| refused.error)
    }
}

impl McpHttp {
    /// Send `Authorization: Bearer <token>` with every request.
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into());
        self
    }

    /// Send this header with every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Authorize with OAuth when the server asks for it (`401`, or `403` for more scope): see
    /// [`McpOAuth`]. A request the server refused is sent again once authorized. Instead of
    /// [`bearer`](Self::bearer): `connect` refuses both.
    pub fn oauth(mut self, oauth: McpOAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    client_settings!();

    /// Initialize a session and list the server's tools (every page). If the session is lost
    /// later (the server restarted, the session expired), the next call opens a new one.
    pub async fn connect(mut self) -> Result<McpToolset, McpClientError> {
        let server = self.url.clone();
        self.settings.resolve(&server)?;
        if let Some(oauth) = self.oauth.clone() {
            if self.bearer.is_some() {
                // A fixed token would be sent in place of every token OAuth obtains.
                return Err(McpClientError {
                    server,
                    reason: "give either `.bearer(..)` or `.oauth(..)`, not both".to_string(),
                });
            }
            self.authorizer = Some(Authorizer::new(&server, oauth).await?);
        }
        let authorizer = self.authorizer.clone();
        let listing = Arc::new(Listing::default());
        let notices = Arc::clone(&listing);
        let call_timeout = self.settings.call_timeout;
        let connect: Connect = Arc::new(move || {
            let spec = self.clone();
            let listing = Arc::clone(&notices);
            async move { spec.open(listing).await }.boxed()
        });
        connected(server, connect, listing, call_timeout, authorizer).await
    }

    /// A session, authorizing first when the server's answer to `initialize` asks for it.
    async fn open(self, listing: Arc<Listing>) -> Result<Service, McpClientError> {
        use rmcp::transport::StreamableHttpClientTransport;
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
        let failed = |reason: String| McpClientError {
            server: self.url.clone(),
            reason,
        };
        let mut headers = std::collections::HashMap::new();
        for (name, value) in &self.headers {
            let name = reqwest::header::HeaderName::try_from(name.as_str())
                .map_err(|error| failed(format!("header `{name}`: {error}")))?;
            let value = reqwest::header::HeaderValue::try_from(value.as_str())
                .map_err(|error| failed(format!("header `{name}`'s value: {error}")))?;
            headers.insert(name, value);
        }
        let mut config =
            StreamableHttpClientTransportConfig::with_uri(self.url.clone()).custom_headers(headers);
        if let Some(token) = &self.bearer {
            config = config.auth_header(token.clone());
        }
        let mut authorizations = 0;
        loop {
            let Some(authorizer) = &self.authorizer else {
                let transport =
                    StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
                return handshake(&self.url, transport, listing, &self.settings)
                    .await
                    .map_err(|refused| refused.error);
            };
            let seen = authorizer.generation();
            let transport =
                StreamableHttpClientTransport::with_client(authorizer.client(), config.clone());
            match handshake(&self.url, transport, Arc::clone(&listing), &self.settings).await {
                Ok(service) => return Ok(service),
                Err(Refused {
                    challenge: Some(challenge),
                    ..
                }) if authorizations < MAX_AUTHORIZATIONS => {
                    authorizer.authorize(&challenge, seen).await?;
                    authorizations += 1;
                }
                Err(refused) => return Err(refused.error),
            }
        }
    }
}

/// Why a handshake failed, and the server's challenge when it asked for authorization.
struct Refused {
    error: McpClientError,
    challenge: Option<String>,
}

/// The MCP handshake over `transport`, bounded by the call timeout (at least
/// [`HANDSHAKE_FLOOR`]); the client re-lists the server's tools into `listing` whenever the
/// server says they changed.
async fn handshake<T, E, A>(
    server: &str,
    transport: T,
    listing: Arc<Listing>,
    settings: &Settings,
) -> Result<Service, Refused>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let failed = |reason: String| McpClientError {
        server: server.to_string(),
        reason,
    };
    let limit = settings.call_timeout.max(HANDSHAKE_FLOOR);
    let notices = Notices {
        listing,
        identity: settings.identity.clone(),
        elicit: settings.elicit.clone(),
        server: server.to_string(),
    };
    match tokio::time::timeout(limit, notices.serve(transport)).await {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(error)) => Err(Refused {
            challenge: error.auth_challenge().map(str::to_string),
            error: failed(format!(
                "the MCP handshake failed: {}",
                plain_error::plain(&error, server)
            )),
        }),
        Err(_) => Err(Refused {
            error: failed(format!("the MCP handshake got no answer within {limit:?}")),
            challenge: None,
        }),
    }
}

/// The first connection, then every page of the server's tools.
async fn connected(
    server: String,
    connect: Connect,
    listing: Arc<Listing>,
    call_timeout: std::time::Duration,
    authorizer: Option<Arc<Authorizer>>,
) -> Result<McpToolset, McpClientError> {
    let service = connect().await?;
    let connection = Connection::new(server.clone(), connect, service, listing, call_timeout)
        .authorized_by(authorizer);
    let service = connection.live().await?;
    connection.list_tools(&service).await?;
    let tools = connection.listing.tools();
    Ok(McpToolset {
        connection: Arc::new(connection),
        server,
        tools,
        prefix: None,
    })
}

crate::error_debug::readable_debug!(McpClientError);
