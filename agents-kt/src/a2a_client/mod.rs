//! A remote A2A agent as a typed value ([`A2aAgent`]): its card read and its input and output
//! checked against the Rust types before anything is sent, called directly or — through
//! [`a2a_tool!`](crate::a2a_tool), [`A2aAgent::as_tool`] or a handoff — as a tool of a local
//! agent, so the local agent's interceptors, gates and approvals judge each call before a byte
//! leaves the process.

mod card;
mod error;
#[cfg(feature = "fuzzing")]
pub mod fuzz;
mod parts;
mod question;
mod task;
mod tool;
mod wire;

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use a2a::{Message, Part, Role};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use error::A2aClientError;
pub use tool::A2aTool;

use crate::approval::{Channel, RunApprovals};
use crate::{ApprovalDesk, ToolContext};
use question::Asker;
use wire::Wire;

/// The whole call's time limit unless [`A2aAgentBuilder::timeout`] says otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// The most bytes one answer (or one task's event stream) may hold, unless set otherwise.
const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;
/// The agent-card extension carrying an agents-kt agent's input and output JSON schemas
/// (`params.input`, `params.output`): `A2aServer` publishes it, [`A2aAgent::connect`] checks
/// its types against it.
///
/// ```
/// assert_eq!(agents_kt::IO_SCHEMAS_EXTENSION, "urn:agents-kt:a2a:io-schemas:v1");
/// ```
pub const IO_SCHEMAS_EXTENSION: &str = "urn:agents-kt:a2a:io-schemas:v1";
/// The metadata key a handoff's conversation travels under (an agents-kt server reads it).
pub(crate) const CONVERSATION_KEY: &str = "agents-kt/conversation";

/// A remote agent reached over A2A v1.0 (JSON-RPC binding), typed by its input `IN` and output
/// `OUT`. [`A2aAgent::connect`] reads its agent card and, when the card carries the input and
/// output schemas (an agents-kt server's does, see [`IO_SCHEMAS_EXTENSION`](crate::IO_SCHEMAS_EXTENSION)),
/// refuses types that do not fit them; a card without schemas is taken at its word, and each
/// output is checked as it arrives.
///
/// Call it with [`send`](A2aAgent::send), or give it to a local agent as a tool
/// ([`a2a_tool!`](crate::a2a_tool) for typed interceptors, or [`as_tool`](A2aAgent::as_tool))
/// or as a handoff target ([`AgentBuilder::handoff`](crate::AgentBuilder::handoff)): then every
/// call passes the local agent's chains and gates first, and one they deny sends nothing.
/// A call streams the remote task's updates (reported as the tool's progress), answers the
/// remote's `input-required` through the local [`ApprovalDesk`] (no desk: the call fails), is
/// bounded by a timeout (the remote task is canceled when the call ends early), and is resent
/// only when its connection could not be made.
///
/// ```no_run
/// use agents_kt::A2aAgent;
/// # #[derive(serde::Serialize, schemars::JsonSchema)] struct Ticket { text: String }
/// # #[derive(serde::Deserialize, schemars::JsonSchema)] struct Triage { queue: String }
/// # async fn demo() -> Result<(), agents_kt::A2aClientError> {
/// let triage = A2aAgent::<Ticket, Triage>::connect("http://127.0.0.1:8040").await?;
/// let verdict = triage.send(Ticket { text: "The printer is on fire".into() }).await?;
/// println!("to {}", verdict.queue);
/// # Ok(()) }
/// ```
pub struct A2aAgent<IN, OUT> {
    remote: Arc<Remote>,
    _types: PhantomData<fn(IN) -> OUT>,
}

/// What every clone of an [`A2aAgent`] shares.
pub(crate) struct Remote {
    name: String,
    description: String,
    url: String,
    streaming: bool,
    wire: Arc<Wire>,
    desk: Option<ApprovalDesk>,
    timeout: Duration,
}

impl<IN, OUT> Clone for A2aAgent<IN, OUT> {
    fn clone(&self) -> Self {
        A2aAgent {
            remote: Arc::clone(&self.remote),
            _types: PhantomData,
        }
    }
}

impl<IN, OUT> std::fmt::Debug for A2aAgent<IN, OUT> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2aAgent")
            .field("name", &self.remote.name)
            .field("url", &self.remote.url)
            .finish_non_exhaustive()
    }
}

/// Settings of an [`A2aAgent`] before it connects ([`A2aAgent::builder`]).
///
/// ```no_run
/// use std::time::Duration;
/// # async fn demo() -> Result<(), agents_kt::A2aClientError> {
/// let remote = agents_kt::A2aAgent::<String, String>::builder("http://127.0.0.1:8040")
///     .bearer_token("s3cret")
///     .timeout(Duration::from_secs(30))
///     .retries(2)
///     .connect()
///     .await?;
/// # let _ = remote; Ok(()) }
/// ```
#[must_use = "a builder does nothing until `.connect()`"]
pub struct A2aAgentBuilder<IN, OUT> {
    url: String,
    bearer: Option<String>,
    timeout: Duration,
    retries: u32,
    max_response_bytes: usize,
    desk: Option<ApprovalDesk>,
    http: Option<reqwest::Client>,
    _types: PhantomData<fn(IN) -> OUT>,
}

impl<IN, OUT> A2aAgentBuilder<IN, OUT>
where
    IN: Serialize + JsonSchema,
    OUT: DeserializeOwned + JsonSchema,
{
    /// Send `token` as `Authorization: Bearer <token>` with every request (the card too).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into());
        self
    }

    /// The longest one call may take, the remote's questions answered included (default
    /// 120 s); past it the call fails and the remote task is canceled.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How many times a request whose connection could not be made is tried again (default 2).
    /// A request that may have reached the remote is never resent.
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// The most bytes one answer, or one task's stream of updates, may hold (default 16 MiB).
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// Where the remote's questions go when the call is not made by a local agent with a
    /// desk of its own (a direct [`send`](A2aAgent::send)).
    pub fn approvals(mut self, desk: ApprovalDesk) -> Self {
        self.desk = Some(desk);
        self
    }

    /// Use this HTTP client (its proxy, TLS and pool settings) instead of a new one.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// Read the card, check the types against it, and return the agent.
    pub async fn connect(self) -> Result<A2aAgent<IN, OUT>, A2aClientError> {
        let http = match self.http {
            Some(http) => http,
            None => reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(10))
                .build()
                .map_err(|error| A2aClientError::transport(&self.url, error.to_string()))?,
        };
        let card = card::fetch(
            &http,
            &self.url,
            self.bearer.as_deref(),
            self.max_response_bytes,
        )
        .await?;
        card::check_types::<IN, OUT>(&card)?;
        let endpoint = card::json_rpc_endpoint(&card)?;
        let wire = Wire::new(
            http,
            endpoint,
            self.bearer,
            self.retries,
            self.max_response_bytes,
        );
        let remote = Remote {
            streaming: card.capabilities.streaming.unwrap_or(false),
            name: card.name,
            description: card.description,
            url: self.url,
            wire: Arc::new(wire),
            desk: self.desk,
            timeout: self.timeout,
        };
        Ok(A2aAgent {
            remote: Arc::new(remote),
            _types: PhantomData,
        })
    }
}

impl<IN, OUT> A2aAgent<IN, OUT>
where
    IN: Serialize + JsonSchema,
    OUT: DeserializeOwned + JsonSchema,
{
    /// The agent whose card is at `url` (its base URL, or the card's own URL), with the
    /// default settings. See [`A2aAgent::builder`].
    pub async fn connect(url: impl Into<String>) -> Result<Self, A2aClientError> {
        Self::builder(url).connect().await
    }

    /// Settings for the agent at `url` before connecting.
    pub fn builder(url: impl Into<String>) -> A2aAgentBuilder<IN, OUT> {
        A2aAgentBuilder {
            url: url.into(),
            bearer: None,
            timeout: DEFAULT_TIMEOUT,
            retries: 2,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            desk: None,
            http: None,
            _types: PhantomData,
        }
    }

    /// Send `input` as a new task and wait for its output.
    pub async fn send(&self, input: IN) -> Result<OUT, A2aClientError> {
        let remote = &self.remote;
        let approvals = remote.desk.clone().map(|desk| {
            let ids = crate::RunIds::new(format!("a2a-client/{}", remote.name), "a2a-client");
            Arc::new(RunApprovals::new(Channel::Desk(desk), &ids, "", 0))
        });
        let asker = Asker {
            approvals,
            tool: &remote.name,
            remote: &remote.name,
        };
        self.exchange(&input, &[], &asker, &|_| {}).await
    }

    /// A call made by a local agent's tool: its run's approval desk (else this agent's) answers
    /// the remote's questions, its progress goes to the run's events; `conversation` (a
    /// handoff's) travels along. The questions go to the desk even in a journaled run: they are
    /// asked inside the call, which is one journaled step (its result is recorded, so a replay
    /// neither sends the task nor asks again; a crash before the result was recorded sends the
    /// task again, and the remote asks again).
    pub(crate) async fn call_from(
        &self,
        input: &IN,
        tool: &str,
        conversation: &[crate::Message],
        ctx: &ToolContext,
    ) -> Result<OUT, A2aClientError> {
        let parent = ctx.parent();
        let desk = parent
            .and_then(|parent| parent.approval_desk())
            .or_else(|| self.remote.desk.clone());
        let approvals = desk.map(|desk| {
            let approvals = match parent {
                Some(parent) => RunApprovals::new(
                    Channel::Desk(desk),
                    parent.ids(),
                    parent.agent(),
                    parent.depth(),
                ),
                None => {
                    let ids = crate::RunIds::new(ctx.run_id(), ctx.session_id());
                    RunApprovals::new(Channel::Desk(desk), &ids, "", 0)
                }
            };
            Arc::new(approvals)
        });
        let asker = Asker {
            approvals,
            tool,
            remote: &self.remote.name,
        };
        self.exchange(input, conversation, &asker, &|progress| ctx.emit(progress))
            .await
    }

    async fn exchange(
        &self,
        input: &IN,
        conversation: &[crate::Message],
        asker: &Asker<'_>,
        progress: &(dyn Fn(Value) + Send + Sync),
    ) -> Result<OUT, A2aClientError> {
        let remote = &self.remote;
        let message = message_of(input, conversation)?;
        let exchange = task::exchange(&remote.wire, remote.streaming, message, asker, progress);
        let output = tokio::time::timeout(remote.timeout, exchange)
            .await
            .map_err(|_| A2aClientError::Timeout {
                after_ms: u64::try_from(remote.timeout.as_millis()).unwrap_or(u64::MAX),
            })??;
        fit::<OUT>(output)
    }

    /// A tool named `name` that calls this agent, described to the model by `description`;
    /// register it with [`AgentBuilder::sub_agent`](crate::AgentBuilder::sub_agent).
    pub fn as_tool(
        &self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> A2aTool<IN, OUT> {
        A2aTool::new(self.clone(), name.into(), description.into())
    }
}

impl<IN, OUT> A2aAgent<IN, OUT> {
    /// The remote agent's name, from its card.
    pub fn name(&self) -> &str {
        &self.remote.name
    }

    /// What its card says it does.
    pub fn description(&self) -> &str {
        &self.remote.description
    }

    /// The URL it was connected at.
    pub fn url(&self) -> &str {
        &self.remote.url
    }
}

/// The message carrying `input`: a text part for a string, a data part otherwise; a handoff's
/// conversation (user and assistant text) in its metadata.
fn message_of<IN: Serialize>(
    input: &IN,
    conversation: &[crate::Message],
) -> Result<Message, A2aClientError> {
    let value = serde_json::to_value(input).map_err(|error| {
        A2aClientError::protocol(format!("the input does not serialize: {error}"))
    })?;
    let part = match value {
        Value::String(text) => Part::text(text),
        other => Part::data(other).with_media_type("application/json"),
    };
    let mut message = Message::new(Role::User, vec![part]);
    let spoken: Vec<Value> = conversation
        .iter()
        .filter(|message| matches!(message.role, crate::Role::User | crate::Role::Assistant))
        .filter(|message| !message.content.is_empty())
        .map(|message| serde_json::json!({ "role": message.role, "content": message.content }))
        .collect();
    if !spoken.is_empty() {
        message.metadata = Some(std::collections::HashMap::from([(
            CONVERSATION_KEY.to_string(),
            Value::Array(spoken),
        )]));
    }
    Ok(message)
}

/// The remote's output read as `OUT`: a text read as a non-string type is tried as JSON, and
/// data read as a string is its JSON text.
fn fit<OUT: DeserializeOwned>(output: Value) -> Result<OUT, A2aClientError> {
    let fitted = match &output {
        Value::String(text) => OUT::deserialize(&output).or_else(|_| serde_json::from_str(text)),
        _ => OUT::deserialize(&output).or_else(|error| {
            OUT::deserialize(Value::String(output.to_string())).map_err(|_| error)
        }),
    };
    fitted.map_err(|error| A2aClientError::Output {
        type_name: std::any::type_name::<OUT>(),
        reason: error.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Routing {
        queue: String,
    }

    #[test]
    fn an_output_fits_its_type_from_data_or_from_json_text() {
        let data = serde_json::json!({"queue": "hardware"});
        let routing: Routing = fit(data.clone()).unwrap();
        assert_eq!(routing.queue, "hardware");
        let from_text: Routing = fit(Value::String(data.to_string())).unwrap();
        assert_eq!(from_text.queue, "hardware");
        let as_text: String = fit(data).unwrap();
        assert_eq!(as_text, r#"{"queue":"hardware"}"#);
        let error = fit::<Routing>(Value::String("no json".into())).unwrap_err();
        assert!(matches!(error, A2aClientError::Output { .. }), "{error}");
    }

    #[test]
    fn a_string_input_is_a_text_part_and_a_handoff_carries_only_spoken_messages() {
        let conversation = [
            crate::Message::system("be brief"),
            crate::Message::user("refund order 42"),
            crate::Message::assistant("", Vec::new()),
            crate::Message::assistant("handing over", Vec::new()),
        ];
        let message = message_of(&"order 42".to_string(), &conversation).unwrap();
        assert_eq!(message.text(), Some("order 42"));
        let carried = &message.metadata.unwrap()[CONVERSATION_KEY];
        assert_eq!(
            carried,
            &serde_json::json!([
                {"role": "user", "content": "refund order 42"},
                {"role": "assistant", "content": "handing over"}
            ])
        );
    }
}
