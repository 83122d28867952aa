//! Any bytes sent to an `McpServer` (stdio framing: one JSON-RPC message per line) after a
//! proper `initialize`: the server answers or ignores them — never panics — and still answers
//! the next well-formed request.
#![no_main]

use std::time::Duration;

use agents_kt::McpServer;
use agents_kt::prelude::*;
use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Echoes its text.
#[tool]
fn echo(text: String) -> String {
    text
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const PROBE: &str = r#"{"jsonrpc":"2.0","id":"probe","method":"tools/list"}"#;

fuzz_target!(|bytes: &[u8]| {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let agent = Agent::<String, String>::builder("fuzz")
            .model(ScriptedModel::default())
            .tool(Echo)
            .build()
            .expect("the agent builds");
        let server = McpServer::builder(agent)
            .expose_tool::<Echo>()
            .build()
            .expect("the server builds");
        let (client, server_side) = tokio::io::duplex(1 << 20);
        let serving = tokio::spawn(server.serve(tokio::io::split(server_side)));
        let (read, mut write) = tokio::io::split(client);
        let mut sent = Vec::new();
        for line in [INITIALIZE, INITIALIZED] {
            sent.extend_from_slice(line.as_bytes());
            sent.push(b'\n');
        }
        sent.extend_from_slice(bytes);
        sent.push(b'\n');
        sent.extend_from_slice(PROBE.as_bytes());
        sent.push(b'\n');
        write.write_all(&sent).await.expect("the server reads");
        let mut lines = BufReader::new(read).lines();
        let answered = tokio::time::timeout(Duration::from_secs(10), async {
            while let Ok(Some(line)) = lines.next_line().await {
                let message: serde_json::Value =
                    serde_json::from_str(&line).expect("the server writes JSON lines");
                if message["id"] == "probe" {
                    return message.get("result").is_some();
                }
            }
            false
        })
        .await;
        assert_eq!(
            answered,
            Ok(true),
            "the server stopped answering after {:?}",
            String::from_utf8_lossy(bytes)
        );
        drop(write);
        serving.abort();
    });
});
