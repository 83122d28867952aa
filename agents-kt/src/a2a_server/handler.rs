//! The A2A methods over the server's tasks: every request is judged as the principal the
//! admission layer found (a task is visible only to the principal that created it), and every
//! message runs the agent through its whole guard — the inbound A2A way is one more caller of
//! the same session path.

use std::sync::Arc;

use a2a::{
    A2AError, AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse,
    ListTasksRequest, ListTasksResponse, Message, PartContent, SendMessageRequest,
    SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
    TaskState,
};
use a2a_server::{RequestHandler, ServiceParams};
use futures::stream::BoxStream;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::PRINCIPAL_HEADER;
use super::execution::{self, Execution};
use super::tasks::{TaskSlot, TaskTable};
use crate::agent::served::Served;
use crate::tool::inherited::Ancestor;
use crate::{Agent, AgentInput, AgentOutput, ApprovalAnswer, ApprovalDesk, ConversationStore};

/// Tasks on a page of `ListTasks` unless the client asks for another size, and at most.
const DEFAULT_PAGE: usize = 50;
const MAX_PAGE: usize = 100;

/// A task started or resumed, its events from then on (when asked for), and a new task's
/// execution, for the caller to drive.
type Begun = (Arc<TaskSlot>, Option<Events>, Option<Execution>);

/// A task's events as a binding streams them.
type Events = BoxStream<'static, Result<StreamResponse, A2AError>>;

/// What the server's handler holds.
pub(super) struct A2aHandler<IN, OUT> {
    pub agent: Agent<IN, OUT>,
    pub tasks: TaskTable,
    pub memory: Option<Arc<dyn ConversationStore>>,
    pub above: Vec<Ancestor>,
}

/// The principal the admission layer put on the request (it removes any a client sent).
fn principal(params: &ServiceParams) -> Option<String> {
    params
        .get(PRINCIPAL_HEADER)
        .and_then(|values| values.first())
        .cloned()
}

/// The span a task's run goes under: a child of the trace the request's `traceparent` names
/// (feature `otel`), so the caller's trace runs on through this agent.
fn task_span(params: &ServiceParams, task: &str) -> tracing::Span {
    let span = tracing::info_span!(
        "a2a_task",
        otel.name = "a2a SendMessage",
        otel.kind = "server",
        "a2a.task.id" = task,
    );
    #[cfg(feature = "otel")]
    {
        let mut headers = reqwest::header::HeaderMap::new();
        for name in ["traceparent", "tracestate"] {
            let value = params.get(name).and_then(|values| values.first());
            if let Some(Ok(value)) = value.map(|value| value.parse()) {
                headers.insert(name, value);
            }
        }
        crate::telemetry::continue_trace_headers(&span, &headers);
    }
    #[cfg(not(feature = "otel"))]
    let _ = params;
    span
}

/// The conversation a caller's handoff carried in the message's metadata: its user and
/// assistant messages (anything else is left out — a caller cannot put tool results or
/// system text into this agent's context).
fn conversation_of(metadata: &std::collections::HashMap<String, Value>) -> Vec<crate::Message> {
    let Some(Value::Array(messages)) = metadata.get(crate::a2a_client::CONVERSATION_KEY) else {
        return Vec::new();
    };
    messages
        .iter()
        .filter_map(|message| {
            let content = message.get("content")?.as_str()?;
            match message.get("role")?.as_str()? {
                "user" => Some(crate::Message::user(content)),
                "assistant" => Some(crate::Message::assistant(content, Vec::new())),
                _ => None,
            }
        })
        .collect()
}

/// What a message asks for, as the agent's input: its data part, or its text.
fn input_of<IN: DeserializeOwned>(message: &Message) -> Result<IN, A2AError> {
    if message.parts.is_empty() {
        return Err(A2AError::invalid_params("the message has no parts"));
    }
    let data = message.parts.iter().find_map(|part| match &part.content {
        PartContent::Data(value) => Some(value),
        _ => None,
    });
    if let Some(data) = data {
        return IN::deserialize(data).map_err(|error| {
            A2AError::invalid_params(format!(
                "the message's data part does not fit the agent's input: {error}"
            ))
        });
    }
    let text: Vec<&str> = message
        .parts
        .iter()
        .filter_map(|part| part.as_text())
        .collect();
    if text.is_empty() {
        return Err(A2AError::invalid_params(
            "the message has neither a text nor a data part",
        ));
    }
    let text = text.join("\n");
    IN::deserialize(Value::String(text.clone()))
        .or_else(|_| serde_json::from_str(&text))
        .map_err(|error| {
            A2AError::invalid_params(format!(
                "the message's text does not fit the agent's input (send JSON of its schema, see the card's io-schemas extension): {error}"
            ))
        })
}

/// The answer a message on an `input-required` task carries: its data part.
fn answer_of(message: &Message) -> Result<ApprovalAnswer, A2AError> {
    let data = message.parts.iter().find_map(|part| match &part.content {
        PartContent::Data(value) => Some(value),
        _ => None,
    });
    let data = data.ok_or_else(|| {
        A2AError::invalid_params(
            "the task waits for an approval: send a data part {\"answer\": \"approve\" | \"deny\" | \"edit\", \"fingerprint\": …}",
        )
    })?;
    serde_json::from_value(data.clone()).map_err(|error| {
        A2AError::invalid_params(format!("the approval answer could not be read: {error}"))
    })
}

impl<IN, OUT> A2aHandler<IN, OUT>
where
    IN: AgentInput + DeserializeOwned + JsonSchema + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    /// Start a task for `message`, or continue the one it names; with `watch`, the task's events
    /// from then on.
    fn begin(
        &self,
        params: &ServiceParams,
        request: SendMessageRequest,
        watch: bool,
    ) -> Result<Begun, A2AError> {
        let principal = principal(params);
        let mut message = request.message;
        if let Some(task_id) = message.task_id.clone() {
            let slot = self.tasks.get(&task_id, principal.as_deref())?;
            return self.resume(slot, message, watch);
        }
        let input: IN = input_of(&message)?;
        let slot = self.tasks.create(principal.clone(), &mut message)?;
        let events = watch.then(|| slot.watch());
        let span = task_span(params, slot.id());
        let execution = span.in_scope(|| self.run(&slot, input, principal, &message))?;
        Ok((slot, events, Some(execution)))
    }

    /// Run `slot`'s task on `input` for `principal`, as `message` asked: through the agent's
    /// whole guard, recorded in the task's journal when the server is durable. A task that
    /// cannot run is failed with the reason.
    fn run(
        &self,
        slot: &Arc<TaskSlot>,
        input: IN,
        principal: Option<String>,
        message: &Message,
    ) -> Result<Execution, A2AError> {
        // A context is a conversation, the principal's own (another's context id is another
        // conversation).
        let memory = self.memory.as_ref().map(|store| {
            let owner = principal.as_deref().unwrap_or("anonymous");
            (
                Arc::clone(store),
                format!("a2a/{owner}/{}", slot.context_id()),
            )
        });
        // The task's own desk: its questions become `input-required`.
        let (task_desk, inbox) = ApprovalDesk::new();
        let desk = self.agent.served_desk(task_desk);
        let journal = match self.tasks.journal(slot.id(), &desk) {
            Ok(journal) => journal,
            Err(error) => {
                execution::fail(slot, &error.to_string());
                return Err(error);
            }
        };
        let served = Served {
            client: principal,
            desk,
            memory,
            above: self.above.clone(),
            history: message
                .metadata
                .as_ref()
                .map(conversation_of)
                .unwrap_or_default(),
            journal,
        };
        Ok(execution::start(&self.agent, input, served, inbox, slot))
    }

    /// Run again the live tasks a durable server kept, each from its journal: what it did
    /// before is replayed (the model not asked, a tool not run again), and an approval it
    /// waited for is asked again — the same question, with the same fingerprint.
    pub(super) fn rerun(&self, live: Vec<(Arc<TaskSlot>, Message)>) {
        for (slot, message) in live {
            let span = tracing::info_span!(
                "a2a_task",
                otel.name = "a2a resume",
                "a2a.task.id" = slot.id(),
            );
            let owner = slot.owner().map(str::to_string);
            let outcome = input_of::<IN>(&message)
                .and_then(|input| span.in_scope(|| self.run(&slot, input, owner, &message)));
            match outcome {
                Ok(execution) => execution.spawn(),
                Err(error) => {
                    tracing::error!(task = slot.id(), %error, "a kept A2A task could not be resumed");
                    execution::fail(&slot, &format!("the task could not be resumed: {error}"));
                }
            }
        }
    }

    /// Answer the approval `slot`'s run waits for with `message`, and resume it.
    fn resume(
        &self,
        slot: Arc<TaskSlot>,
        mut message: Message,
        watch: bool,
    ) -> Result<Begun, A2AError> {
        let Some(question) = slot.take_question() else {
            let state = slot.snapshot().status.state;
            return Err(A2AError::unsupported_operation(format!(
                "task {} is not waiting for input (it is {state:?})",
                slot.id()
            )));
        };
        let answer = match answer_of(&message) {
            Ok(answer) if answer.fingerprint() == question.request().fingerprint => answer,
            Ok(answer) => {
                let asked = question.request().fingerprint.clone();
                slot.set_question(question);
                return Err(A2AError::invalid_params(format!(
                    "the answer is for arguments with fingerprint {}, the task waits on {asked}",
                    answer.fingerprint()
                )));
            }
            Err(error) => {
                slot.set_question(question);
                return Err(error);
            }
        };
        message.context_id = Some(slot.context_id().to_string());
        slot.publish(StreamResponse::Message(message));
        slot.set_status(TaskState::Working, None);
        let events = watch.then(|| slot.watch());
        if question.answer(answer).is_err() {
            return Err(A2AError::internal("the approval could not be answered"));
        }
        Ok((slot, events, None))
    }
}

#[async_trait::async_trait]
impl<IN, OUT> RequestHandler for A2aHandler<IN, OUT>
where
    IN: AgentInput + DeserializeOwned + JsonSchema + Sync,
    OUT: AgentOutput + Serialize + Sync,
{
    async fn send_message(
        &self,
        params: &ServiceParams,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse, A2AError> {
        let at_once = request
            .configuration
            .as_ref()
            .and_then(|configuration| configuration.return_immediately)
            .unwrap_or(false);
        let history = request
            .configuration
            .as_ref()
            .and_then(|configuration| configuration.history_length);
        let (slot, _, execution) = self.begin(params, request, false)?;
        match execution {
            Some(execution) if !at_once => execution.until_paused(&slot).await,
            Some(execution) => execution.spawn(),
            None if !at_once => slot.until_paused().await,
            None => {}
        }
        Ok(SendMessageResponse::Task(trimmed(slot.snapshot(), history)))
    }

    async fn send_streaming_message(
        &self,
        params: &ServiceParams,
        request: SendMessageRequest,
    ) -> Result<Events, A2AError> {
        let (slot, events, execution) = self.begin(params, request, true)?;
        if let Some(execution) = execution {
            execution.spawn();
        }
        Ok(events.unwrap_or_else(|| slot.watch()))
    }

    async fn get_task(
        &self,
        params: &ServiceParams,
        request: GetTaskRequest,
    ) -> Result<Task, A2AError> {
        let slot = self.tasks.get(&request.id, principal(params).as_deref())?;
        Ok(trimmed(slot.snapshot(), request.history_length))
    }

    async fn list_tasks(
        &self,
        params: &ServiceParams,
        request: ListTasksRequest,
    ) -> Result<ListTasksResponse, A2AError> {
        let matching: Vec<Task> = self
            .tasks
            .owned_by(principal(params).as_deref())
            .into_iter()
            .filter(|task| {
                request
                    .context_id
                    .as_ref()
                    .is_none_or(|id| *id == task.context_id)
            })
            .filter(|task| {
                request
                    .status
                    .as_ref()
                    .is_none_or(|state| *state == task.status.state)
            })
            .collect();
        // Pages by position: the token is where the next page starts.
        let start = match request.page_token.as_deref() {
            None | Some("") => 0,
            Some(token) => token.parse::<usize>().map_err(|_| {
                A2AError::invalid_params(format!(
                    "page token '{token}' is not one this server gave"
                ))
            })?,
        };
        let size = request
            .page_size
            .and_then(|size| usize::try_from(size).ok())
            .filter(|size| *size > 0)
            .unwrap_or(DEFAULT_PAGE)
            .min(MAX_PAGE);
        let total = matching.len();
        let tasks: Vec<Task> = matching
            .into_iter()
            .skip(start)
            .take(size)
            .map(|task| trimmed(task, request.history_length))
            .collect();
        let next = start + tasks.len();
        Ok(ListTasksResponse {
            page_size: i32::try_from(tasks.len()).unwrap_or(i32::MAX),
            tasks,
            next_page_token: if next < total {
                next.to_string()
            } else {
                String::new()
            },
            total_size: i32::try_from(total).unwrap_or(i32::MAX),
        })
    }

    async fn cancel_task(
        &self,
        params: &ServiceParams,
        request: CancelTaskRequest,
    ) -> Result<Task, A2AError> {
        self.tasks
            .get(&request.id, principal(params).as_deref())?
            .cancel()
    }

    async fn subscribe_to_task(
        &self,
        params: &ServiceParams,
        request: SubscribeToTaskRequest,
    ) -> Result<Events, A2AError> {
        let slot = self.tasks.get(&request.id, principal(params).as_deref())?;
        if slot.is_finished() {
            return Err(A2AError::unsupported_operation(format!(
                "task {} has finished: read it with GetTask",
                request.id
            )));
        }
        Ok(slot.watch())
    }

    async fn create_push_config(
        &self,
        _: &ServiceParams,
        _: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        Err(A2AError::push_notification_not_supported())
    }

    async fn get_push_config(
        &self,
        _: &ServiceParams,
        _: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        Err(A2AError::push_notification_not_supported())
    }

    async fn list_push_configs(
        &self,
        _: &ServiceParams,
        _: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2AError> {
        Err(A2AError::push_notification_not_supported())
    }

    async fn delete_push_config(
        &self,
        _: &ServiceParams,
        _: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), A2AError> {
        Err(A2AError::push_notification_not_supported())
    }

    async fn get_extended_agent_card(
        &self,
        _: &ServiceParams,
        _: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2AError> {
        Err(A2AError::extended_card_not_configured())
    }
}

/// `task` with at most the last `history` messages of its history (all when `None`).
fn trimmed(mut task: Task, history: Option<i32>) -> Task {
    if let (Some(limit), Some(messages)) = (history, task.history.as_mut()) {
        let keep = usize::try_from(limit).unwrap_or(0);
        let skip = messages.len().saturating_sub(keep);
        messages.drain(..skip);
    }
    task
}
