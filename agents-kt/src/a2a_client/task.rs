//! One remote task followed to its end: the message sent, the task's status and artifact
//! updates read as they arrive (its progress reported), an `input-required` answered through
//! the local approver and the task continued, and the output taken from its artifacts. A task
//! left unfinished — the call timed out or was dropped — is canceled on the remote.

use std::sync::Arc;

use a2a::{Message, Part, StreamResponse, Task, TaskState};
use futures::StreamExt;
use futures::stream::BoxStream;
use serde_json::{Value, json};

use super::A2aClientError;
use super::parts::{text_of, value_of};
use super::question::Asker;
use super::wire::Wire;

/// How many times one call answers the remote's questions before it gives up (a remote that
/// asks forever must not hold the call forever).
const MAX_QUESTIONS: u32 = 16;

/// Send `message` to the remote and follow the task it starts to its end: the output as JSON.
pub(super) async fn exchange(
    wire: &Arc<Wire>,
    streaming: bool,
    mut message: Message,
    asker: &Asker<'_>,
    progress: &(dyn Fn(Value) + Send + Sync),
) -> Result<Value, A2aClientError> {
    // A context of its own: a call dropped before the remote named its task can still find
    // the task (by its context) and cancel it.
    let context = message
        .context_id
        .get_or_insert_with(a2a::new_context_id)
        .clone();
    let mut cancel = CancelOnDrop {
        wire: Arc::clone(wire),
        task: None,
        context: Some(context),
    };
    let mut questions = 0;
    loop {
        let method = match streaming {
            true => "SendStreamingMessage",
            false => "SendMessage",
        };
        let params = json!({ "message": message, "configuration": { "returnImmediately": false } });
        let events = wire.stream::<StreamResponse>(method, params).await?;
        let mut seen = follow(events, questions > 0, progress, &mut cancel.task).await?;
        if !seen.settled()
            && let Some(id) = &seen.task
        {
            // The stream ended early: the task's state as the remote keeps it.
            let task: Task = wire.call("GetTask", json!({ "id": id })).await?;
            seen.apply(StreamResponse::Task(task), progress);
        }
        let (task, context) = (seen.task.clone(), seen.context.clone());
        let question = match seen.outcome() {
            Outcome::Asked(question) => question,
            Outcome::Ended(ended) => {
                cancel.task = None;
                cancel.context = None;
                return ended;
            }
            Outcome::Unsettled(error) => return Err(error),
        };
        questions += 1;
        let reply = match questions > MAX_QUESTIONS {
            true => Err(A2aClientError::InputNotGiven {
                reason: format!("the remote asked more than {MAX_QUESTIONS} times"),
            }),
            false => asker.answer(&question).await,
        };
        let parts = match reply {
            Ok(parts) => parts,
            Err(error) => {
                cancel.now().await;
                return Err(error);
            }
        };
        message = Message::new(a2a::Role::User, parts);
        message.task_id = task;
        message.context_id = context;
    }
}

/// Read `events` until the task settles or they end; `task` learns the task's id as soon as it
/// is known (to cancel it if the call is dropped). `resumed`: the events answer our reply to a
/// question.
pub(super) async fn follow(
    mut events: BoxStream<'static, Result<StreamResponse, A2aClientError>>,
    resumed: bool,
    progress: &(dyn Fn(Value) + Send + Sync),
    task: &mut Option<String>,
) -> Result<Seen, A2aClientError> {
    let mut seen = Seen::default();
    let mut first = true;
    while let Some(event) = events.next().await {
        let event = event?;
        // A stream answering our reply to a question may begin with the task as it was: still
        // waiting for that reply. Not a new question.
        let stale = resumed
            && std::mem::replace(&mut first, false)
            && matches!(&event, StreamResponse::Task(task) if task.status.state == TaskState::InputRequired);
        match stale {
            true => seen.ids_of(&event),
            false => seen.apply(event, progress),
        }
        task.clone_from(&seen.task);
        if seen.settled() {
            break;
        }
    }
    Ok(seen)
}

/// Where a task's events left it.
pub(super) enum Outcome {
    /// It ended: its output, or why there is none.
    Ended(Result<Value, A2aClientError>),
    /// It waits for an answer to this question.
    Asked(Message),
    /// It has not ended and asks nothing (the remote's answer stopped short).
    Unsettled(A2aClientError),
}

/// What the remote has said about the task so far.
#[derive(Default)]
pub(super) struct Seen {
    pub(super) task: Option<String>,
    context: Option<String>,
    state: TaskState,
    /// The latest status's message.
    status: Option<Message>,
    /// Artifacts by id, in the order they began.
    artifacts: Vec<(String, Vec<Part>)>,
    /// A reply given as a message, without a task.
    direct: Option<Message>,
}

impl Seen {
    fn apply(&mut self, event: StreamResponse, progress: &(dyn Fn(Value) + Send + Sync)) {
        match event {
            StreamResponse::Task(task) => {
                self.task = Some(task.id);
                self.context = Some(task.context_id);
                for artifact in task.artifacts.unwrap_or_default() {
                    self.artifact(artifact.artifact_id, artifact.parts, false);
                }
                self.status(task.status.state, task.status.message, progress);
            }
            StreamResponse::StatusUpdate(update) => {
                self.task.get_or_insert(update.task_id);
                self.context.get_or_insert(update.context_id);
                self.status(update.status.state, update.status.message, progress);
            }
            StreamResponse::ArtifactUpdate(update) => {
                let append = update.append.unwrap_or(false);
                self.artifact(update.artifact.artifact_id, update.artifact.parts, append);
            }
            // A message from the agent is its reply; the remote echoing ours tells nothing.
            StreamResponse::Message(message) => {
                if message.role == a2a::Role::Agent {
                    self.direct = Some(message);
                }
            }
        }
    }

    /// Only which task this is.
    fn ids_of(&mut self, event: &StreamResponse) {
        if let StreamResponse::Task(task) = event {
            self.task = Some(task.id.clone());
            self.context = Some(task.context_id.clone());
        }
    }

    fn status(
        &mut self,
        state: TaskState,
        message: Option<Message>,
        progress: &(dyn Fn(Value) + Send + Sync),
    ) {
        if state == TaskState::Working
            && let Some(message) = &message
        {
            progress(json!({ "remote_status": text_of(message) }));
        }
        self.state = state;
        self.status = message;
    }

    fn artifact(&mut self, id: String, parts: Vec<Part>, append: bool) {
        match self.artifacts.iter_mut().find(|(known, _)| *known == id) {
            Some((_, known)) if append => known.extend(parts),
            Some((_, known)) => *known = parts,
            None => self.artifacts.push((id, parts)),
        }
    }

    /// Whether nothing more is to come for this message: the task ended or waits for us.
    fn settled(&self) -> bool {
        self.direct.is_some()
            || self.state.is_terminal()
            || matches!(
                self.state,
                TaskState::InputRequired | TaskState::AuthRequired
            )
    }

    /// Where the task is.
    pub(super) fn outcome(self) -> Outcome {
        let state = self.state.clone();
        match state {
            _ if self.direct.is_some() => Outcome::Ended(self.output()),
            TaskState::Completed => Outcome::Ended(self.output()),
            TaskState::InputRequired => Outcome::Asked(
                self.status
                    .unwrap_or_else(|| Message::new(a2a::Role::Agent, vec![])),
            ),
            state if state.is_terminal() || state == TaskState::AuthRequired => {
                Outcome::Ended(Err(A2aClientError::TaskFailed {
                    state: state_name(&state).to_string(),
                    message: self.status.as_ref().map(text_of).unwrap_or_default(),
                }))
            }
            state => Outcome::Unsettled(A2aClientError::protocol(format!(
                "the remote's answer ended while its task was {}",
                state_name(&state)
            ))),
        }
    }

    /// The output: the artifact named `output` (an agents-kt server's), else the last artifact,
    /// else the reply message, else the final status's message.
    fn output(self) -> Result<Value, A2aClientError> {
        let parts = match self.artifacts.iter().position(|(id, _)| id == "output") {
            Some(at) => self.artifacts.into_iter().nth(at).map(|(_, parts)| parts),
            None => self.artifacts.into_iter().last().map(|(_, parts)| parts),
        };
        let parts = parts
            .or(self.direct.map(|message| message.parts))
            .or(self.status.map(|message| message.parts))
            .ok_or_else(|| A2aClientError::protocol("the task completed without an output"))?;
        value_of(&parts)
    }
}

/// A state as A2A's JSON names it, without the prefix (`failed`, `input-required`).
fn state_name(state: &TaskState) -> &'static str {
    match state {
        TaskState::Unspecified => "unspecified",
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::Completed => "completed",
        TaskState::Failed => "failed",
        TaskState::Canceled => "canceled",
        TaskState::InputRequired => "input-required",
        TaskState::Rejected => "rejected",
        TaskState::AuthRequired => "auth-required",
    }
}

/// Cancels the remote task if the call ends before the task does (dropped on a timeout, a
/// parent's cancellation, or a question not answered).
struct CancelOnDrop {
    wire: Arc<Wire>,
    /// The remote task, once the remote named it.
    task: Option<String>,
    /// The call's context: before the task is named, the unfinished tasks in it are the call's.
    context: Option<String>,
}

impl CancelOnDrop {
    /// Cancel now, waiting for the remote to hear it.
    async fn now(&mut self) {
        cancel(&self.wire, self.task.take(), self.context.take()).await;
    }
}

/// Cancel the remote `task`; not yet named, every unfinished task in `context` (the remote is
/// asked with `ListTasks`). Best effort: a remote that cannot be reached, or has no `ListTasks`,
/// is left alone, with a debug log.
async fn cancel(wire: &Wire, task: Option<String>, context: Option<String>) {
    let ids = match (task, context) {
        (Some(id), _) => vec![id],
        (None, Some(context)) => {
            let listed: Result<Value, _> = wire
                .call("ListTasks", json!({ "contextId": context }))
                .await;
            let listed = listed.unwrap_or_else(|error| {
                tracing::debug!(%error, %context, "the remote's tasks could not be listed");
                Value::Null
            });
            listed["tasks"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|task| !is_settled(&task["status"]["state"]))
                .filter_map(|task| task["id"].as_str().map(str::to_string))
                .collect()
        }
        (None, None) => Vec::new(),
    };
    for id in ids {
        let canceled: Result<Value, _> = wire.call("CancelTask", json!({ "id": id })).await;
        if let Err(error) = canceled {
            tracing::debug!(%error, task = %id, "the remote task could not be canceled");
        }
    }
}

/// Whether a task in `state` (its JSON) has finished.
fn is_settled(state: &Value) -> bool {
    matches!(
        state.as_str(),
        Some(
            "TASK_STATE_COMPLETED"
                | "TASK_STATE_FAILED"
                | "TASK_STATE_CANCELED"
                | "TASK_STATE_REJECTED"
        )
    )
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let (task, context) = (self.task.take(), self.context.take());
        if task.is_none() && context.is_none() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let wire = Arc::clone(&self.wire);
        runtime.spawn(async move { cancel(&wire, task, context).await });
    }
}
