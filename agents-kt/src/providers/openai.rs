//! The OpenAI-compatible chat-completions API: OpenAI, Ollama, llama.cpp, vLLM, DeepSeek,
//! OpenRouter, and Gemini's compatible endpoint.

use serde_json::{Map, Value, json};

use super::http::{self, HttpSettings, Provider, preview};
use super::sse::{Decoder, Step};
use crate::{ChatChunk, ChatRequest, ChatResponse, Message, ModelError, Role, ToolCall, Usage};

/// A client of any OpenAI-compatible `/chat/completions` endpoint.
///
/// ```no_run
/// use agents_kt::{Agent, OpenAiCompatible};
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// // Ollama on this machine:
/// let model = OpenAiCompatible::new("http://127.0.0.1:11434/v1", "llama3.2");
/// // Or from OPENAI_BASE_URL, OPENAI_API_KEY and AGENTS_KT_MODEL:
/// let model = OpenAiCompatible::from_env()?;
/// let agent = Agent::<String, String>::builder("a").model(model).build()?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiCompatible {
    /// The HTTP client, or why it could not be built (reported by every call, not swallowed).
    client: Result<reqwest::Client, ModelError>,
    base_url: String,
    api_key: Option<String>,
    model: String,
    tool_choice: Option<Value>,
    parallel_tool_calls: Option<bool>,
    max_tokens: Option<u32>,
    settings: HttpSettings,
}

impl OpenAiCompatible {
    /// A client of the API at `base_url` (up to and including `/v1`) using `model`.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        let settings = HttpSettings::default();
        OpenAiCompatible {
            client: settings.client(),
            base_url: base_url.into().trim_end_matches('/').to_string(),
            api_key: None,
            model: model.into(),
            tool_choice: None,
            parallel_tool_calls: None,
            max_tokens: None,
            settings,
        }
    }

    /// A client configured from `OPENAI_BASE_URL` (default OpenAI's), `OPENAI_API_KEY` and
    /// `AGENTS_KT_MODEL` (required).
    pub fn from_env() -> Result<Self, ModelError> {
        let model = std::env::var("AGENTS_KT_MODEL").map_err(|_| {
            ModelError::Other("set AGENTS_KT_MODEL to the model's name (and OPENAI_BASE_URL, OPENAI_API_KEY as the server needs)".into())
        })?;
        let base =
            std::env::var("OPENAI_BASE_URL").unwrap_or_else(|_| "https://api.openai.com/v1".into());
        let client = OpenAiCompatible::new(base, model);
        Ok(match std::env::var("OPENAI_API_KEY") {
            Ok(key) if !key.is_empty() => client.api_key(key),
            _ => client,
        })
    }

    /// Send `Authorization: Bearer <key>`.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// `tool_choice` for requests that offer tools: `"auto"` (the default), `"required"`,
    /// `"none"`, or `{"type": "function", "function": {"name": …}}`.
    pub fn tool_choice(mut self, choice: Value) -> Self {
        self.tool_choice = Some(choice);
        self
    }

    /// `parallel_tool_calls` for requests that offer tools: whether the model may ask for
    /// several calls in one answer (the server's default when unset). The agent runs them
    /// [`tool_concurrency`](crate::AgentBuilder::tool_concurrency) at a time, each through its
    /// own chain.
    ///
    /// ```
    /// let model = agents_kt::OpenAiCompatible::new("http://127.0.0.1:8080/v1", "m")
    ///     .parallel_tool_calls(true);
    /// # let _ = model;
    /// ```
    pub fn parallel_tool_calls(mut self, parallel: bool) -> Self {
        self.parallel_tool_calls = Some(parallel);
        self
    }

    /// Cap the tokens of each answer.
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = Some(tokens);
        self
    }

    /// Timeouts and retries.
    pub fn settings(mut self, settings: HttpSettings) -> Self {
        self.client = settings.client();
        self.settings = settings;
        self
    }

    /// The model's name.
    pub fn model_name(&self) -> &str {
        &self.model
    }
}

/// One message in the chat-completions shape.
fn message(message: &Message) -> Value {
    match message.role {
        Role::Tool => json!({
            "role": "tool",
            "tool_call_id": message.tool_call_id.clone().unwrap_or_default(),
            "content": message.content,
        }),
        Role::Assistant if !message.tool_calls.is_empty() => json!({
            "role": "assistant",
            "content": if message.content.is_empty() { Value::Null } else { json!(message.content) },
            "tool_calls": message.tool_calls.iter().map(|call| json!({
                "id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            })).collect::<Vec<_>>(),
        }),
        role => json!({"role": role, "content": message.content}),
    }
}

/// A whole chat-completions answer.
fn response(body: &Value) -> Result<ChatResponse, ModelError> {
    if let Some(error) = body.get("error") {
        return Err(ModelError::Other(format!("provider error: {error}")));
    }
    let message = body.pointer("/choices/0/message").ok_or_else(|| {
        ModelError::InvalidResponse(format!(
            "no choices[0].message in {}",
            preview(&body.to_string())
        ))
    })?;
    let tool_calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .enumerate()
                .map(|(index, call)| {
                    let name = call
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .ok_or_else(|| {
                            ModelError::InvalidResponse(format!(
                                "tool call {index} has no function name"
                            ))
                        })?;
                    let arguments = match call.pointer("/function/arguments") {
                        Some(Value::String(text)) => text.clone(),
                        Some(Value::Null) | None => "{}".to_string(),
                        Some(other) => other.to_string(),
                    };
                    let id = call
                        .get("id")
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("call_{index}"), str::to_string);
                    Ok(ToolCall::new(id, name, arguments))
                })
                .collect::<Result<Vec<_>, ModelError>>()
        })
        .transpose()?
        .unwrap_or_default();
    Ok(ChatResponse {
        content: message
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        tool_calls,
        usage: body.get("usage").and_then(usage),
        model: body
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_string),
        finish_reason: body
            .pointer("/choices/0/finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

fn usage(usage: &Value) -> Option<Usage> {
    Some(Usage {
        prompt_tokens: usage.get("prompt_tokens")?.as_u64()?,
        completion_tokens: usage
            .get("completion_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    })
}

/// Chat-completions stream chunks: `data: {json}` events, ended by `data: [DONE]`.
#[derive(Default)]
pub(crate) struct ChunkDecoder;

impl Decoder for ChunkDecoder {
    fn decode(&mut self, event: &eventsource_stream::Event) -> Result<Step, ModelError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return Ok(Step {
                chunks: Vec::new(),
                done: true,
            });
        }
        if data.is_empty() {
            return Ok(Step {
                chunks: Vec::new(),
                done: false,
            });
        }
        let chunk: Value = serde_json::from_str(data).map_err(|error| {
            ModelError::InvalidResponse(format!(
                "stream chunk is not JSON ({error}): {}",
                preview(data)
            ))
        })?;
        if let Some(error) = chunk.get("error") {
            return Err(ModelError::Other(format!(
                "provider error mid-stream: {error}"
            )));
        }
        let mut chunks = Vec::new();
        if let Some(delta) = chunk.pointer("/choices/0/delta") {
            if let Some(text) = delta.get("content").and_then(Value::as_str)
                && !text.is_empty()
            {
                chunks.push(ChatChunk::Text(text.to_string()));
            }
            for (position, call) in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let index = call
                    .get("index")
                    .and_then(Value::as_u64)
                    .map_or(position, |i| usize::try_from(i).unwrap_or(usize::MAX));
                chunks.push(ChatChunk::ToolCallDelta {
                    index,
                    id: call.get("id").and_then(Value::as_str).map(str::to_string),
                    name: call
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    arguments: call
                        .pointer("/function/arguments")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                });
            }
        }
        if let Some(usage) = chunk.get("usage").and_then(usage) {
            chunks.push(ChatChunk::Usage(usage));
        }
        let model = chunk.get("model").and_then(Value::as_str);
        let finish_reason = chunk
            .pointer("/choices/0/finish_reason")
            .and_then(Value::as_str);
        if model.is_some() || finish_reason.is_some() {
            chunks.push(ChatChunk::Finished {
                model: model.map(str::to_string),
                finish_reason: finish_reason.map(str::to_string),
            });
        }
        Ok(Step {
            chunks,
            done: false,
        })
    }
}

impl Provider for OpenAiCompatible {
    type Decoder = ChunkDecoder;

    /// The request body for `request`.
    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model));
        body.insert(
            "messages".into(),
            Value::Array(request.messages.iter().map(message).collect()),
        );
        if !request.tools.is_empty() {
            let tools = request
                .tools
                .iter()
                .map(|tool| {
                    json!({"type": "function", "function": {
                        "name": tool.name, "description": tool.description,
                        "parameters": super::parameters_for_model(&tool.parameters),
                    }})
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
            body.insert(
                "tool_choice".into(),
                self.tool_choice.clone().unwrap_or_else(|| json!("auto")),
            );
            if let Some(parallel) = self.parallel_tool_calls {
                body.insert("parallel_tool_calls".into(), json!(parallel));
            }
        }
        if let Some(schema) = &request.response_format {
            body.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": {"name": "output", "schema": schema}}),
            );
        }
        if let Some(tokens) = self.max_tokens {
            body.insert("max_tokens".into(), json!(tokens));
        }
        if stream {
            body.insert("stream".into(), json!(true));
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        Value::Object(body)
    }

    fn client(&self) -> Result<&reqwest::Client, ModelError> {
        self.client.as_ref().map_err(Clone::clone)
    }

    fn post(&self, client: &reqwest::Client, body: &str) -> reqwest::RequestBuilder {
        let request = client
            .post(format!("{}/chat/completions", self.base_url))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        match &self.api_key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    fn settings(&self) -> &HttpSettings {
        &self.settings
    }

    fn decoder(&self, _: &ChatRequest) -> ChunkDecoder {
        ChunkDecoder
    }

    fn response(&self, _: &ChatRequest, body: &Value) -> Result<ChatResponse, ModelError> {
        response(body)
    }

    fn info(&self) -> crate::ModelInfo {
        http::model_info("openai", &self.model, &self.base_url)
    }
}

http::model_client!(OpenAiCompatible);
