//! Anthropic's Messages API.

use serde_json::{Map, Value, json};

use super::http::{self, HttpSettings, Provider, preview};
use super::output_tool::{OUTPUT_TOOL, OutputTool};
use super::sse::{Decoder, Step};
use crate::{ChatChunk, ChatRequest, ChatResponse, Message, ModelError, Role, ToolCall, Usage};

const API_VERSION: &str = "2023-06-01";

/// A client of Anthropic's Messages API.
///
/// ```no_run
/// use agents_kt::{Agent, Anthropic};
/// # fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let model = Anthropic::new("claude-sonnet-4-5").api_key(std::env::var("ANTHROPIC_API_KEY")?);
/// let agent = Agent::<String, String>::builder("a").model(model).build()?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Anthropic {
    /// The HTTP client, or why it could not be built (reported by every call, not swallowed).
    client: Result<reqwest::Client, ModelError>,
    base_url: String,
    api_key: Option<String>,
    model: String,
    max_tokens: u32,
    tool_choice: Option<Value>,
    settings: HttpSettings,
}

impl Anthropic {
    /// A client of Anthropic's API using `model`.
    pub fn new(model: impl Into<String>) -> Self {
        let settings = HttpSettings::default();
        Anthropic {
            client: settings.client(),
            base_url: "https://api.anthropic.com".into(),
            api_key: None,
            model: model.into(),
            tool_choice: None,
            max_tokens: 4096,
            settings,
        }
    }

    /// A client configured from `ANTHROPIC_API_KEY`, `AGENTS_KT_MODEL` (required) and, if set,
    /// `ANTHROPIC_BASE_URL`.
    pub fn from_env() -> Result<Self, ModelError> {
        let model = std::env::var("AGENTS_KT_MODEL")
            .map_err(|_| ModelError::Other("set AGENTS_KT_MODEL and ANTHROPIC_API_KEY".into()))?;
        let mut client = Anthropic::new(model);
        if let Ok(key) = std::env::var("ANTHROPIC_API_KEY") {
            client = client.api_key(key);
        }
        if let Ok(base) = std::env::var("ANTHROPIC_BASE_URL") {
            client = client.base_url(base);
        }
        Ok(client)
    }

    /// Send `x-api-key: <key>`.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Another endpoint (a proxy, or a test server).
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into().trim_end_matches('/').to_string();
        self
    }

    /// `tool_choice` for requests that offer tools: `{"type": "auto"}` (the default),
    /// `{"type": "any"}` (some tool must be called), `{"type": "tool", "name": …}`, or
    /// `{"type": "none"}`.
    ///
    /// ```
    /// let model = agents_kt::Anthropic::new("claude-sonnet-4-5")
    ///     .tool_choice(serde_json::json!({"type": "any"}));
    /// # let _ = model;
    /// ```
    pub fn tool_choice(mut self, choice: Value) -> Self {
        self.tool_choice = Some(choice);
        self
    }

    /// The most tokens one answer may take (default 4096; the API requires a value).
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = tokens;
        self
    }

    /// Timeouts and retries.
    pub fn settings(mut self, settings: HttpSettings) -> Self {
        self.client = settings.client();
        self.settings = settings;
        self
    }
}

/// A message's role and content blocks in the Messages shape.
fn blocks(message: &Message) -> (&'static str, Vec<Value>) {
    match message.role {
        Role::Tool => (
            "user",
            vec![json!({
                "type": "tool_result",
                "tool_use_id": message.tool_call_id.clone().unwrap_or_default(),
                "content": message.content,
                "is_error": message.is_error,
            })],
        ),
        Role::Assistant => {
            let mut content = Vec::new();
            if !message.content.is_empty() {
                content.push(json!({"type": "text", "text": message.content}));
            }
            for call in &message.tool_calls {
                // The model's argument text was validated before any tool ran; text that is not
                // JSON is sent as a string so nothing is lost.
                let input = serde_json::from_str::<Value>(&call.arguments)
                    .unwrap_or_else(|_| Value::String(call.arguments.clone()));
                content.push(
                    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}),
                );
            }
            ("assistant", content)
        }
        _ => (
            "user",
            vec![json!({"type": "text", "text": message.content})],
        ),
    }
}

/// A whole Messages answer; the input of the output tool, when `output` asks for one, is the
/// answer's text.
fn response(body: &Value, output: Option<OutputTool>) -> Result<ChatResponse, ModelError> {
    if body.get("type").and_then(Value::as_str) == Some("error") {
        return Err(ModelError::Other(format!(
            "provider error: {}",
            body["error"]
        )));
    }
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            ModelError::InvalidResponse(format!("no content in {}", preview(&body.to_string())))
        })?;
    let mut answer = ChatResponse::default();
    let mut structured = None;
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => answer
                .content
                .push_str(block["text"].as_str().unwrap_or_default()),
            Some("tool_use") if output.is_some() && block["name"] == OUTPUT_TOOL => {
                structured = output.map(|output| output.answer(&block["input"]));
            }
            Some("tool_use") => answer.tool_calls.push(ToolCall::new(
                block["id"].as_str().unwrap_or_default(),
                block["name"].as_str().unwrap_or_default(),
                block
                    .get("input")
                    .map_or_else(|| "{}".to_string(), Value::to_string),
            )),
            _ => {}
        }
    }
    if let Some(structured) = structured {
        // Text beside the answer is the model's commentary, not part of the output.
        answer.content = structured;
    }
    answer.usage = body.get("usage").map(|usage| Usage {
        prompt_tokens: usage["input_tokens"].as_u64().unwrap_or(0),
        completion_tokens: usage["output_tokens"].as_u64().unwrap_or(0),
    });
    answer.model = body
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string);
    answer.finish_reason = body
        .get("stop_reason")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(answer)
}

/// Messages stream events; `message_stop` ends the answer, unknown events are ignored.
///
/// When a structured answer is asked for, text is held back and sent whole at `message_stop`:
/// the output tool's input if the model called it, else the text (commentary before the call
/// must not be glued to the answer).
#[derive(Default)]
pub(crate) struct EventDecoder {
    prompt_tokens: u64,
    output: Option<OutputTool>,
    /// The stream's block that is the output tool's call.
    output_block: Option<usize>,
    /// Held-back text, and the output tool's input so far.
    held_text: String,
    held_input: String,
}

impl EventDecoder {
    /// What a `text` block or delta adds: the text now, or held back for a structured answer.
    fn text(&mut self, text: &str) -> Vec<ChatChunk> {
        if text.is_empty() {
            Vec::new()
        } else if self.output.is_some() {
            self.held_text.push_str(text);
            Vec::new()
        } else {
            vec![ChatChunk::Text(text.to_string())]
        }
    }

    /// The held-back answer, at the end of the message.
    fn release(&mut self) -> Vec<ChatChunk> {
        let text = match (self.output, self.output_block) {
            (Some(output), Some(_)) => output.answer_text(std::mem::take(&mut self.held_input)),
            _ => std::mem::take(&mut self.held_text),
        };
        if text.is_empty() {
            Vec::new()
        } else {
            vec![ChatChunk::Text(text)]
        }
    }
}

impl Decoder for EventDecoder {
    fn decode(&mut self, event: &eventsource_stream::Event) -> Result<Step, ModelError> {
        let step = |chunks| {
            Ok(Step {
                chunks,
                done: false,
            })
        };
        if event.data.trim().is_empty() {
            return step(Vec::new());
        }
        let data: Value = serde_json::from_str(&event.data).map_err(|error| {
            ModelError::InvalidResponse(format!(
                "stream event is not JSON ({error}): {}",
                preview(&event.data)
            ))
        })?;
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        let index = || {
            data.get("index")
                .and_then(Value::as_u64)
                .map_or(0, |i| usize::try_from(i).unwrap_or(usize::MAX))
        };
        match kind {
            "message_start" => {
                self.prompt_tokens = data
                    .pointer("/message/usage/input_tokens")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                let model = data.pointer("/message/model").and_then(Value::as_str);
                step(
                    model
                        .map(|model| ChatChunk::Finished {
                            model: Some(model.to_string()),
                            finish_reason: None,
                        })
                        .into_iter()
                        .collect(),
                )
            }
            "content_block_start" => {
                let name = data.pointer("/content_block/name").and_then(Value::as_str);
                match data.pointer("/content_block/type").and_then(Value::as_str) {
                    Some("tool_use") if self.output.is_some() && name == Some(OUTPUT_TOOL) => {
                        self.output_block = Some(index());
                        step(Vec::new())
                    }
                    Some("tool_use") => step(vec![ChatChunk::ToolCallDelta {
                        index: index(),
                        id: data
                            .pointer("/content_block/id")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        name: name.map(str::to_string),
                        arguments: String::new(),
                    }]),
                    Some("text") => {
                        let text = data
                            .pointer("/content_block/text")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        let chunks = self.text(text);
                        step(chunks)
                    }
                    _ => step(Vec::new()),
                }
            }
            "content_block_delta" => match data.pointer("/delta/type").and_then(Value::as_str) {
                Some("text_delta") => {
                    let text = data
                        .pointer("/delta/text")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let chunks = self.text(text);
                    step(chunks)
                }
                Some("input_json_delta") => {
                    let partial = data
                        .pointer("/delta/partial_json")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    if self.output_block == Some(index()) {
                        self.held_input.push_str(partial);
                        return step(Vec::new());
                    }
                    step(vec![ChatChunk::ToolCallDelta {
                        index: index(),
                        id: None,
                        name: None,
                        arguments: partial.to_string(),
                    }])
                }
                _ => step(Vec::new()),
            },
            "message_delta" => {
                let mut chunks = Vec::new();
                if let Some(output) = data.pointer("/usage/output_tokens").and_then(Value::as_u64) {
                    chunks.push(ChatChunk::Usage(Usage {
                        prompt_tokens: self.prompt_tokens,
                        completion_tokens: output,
                    }));
                }
                if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    chunks.push(ChatChunk::Finished {
                        model: None,
                        finish_reason: Some(reason.to_string()),
                    });
                }
                step(chunks)
            }
            "message_stop" => Ok(Step {
                chunks: self.release(),
                done: true,
            }),
            "error" => Err(ModelError::Other(format!(
                "provider error mid-stream: {}",
                data["error"]
            ))),
            // ping, content_block_stop, and event types added later.
            _ => step(Vec::new()),
        }
    }
}

impl Provider for Anthropic {
    type Decoder = EventDecoder;

    /// The request body for `request`: system messages become `system`, tool results become
    /// `tool_result` blocks of a user turn (consecutive ones merged, as the API requires). A
    /// structured answer is asked for as the input of a tool whose schema is the output's
    /// ([`OutputTool`]).
    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        let system: Vec<&str> = request
            .messages
            .iter()
            .filter(|m| m.role == Role::System)
            .map(|m| m.content.as_str())
            .collect();
        let mut messages: Vec<Value> = Vec::new();
        for message in request.messages.iter().filter(|m| m.role != Role::System) {
            let (role, blocks) = blocks(message);
            match messages.last_mut() {
                Some(last) if last["role"] == role => {
                    if let Some(content) = last["content"].as_array_mut() {
                        content.extend(blocks);
                    }
                }
                _ => messages.push(json!({"role": role, "content": blocks})),
            }
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model));
        body.insert("max_tokens".into(), json!(self.max_tokens));
        if !system.is_empty() {
            body.insert("system".into(), json!(system.join("\n\n")));
        }
        body.insert("messages".into(), Value::Array(messages));
        let mut tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name, "description": tool.description,
                    "input_schema": super::parameters_for_model(&tool.parameters),
                })
            })
            .collect();
        let mut choice = self.tool_choice.clone();
        if let (Some(output), Some(schema)) = (OutputTool::of(request), &request.response_format) {
            choice = Some(output.choice(!tools.is_empty(), choice.as_ref()));
            tools.push(output.definition(schema));
        }
        if !tools.is_empty() {
            body.insert("tools".into(), Value::Array(tools));
            if let Some(choice) = choice {
                body.insert("tool_choice".into(), choice);
            }
        }
        if stream {
            body.insert("stream".into(), json!(true));
        }
        Value::Object(body)
    }

    fn client(&self) -> Result<&reqwest::Client, ModelError> {
        self.client.as_ref().map_err(Clone::clone)
    }

    fn post(&self, client: &reqwest::Client, body: &str) -> reqwest::RequestBuilder {
        let request = client
            .post(format!("{}/v1/messages", self.base_url))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("anthropic-version", API_VERSION)
            .body(body.to_string());
        match &self.api_key {
            Some(key) => request.header("x-api-key", key),
            None => request,
        }
    }

    fn settings(&self) -> &HttpSettings {
        &self.settings
    }

    fn decoder(&self, request: &ChatRequest) -> EventDecoder {
        EventDecoder {
            output: OutputTool::of(request),
            ..EventDecoder::default()
        }
    }

    fn response(&self, request: &ChatRequest, body: &Value) -> Result<ChatResponse, ModelError> {
        response(body, OutputTool::of(request))
    }

    fn info(&self) -> crate::ModelInfo {
        http::model_info("anthropic", &self.model, &self.base_url)
    }
}

http::model_client!(Anthropic);
