//! `McpServer`: an agent's exposed tools and skills served over MCP with the official Rust SDK
//! `rmcp`. A `tools/call` passes the agent's own tool chain — the same runner, observers and
//! pipeline events as the agent loop — and a per-client policy decides who may call what.

mod handler;

use std::sync::Arc;

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
type Policy = Arc<dyn Fn(&McpClient, &str) -> bool + Send + Sync>;

/// Serves an agent's exposed tools and skills over MCP.
///
/// ```no_run
/// use agents_kt::{Agent, McpServer, ScriptedModel};
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let agent: Agent<String, String> = Agent::builder("desk").model(ScriptedModel::default()).build()?;
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
    tools: Vec<&'static str>,
    skills: Vec<String>,
    policy: Option<Policy>,
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
                policy: None,
            },
            errors: Vec::new(),
        }
    }
}

impl<IN: AgentInput, OUT: AgentOutput> McpServerBuilder<IN, OUT> {
    /// Expose tool `T` (registered on the agent) as an MCP tool of the same name.
    pub fn expose_tool<T: Tool>(mut self) -> Self {
        if self.exposed.agent.tool_spec(T::NAME).is_none() {
            self.errors.push(BuildError::UnknownAllowedTool {
                skill: "(MCP server)".into(),
                tool: T::NAME.into(),
            });
        }
        self.exposed.tools.push(T::NAME);
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

    /// Decide per client which exposed tools and skills it may list and call.
    pub fn client_policy(
        mut self,
        policy: impl Fn(&McpClient, &str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.exposed.policy = Some(Arc::new(policy));
        self
    }

    /// Check the configuration.
    pub fn build(self) -> Result<McpServer<IN, OUT>, BuildError> {
        if let Some(error) = self.errors.into_iter().next() {
            return Err(error);
        }
        Ok(McpServer {
            inner: Arc::new(self.exposed),
        })
    }
}

/// Why serving stopped.
///
/// ```
/// let e = agents_kt::McpServeError("connection closed".into());
/// assert!(e.to_string().contains("connection closed"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("MCP server failed: {0}")]
pub struct McpServeError(pub String);
