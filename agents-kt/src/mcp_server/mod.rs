//! `McpServer`: an agent's exposed tools and skills served over MCP with the official Rust SDK
//! `rmcp`. A `tools/call` passes the agent's own tool chain — the same runner, observers and
//! pipeline events as the agent loop — and a per-client policy decides who may call what.

mod bind;
mod call_quota;
mod client_log;
mod handler;
mod hang_up;
mod http;
mod jsonrpc;
mod lines;
mod origin;
mod outbox;
mod principal;
mod progress;
mod serve;
mod service;

use std::sync::Arc;

pub use bind::McpHttpServer;
// The A2A server's HTTP layer is this one's: the same origins, authenticator and accept loop.
#[cfg(feature = "a2a")]
pub(crate) use http::Authenticator;
#[cfg(feature = "a2a")]
pub(crate) use origin::Origins;
#[cfg(feature = "a2a")]
pub(crate) use serve::{ConnectionLimits, serve};

use crate::{Agent, AgentInput, AgentOutput, BuildError, Tool};

/// Who is calling, as the client named itself in `initialize`.
///
/// ```
/// let client = agents_kt::McpClient { name: "inspector".into(), version: "0.15".into() };
/// assert_eq!(client.name, "inspector");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpClient {
    /// `clientInfo.name`.
    pub name: String,
    /// `clientInfo.version`.
    pub version: String,
}

/// Decides whether a client may see and call a tool (or skill) by name.
type ClientPolicy = Arc<dyn Fn(&McpClient, &str) -> bool + Send + Sync>;

/// Serves an agent's exposed tools and skills over MCP.
///
/// ```no_run
/// use agents_kt::{Agent, McpServer, ScriptedModel};
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let agent = Agent::<String, String>::builder("desk").model(ScriptedModel::default()).build()?;
/// McpServer::builder(agent)
///     .expose_skill("default")
///     .client_policy(|client, tool| client.name != "untrusted" || tool == "default")
///     .build()?
///     .serve_stdio()
///     .await?;
/// # Ok(()) }
/// ```
pub struct McpServer<IN, OUT> {
    inner: Arc<Exposed<IN, OUT>>,
}

struct Exposed<IN, OUT> {
    agent: Agent<IN, OUT>,
    tools: Vec<Arc<str>>,
    skills: Vec<String>,
    /// The exposed skills' input schema (every skill takes the agent's `IN`), worked out once.
    skill_input: std::sync::OnceLock<handler::SkillInput>,
    policy: Option<ClientPolicy>,
    /// Policies judging every call of this server, above the agent's own links.
    above: Vec<crate::tool::inherited::Ancestor>,
    http: HttpOptions,
    /// Caps concurrent `tools/call`s, in all and per client; later calls wait for a slot.
    calls: Arc<call_quota::CallQuota>,
    /// Whether the `logging` capability is offered (`logging/setLevel`).
    client_logging: bool,
}

/// How the HTTP transport admits requests.
struct HttpOptions {
    authenticator: Option<http::Authenticator>,
    /// `None`: rmcp's loopback-only default.
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Vec<String>,
    max_body_bytes: usize,
    /// Open sessions at most; an `initialize` beyond is refused.
    max_sessions: usize,
    /// A session with no request for this long is closed.
    session_idle_timeout: std::time::Duration,
    /// How long a call whose client hung up on its answer waits for the client to come back.
    hang_up_grace: std::time::Duration,
    /// Connections open at most; more wait until one ends.
    max_connections: usize,
    /// How long a connection may take to send a request's head (first byte included).
    header_timeout: std::time::Duration,
    /// How long a request's body may take to arrive.
    body_timeout: std::time::Duration,
}

/// Configures an [`McpServer`].
pub struct McpServerBuilder<IN, OUT> {
    exposed: Exposed<IN, OUT>,
    errors: Vec<BuildError>,
}

impl<IN: AgentInput, OUT: AgentOutput> McpServer<IN, OUT> {
    /// Start configuring a server for `agent`; nothing is exposed until you say so.
    pub fn builder(agent: Agent<IN, OUT>) -> McpServerBuilder<IN, OUT> {
        McpServerBuilder {
            exposed: Exposed {
                agent,
                tools: Vec::new(),
                skills: Vec::new(),
                skill_input: std::sync::OnceLock::new(),
                policy: None,
                above: Vec::new(),
                http: HttpOptions {
                    authenticator: None,
                    allowed_hosts: None,
                    allowed_origins: Vec::new(),
                    max_body_bytes: 1024 * 1024,
                    max_sessions: 1024,
                    session_idle_timeout: std::time::Duration::from_secs(300),
                    hang_up_grace: std::time::Duration::from_secs(30),
                    max_connections: 1024,
                    header_timeout: std::time::Duration::from_secs(10),
                    body_timeout: std::time::Duration::from_secs(30),
                },
                calls: Arc::new(call_quota::CallQuota::new(
                    16,
                    call_quota::CallQuota::half(16),
                )),
                client_logging: true,
            },
            errors: Vec::new(),
        }
    }
}

impl<IN: AgentInput, OUT: AgentOutput> McpServerBuilder<IN, OUT> {
    /// Whether to offer MCP's `logging` capability (on by default). A client that sends
    /// `logging/setLevel` then receives, as `notifications/message`, the `tracing` events of its
    /// own `tools/call`s (the runtime's — decisions, denials, failures — and its tools') at or
    /// above that level; never another client's. Turn it off when those events carry what
    /// clients must not read: `logging/setLevel` is then an unknown method (-32601).
    pub fn client_logging(mut self, offered: bool) -> Self {
        self.exposed.client_logging = offered;
        self
    }

    /// Expose tool `T` (registered on the agent) as an MCP tool of the same name.
    pub fn expose_tool<T: Tool>(mut self) -> Self {
        if self.exposed.agent.tool_spec(T::NAME).is_none() {
            self.errors.push(BuildError::UnknownAllowedTool {
                skill: "(MCP server)".into(),
                tool: T::NAME.into(),
            });
        }
        self.exposed.tools.push(Arc::from(T::NAME));
        self
    }

    /// Expose the agent's tool registered as `name` — one whose name is known only at run time,
    /// such as a sub-agent ([`AgentBuilder::sub_agent`](crate::AgentBuilder::sub_agent)) — as an
    /// MCP tool of that name. A name the agent does not have is a build error.
    pub fn expose_tool_named(mut self, name: &str) -> Self {
        match self.exposed.agent.registered_tool_name(name) {
            Some(registered) => self.exposed.tools.push(registered),
            None => self.errors.push(BuildError::UnknownAllowedTool {
                skill: "(MCP server)".into(),
                tool: name.to_string(),
            }),
        }
        self
    }

    /// Expose the tools of an MCP server that the agent registered with
    /// [`AgentBuilder::toolset`](crate::AgentBuilder::toolset): the agent becomes a policy
    /// gateway in front of that server — every `tools/call` passes the agent's interceptors,
    /// gates and after-tool chain (with the caller as `InterceptContext::client`) before and
    /// after it is forwarded. A tool of the set the agent did not register is a build error.
    #[cfg(feature = "mcp-client")]
    pub fn expose_toolset(mut self, set: &crate::McpToolset) -> Self {
        for name in set.names() {
            match self.exposed.agent.registered_tool_name(&name) {
                Some(registered) => self.exposed.tools.push(registered),
                None => self.errors.push(BuildError::UnknownAllowedTool {
                    skill: "(MCP server)".into(),
                    tool: name,
                }),
            }
        }
        self
    }

    /// Expose the agent's skill `name` as an MCP tool of that name, taking the agent's input.
    pub fn expose_skill(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        if !self.exposed.agent.skill_names().contains(&name.as_str()) {
            self.errors
                .push(BuildError::UnknownSkill { name: name.clone() });
        }
        self.exposed.skills.push(name);
        self
    }

    /// Judge every `tools/call` of this server by `policy` too — its gates and its interceptors,
    /// above the agent's own links (an exposed tool's, an exposed skill's, and every call made
    /// inside the runs they start, at any depth) — with denials worded as the agent's own
    /// (`ERROR: Tool '<name>' denied by policy: <reason>`). The same [`Policy`](crate::Policy)
    /// attached to an agent (`AgentBuilder::policy`) denies the same call with the same text,
    /// locally and over MCP.
    ///
    /// ```
    /// use agents_kt::{Agent, McpServer, Policy, ScriptedModel, Verdict};
    /// # use agents_kt::{Tool, ToolContext, ToolError};
    /// # #[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
    /// # pub struct PingArgs {}
    /// # pub struct Ping;
    /// # impl Tool for Ping {
    /// #     const NAME: &'static str = "ping";
    /// #     type Args = PingArgs;
    /// #     type Output = String;
    /// #     fn description(&self) -> std::borrow::Cow<'static, str> { "Ping.".into() }
    /// #     async fn call(&self, _: PingArgs, _: &ToolContext) -> Result<String, ToolError> { Ok("pong".into()) }
    /// # }
    /// let policy = Policy::builder("org")
    ///     .on_gate_tool_call(|name: &str, _: &serde_json::Value| match name {
    ///         "ping" => Verdict::deny("no pings today"),
    ///         _ => Verdict::Allow,
    ///     })
    ///     .build();
    /// let agent = Agent::<String, String>::builder("desk")
    ///     .model(ScriptedModel::default())
    ///     .tool(Ping)
    ///     .build()
    ///     .unwrap();
    /// let server = McpServer::builder(agent).expose_tool::<Ping>().policy(&policy).build().unwrap();
    /// # let _ = server;
    /// ```
    pub fn policy(mut self, policy: &crate::Policy) -> Self {
        self.errors.extend(policy.errors().iter().cloned());
        self.exposed.above.push(policy.as_ancestor());
        self
    }

    /// Decide per client which exposed tools and skills it may list and call.
    pub fn client_policy(
        mut self,
        policy: impl Fn(&McpClient, &str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.exposed.policy = Some(Arc::new(policy));
        self
    }

    /// Over HTTP, derive each request's principal from its `Authorization` header value
    /// (`None` rejects it with 401; so does a missing header). The client policy sees the
    /// principal as the client's name.
    pub fn authenticator(
        mut self,
        authenticate: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.exposed.http.authenticator = Some(Arc::new(authenticate));
        self
    }

    /// Over HTTP, the `Host` values accepted (default: loopback only, against DNS rebinding).
    pub fn allowed_hosts<S: Into<String>>(mut self, hosts: impl IntoIterator<Item = S>) -> Self {
        self.exposed.http.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Over HTTP, browser `Origin`s accepted besides the default ones, exactly as browsers send
    /// them (`https://app.example.com`). Default: when the server is bound to a loopback address,
    /// the loopback origins — `http` or `https` with host `localhost`, `127.0.0.1` or `[::1]`, any
    /// port — since a page served from the same machine may reach a server listening only there;
    /// bound to any other address, none. A request carrying any other `Origin` is refused (403,
    /// audited in the log), so a page of another site cannot reach a local server (DNS
    /// rebinding); clients that are not browsers send no `Origin` and are unaffected.
    pub fn allowed_origins<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.exposed.http.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// Over HTTP, the largest request body accepted (default 1 MiB).
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.exposed.http.max_body_bytes = bytes;
        self
    }

    /// Over HTTP, the most sessions open at once (default 1024): an `initialize` beyond them is
    /// answered 503 with a JSON-RPC error, so a flood of sessions cannot exhaust memory. A
    /// session ends on `DELETE`, or after [`session_idle_timeout`](Self::session_idle_timeout).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.exposed.http.max_sessions = sessions.max(1);
        self
    }

    /// Over HTTP, how long a session may go without a request before it is closed and its slot
    /// freed (default 5 minutes); a client using it afterwards gets 404 and starts a new one.
    pub fn session_idle_timeout(mut self, idle: std::time::Duration) -> Self {
        self.exposed.http.session_idle_timeout = idle;
        self
    }

    /// Over HTTP, how long a call keeps running after its client hung up on the answer's stream
    /// without ending its session (default 30 s): long enough for a client to come back for the
    /// answer (a `GET` with `Last-Event-ID` resumes the stream; rmcp keeps it), short enough that
    /// an abandoned call does not hold its slot until the session expires. Past it, the call is
    /// cancelled as if the client had sent `notifications/cancelled`. A client that ends its
    /// session (`DELETE`) has its calls cancelled at once. Coming back marks the session, not one
    /// call: a client that resumes and then hangs up again keeps its calls until the session
    /// expires.
    ///
    /// ```
    /// # use agents_kt::prelude::*;
    /// # let agent = Agent::<String, String>::builder("a").model(ScriptedModel::default()).build().unwrap();
    /// let server = agents_kt::McpServer::builder(agent)
    ///     .hang_up_grace(std::time::Duration::from_secs(5))
    ///     .build();
    /// ```
    pub fn hang_up_grace(mut self, grace: std::time::Duration) -> Self {
        self.exposed.http.hang_up_grace = grace;
        self
    }

    /// Over HTTP, the most connections open at once (default 1024); more wait, unaccepted,
    /// until one ends. With the timeouts below, silent or slow clients cannot hold them all.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.exposed.http.max_connections = connections.max(1);
        self
    }

    /// Over HTTP, how long a connection may take to send a whole request head, its first byte
    /// included (default 10 s); one that does not is closed (slowloris, connect-and-wait).
    pub fn header_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.exposed.http.header_timeout = timeout;
        self
    }

    /// Over HTTP, how long a request body may take to arrive (default 30 s); a slower one is
    /// answered 408 with a JSON-RPC error.
    pub fn body_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.exposed.http.body_timeout = timeout;
        self
    }

    /// The most `tools/call`s served at once, for all clients together (default 16); more wait
    /// their turn. Each client's share is half of it unless set with
    /// [`max_concurrent_calls_per_client`](Self::max_concurrent_calls_per_client).
    pub fn max_concurrent_calls(mut self, calls: usize) -> Self {
        let share = self
            .exposed
            .calls
            .chosen_share
            .unwrap_or_else(|| call_quota::CallQuota::half(calls));
        let mut quota = call_quota::CallQuota::new(calls, share);
        quota.chosen_share = self.exposed.calls.chosen_share;
        self.exposed.calls = Arc::new(quota);
        self
    }

    /// The most `tools/call`s one client may have served at once (default: half of
    /// [`max_concurrent_calls`](Self::max_concurrent_calls); at most all of it), so a client
    /// holding slow calls open cannot make every other client wait. A client is its principal
    /// (the HTTP authenticator's name), else the name it declared in `initialize` — which a
    /// client without an authenticator chooses itself, so the overall cap stays the bound.
    ///
    /// ```
    /// # use agents_kt::prelude::*;
    /// # let agent: Agent<String, String> = Agent::builder("a").model(ScriptedModel::default()).build().unwrap();
    /// let server = agents_kt::McpServer::builder(agent)
    ///     .max_concurrent_calls(32)
    ///     .max_concurrent_calls_per_client(4)
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn max_concurrent_calls_per_client(mut self, calls: usize) -> Self {
        let mut quota = call_quota::CallQuota::new(self.exposed.calls.cap, calls);
        quota.chosen_share = Some(calls);
        self.exposed.calls = Arc::new(quota);
        self
    }

    /// Check the configuration.
    pub fn build(self) -> Result<McpServer<IN, OUT>, BuildError> {
        if let Some(error) = BuildError::all(self.errors) {
            return Err(error);
        }
        Ok(McpServer {
            inner: Arc::new(self.exposed),
        })
    }
}

impl<IN, OUT> std::fmt::Debug for McpServer<IN, OUT> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt_fields(f.debug_struct("McpServer"))
    }
}

impl<IN, OUT> std::fmt::Debug for McpServerBuilder<IN, OUT> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.exposed.fmt_fields(f.debug_struct("McpServerBuilder"))
    }
}

impl<IN, OUT> Exposed<IN, OUT> {
    fn fmt_fields(&self, mut f: std::fmt::DebugStruct<'_, '_>) -> std::fmt::Result {
        f.field("agent", &self.agent)
            .field("tools", &self.tools)
            .field("skills", &self.skills)
            .field("client_policy", &self.policy.is_some())
            .field("authenticator", &self.http.authenticator.is_some())
            .field("max_body_bytes", &self.http.max_body_bytes)
            .finish_non_exhaustive()
    }
}

/// Why serving stopped.
///
/// ```
/// let e = agents_kt::McpServeError::new("connection closed");
/// assert!(e.to_string().contains("connection closed"));
/// ```
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error("MCP server failed: {0}")]
#[non_exhaustive]
pub struct McpServeError(pub String);

impl McpServeError {
    /// Serving stopped for this reason.
    ///
    /// ```
    /// assert_eq!(agents_kt::McpServeError::new("closed").0, "closed");
    /// ```
    pub fn new(reason: impl Into<String>) -> Self {
        McpServeError(reason.into())
    }
}

crate::error_debug::readable_debug!(McpServeError);
