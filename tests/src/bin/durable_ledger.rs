//! A ledger agent served as a Restate workflow, for the durable-run tests: they start it as a
//! process, kill it, and start it again. Every `append` needs a human's approval (a gate), and
//! everything that must happen once is counted in files under `LEDGER_DIR`:
//! - `ledger.txt`: one line per appended entry (the tool's effect);
//! - `model-calls.txt`: one line per model call;
//! - `keys.txt`: the idempotency keys of the effects made (a retried call finds its key there);
//! - `workers.txt`: which worker (`WORKER`) ran each tool call;
//! - with `CRASH_AFTER_APPEND=1`, the process aborts once right after its first effect, before
//!   the result is journaled (`crashed.txt` marks that it did).
//!
//! - with `HANG_AFTER_APPROVAL=1`, the gate hangs once right after an approval arrives, before
//!   the call (`hung.txt` marks that it did), so a test can SIGKILL the process between the
//!   answer and the call.
//!
//! - with `UNGUARDED=1`, the code changed since the run started: appends no longer need an
//!   approval (a replay then takes other steps than the journal recorded).
//!
//! - with `NESTED=1`, the served agent is a front desk whose model hands each request to the
//!   ledger agent as a sub-agent tool (`bookkeeper`); its calls are counted in
//!   `front-calls.txt`.
//!
//! - with `A2A=1`, the agent is served over A2A by a durable `A2aServer` (its tasks and their
//!   journals in `LEDGER_DIR/tasks.db`, its conversations in `LEDGER_DIR/memory.db`) instead of
//!   as a Restate workflow; the approval is then a task in `input-required`.
//!
//! Environment: `LISTEN` (address), `LEDGER_DIR`, `WORKER` (a name).

use std::borrow::Cow;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use agents_kt::{
    A2aServer, Agent, Approval, ChatChunk, ChatRequest, ChatResponse, ChatStream, InterceptContext,
    ModelClient, ModelError, Role, SqliteStore, Tool, ToolCall, ToolContext, ToolError, Verdict,
};
use agents_kt_restate::AgentWorkflow;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AppendArgs {
    pub line: String,
}

impl agents_kt::ToolArguments for AppendArgs {
    type Tool = Append;
}

fn push_line(path: &Path, line: &str) {
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("the ledger directory is writable");
    writeln!(file, "{line}").expect("the ledger file is writable");
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Appends a line to the ledger, once per idempotency key.
pub struct Append {
    dir: PathBuf,
    crash_after_append: bool,
    worker: String,
}

impl Tool for Append {
    const NAME: &'static str = "append";
    type Args = AppendArgs;
    type Output = String;

    fn description(&self) -> Cow<'static, str> {
        "Append a line to the ledger.".into()
    }

    async fn call(&self, args: AppendArgs, ctx: &ToolContext) -> Result<String, ToolError> {
        push_line(&self.dir.join("workers.txt"), &self.worker);
        let key = ctx.idempotency_key();
        let keys = self.dir.join("keys.txt");
        if !lines(&keys).contains(&key) {
            push_line(&self.dir.join("ledger.txt"), &args.line);
            push_line(&keys, &key);
        }
        let crashed = self.dir.join("crashed.txt");
        if self.crash_after_append && !crashed.exists() {
            push_line(&crashed, "crashed after the effect, before the journal");
            std::process::abort();
        }
        Ok(format!("appended {}", args.line))
    }
}

/// A model that asks to append its user's input, then reports the tool's answer; every call is
/// counted in `model-calls.txt`.
struct LedgerModel {
    dir: PathBuf,
}

impl LedgerModel {
    fn answer(&self, request: &ChatRequest) -> ChatResponse {
        push_line(&self.dir.join("model-calls.txt"), "call");
        let last = request.messages.last();
        match last {
            Some(message) if message.role == Role::Tool => {
                ChatResponse::text(format!("done: {}", message.content))
            }
            _ => {
                let input = request
                    .messages
                    .iter()
                    .rev()
                    .find(|m| m.role == Role::User)
                    .map(|m| m.content.clone())
                    .unwrap_or_default();
                let arguments = serde_json::json!({ "line": input }).to_string();
                ChatResponse::default()
                    .with_tool_calls(vec![ToolCall::new("call-1", "append", arguments)])
            }
        }
    }
}

/// A model that answers each request at once, as `answer` says.
trait Answers: Send + Sync + 'static {
    fn answer(&self, request: &ChatRequest) -> ChatResponse;
}

impl Answers for LedgerModel {
    fn answer(&self, request: &ChatRequest) -> ChatResponse {
        LedgerModel::answer(self, request)
    }
}

/// An [`Answers`] as a model client.
struct Answering<M>(M);

impl<M: Answers> ModelClient for Answering<M> {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let response = self.0.answer(request);
        Box::pin(async move { Ok(response) })
    }

    fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a> {
        let chunks = self.0.answer(request).to_chunks();
        Box::pin(futures::stream::iter(
            chunks.into_iter().map(Ok::<ChatChunk, ModelError>),
        ))
    }
}

/// The front desk's model: hand the input to the bookkeeper, then report its answer.
struct FrontModel {
    dir: PathBuf,
}

impl FrontModel {
    fn answer(&self, request: &ChatRequest) -> ChatResponse {
        push_line(&self.dir.join("front-calls.txt"), "call");
        match request.messages.last() {
            Some(message) if message.role == Role::Tool => {
                ChatResponse::text(format!("front: {}", message.content))
            }
            last => {
                let input = last.map(|m| m.content.clone()).unwrap_or_default();
                let arguments = serde_json::json!({ "input": input }).to_string();
                ChatResponse::default().with_tool_calls(vec![ToolCall::new(
                    "front-1",
                    "bookkeeper",
                    arguments,
                )])
            }
        }
    }
}

impl Answers for FrontModel {
    fn answer(&self, request: &ChatRequest) -> ChatResponse {
        FrontModel::answer(self, request)
    }
}

#[tokio::main]
async fn main() {
    let dir = PathBuf::from(std::env::var("LEDGER_DIR").expect("LEDGER_DIR is set"));
    let address = std::env::var("LISTEN").expect("LISTEN is set");
    let crash_after_append = std::env::var("CRASH_AFTER_APPEND").is_ok_and(|v| v == "1");
    let unguarded = std::env::var("UNGUARDED").is_ok_and(|v| v == "1");
    let hang_after_approval = std::env::var("HANG_AFTER_APPROVAL").is_ok_and(|v| v == "1");
    let hung = dir.join("hung.txt");
    let agent: Agent<String, String> = Agent::builder("ledger")
        .model(Answering(LedgerModel { dir: dir.clone() }))
        .tool(Append {
            dir: dir.clone(),
            crash_after_append,
            worker: std::env::var("WORKER").unwrap_or_default(),
        })
        // Every append waits for a human.
        .gate_tool_call(move |args: &AppendArgs, ctx: &InterceptContext<'_>| {
            let (approver, args, hung) = (ctx.approver(), args.clone(), hung.clone());
            async move {
                if unguarded {
                    return Verdict::Allow;
                }
                match approver.ask(&args).await {
                    Approval::Approved if hang_after_approval && !hung.exists() => {
                        push_line(&hung, "approved, hanging before the call");
                        futures::future::pending().await
                    }
                    Approval::Approved => Verdict::Allow,
                    Approval::Denied(reason) => Verdict::Deny(reason),
                    Approval::Edited(_) => Verdict::deny("edited: asked again"),
                }
            }
        })
        .build()
        .expect("the ledger agent builds");
    let agent = if std::env::var("NESTED").is_ok_and(|v| v == "1") {
        Agent::builder("front")
            .model(Answering(FrontModel { dir: dir.clone() }))
            .sub_agent(agent.as_tool("bookkeeper", "Keeps the ledger."))
            .build()
            .expect("the front desk builds")
    } else {
        agent
    };
    if std::env::var("A2A").is_ok_and(|v| v == "1") {
        let memory = SqliteStore::open(dir.join("memory.db")).expect("the memory file opens");
        let server = A2aServer::builder(agent)
            .durable(dir.join("tasks.db"))
            .memory(&memory)
            .build()
            .expect("the A2A server builds");
        let address = address.parse().expect("LISTEN is an address");
        server.serve(address).await.expect("the A2A server serves");
        return;
    }
    let listener = tokio::net::TcpListener::bind(&address)
        .await
        .expect("the service address is free");
    AgentWorkflow::new(agent).serve_on(listener).await;
}
