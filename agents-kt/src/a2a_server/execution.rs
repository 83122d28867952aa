//! A task's run: the agent's session on the stream path, its events turned into the task's
//! status and artifact updates, and its approvals into `input-required` (the client's next
//! message on the task answers them).
//!
//! - `working` when it starts; each tool call a `working` status whose message names the tool
//!   (with its arguments as data), and a denied, rejected or failed call the error text the
//!   model reads;
//! - the model's streamed text as artifact `response` (appended chunk by chunk);
//! - the output as artifact `output` (text for a string, JSON data otherwise), then
//!   `completed`; a failed run (a denied skill, an exhausted budget, …) `failed` with its error;
//! - an approval asked in the run: `input-required`, its message carrying the request as data
//!   (`tool`, `args`, `fingerprint`, …); the run waits until the client answers.

use std::sync::Arc;

use a2a::{Artifact, Message, Part, Role, StreamResponse, TaskArtifactUpdateEvent, TaskState};
use futures::StreamExt;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::{Value, json};

use super::tasks::TaskSlot;
use crate::agent::served::{Served, ServedRun};
use crate::{Agent, AgentEvent, AgentInput, AgentOutput, ApprovalInbox};

/// The artifact the model's streamed text goes to.
const RESPONSE: &str = "response";
/// The artifact the run's output goes to.
const OUTPUT: &str = "output";

/// A task's execution — its run and the reporting of its events — for whoever drives it: a
/// task of its own ([`spawn`](Execution::spawn)), or a blocking `SendMessage` that polls it in
/// its own future until the task pauses ([`until_paused`](Execution::until_paused): no hop to
/// another task and back) and hands what is left to a task of its own. Dropped unfinished (its
/// client went away), it goes on on a task of its own: a task outlives the request that
/// started it.
pub(super) struct Execution(Option<BoxFuture<'static, ()>>);

impl Execution {
    /// Go on on a task of its own.
    pub(super) fn spawn(mut self) {
        if let Some(execution) = self.0.take() {
            tokio::spawn(execution);
        }
    }

    /// Drive it here until `slot`'s task finishes or waits for its client; what is left goes on
    /// on a task of its own.
    pub(super) async fn until_paused(mut self, slot: &TaskSlot) {
        let Some(execution) = self.0.as_mut() else {
            return;
        };
        tokio::select! {
            biased;
            () = execution => self.0 = None,
            () = slot.until_paused() => {}
        }
    }
}

impl Drop for Execution {
    fn drop(&mut self) {
        if let Some(execution) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(execution);
        }
    }
}

/// The run of `slot`'s task on `input` for `served`, whose desk's questions arrive in `inbox`,
/// ready to be driven; a cancel of the task stops it wherever it runs.
pub(super) fn start<IN, OUT>(
    agent: &Agent<IN, OUT>,
    input: IN,
    served: Served,
    mut inbox: ApprovalInbox,
    slot: &Arc<TaskSlot>,
) -> Execution
where
    IN: AgentInput,
    OUT: AgentOutput + Serialize,
{
    let ServedRun { mut events, run } = agent.served_run(input, served);
    let task = Arc::clone(slot);
    slot.set_status(TaskState::Working, None);
    // The run and the reading of its events in one future: an event reaches the task's
    // watchers without a hop between threads.
    let execution = async move {
        let mut run = std::pin::pin!(run);
        let mut running = true;
        let mut streamed = false;
        loop {
            tokio::select! {
                // Events first: those the run sent before it asked a question are told before
                // the question (a later `working` would hide the `input-required`).
                biased;
                event = events.next() => match event {
                    Some(event) => {
                        if report(&task, event, &mut streamed) {
                            return;
                        }
                    }
                    None => break,
                },
                Some(question) = inbox.next() => {
                    let request = serde_json::to_value(question.request()).unwrap_or(Value::Null);
                    let text = format!(
                        "approval needed: tool '{}' with these arguments; answer with a data part {{\"answer\": \"approve\" | \"deny\" | \"edit\", \"fingerprint\": \"{}\", …}}",
                        question.request().tool,
                        question.request().fingerprint
                    );
                    task.set_question(question);
                    task.set_status(
                        TaskState::InputRequired,
                        Some(agent_message(&task, vec![Part::text(text), Part::data(request)])),
                    );
                }
                // Its result is in its events (`Completed` or `Failed`).
                _ = &mut run, if running => running = false,
            }
        }
        fail(&task, "the run ended without an output");
    };
    // A cancel drops the run, with the tool in flight, wherever the execution is polled.
    let (execution, stop) = futures::future::abortable(execution);
    slot.set_run(stop);
    let execution = tracing::Instrument::in_current_span(execution);
    Execution(Some(Box::pin(async move {
        let _ = execution.await;
    })))
}

/// Fail `task` for `reason`.
pub(super) fn fail(task: &TaskSlot, reason: &str) {
    let message = agent_message(task, vec![Part::text(reason)]);
    task.set_status(TaskState::Failed, Some(message));
}

/// Report one of the run's events on the task; `true` once the run has ended.
fn report<OUT: Serialize>(task: &TaskSlot, event: AgentEvent<OUT>, streamed: &mut bool) -> bool {
    match event {
        AgentEvent::Token { text, .. } => {
            let append = std::mem::replace(streamed, true);
            artifact(task, RESPONSE, Part::text(text), append, false);
        }
        AgentEvent::ToolCallStarted { tool, args, .. } => {
            let parts = vec![
                Part::text(format!("calling tool '{tool}'")),
                Part::data(json!({ "tool": tool, "args": args })),
            ];
            task.set_status(TaskState::Working, Some(agent_message(task, parts)));
        }
        AgentEvent::ToolCallFinished {
            tool,
            result,
            is_error: true,
            ..
        } => {
            let text = match result {
                Value::String(text) => text,
                other => other.to_string(),
            };
            let parts = vec![Part::text(text), Part::data(json!({ "tool": tool }))];
            task.set_status(TaskState::Working, Some(agent_message(task, parts)));
        }
        AgentEvent::Completed { output, .. } => {
            let part = match serde_json::to_value(&output) {
                Ok(Value::String(text)) => Part::text(text),
                Ok(value) => Part::data(value).with_media_type("application/json"),
                Err(error) => Part::text(format!("the output could not be written: {error}")),
            };
            artifact(task, OUTPUT, part, false, true);
            task.set_status(TaskState::Completed, None);
            return true;
        }
        AgentEvent::Failed { error, .. } => {
            fail(task, &error.to_string());
            return true;
        }
        _ => {}
    }
    false
}

/// A message from the agent on `task`.
fn agent_message(task: &TaskSlot, parts: Vec<Part>) -> Message {
    let mut message = Message::new(Role::Agent, parts);
    message.task_id = Some(task.id().to_string());
    message.context_id = Some(task.context_id().to_string());
    message
}

fn artifact(task: &TaskSlot, id: &str, part: Part, append: bool, last: bool) {
    task.publish(StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: task.id().to_string(),
        context_id: task.context_id().to_string(),
        artifact: Artifact {
            artifact_id: id.to_string(),
            name: Some(id.to_string()),
            description: None,
            parts: vec![part],
            metadata: None,
            extensions: None,
        },
        append: Some(append),
        last_chunk: Some(last),
        metadata: None,
    }));
}
