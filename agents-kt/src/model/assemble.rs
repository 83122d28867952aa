//! Turning a stream of [`ChatChunk`]s back into one [`ChatResponse`].

use crate::{ChatChunk, ChatResponse, ModelError, ToolCall};

/// Collects streamed chunks into the complete answer they add up to.
///
/// Tool-call deltas are joined by index, so a call whose arguments arrive over many chunks (or
/// interleaved with another call's) comes out whole.
///
/// ```
/// use agents_kt::{ChatChunk, ResponseAssembler};
/// let mut answer = ResponseAssembler::default();
/// answer.push(ChatChunk::Text("Hel".into()));
/// answer.push(ChatChunk::Text("lo".into()));
/// answer.push(ChatChunk::tool_call_delta(0, Some("c1".into()), Some("t".into()), "{\"a\":"));
/// answer.push(ChatChunk::tool_call_delta(0, None, None, "1}"));
/// let response = answer.finish().unwrap();
/// assert_eq!(response.content, "Hello");
/// assert_eq!(response.tool_calls[0].arguments, "{\"a\":1}");
/// ```
#[derive(Debug, Default)]
pub struct ResponseAssembler {
    content: String,
    calls: Vec<PartialCall>,
    usage: Option<crate::Usage>,
    model: Option<String>,
    finish_reason: Option<String>,
}

#[derive(Debug)]
struct PartialCall {
    index: usize,
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

impl ResponseAssembler {
    /// Add one chunk.
    pub fn push(&mut self, chunk: ChatChunk) {
        match chunk {
            // The first piece is kept as is: most answers arrive whole or start a buffer.
            ChatChunk::Text(text) if self.content.is_empty() => self.content = text,
            ChatChunk::Text(text) => self.content.push_str(&text),
            ChatChunk::Usage(usage) => self.usage = Some(usage),
            ChatChunk::Finished {
                model,
                finish_reason,
            } => {
                // Providers say these once, some early (the model) and some late (the reason).
                self.model = model.or(self.model.take());
                self.finish_reason = finish_reason.or(self.finish_reason.take());
            }
            ChatChunk::ToolCallDelta {
                index,
                id,
                name,
                arguments,
            } => {
                let position = match self.calls.iter().position(|call| call.index == index) {
                    Some(position) => position,
                    None => {
                        self.calls.push(PartialCall {
                            index,
                            id: None,
                            name: None,
                            arguments: String::new(),
                        });
                        self.calls.len() - 1
                    }
                };
                let call = &mut self.calls[position];
                if id.is_some() {
                    call.id = id;
                }
                if let Some(name) = name {
                    // Some servers resend the name with every delta; others split it.
                    match &mut call.name {
                        Some(existing) if existing != &name => existing.push_str(&name),
                        Some(_) => {}
                        None => call.name = Some(name),
                    }
                }
                if call.arguments.is_empty() {
                    call.arguments = arguments;
                } else {
                    call.arguments.push_str(&arguments);
                }
            }
        }
    }

    /// The complete answer; an error if a tool call never received its name.
    pub fn finish(mut self) -> Result<ChatResponse, ModelError> {
        self.calls.sort_by_key(|call| call.index);
        let tool_calls = self
            .calls
            .into_iter()
            .map(|call| {
                let name = call.name.ok_or_else(|| {
                    ModelError::InvalidResponse(format!(
                        "streamed tool call {} has no tool name",
                        call.index
                    ))
                })?;
                let id = call.id.unwrap_or_else(|| format!("call_{}", call.index));
                let arguments = if call.arguments.trim().is_empty() {
                    "{}".to_string()
                } else {
                    call.arguments
                };
                Ok(ToolCall {
                    id,
                    name,
                    arguments,
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        Ok(ChatResponse {
            content: self.content,
            tool_calls,
            usage: self.usage,
            model: self.model,
            finish_reason: self.finish_reason,
        })
    }
}
