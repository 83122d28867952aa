//! An expenses agent whose payments over 100 wait for a human's approval — durably: the agent is
//! served as the Restate workflow `AgentRun`, so a run waiting for approval survives restarts of
//! this process and of the Restate server, and a payment is made once.
//!
//! Serve it (the Restate server from `scripts/restate-server.sh` running beside it):
//!   cargo run --example durable_approval -- serve 127.0.0.1:9080
//! or run the whole flow offline — a Restate server, this service, a run, a human's approval
//! over HTTP, the output — with:
//!   eval "$(scripts/restate-server.sh)"; RESTATE_SERVER=$RESTATE_SERVER cargo run --example durable_approval -- --demo

use std::borrow::Cow;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use agents_kt::{
    Agent, Approval, ChatChunk, ChatRequest, ChatResponse, ChatStream, InterceptContext,
    ModelClient, ModelError, Role, Tool, ToolCall, ToolContext, ToolError, Verdict,
};
use agents_kt_restate::AgentWorkflow;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PayArgs {
    /// Whole euros.
    pub amount: u32,
    pub to: String,
}

impl agents_kt::ToolArguments for PayArgs {
    type Tool = Pay;
}

/// Pays; each payment is keyed by the call's idempotency key, so a retried call pays once.
#[derive(Default)]
pub struct Pay {
    paid: Mutex<Vec<String>>,
}

impl Tool for Pay {
    const NAME: &'static str = "pay";
    type Args = PayArgs;
    type Output = String;

    fn description(&self) -> Cow<'static, str> {
        "Pay an amount to someone.".into()
    }

    async fn call(&self, args: PayArgs, ctx: &ToolContext) -> Result<String, ToolError> {
        let key = ctx.idempotency_key();
        let mut paid = self
            .paid
            .lock()
            .map_err(|_| ToolError::new("ledger poisoned"))?;
        if !paid.contains(&key) {
            println!(
                "PAID {} to {} (idempotency key {key})",
                args.amount, args.to
            );
            paid.push(key);
        }
        Ok(format!("paid {} to {}", args.amount, args.to))
    }
}

/// Reads "pay <amount> to <whom>", asks to pay, then reports the payment's result.
struct ExpenseModel;

impl ExpenseModel {
    fn answer(request: &ChatRequest) -> ChatResponse {
        if let Some(result) = request.messages.last().filter(|m| m.role == Role::Tool) {
            return ChatResponse::text(format!("done: {}", result.content));
        }
        let input = request
            .messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.clone())
            .unwrap_or_default();
        let words: Vec<&str> = input.split_whitespace().collect();
        let (amount, to) = match words.as_slice() {
            ["pay", amount, "to", to @ ..] => (amount.parse::<u32>().unwrap_or(0), to.join(" ")),
            _ => return ChatResponse::text("say: pay <amount> to <whom>"),
        };
        let arguments = json!({ "amount": amount, "to": to }).to_string();
        ChatResponse::default().with_tool_calls(vec![ToolCall::new("call-1", "pay", arguments)])
    }
}

impl ModelClient for ExpenseModel {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let response = Self::answer(request);
        Box::pin(async move { Ok(response) })
    }

    fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a> {
        let response = Self::answer(request);
        Box::pin(futures::stream::once(async move {
            Ok::<_, ModelError>(ChatChunk::Text(response.content))
        }))
    }
}

fn agent() -> Agent<String, String> {
    Agent::builder("expenses")
        .model(ExpenseModel)
        .tool(Pay::default())
        // Over 100 needs a human; the gate sees the final arguments.
        .gate_tool_call(|args: &PayArgs, ctx: &InterceptContext<'_>| {
            let (approver, args) = (ctx.approver(), args.clone());
            async move {
                if args.amount <= 100 {
                    return Verdict::Allow;
                }
                match approver.ask(&args).await {
                    Approval::Approved => Verdict::Allow,
                    Approval::Denied(reason) => Verdict::Deny(reason),
                    Approval::Edited(_) => Verdict::deny("edited: asked again"),
                }
            }
        })
        .build()
        .expect("the expenses agent builds")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--demo") => demo().await,
        Some("serve") | None => {
            let address = args
                .get(1)
                .map_or("127.0.0.1:9080", String::as_str)
                .parse()?;
            println!("serving the workflow AgentRun on http://{address}");
            AgentWorkflow::new(agent()).serve(address).await;
            Ok(())
        }
        Some(other) => {
            Err(format!("unknown argument {other}: use `serve [ADDR]` or `--demo`").into())
        }
    }
}

/// A Restate server on free loopback ports, killed on drop.
struct Server {
    child: Child,
    ingress: String,
    admin: String,
    _data: tempdir::Dir,
}

mod tempdir {
    /// A directory removed on drop.
    pub struct Dir(pub std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

async fn start_server() -> Result<Server, Box<dyn std::error::Error>> {
    let binary = std::env::var("RESTATE_SERVER")
        .map_err(|_| "RESTATE_SERVER is not set: eval \"$(scripts/restate-server.sh)\" first")?;
    let (ingress, admin, fabric, pgsql) = (free_port()?, free_port()?, free_port()?, free_port()?);
    let data = tempdir::Dir(std::env::temp_dir().join(format!("durable-approval-{ingress}")));
    let child = Command::new(binary)
        .args(["--no-logo", "--listen-mode", "tcp", "--node-name", "demo"])
        .arg("--bind-address")
        .arg(format!("127.0.0.1:{fabric}"))
        .arg("--base-dir")
        .arg(&data.0)
        .env("RESTATE_DISABLE_TELEMETRY", "true")
        .env(
            "RESTATE_INGRESS__BIND_ADDRESS",
            format!("127.0.0.1:{ingress}"),
        )
        .env("RESTATE_ADMIN__BIND_ADDRESS", format!("127.0.0.1:{admin}"))
        .env(
            "RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS",
            format!("127.0.0.1:{pgsql}"),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let server = Server {
        child,
        ingress: format!("http://127.0.0.1:{ingress}"),
        admin: format!("http://127.0.0.1:{admin}"),
        _data: data,
    };
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !http
        .get(format!("{}/restate/health", server.ingress))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
    {
        if Instant::now() > deadline {
            return Err("the Restate server did not start".into());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok(server)
}

/// The whole flow, as a human with curl would drive it.
async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    let server = start_server().await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let service = format!("http://{}", listener.local_addr()?);
    tokio::spawn(AgentWorkflow::new(agent()).serve_on(listener));
    let http = reqwest::Client::new();
    let registered = http
        .post(format!("{}/deployments", server.admin))
        .json(&json!({ "uri": service }))
        .send()
        .await?;
    if !registered.status().is_success() {
        return Err(format!("registering: {}", registered.text().await?).into());
    }
    println!(
        "$ curl -X POST {}/AgentRun/expense-1/run/send --json '\"pay 250 to ACME\"'",
        server.ingress
    );
    http.post(format!("{}/AgentRun/expense-1/run/send", server.ingress))
        .json(&json!("pay 250 to ACME"))
        .send()
        .await?
        .error_for_status()?;
    let pending = loop {
        let status: Value = http
            .post(format!("{}/AgentRun/expense-1/status", server.ingress))
            .send()
            .await?
            .json()
            .await?;
        if !status["pending"].is_null() {
            break status["pending"].clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    println!("waiting for approval: {pending}");
    let answer = json!({ "answer": "approve", "fingerprint": pending["fingerprint"] });
    println!(
        "$ curl -X POST {}/AgentRun/expense-1/approve --json '{answer}'",
        server.ingress
    );
    http.post(format!("{}/AgentRun/expense-1/approve", server.ingress))
        .json(&answer)
        .send()
        .await?
        .error_for_status()?;
    let output: Value = http
        .get(format!(
            "{}/restate/workflow/AgentRun/expense-1/attach",
            server.ingress
        ))
        .send()
        .await?
        .json()
        .await?;
    println!("output: {output}");
    if output != json!("done: paid 250 to ACME") {
        return Err(format!("unexpected output {output}").into());
    }
    Ok(())
}
