//! A deterministic model for examples and tests: it answers from a script and records every
//! request, so a test can assert exactly what the model saw.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt, stream};
use serde_json::Value;

use super::{ChatStream, ModelClient, ModelError, ResponseAssembler};
use crate::{ChatChunk, ChatRequest, ChatResponse};

/// One scripted answer.
///
/// ```
/// use agents_kt::Reply;
/// use serde_json::json;
/// let script = [
///     Reply::tool_call("get_weather", json!({"city": "Paris"})),
///     Reply::text("It is sunny in Paris."),
/// ];
/// assert_eq!(script.len(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct Reply {
    chunks: Vec<ChatChunk>,
    /// Ends the answer with this error after the chunks (a broken stream, or a failed call).
    failure: Option<ModelError>,
}

impl Reply {
    /// A text answer.
    pub fn text(text: impl Into<String>) -> Self {
        Reply::chunks(vec![ChatChunk::Text(text.into())])
    }

    /// An answer calling one tool with these arguments.
    pub fn tool_call(name: impl Into<String>, arguments: Value) -> Self {
        Reply::tool_calls([(name.into(), arguments)])
    }

    /// An answer calling several tools, in order.
    pub fn tool_calls<N: Into<String>>(calls: impl IntoIterator<Item = (N, Value)>) -> Self {
        Reply::raw_tool_calls(
            calls
                .into_iter()
                .map(|(name, arguments)| (name.into(), arguments.to_string())),
        )
    }

    /// An answer calling tools with argument text exactly as given: malformed JSON included.
    pub fn raw_tool_calls<N: Into<String>, A: Into<String>>(
        calls: impl IntoIterator<Item = (N, A)>,
    ) -> Self {
        let chunks = calls
            .into_iter()
            .enumerate()
            .map(|(index, (name, arguments))| ChatChunk::ToolCallDelta {
                index,
                id: None,
                name: Some(name.into()),
                arguments: arguments.into(),
            })
            .collect();
        Reply::chunks(chunks)
    }

    /// An answer made of exactly these stream chunks (the `chat` path receives them assembled).
    pub fn chunks(chunks: Vec<ChatChunk>) -> Self {
        Reply {
            chunks,
            failure: None,
        }
    }

    /// A call that fails with `error` before any answer.
    pub fn error(error: ModelError) -> Self {
        Reply {
            chunks: Vec::new(),
            failure: Some(error),
        }
    }

    /// A stream that delivers `chunks` and then breaks with `error`.
    pub fn broken_stream(chunks: Vec<ChatChunk>, error: ModelError) -> Self {
        Reply {
            chunks,
            failure: Some(error),
        }
    }

    /// The chunks as delivered. Streamed (`split`), text comes in word-sized pieces and tool
    /// arguments in several pieces, so the stream path exercises reassembly; whole, they are
    /// delivered as written. Tool calls without an id get one here.
    fn delivered(self, call_ids: &mut usize, split: bool) -> (Vec<ChatChunk>, Option<ModelError>) {
        let mut streamed = Vec::new();
        for chunk in self.chunks {
            match chunk {
                ChatChunk::Text(text) if split => streamed.extend(
                    text.split_inclusive(' ')
                        .map(|piece| ChatChunk::Text(piece.to_string())),
                ),
                ChatChunk::ToolCallDelta {
                    index,
                    id,
                    name,
                    arguments,
                } => {
                    let id = id.or_else(|| {
                        name.as_ref().map(|_| {
                            *call_ids += 1;
                            format!("call-{call_ids}")
                        })
                    });
                    let pieces = if split {
                        split_in_three(&arguments)
                    } else {
                        vec![arguments]
                    };
                    for (position, piece) in pieces.into_iter().enumerate() {
                        let first = position == 0;
                        streamed.push(ChatChunk::ToolCallDelta {
                            index,
                            id: if first { id.clone() } else { None },
                            name: if first { name.clone() } else { None },
                            arguments: piece,
                        });
                    }
                }
                other => streamed.push(other),
            }
        }
        (streamed, self.failure)
    }
}

/// Split text at character boundaries into at most three non-empty pieces.
fn split_in_three(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() < 3 {
        return vec![text.to_string()];
    }
    let third = chars.len() / 3;
    vec![
        chars[..third].iter().collect(),
        chars[third..2 * third].iter().collect(),
        chars[2 * third..].iter().collect(),
    ]
}

/// A model that answers from a script, in order, and records every request it receives.
///
/// Cloning it shares the script and the record, so a test can keep one handle and give the other
/// to the agent. When the script runs out, the call fails with
/// [`ModelError::ScriptExhausted`]. Recording copies each request, history and all; a long run
/// that does not need the record (a benchmark) turns it off with
/// [`without_recording`](ScriptedModel::without_recording).
///
/// ```
/// use agents_kt::{ChatRequest, Message, ModelClient, Reply, ScriptedModel};
/// let model = ScriptedModel::new([Reply::text("hello")]);
/// let answer = futures::executor::block_on(model.chat(&ChatRequest::new(vec![Message::user("hi")])));
/// assert_eq!(answer.unwrap().content, "hello");
/// assert_eq!(model.requests()[0].messages[0].content, "hi");
/// assert!(futures::executor::block_on(model.chat(&ChatRequest::default())).is_err());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ScriptedModel {
    state: Arc<Mutex<ScriptState>>,
}

#[derive(Debug, Default)]
struct ScriptState {
    replies: VecDeque<Reply>,
    requests: Vec<ChatRequest>,
    /// Requests received, recorded or not.
    received: usize,
    recording: bool,
    call_ids: usize,
}

impl ScriptedModel {
    /// A model that will give these replies, one per request.
    pub fn new(replies: impl IntoIterator<Item = Reply>) -> Self {
        ScriptedModel {
            state: Arc::new(Mutex::new(ScriptState {
                replies: replies.into_iter().collect(),
                recording: true,
                ..ScriptState::default()
            })),
        }
    }

    /// The same model, no longer keeping copies of the requests it receives:
    /// [`requests`](ScriptedModel::requests) stays empty, [`request_count`](ScriptedModel::request_count)
    /// still counts.
    ///
    /// ```
    /// use agents_kt::{ChatRequest, ModelClient, Reply, ScriptedModel};
    /// let model = ScriptedModel::new([Reply::text("hello")]).without_recording();
    /// futures::executor::block_on(model.chat(&ChatRequest::default())).unwrap();
    /// assert_eq!(model.request_count(), 1);
    /// assert!(model.requests().is_empty());
    /// ```
    pub fn without_recording(self) -> Self {
        self.state().recording = false;
        self
    }

    /// Append a reply to the script.
    pub fn push(&self, reply: Reply) {
        self.state().replies.push_back(reply);
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.state().requests.clone()
    }

    /// How many requests were received so far.
    pub fn request_count(&self) -> usize {
        self.state().received
    }

    /// How many scripted replies are still unused.
    pub fn remaining(&self) -> usize {
        self.state().replies.len()
    }

    fn state(&self) -> MutexGuard<'_, ScriptState> {
        // The state stays consistent even if a holder panicked: every update is one push or pop.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Record `request` and take the next reply as chunks, split as a stream would deliver them
    /// when `streamed`.
    fn next(
        &self,
        request: &ChatRequest,
        streamed: bool,
    ) -> Result<(Vec<ChatChunk>, Option<ModelError>), ModelError> {
        let mut state = self.state();
        state.received += 1;
        if state.recording {
            state.requests.push(request.clone());
        }
        let number = state.received;
        let reply = state
            .replies
            .pop_front()
            .ok_or(ModelError::ScriptExhausted { request: number })?;
        let ScriptState { call_ids, .. } = &mut *state;
        Ok(reply.delivered(call_ids, streamed))
    }
}

impl ModelClient for ScriptedModel {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let answer = self.next(request, false).and_then(|(chunks, failure)| {
            if let Some(error) = failure {
                return Err(error);
            }
            let mut assembler = ResponseAssembler::default();
            chunks.into_iter().for_each(|chunk| assembler.push(chunk));
            assembler.finish()
        });
        futures::future::ready(answer).boxed()
    }

    fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a> {
        match self.next(request, true) {
            Ok((chunks, failure)) => stream::iter(chunks.into_iter().map(Ok))
                .chain(stream::iter(failure.map(Err)))
                .boxed(),
            Err(error) => stream::once(futures::future::ready(Err(error))).boxed(),
        }
    }

    fn info(&self) -> crate::ModelInfo {
        crate::ModelInfo::new("agents_kt.scripted").model("scripted")
    }
}
