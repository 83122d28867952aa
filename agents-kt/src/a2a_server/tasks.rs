//! The server's tasks: each one's owner, its state as the protocol shows it, the run behind it,
//! the approval it waits for, and who watches it. Bounded in number: past the cap the oldest
//! finished task is forgotten, and when every task is still live a new one is refused.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use a2a::{A2AError, Message, StreamResponse, Task, TaskState, TaskStatus, TaskStatusUpdateEvent};
use futures::StreamExt;
use futures::stream::BoxStream;
use tokio::sync::broadcast;

use crate::{ApprovalDesk, Journal, PendingApproval};

/// How many events a watcher may fall behind before it is sent the whole task again.
const WATCH_BUFFER: usize = 32;

/// Every task the server knows, by id.
pub(super) struct TaskTable {
    state: Mutex<Table>,
    max: usize,
    /// Where a durable server keeps them.
    records: Option<Arc<dyn TaskRecords>>,
}

/// Where a durable server keeps its tasks ([`A2aServerBuilder::durable`](super::A2aServerBuilder::durable)):
/// each task as it was created — its owner and the message that started it, all a restart needs
/// to run it again from its journal — and as it stands whenever it finishes or waits.
pub(super) trait TaskRecords: Send + Sync + 'static {
    /// Keep the new `task` of `owner`, started by `message`; a task that cannot be kept is not
    /// started.
    fn created(&self, task: &Task, owner: Option<&str>, message: &Message) -> Result<(), String>;

    /// Keep `task` as it stands now.
    fn changed(&self, task: &Task);

    /// Forget task `id` and its journal (the table forgot it, to make room).
    fn forgotten(&self, id: &str);

    /// The journal of task `id`'s run (what a restart replays it from), asking `desk` for
    /// approvals.
    fn journal(&self, id: &str, desk: ApprovalDesk) -> Result<Arc<dyn Journal>, String>;
}

/// A task a durable server kept: as it stood, its owner, and the message that started it.
pub(super) struct KeptTask {
    pub task: Task,
    pub owner: Option<String>,
    pub message: Message,
}

#[derive(Default)]
struct Table {
    slots: HashMap<String, Arc<TaskSlot>>,
    /// Ids in the order the tasks were created (the oldest finished one is forgotten first).
    order: VecDeque<String>,
}

/// One task.
pub(super) struct TaskSlot {
    /// Its id and context, fixed at creation (read without the lock).
    id: String,
    context_id: String,
    /// The principal that created it (`None` without an authenticator): only it may read,
    /// continue or cancel the task.
    owner: Option<String>,
    state: Mutex<SlotState>,
    /// Told when the task finishes or waits for its client (a blocking `SendMessage` waits for
    /// this one wake-up, not for every event).
    paused: tokio::sync::Notify,
}

struct SlotState {
    task: Task,
    /// Its watchers' channel, made for the first watcher (a blocking `SendMessage` has none,
    /// and its task allocates none).
    events: Option<broadcast::Sender<StreamResponse>>,
    /// The approval the run waits for, while the task is input-required.
    question: Option<PendingApproval>,
    /// Stops the run (on cancel).
    run: Option<futures::future::AbortHandle>,
    /// Where a durable server keeps the task.
    records: Option<Arc<dyn TaskRecords>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl TaskTable {
    pub(super) fn new(max: usize, records: Option<Arc<dyn TaskRecords>>) -> Self {
        TaskTable {
            state: Mutex::new(Table::default()),
            max: max.max(1),
            records,
        }
    }

    /// A new task for `owner`, started by `message` (given the task's id, and a new context
    /// unless it names one), submitted, kept when the server is durable; refused when the
    /// table is full of live tasks.
    pub(super) fn create(
        &self,
        owner: Option<String>,
        message: &mut Message,
    ) -> Result<Arc<TaskSlot>, A2AError> {
        let mut table = lock(&self.state);
        let mut forgotten = None;
        if table.slots.len() >= self.max {
            let finished = table
                .order
                .iter()
                .position(|id| table.slots.get(id).is_some_and(|slot| slot.is_finished()));
            let Some(position) = finished else {
                return Err(A2AError::unsupported_operation(format!(
                    "the server holds its maximum of {} live tasks; try again when one has finished",
                    self.max
                )));
            };
            forgotten = table.order.remove(position);
            if let Some(id) = &forgotten {
                table.slots.remove(id);
            }
        }
        let id = a2a::new_task_id();
        let context_id = message
            .context_id
            .clone()
            .unwrap_or_else(a2a::new_context_id);
        message.task_id = Some(id.clone());
        message.context_id = Some(context_id.clone());
        let task = Task {
            id: id.clone(),
            context_id,
            status: status(TaskState::Submitted, None),
            artifacts: None,
            history: Some(vec![message.clone()]),
            metadata: None,
        };
        let slot = self.insert(&mut table, task, owner);
        // The file is written outside the table's lock: a slow write (another process holding
        // the file) delays this message only, not every other request.
        drop(table);
        let Some(records) = &self.records else {
            return Ok(slot);
        };
        if let Some(id) = forgotten {
            records.forgotten(&id);
        }
        // Kept before its run starts (nothing has changed it yet).
        if let Err(reason) = records.created(&slot.snapshot(), slot.owner(), message) {
            tracing::error!(%reason, "an A2A task could not be kept; not started");
            let mut table = lock(&self.state);
            table.slots.remove(&id);
            table.order.retain(|kept| *kept != id);
            return Err(A2AError::internal(format!(
                "the task could not be kept: {reason}"
            )));
        }
        Ok(slot)
    }

    /// The journal task `id`'s run records in, asking `desk`, when the server is durable.
    pub(super) fn journal(
        &self,
        id: &str,
        desk: &ApprovalDesk,
    ) -> Result<Option<Arc<dyn Journal>>, A2AError> {
        let Some(records) = &self.records else {
            return Ok(None);
        };
        records
            .journal(id, desk.clone())
            .map(Some)
            .map_err(|reason| {
                tracing::error!(%reason, task = id, "an A2A task's journal could not be opened");
                A2AError::internal(format!("the task's journal could not be opened: {reason}"))
            })
    }

    /// The tasks a durable server kept, back in the table: a finished one as it stood, a live
    /// one as its message left it (its run, replayed from its journal, tells the rest again).
    /// The live ones are returned, to be run.
    pub(super) fn restore(&self, kept: Vec<KeptTask>) -> Vec<(Arc<TaskSlot>, Message)> {
        let mut table = lock(&self.state);
        let mut live = Vec::new();
        for KeptTask {
            mut task,
            owner,
            message,
        } in kept
        {
            let finished = task.status.state.is_terminal();
            if !finished {
                task.status = status(TaskState::Submitted, None);
                task.history = Some(vec![message.clone()]);
                task.artifacts = None;
            }
            let slot = self.insert(&mut table, task, owner);
            if !finished {
                live.push((slot, message));
            }
        }
        live
    }

    fn insert(&self, table: &mut Table, task: Task, owner: Option<String>) -> Arc<TaskSlot> {
        let id = task.id.clone();
        let slot = Arc::new(TaskSlot {
            id: id.clone(),
            context_id: task.context_id.clone(),
            owner,
            state: Mutex::new(SlotState {
                task,
                events: None,
                question: None,
                run: None,
                records: self.records.clone(),
            }),
            paused: tokio::sync::Notify::new(),
        });
        table.order.push_back(id.clone());
        table.slots.insert(id, Arc::clone(&slot));
        slot
    }

    /// The task `id` as `principal` may see it: another principal's task is "not found", as if
    /// it did not exist (its id tells nothing).
    pub(super) fn get(&self, id: &str, principal: Option<&str>) -> Result<Arc<TaskSlot>, A2AError> {
        let slot = lock(&self.state).slots.get(id).cloned();
        match slot {
            Some(slot) if slot.owner.as_deref() == principal => Ok(slot),
            Some(_) => {
                tracing::warn!(
                    principal = principal.unwrap_or("(anonymous)"),
                    task = id,
                    "A2A request on another principal's task refused"
                );
                Err(A2AError::task_not_found(id))
            }
            None => Err(A2AError::task_not_found(id)),
        }
    }

    /// The tasks `principal` owns, oldest first.
    pub(super) fn owned_by(&self, principal: Option<&str>) -> Vec<Task> {
        let table = lock(&self.state);
        table
            .order
            .iter()
            .filter_map(|id| table.slots.get(id))
            .filter(|slot| slot.owner.as_deref() == principal)
            .map(|slot| slot.snapshot())
            .collect()
    }
}

/// A status now, with `message`.
pub(super) fn status(state: TaskState, message: Option<Message>) -> TaskStatus {
    TaskStatus {
        state,
        message,
        timestamp: Some(chrono::Utc::now()),
    }
}

/// Whether a stream of the task's events ends at `state`: the run finished, or waits for its
/// client.
fn pauses_at(state: &TaskState) -> bool {
    state.is_terminal() || *state == TaskState::InputRequired
}

impl TaskSlot {
    pub(super) fn id(&self) -> &str {
        &self.id
    }

    pub(super) fn context_id(&self) -> &str {
        &self.context_id
    }

    /// The principal that created it.
    pub(super) fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// Whether the task has finished (without copying it).
    pub(super) fn is_finished(&self) -> bool {
        lock(&self.state).task.status.state.is_terminal()
    }

    /// The task as it is now.
    pub(super) fn snapshot(&self) -> Task {
        lock(&self.state).task.clone()
    }

    /// Apply `event` to the task and tell every watcher, in one step (a watcher starting now sees
    /// either the task before it, and then the event, or the task after it).
    pub(super) fn publish(&self, event: StreamResponse) {
        let mut state = lock(&self.state);
        apply(&mut state.task, &event);
        let paused = pauses_at(&state.task.status.state);
        if paused && let Some(records) = &state.records {
            // Under the task's lock: two changes are kept in the order they happened.
            records.changed(&state.task);
        }
        // Nobody watching is fine: the task keeps the event.
        if let Some(events) = &state.events {
            let _ = events.send(event);
        }
        drop(state);
        if paused {
            self.paused.notify_waiters();
        }
    }

    /// Wait until the task has finished or waits for its client.
    pub(super) async fn until_paused(&self) {
        loop {
            // Created before the check: a pause between the two still wakes it.
            let notified = self.paused.notified();
            if pauses_at(&lock(&self.state).task.status.state) {
                return;
            }
            notified.await;
        }
    }

    /// A status change to `state`, with `message`.
    pub(super) fn set_status(&self, state: TaskState, message: Option<Message>) {
        self.publish(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: self.id.clone(),
            context_id: self.context_id.clone(),
            status: status(state, message),
            metadata: None,
        }));
    }

    /// The task now, then each change, ending when the run finishes or waits for the client.
    /// A watcher that falls behind is sent the whole task again.
    pub(super) fn watch(self: &Arc<Self>) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let (task, receiver) = {
            let mut state = lock(&self.state);
            let receiver = state
                .events
                .get_or_insert_with(|| broadcast::channel(WATCH_BUFFER).0)
                .subscribe();
            (state.task.clone(), receiver)
        };
        let paused = pauses_at(&task.status.state);
        let slot = Arc::clone(self);
        let rest = futures::stream::unfold(
            (receiver, slot, paused),
            |(mut receiver, slot, ended)| async move {
                if ended {
                    return None;
                }
                let event = match receiver.recv().await {
                    Ok(event) => event,
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        StreamResponse::Task(slot.snapshot())
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                };
                let ends = match &event {
                    StreamResponse::StatusUpdate(update) => pauses_at(&update.status.state),
                    StreamResponse::Task(task) => pauses_at(&task.status.state),
                    _ => false,
                };
                Some((Ok(event), (receiver, slot, ends)))
            },
        );
        futures::stream::once(async move { Ok(StreamResponse::Task(task)) })
            .chain(rest)
            .boxed()
    }

    /// Hold the run's abort handle.
    pub(super) fn set_run(&self, run: futures::future::AbortHandle) {
        lock(&self.state).run = Some(run);
    }

    /// Hold the approval the run now waits for.
    pub(super) fn set_question(&self, question: PendingApproval) {
        lock(&self.state).question = Some(question);
    }

    /// The approval the run waits for, taken (to be answered), if it waits for one.
    pub(super) fn take_question(&self) -> Option<PendingApproval> {
        lock(&self.state).question.take()
    }

    /// Stop the run and mark the task canceled; a finished task cannot be.
    pub(super) fn cancel(&self) -> Result<Task, A2AError> {
        let run = {
            let mut state = lock(&self.state);
            if state.task.status.state.is_terminal() {
                return Err(A2AError::task_not_cancelable(&state.task.id));
            }
            state.question = None;
            state.run.take()
        };
        if let Some(run) = run {
            // The run's future is dropped: the tool in flight with it.
            run.abort();
        }
        self.set_status(TaskState::Canceled, None);
        Ok(self.snapshot())
    }
}

/// `event` applied to `task`: a status replaces the status (its message joins the history), an
/// artifact update adds or extends the artifact.
fn apply(task: &mut Task, event: &StreamResponse) {
    match event {
        StreamResponse::StatusUpdate(update) => {
            // A canceled task stays canceled whatever its aborted run said last.
            if task.status.state == TaskState::Canceled {
                return;
            }
            if let Some(message) = &update.status.message {
                task.history
                    .get_or_insert_with(Vec::new)
                    .push(message.clone());
            }
            task.status = update.status.clone();
        }
        StreamResponse::ArtifactUpdate(update) => {
            let artifacts = task.artifacts.get_or_insert_with(Vec::new);
            let existing = artifacts
                .iter_mut()
                .find(|artifact| artifact.artifact_id == update.artifact.artifact_id);
            match existing {
                Some(artifact) if update.append == Some(true) => {
                    artifact.parts.extend(update.artifact.parts.iter().cloned());
                }
                Some(artifact) => *artifact = update.artifact.clone(),
                None => artifacts.push(update.artifact.clone()),
            }
        }
        StreamResponse::Message(message) => {
            task.history
                .get_or_insert_with(Vec::new)
                .push(message.clone());
        }
        StreamResponse::Task(whole) => *task = whole.clone(),
    }
}
