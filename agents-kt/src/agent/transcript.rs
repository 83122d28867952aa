//! The conversation of an agentic skill as the loop keeps it, apart from the loop's own steps:
//! what the model is sent first, which turns a remembered conversation stores, and what a handoff
//! leaves behind — the conversation the receiving agent continues, and its answer as this run's.

use std::sync::{Arc, Mutex};

use crate::memory::Remembered;
use crate::{AgentError, Message, Role};

/// One agentic skill's bookkeeping of its conversation, borrowed from its run.
pub(super) struct Transcript<'r> {
    /// Where the conversation is remembered, when the run continues one.
    memory: Option<&'r Remembered>,
    /// The tools that hand the conversation off (`AgentBuilder::handoff`).
    handoffs: &'r [Arc<str>],
    /// Where the conversation is kept for a handoff's receiving agent.
    kept: &'r Mutex<Vec<Message>>,
}

impl<'r> Transcript<'r> {
    pub(super) fn new(
        memory: Option<&'r Remembered>,
        handoffs: &'r [Arc<str>],
        kept: &'r Mutex<Vec<Message>>,
    ) -> Self {
        Transcript {
            memory,
            handoffs,
            kept,
        }
    }

    /// The first messages the model is sent: the system messages (`prelude`), then the
    /// conversation so far — the remembered one, else the one handed in (`history`) — and the
    /// user's `input`, which a remembered conversation records.
    pub(super) async fn opening(
        &self,
        mut prelude: Vec<Message>,
        history: &[Message],
        input: String,
    ) -> Result<Vec<Message>, AgentError> {
        let user = Message::user(input);
        match self.memory {
            Some(memory) => {
                let remembered = memory.load().await?;
                // Room for the history and the input at once: growing twice moved it twice.
                prelude.reserve(remembered.len() + 1);
                prelude.extend(remembered);
                memory.record([user.clone()]);
            }
            None => prelude.extend(history.iter().cloned()),
        }
        prelude.push(user);
        Ok(prelude)
    }

    /// The model's final answer, stored as the assistant's last word.
    pub(super) async fn answered(&self, content: &str) -> Result<(), AgentError> {
        self.remember(|| vec![Message::assistant(content, Vec::new())])
            .await
    }

    /// An answer that did not fit the output type (`raw`), and the request to repair it, added to
    /// what the model is sent next; the request is recorded for the next store.
    pub(super) fn repair(&self, messages: &mut Vec<Message>, raw: String, repair: String) {
        messages.push(Message::assistant(raw, Vec::new()));
        let repair = Message::user(repair);
        if let Some(memory) = self.memory {
            memory.record([repair.clone()]);
        }
        messages.push(repair);
    }

    /// Whether `assistant` calls a handoff: then the conversation so far (`messages`, system
    /// messages aside) is kept for the receiving agent, which continues it.
    pub(super) fn hands_off(&self, assistant: &Message, messages: &[Message]) -> bool {
        let hands_off = assistant
            .tool_calls
            .iter()
            .any(|call| self.is_handoff(&call.name));
        if hands_off {
            let conversation = messages
                .iter()
                .filter(|message| message.role != Role::System)
                .cloned()
                .collect();
            *self.kept.lock().unwrap_or_else(|p| p.into_inner()) = conversation;
        }
        hands_off
    }

    /// The answer of the first transfer among `assistant`'s calls that came back unrefused: the
    /// receiving agent's output (or a substitute standing in for it) as it passed this run's
    /// after-tool chain, to be read like a final answer. `None`: every transfer was denied,
    /// failed or withheld, and the conversation goes on here.
    pub(super) fn handed_off<'a>(
        &self,
        assistant: &Message,
        answers: &'a [Message],
    ) -> Option<&'a str> {
        assistant
            .tool_calls
            .iter()
            .zip(answers)
            .find(|(call, answer)| self.is_handoff(&call.name) && !answer.is_error)
            .map(|(_, answer)| answer.content.as_str())
    }

    /// A turn of tool calls, stored: the calls, their answers in call order, and a handoff's
    /// output as the assistant's last word.
    pub(super) async fn turn(
        &self,
        assistant: &Message,
        answers: &[Message],
        handed_off: Option<&str>,
    ) -> Result<(), AgentError> {
        self.remember(|| {
            let mut turn = vec![assistant.clone()];
            turn.extend(answers.iter().cloned());
            turn.extend(handed_off.map(|output| Message::assistant(output, Vec::new())));
            turn
        })
        .await
    }

    fn is_handoff(&self, tool: &str) -> bool {
        self.handoffs.iter().any(|handoff| **handoff == *tool)
    }

    /// Store a turn's messages (built only when the run remembers), with whatever was recorded
    /// before them.
    async fn remember(&self, turn: impl FnOnce() -> Vec<Message>) -> Result<(), AgentError> {
        match self.memory {
            Some(memory) => {
                memory.record(turn());
                memory.flush().await
            }
            None => Ok(()),
        }
    }
}
