//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance`, pinned to 0.1.13)
//! against an `McpServer` built with default settings and served over streamable HTTP on
//! loopback: every server scenario that applies to a server of tools. The suite is installed by
//! `scripts/mcp-clients.sh`, which exports `MCP_NODE_DIR`; without it the test is skipped, unless
//! `AGENTS_KT_REQUIRE_MCP_CLIENTS=1` (set by CI), which makes its absence a failure.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::process::Stdio;

use agents_kt::McpServer;
use agents_kt::prelude::*;
use agents_kt_tests::GetWeather;
use serde::{Deserialize, Serialize};

/// The tools the suite's `tools-call-*` scenarios call, as its specification describes them.
/// Returns a fixed text.
#[tool]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_string()
}

/// Always fails.
#[tool]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_string())
}

/// Logs three lines at info level while it runs (a client that set a level receives them).
#[tool]
async fn test_tool_with_logging() -> String {
    tracing::info!("Tool execution started");
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    tracing::info!("Tool processing data");
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    tracing::info!("Tool execution completed");
    "Tool with logging executed successfully".to_string()
}

/// Reports its progress three times (a client that sent a progress token receives it).
#[tool]
async fn test_tool_with_progress(ctx: &ToolContext) -> String {
    for (step, progress) in [0, 50, 100].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        ctx.emit(serde_json::json!({"progress": progress, "total": 100}));
    }
    "Tool with progress executed successfully".to_string()
}

/// A postal address: a definition of its own in the arguments' schema (`$defs/address`).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[schemars(rename = "address")]
struct Address {
    street: String,
    city: String,
}

/// The arguments the suite's JSON Schema 2020-12 scenario looks for: a `$schema`, a `$defs`
/// entry and `additionalProperties: false`, which the server must pass through untouched.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Registration {
    name: String,
    address: Address,
}

/// The tool the scenario names.
struct JsonSchemaTool;

impl Tool for JsonSchemaTool {
    const NAME: &'static str = "json_schema_2020_12_tool";
    type Args = Registration;
    type Output = String;
    fn description(&self) -> Cow<'static, str> {
        Cow::Borrowed("Registers a name at an address.")
    }
    async fn call(&self, args: Registration, _: &ToolContext) -> Result<String, ToolError> {
        Ok(format!(
            "{} at {}, {}",
            args.name, args.address.street, args.address.city
        ))
    }
}

/// The suite's server scenarios that apply to a server offering tools (with logging and
/// progress); the `tools-call-*` and JSON Schema ones call tools of theirs, defined above. The
/// others need resources, prompts, completions, sampling, elicitation, or image, audio and
/// embedded-resource content, which an agent's tools do not produce.
const SCENARIOS: [&str; 12] = [
    "server-initialize",
    "ping",
    "logging-set-level",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-error",
    "tools-call-with-logging",
    "tools-call-with-progress",
    "json-schema-2020-12",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_conformance_suite_passes_every_scenario_of_a_tools_server() {
    let Some(suite) = agents_kt_tests::npm::conformance_suite() else {
        return;
    };
    let agent: Agent<String, String> = Agent::builder("conformance")
        .model(ScriptedModel::default())
        .tool(GetWeather::default())
        .tool(JsonSchemaTool)
        .tool(TestSimpleText)
        .tool(TestErrorHandling)
        .tool(TestToolWithLogging)
        .tool(TestToolWithProgress)
        .build()
        .unwrap();
    let server = McpServer::builder(agent)
        .expose_tool::<GetWeather>()
        .expose_tool::<JsonSchemaTool>()
        .expose_tool::<TestSimpleText>()
        .expose_tool::<TestErrorHandling>()
        .expose_tool::<TestToolWithLogging>()
        .expose_tool::<TestToolWithProgress>()
        .build()
        .unwrap()
        .bind_http(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap();
    let url = format!("http://localhost:{}/mcp", server.local_addr().port());
    let mut failed = Vec::new();
    for scenario in SCENARIOS {
        let output = tokio::process::Command::new("node")
            .arg(&suite)
            .args(["server", "--url", &url, "--scenario", scenario])
            .stdin(Stdio::null())
            .output()
            .await
            .expect("node runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        println!("--- {scenario}\n{stdout}");
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            failed.push(format!("{scenario}:\n{stdout}\n{stderr}"));
        }
    }
    server.shutdown().await.unwrap();
    assert!(
        failed.is_empty(),
        "scenarios failed:\n{}",
        failed.join("\n")
    );
}
