//! The conversation as the model sees it: messages, tool calls, requests and responses.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a [`Message`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions to the model.
    System,
    /// The user (or the agent's input).
    User,
    /// The model.
    Assistant,
    /// The result of a tool call.
    Tool,
}

/// One message of a conversation.
///
/// ```
/// use agents_kt::{Message, Role};
/// let m = Message::user("What is the weather in Paris?");
/// assert_eq!(m.role, Role::User);
/// assert_eq!(m.content, "What is the weather in Paris?");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text (for a tool message, the tool's result or error text).
    pub content: String,
    /// The tool calls an assistant message asks for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For a tool message: whether the content reports an error (denied, invalid, failed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl Message {
    fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            is_error: false,
        }
    }

    /// A system message.
    ///
    /// ```
    /// assert_eq!(agents_kt::Message::system("be brief").role, agents_kt::Role::System);
    /// ```
    pub fn system(content: impl Into<String>) -> Self {
        Message::new(Role::System, content)
    }

    /// A user message.
    ///
    /// ```
    /// assert_eq!(agents_kt::Message::user("hi").content, "hi");
    /// ```
    pub fn user(content: impl Into<String>) -> Self {
        Message::new(Role::User, content)
    }

    /// An assistant message, possibly asking for tool calls.
    ///
    /// ```
    /// use agents_kt::{Message, ToolCall};
    /// let m = Message::assistant("", vec![ToolCall::new("c1", "get_weather", r#"{"city":"Paris"}"#)]);
    /// assert_eq!(m.tool_calls[0].name, "get_weather");
    /// ```
    pub fn assistant(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Message {
            tool_calls,
            ..Message::new(Role::Assistant, content)
        }
    }

    /// A tool message answering the call `tool_call_id`.
    ///
    /// ```
    /// let m = agents_kt::Message::tool_result("c1", "21C", false);
    /// assert_eq!(m.tool_call_id.as_deref(), Some("c1"));
    /// ```
    pub fn tool_result(
        tool_call_id: impl Into<String>,
        content: impl Into<String>,
        is_error: bool,
    ) -> Self {
        Message {
            tool_call_id: Some(tool_call_id.into()),
            is_error,
            ..Message::new(Role::Tool, content)
        }
    }
}

/// A tool call requested by the model.
///
/// ```
/// let call = agents_kt::ToolCall::new("call-1", "get_weather", r#"{"city":"Oslo"}"#);
/// assert_eq!(call.arguments, r#"{"city":"Oslo"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for this call; the tool message answering it carries the same id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them: JSON text, not yet validated.
    pub arguments: String,
}

impl ToolCall {
    /// A tool call.
    ///
    /// ```
    /// let call = agents_kt::ToolCall::new("c", "t", "{}");
    /// assert_eq!(call.name, "t");
    /// ```
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// What the model is told about one tool.
///
/// ```
/// let spec = agents_kt::ToolSpec {
///     name: "get_weather".into(),
///     description: "Current weather for a city.".into(),
///     parameters: serde_json::json!({"type": "object"}),
///     output_schema: None,
/// };
/// assert_eq!(spec.name, "get_weather");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments; always an object schema.
    pub parameters: Value,
    /// JSON Schema of its output, when the output is a typed object (MCP's `outputSchema`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// One request to a model.
///
/// ```
/// let request = agents_kt::ChatRequest::new(vec![agents_kt::Message::user("hi")]);
/// assert!(request.tools.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation so far, system prompt first.
    pub messages: Vec<Message>,
    /// The tools the model may call in this turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    /// JSON Schema the final answer must follow, when the agent's output is not plain text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<Value>,
}

impl ChatRequest {
    /// A request with these messages, no tools and free-form output.
    ///
    /// ```
    /// let r = agents_kt::ChatRequest::new(vec![]);
    /// assert!(r.messages.is_empty());
    /// ```
    pub fn new(messages: Vec<Message>) -> Self {
        ChatRequest {
            messages,
            ..ChatRequest::default()
        }
    }
}

/// Token counts of one model call.
///
/// ```
/// let u = agents_kt::Usage { prompt_tokens: 10, completion_tokens: 5 };
/// assert_eq!(u.total(), 15);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens the model read.
    pub prompt_tokens: u64,
    /// Tokens the model wrote.
    pub completion_tokens: u64,
}

impl Usage {
    /// Prompt plus completion tokens.
    ///
    /// ```
    /// assert_eq!(agents_kt::Usage::default().total(), 0);
    /// ```
    pub fn total(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }
}

/// A model's complete answer to one request.
///
/// ```
/// let r = agents_kt::ChatResponse::text("Sunny.");
/// assert!(r.tool_calls.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The text the model wrote (may be empty when it only calls tools).
    pub content: String,
    /// The tools it asks to call, in order.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// Token counts, when the provider reports them.
    #[serde(default)]
    pub usage: Option<Usage>,
    /// The model that answered, as the provider names it (it may differ from the one asked
    /// for, e.g. a dated version of an alias).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Why the model stopped (`stop`, `tool_calls`, `length`, …, as the provider says it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
}

impl ChatResponse {
    /// A plain text answer.
    ///
    /// ```
    /// assert_eq!(agents_kt::ChatResponse::text("ok").content, "ok");
    /// ```
    pub fn text(content: impl Into<String>) -> Self {
        ChatResponse {
            content: content.into(),
            ..ChatResponse::default()
        }
    }
}

/// One piece of a streamed answer.
///
/// ```
/// use agents_kt::ChatChunk;
/// let chunk = ChatChunk::ToolCallDelta { index: 0, id: Some("c1".into()), name: Some("t".into()), arguments: "{".into() };
/// assert!(matches!(chunk, ChatChunk::ToolCallDelta { index: 0, .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ChatChunk {
    /// More answer text.
    Text(String),
    /// Part of a tool call: the first delta of a call usually carries its id and name, later
    /// ones more argument text. Deltas with the same `index` belong to the same call.
    ToolCallDelta {
        /// Which call of this answer the delta belongs to.
        index: usize,
        /// The call's id, when this delta carries it.
        id: Option<String>,
        /// The tool's name, when this delta carries it.
        name: Option<String>,
        /// More argument text, appended to what came before.
        arguments: String,
    },
    /// Token counts for the whole answer.
    Usage(Usage),
    /// Facts about the whole answer: which model gave it and why it stopped.
    Finished {
        /// The model that answered, as the provider names it.
        model: Option<String>,
        /// Why the model stopped.
        finish_reason: Option<String>,
    },
}
