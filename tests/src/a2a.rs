//! Fixtures for the A2A tests: a model that answers by its input (so one agent serves many
//! tasks), tools that record or wait, and the official Python A2A SDK client
//! (`tests/a2a-peers/a2a_client.py`) as a process.

use std::borrow::Cow;
use std::time::Duration;

use agents_kt::{
    ChatRequest, ChatResponse, ChatStream, ModelClient, ModelError, Role, Tool, ToolCall,
    ToolContext, ToolError,
};
use futures::future::BoxFuture;
use serde_json::{Value, json};

use crate::Log;

/// The Python SDK install, or `None` (after saying why); `AGENTS_KT_REQUIRE_A2A=1` makes its
/// absence a failure.
pub fn python_path() -> Option<String> {
    peer_install("A2A_PYTHONPATH")
}

/// The JavaScript SDK install (a directory holding `node_modules`), or `None` (after saying
/// why); `AGENTS_KT_REQUIRE_A2A=1` makes its absence a failure.
pub fn node_dir() -> Option<String> {
    peer_install("A2A_NODE_DIR")
}

/// Where `scripts/a2a-peers.sh` installed a peer, as the environment variable `var` says.
fn peer_install(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(dir) => Some(dir),
        Err(_) => {
            let required = std::env::var("AGENTS_KT_REQUIRE_A2A").is_ok_and(|v| v == "1");
            assert!(!required, "AGENTS_KT_REQUIRE_A2A=1 but {var} is not set");
            eprintln!("skipping: run `eval \"$(scripts/a2a-peers.sh)\"` for the A2A SDKs");
            None
        }
    }
}

/// Run the Python client: `scenario` against `base` over `binding` ("JSONRPC" or "HTTP+JSON"),
/// with `token` as its bearer ("-": none); what it printed, as JSON.
pub async fn python_client(
    python_path: &str,
    base: &str,
    token: &str,
    binding: &str,
    scenario: &str,
    arg: &str,
) -> Value {
    python_client_marking(python_path, base, token, binding, scenario, arg, None).await
}

/// [`python_client`], creating the file `mark` once a `subscribe` is live.
pub async fn python_client_marking(
    python_path: &str,
    base: &str,
    token: &str,
    binding: &str,
    scenario: &str,
    arg: &str,
    mark: Option<&std::path::Path>,
) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/a2a-peers/a2a_client.py");
    let mut command = tokio::process::Command::new("python3");
    command
        .args([script, base, token, binding, scenario, arg])
        .env("PYTHONPATH", python_path)
        .kill_on_drop(true);
    if let Some(mark) = mark {
        command.env("A2A_SUBSCRIBED_MARK", mark);
    }
    let run = command.output();
    let output = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the Python A2A client finishes")
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|error| {
        panic!(
            "the Python A2A client printed no JSON ({error}):\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// A model that reads its input: `weather in <city>` calls `get_weather`, `slowly` calls
/// `slow_report`; after a tool result it reports it (`report: <result>`); otherwise it echoes.
pub struct DeskModel;

impl DeskModel {
    fn answer(request: &ChatRequest) -> ChatResponse {
        let last = request.messages.last();
        if let Some(message) = last.filter(|m| m.role == Role::Tool) {
            return ChatResponse::text(format!("report: {}", message.content));
        }
        let input = last.map(|m| m.content.clone()).unwrap_or_default();
        let call = |tool: &str, args: Value| {
            ChatResponse::default().with_tool_calls(vec![ToolCall::new(
                "call-1",
                tool,
                args.to_string(),
            )])
        };
        if let Some(city) = input.strip_prefix("weather in ") {
            return call("get_weather", json!({ "city": city }));
        }
        if input == "slowly" {
            return call("slow_report", json!({}));
        }
        ChatResponse::text(format!("echo: {input}"))
    }
}

impl ModelClient for DeskModel {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let response = DeskModel::answer(request);
        Box::pin(async move { Ok(response) })
    }

    fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a> {
        let chunks = DeskModel::answer(request).to_chunks();
        Box::pin(futures::stream::iter(chunks.into_iter().map(Ok)))
    }
}

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct SlowReportArgs {}

/// `slow_report`: takes a minute; logs `started`, and `dropped` when its call is dropped
/// unfinished (a cancelled task).
#[derive(Clone, Default)]
pub struct SlowReport {
    pub log: Log<String>,
}

struct DropWitness(Log<String>, bool);

impl Drop for DropWitness {
    fn drop(&mut self) {
        if !self.1 {
            self.0.push("dropped".to_string());
        }
    }
}

impl Tool for SlowReport {
    const NAME: &'static str = "slow_report";
    type Args = SlowReportArgs;
    type Output = String;

    fn description(&self) -> Cow<'static, str> {
        "A report that takes a minute.".into()
    }

    async fn call(&self, _: SlowReportArgs, _: &ToolContext) -> Result<String, ToolError> {
        self.log.push("started".to_string());
        let mut witness = DropWitness(self.log.clone(), false);
        tokio::time::sleep(Duration::from_secs(60)).await;
        witness.1 = true;
        Ok("slow report".to_string())
    }
}

impl agents_kt::ToolArguments for SlowReportArgs {
    type Tool = SlowReport;
}
