//! The Restate workflow `AgentRun` serving one agent: `run` drives the agent with a journal whose
//! steps the handler records through its Restate context; `approve` answers the pending approval;
//! `status` tells what the run waits for and what it recorded.

use std::net::SocketAddr;
use std::sync::Arc;

use agents_kt::{Agent, AgentInput, AgentOutput, ApprovalAnswer, ApprovalRequest, Extensions};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use restate_sdk::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::journal::{ChannelJournal, Request};

/// Workflow state: the approval the run waits for.
const PENDING: &str = "pending";
/// Workflow state: the names of the steps recorded so far.
const STEPS: &str = "steps";

/// Workflow state: the recorded value of step `n` (from 0), under `event:<n>`.
fn event_key(n: usize) -> String {
    format!("event:{n}")
}

/// A step's work may fail (a model call that errored); Restate retries it this often before the
/// run ends with the error, which is then recorded like a result.
const STEP_ATTEMPTS: u32 = 3;

/// What `status` answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStatus {
    /// The approval the run is waiting for, if it is.
    pub pending: Option<ApprovalRequest>,
    /// The steps recorded, in order (`turn#1`, `tool#1:append`, `approval#1:append`, …).
    pub steps: Vec<String>,
}

/// One agent served as the Restate workflow `AgentRun`, one workflow per run (its key is the
/// run's id). See the crate docs.
#[derive(Clone)]
pub struct AgentWorkflow {
    agent: Arc<dyn DurableRun>,
}

impl AgentWorkflow {
    /// Serve `agent`: its input and output travel as JSON.
    pub fn new<IN, OUT>(agent: Agent<IN, OUT>) -> Self
    where
        IN: AgentInput + DeserializeOwned,
        OUT: AgentOutput + Serialize,
    {
        AgentWorkflow {
            agent: Arc::new(agent),
        }
    }

    /// Serve the workflow over HTTP/2 at `address` until the process is asked to stop (SIGTERM).
    /// Register the address with the Restate server's admin API (`POST /deployments`).
    pub async fn serve(self, address: SocketAddr) {
        HttpServer::new(Endpoint::builder().bind(self).build())
            .listen_and_serve(address)
            .await;
    }

    /// Serve on a listener already bound (a test's port 0), until SIGTERM.
    pub async fn serve_on(self, listener: tokio::net::TcpListener) {
        HttpServer::new(Endpoint::builder().bind(self).build())
            .serve(listener)
            .await;
    }
}

/// An agent run with its types erased to JSON.
trait DurableRun: Send + Sync + 'static {
    fn run(
        &self,
        input: Value,
        journal: Arc<dyn agents_kt::Journal>,
    ) -> BoxFuture<'static, Result<Value, String>>;
}

impl<IN, OUT> DurableRun for Agent<IN, OUT>
where
    IN: AgentInput + DeserializeOwned,
    OUT: AgentOutput + Serialize,
{
    fn run(
        &self,
        input: Value,
        journal: Arc<dyn agents_kt::Journal>,
    ) -> BoxFuture<'static, Result<Value, String>> {
        let agent = self.clone();
        Box::pin(async move {
            let input: IN = serde_json::from_value(input)
                .map_err(|error| format!("the input does not fit the agent: {error}"))?;
            let output = agent
                .run_journaled(input, Extensions::new(), journal)
                .await
                .map_err(|error| error.to_string())?;
            serde_json::to_value(output).map_err(|error| error.to_string())
        })
    }
}

#[restate_sdk::workflow(name = "AgentRun")]
impl AgentWorkflow {
    /// Run the agent on `input` (its JSON). Answers its output, or fails with the run's error.
    #[handler]
    async fn run(
        &self,
        ctx: WorkflowContext<'_>,
        input: Json<Value>,
    ) -> Result<Json<Value>, HandlerError> {
        let (journal, mut requests) = ChannelJournal::new(ctx.key().to_string());
        let mut agent_run = self.agent.run(input.into_inner(), Arc::new(journal)).fuse();
        let mut steps: Vec<String> = Vec::new();
        loop {
            futures::select! {
                output = agent_run => {
                    return output
                        .map(Json)
                        .map_err(|error| TerminalError::new(error).into());
                }
                request = requests.next() => match request {
                    Some(request) => serve(&ctx, request, &mut steps).await,
                    // The run holds the journal until it ends: it is about to end.
                    None => continue,
                },
            }
        }
    }

    /// Answer the approval the run waits for. Refused (409) unless the answer repeats its
    /// fingerprint, and (404) when none is pending.
    #[handler]
    async fn approve(
        &self,
        ctx: SharedWorkflowContext<'_>,
        answer: Json<ApprovalAnswer>,
    ) -> Result<(), HandlerError> {
        let answer = answer.into_inner();
        let pending = ctx.get::<Json<ApprovalRequest>>(PENDING).await?;
        let Some(Json(pending)) = pending else {
            return Err(TerminalError::new_with_code(404, "no approval is pending").into());
        };
        if answer.fingerprint() != pending.fingerprint {
            return Err(TerminalError::new_with_code(
                409,
                format!(
                    "the answer is for arguments with fingerprint {}, the pending approval is about {}",
                    answer.fingerprint(),
                    pending.fingerprint
                ),
            )
            .into());
        }
        ctx.resolve_promise(&pending.step, Json(answer));
        Ok(())
    }

    /// What the run recorded, step by step: each step's name and value (a model reply, a tool's
    /// output or failure, an approval answer), in order.
    #[handler]
    async fn events(
        &self,
        ctx: SharedWorkflowContext<'_>,
    ) -> Result<Json<Vec<Value>>, HandlerError> {
        let steps = ctx
            .get::<Json<Vec<String>>>(STEPS)
            .await?
            .map(Json::into_inner)
            .unwrap_or_default();
        let mut events = Vec::with_capacity(steps.len());
        for n in 0..steps.len() {
            if let Some(Json(event)) = ctx.get::<Json<Value>>(&event_key(n)).await? {
                events.push(event);
            }
        }
        Ok(Json(events))
    }

    /// What the run waits for, and the steps it recorded.
    #[handler]
    async fn status(
        &self,
        ctx: SharedWorkflowContext<'_>,
    ) -> Result<Json<RunStatus>, HandlerError> {
        let pending = ctx
            .get::<Json<ApprovalRequest>>(PENDING)
            .await?
            .map(Json::into_inner);
        let steps = ctx
            .get::<Json<Vec<String>>>(STEPS)
            .await?
            .map(Json::into_inner)
            .unwrap_or_default();
        Ok(Json(RunStatus { pending, steps }))
    }
}

/// Record one of the run's steps through the workflow's context and answer the run.
async fn serve(ctx: &WorkflowContext<'_>, request: Request, steps: &mut Vec<String>) {
    match request {
        Request::Step { name, work, reply } => {
            let retry = RunRetryPolicy::default().max_attempts(STEP_ATTEMPTS);
            let recorded = ctx
                .run(move || async move {
                    work.await
                        .map(Json)
                        .map_err(|error| HandlerError::from(TerminalError::new(error)))
                })
                .name(name.clone())
                .retry_policy(retry)
                .await;
            if let Ok(Json(entry)) = &recorded {
                ctx.set(&event_key(steps.len()), Json(entry.clone()));
            }
            steps.push(name);
            ctx.set(STEPS, Json(steps.clone()));
            let _ =
                reply.send(recorded.map(Json::into_inner).map_err(|error| {
                    agents_kt::JournalError::StepFailed(error.message().to_string())
                }));
        }
        Request::Approval {
            name,
            request,
            reply,
        } => {
            ctx.set(PENDING, Json(request));
            let answer = ctx.promise::<Json<Value>>(&name).await;
            ctx.clear(PENDING);
            if let Ok(Json(answer)) = &answer {
                let entry = agents_kt::journal_entry(&name, answer.clone());
                ctx.set(&event_key(steps.len()), Json(entry));
            }
            steps.push(name);
            ctx.set(STEPS, Json(steps.clone()));
            let _ = reply.send(
                answer
                    .map(Json::into_inner)
                    .map_err(|error| agents_kt::JournalError::Failed(error.message().to_string())),
            );
        }
    }
}
