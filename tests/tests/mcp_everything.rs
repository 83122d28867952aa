//! The npm reference server `@modelcontextprotocol/server-everything` — a server we did not write
//! — behind an agent, over stdio and over streamable HTTP: its tools listed with their schemas, a
//! typed binding checked against its schema, typed and dynamic decisions on its calls, its
//! structured content kept.
//!
//! Needs `MCP_NODE_DIR` (`eval "$(scripts/mcp-clients.sh)"`, which `scripts/test.sh` runs);
//! `AGENTS_KT_REQUIRE_MCP_CLIENTS=1` makes its absence a failure.

use agents_kt::McpToolset;
use agents_kt::Role;
use agents_kt::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// `get-sum`'s arguments.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct SumArgs {
    pub a: f64,
    pub b: f64,
}

agents_kt::remote_tool! {
    /// The everything server's `get-sum`, typed.
    pub struct GetSum("get-sum"): SumArgs => String;
}

/// Sums of negative numbers are not this agent's business; the first operand is doubled.
#[before_tool_call(GetSum)]
fn double_a(args: &SumArgs) -> Decision<SumArgs, String> {
    Decision::ProceedWith(SumArgs {
        a: args.a * 2.0,
        b: args.b,
    })
}

#[gate(GetSum)]
fn no_negatives(args: &SumArgs) -> Verdict {
    if args.a < 0.0 || args.b < 0.0 {
        Verdict::deny("negative numbers are not summed here")
    } else {
        Verdict::Allow
    }
}

/// What the model was told, tool message by tool message, in the second request.
fn told(model: &ScriptedModel) -> Vec<String> {
    model.requests()[1]
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.clone())
        .collect()
}

/// The server's entry point, or `None` (after saying why) when it is not installed.
fn everything() -> Option<String> {
    agents_kt_tests::npm::npm_package("@modelcontextprotocol/server-everything", "dist/index.js")
}

#[tokio::test]
async fn the_everything_server_over_stdio_behind_typed_and_dynamic_decisions() {
    let Some(server) = everything() else {
        return;
    };
    let set = McpToolset::stdio("node")
        .args([server.as_str(), "stdio"])
        .connect()
        .await
        .expect("the everything server starts and lists its tools");
    let names = set.names();
    for tool in ["echo", "get-sum", "get-structured-content"] {
        assert!(names.iter().any(|n| n == tool), "{tool} in {names:?}");
    }
    let set = set
        .only(["echo", "get-sum", "get-structured-content"])
        .bind::<GetSum>()
        .expect("SumArgs fits get-sum's schema");
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("get-sum", json!({"a": 2, "b": 3})),
            ("get-sum", json!({"a": 1, "b": -1})),
            ("get-structured-content", json!({"location": "Chicago"})),
            ("echo", json!({"message": "hello"})),
        ]),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("everything")
        .model(model.clone())
        .toolset(set)
        .before_tool_call(double_a)
        .gate_tool_call(no_negatives)
        .on_before_tool_call(|name: &str, args: &Value| {
            if name == "echo" {
                Decision::ProceedWith(json!({"message": format!("{} (checked)", args["message"].as_str().unwrap_or_default())}))
            } else {
                Decision::Proceed
            }
        })
        .build()
        .unwrap();
    assert_eq!(agent.run("go".into()).await.unwrap(), "done");
    let told = told(&model);
    assert_eq!(
        told[0], "The sum of 4 and 3 is 7.",
        "the server summed the rewrite"
    );
    assert_eq!(
        told[1],
        "ERROR: Tool 'get-sum' denied by policy: negative numbers are not summed here"
    );
    let weather: Value = serde_json::from_str(&told[2]).expect("structured content");
    assert!(weather["temperature"].is_number(), "{weather}");
    assert_eq!(told[3], "Echo: hello (checked)");
}

/// `echo`'s arguments with the wrong type.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct NumberedEcho {
    pub message: u32,
}

agents_kt::remote_tool! {
    /// A binding of `echo` whose message is a number.
    pub struct EchoNumber("echo"): NumberedEcho => String;
}

/// The everything server over streamable HTTP, started on a free port; killed when dropped.
struct HttpEverything {
    child: std::process::Child,
    url: String,
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_http(server: &str) -> HttpEverything {
    use std::io::{BufRead, BufReader};
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let mut child = std::process::Command::new("node")
        .args([server, "streamableHttp"])
        .env("PORT", port.to_string())
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("node starts the everything server");
    let stderr = child.stderr.take().expect("its stderr");
    let mut lines = BufReader::new(stderr).lines();
    lines
        .by_ref()
        .map_while(Result::ok)
        .find(|line| line.contains("listening on port"))
        .expect("the server says it listens");
    std::thread::spawn(move || lines.for_each(drop));
    HttpEverything {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

#[tokio::test]
async fn the_everything_server_over_streamable_http_behind_a_gate_and_a_checked_binding() {
    let Some(server) = everything() else {
        return;
    };
    let http = start_http(&server);
    let set = McpToolset::http(http.url.clone())
        .connect()
        .await
        .expect("the everything server answers over HTTP")
        .only(["echo", "get-sum"]);
    let refused = set
        .clone()
        .bind::<EchoNumber>()
        .expect_err("a number is not echo's string message");
    assert!(
        refused.reason.contains("`message` is integer") && refused.reason.contains("string"),
        "{}",
        refused.reason
    );
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("echo", json!({"message": "over http"})),
            ("get-sum", json!({"a": 1, "b": 2})),
        ]),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("everything")
        .model(model.clone())
        .toolset(set.bind::<GetSum>().expect("SumArgs fits"))
        .on_gate_tool_call(|name: &str, _args: &Value| {
            if name == "echo" {
                Verdict::deny("no echoes over the network")
            } else {
                Verdict::Allow
            }
        })
        .build()
        .unwrap();
    assert_eq!(agent.run("go".into()).await.unwrap(), "done");
    let told = told(&model);
    assert_eq!(
        told[0],
        "ERROR: Tool 'echo' denied by policy: no echoes over the network"
    );
    assert_eq!(told[1], "The sum of 1 and 2 is 3.");
}

/// Whether a process whose command line contains `marker` is running (read from `/proc`).
fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries.filter_map(Result::ok).any(|entry| {
                std::fs::read(entry.path().join("cmdline"))
                    .is_ok_and(|line| String::from_utf8_lossy(&line).contains(marker))
            })
        })
        .unwrap_or(false)
}

#[tokio::test]
async fn a_result_over_the_budget_is_withheld_and_the_servers_process_ends_with_the_toolset() {
    let Some(server) = everything() else {
        return;
    };
    // An extra argument the server ignores, to find its process.
    let marker = format!("agents-kt-drop-{}", std::process::id());
    let set = McpToolset::stdio("node")
        .args([server.as_str(), "stdio", marker.as_str()])
        .connect()
        .await
        .expect("the everything server starts")
        .only(["echo"]);
    assert!(running(&marker), "the server's process runs");
    let model = ScriptedModel::new([
        Reply::tool_calls([("echo", json!({"message": "x".repeat(500)}))]),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("everything")
        .model(model.clone())
        .toolset(set)
        .budget(Budget::default().max_tool_result_bytes(100))
        .build()
        .unwrap();
    agent.run("go".into()).await.unwrap();
    let told = told(&model);
    assert!(
        told[0].starts_with("ERROR: Tool 'echo' result withheld by policy: ")
            && told[0].ends_with("the limit is 100 bytes (max_tool_result_bytes)"),
        "{}",
        told[0]
    );

    // The agent held the last handle on the connection: dropping it stops the server.
    drop(agent);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while running(&marker) {
        assert!(
            std::time::Instant::now() < deadline,
            "the server's process outlived its toolset"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
