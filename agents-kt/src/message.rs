//! The conversation as the model sees it: messages, tool calls, requests and responses.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a [`Message`].
///
/// `#[non_exhaustive]`: providers add roles (a `match` needs a `_` arm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
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
/// Built with its constructors ([`Message::user`], [`Message::assistant`], …): the struct is
/// `#[non_exhaustive]`, so a field added later breaks no one.
///
/// ```
/// use agents_kt::{Message, Role};
/// let m = Message::user("What is the weather in Paris?");
/// assert_eq!(m.role, Role::User);
/// assert_eq!(m.content, "What is the weather in Paris?");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
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

    /// The same message with other text: what a turn interceptor that redacts writes.
    ///
    /// ```
    /// let m = agents_kt::Message::user("my password is hunter2");
    /// let redacted = m.clone().with_content(m.content.replace("hunter2", "[redacted]"));
    /// assert_eq!(redacted.content, "my password is [redacted]");
    /// assert_eq!(redacted.role, m.role);
    /// ```
    pub fn with_content(mut self, content: impl Into<String>) -> Self {
        self.content = content.into();
        self
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
#[non_exhaustive]
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
/// let spec = agents_kt::ToolSpec::new(
///     "get_weather",
///     "Current weather for a city.",
///     serde_json::json!({"type": "object"}),
/// );
/// assert_eq!(spec.name, "get_weather");
/// assert!(spec.output_schema.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
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

impl ToolSpec {
    /// A tool's spec: its name, its description for the model and the JSON Schema of its
    /// arguments (an object schema).
    ///
    /// ```
    /// let spec = agents_kt::ToolSpec::new("ping", "Answers pong.", serde_json::json!({"type": "object"}));
    /// assert_eq!(spec.description, "Answers pong.");
    /// ```
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            parameters,
            output_schema: None,
        }
    }

    /// The same spec, saying the tool's output follows this JSON Schema.
    ///
    /// ```
    /// use serde_json::json;
    /// let spec = agents_kt::ToolSpec::new("t", "d", json!({"type": "object"}))
    ///     .with_output_schema(json!({"type": "object", "properties": {"c": {"type": "number"}}}));
    /// assert!(spec.output_schema.is_some());
    /// ```
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }
}

/// One request to a model.
///
/// ```
/// let request = agents_kt::ChatRequest::new(vec![agents_kt::Message::user("hi")]);
/// assert!(request.tools.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
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

    /// The same request, offering these tools to the model.
    ///
    /// ```
    /// use agents_kt::{ChatRequest, Message, ToolSpec};
    /// let tool = ToolSpec::new("ping", "Answers pong.", serde_json::json!({"type": "object"}));
    /// let r = ChatRequest::new(vec![Message::user("ping?")]).with_tools(vec![tool]);
    /// assert_eq!(r.tools[0].name, "ping");
    /// ```
    pub fn with_tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.tools = tools;
        self
    }

    /// The same request, asking for a final answer that follows this JSON Schema.
    ///
    /// ```
    /// let r = agents_kt::ChatRequest::new(vec![])
    ///     .with_response_format(serde_json::json!({"type": "object"}));
    /// assert!(r.response_format.is_some());
    /// ```
    pub fn with_response_format(mut self, schema: Value) -> Self {
        self.response_format = Some(schema);
        self
    }
}

/// Token counts of one model call.
///
/// ```
/// let u = agents_kt::Usage::new(10, 5);
/// assert_eq!(u.total(), 15);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Usage {
    /// Tokens the model read.
    pub prompt_tokens: u64,
    /// Tokens the model wrote.
    pub completion_tokens: u64,
}

impl Usage {
    /// Token counts: what the model read and what it wrote.
    ///
    /// ```
    /// let u = agents_kt::Usage::new(7, 3);
    /// assert_eq!((u.prompt_tokens, u.completion_tokens), (7, 3));
    /// ```
    pub fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Usage {
            prompt_tokens,
            completion_tokens,
        }
    }

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
/// Built from [`ChatResponse::text`] (or `default()`) and the `with_*` methods: the struct is
/// `#[non_exhaustive]`, so a `ModelClient` written today keeps compiling when a field is added.
///
/// ```
/// use agents_kt::{ChatResponse, ToolCall, Usage};
/// let r = ChatResponse::text("")
///     .with_tool_calls(vec![ToolCall::new("c1", "get_weather", r#"{"city":"Oslo"}"#)])
///     .with_usage(Usage::new(12, 4))
///     .with_model("my-model")
///     .with_finish_reason("tool_calls");
/// assert_eq!(r.tool_calls[0].name, "get_weather");
/// assert_eq!(r.usage.map(|u| u.total()), Some(16));
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
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
    /// The answer as the chunks a stream of it would carry — its text, then each tool call
    /// whole — for a [`ModelClient`](crate::ModelClient) whose backend cannot stream: its
    /// `chat_stream` can yield these.
    ///
    /// ```
    /// use agents_kt::{ChatChunk, ChatResponse, ResponseAssembler, ToolCall};
    /// let answer = ChatResponse::text("Looking it up.")
    ///     .with_tool_calls(vec![ToolCall::new("c1", "get_weather", r#"{"city":"Oslo"}"#)]);
    /// let mut assembled = ResponseAssembler::default();
    /// for chunk in answer.to_chunks() {
    ///     assembled.push(chunk);
    /// }
    /// let assembled = assembled.finish().unwrap();
    /// assert_eq!(assembled.content, "Looking it up.");
    /// assert_eq!(assembled.tool_calls[0].name, "get_weather");
    /// ```
    pub fn to_chunks(&self) -> Vec<ChatChunk> {
        let text = (!self.content.is_empty()).then(|| ChatChunk::Text(self.content.clone()));
        let calls = self.tool_calls.iter().enumerate().map(|(index, call)| {
            ChatChunk::tool_call_delta(
                index,
                Some(call.id.clone()),
                Some(call.name.clone()),
                call.arguments.clone(),
            )
        });
        text.into_iter().chain(calls).collect()
    }

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

    /// The same answer, asking for these tool calls (in this order).
    ///
    /// ```
    /// use agents_kt::{ChatResponse, ToolCall};
    /// let r = ChatResponse::default().with_tool_calls(vec![ToolCall::new("c", "t", "{}")]);
    /// assert_eq!(r.tool_calls.len(), 1);
    /// ```
    pub fn with_tool_calls(mut self, tool_calls: Vec<ToolCall>) -> Self {
        self.tool_calls = tool_calls;
        self
    }

    /// The same answer, with the token counts the provider reported.
    ///
    /// ```
    /// let r = agents_kt::ChatResponse::text("ok").with_usage(agents_kt::Usage::new(1, 1));
    /// assert_eq!(r.usage.unwrap().total(), 2);
    /// ```
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// The same answer, naming the model that gave it.
    ///
    /// ```
    /// let r = agents_kt::ChatResponse::text("ok").with_model("gpt-x-2026-01-01");
    /// assert_eq!(r.model.as_deref(), Some("gpt-x-2026-01-01"));
    /// ```
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The same answer, saying why the model stopped.
    ///
    /// ```
    /// let r = agents_kt::ChatResponse::text("ok").with_finish_reason("stop");
    /// assert_eq!(r.finish_reason.as_deref(), Some("stop"));
    /// ```
    pub fn with_finish_reason(mut self, finish_reason: impl Into<String>) -> Self {
        self.finish_reason = Some(finish_reason.into());
        self
    }
}

/// One piece of a streamed answer.
///
/// Match with a `_` arm and `..` in the struct-like variants, and build the struct-like ones
/// with their constructors ([`ChatChunk::tool_call_delta`], [`ChatChunk::finished`]): the enum
/// and those variants are `#[non_exhaustive]`, so a variant or a field added later breaks no
/// stream written today.
///
/// ```
/// use agents_kt::ChatChunk;
/// let chunk = ChatChunk::tool_call_delta(0, Some("c1".into()), Some("t".into()), "{");
/// assert!(matches!(chunk, ChatChunk::ToolCallDelta { index: 0, .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ChatChunk {
    /// More answer text.
    Text(String),
    /// Part of a tool call (built with [`ChatChunk::tool_call_delta`]): the first delta of a call usually carries its id and name, later
    /// ones more argument text. Deltas with the same `index` belong to the same call.
    #[non_exhaustive]
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
    /// Facts about the whole answer: which model gave it and why it stopped (built with
    /// [`ChatChunk::finished`]).
    #[non_exhaustive]
    Finished {
        /// The model that answered, as the provider names it.
        model: Option<String>,
        /// Why the model stopped.
        finish_reason: Option<String>,
    },
}

impl ChatChunk {
    /// A piece of a tool call: deltas with the same `index` are one call; its first delta
    /// usually carries the call's `id` and `name`, later ones more `arguments` text.
    ///
    /// ```
    /// use agents_kt::ChatChunk;
    /// let first = ChatChunk::tool_call_delta(0, Some("c1".into()), Some("get_weather".into()), "");
    /// let more = ChatChunk::tool_call_delta(0, None, None, r#"{"city":"Oslo"}"#);
    /// assert!(matches!(more, ChatChunk::ToolCallDelta { id: None, .. }));
    /// # let _ = first;
    /// ```
    pub fn tool_call_delta(
        index: usize,
        id: Option<String>,
        name: Option<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ChatChunk::ToolCallDelta {
            index,
            id,
            name,
            arguments: arguments.into(),
        }
    }

    /// The last facts of an answer: the model that gave it and why it stopped, as the
    /// provider names them.
    ///
    /// ```
    /// use agents_kt::ChatChunk;
    /// let end = ChatChunk::finished(Some("my-model".into()), Some("stop".into()));
    /// assert!(matches!(end, ChatChunk::Finished { .. }));
    /// ```
    pub fn finished(model: Option<String>, finish_reason: Option<String>) -> Self {
        ChatChunk::Finished {
            model,
            finish_reason,
        }
    }
}
