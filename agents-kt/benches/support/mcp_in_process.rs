//! `call_counts`' MCP paths: `tools/call` over an in-process pipe, 32 in flight, to
//! `McpServer` with 8 Proceed interceptors or to a bare rmcp server with the same tool — the
//! `mcp` bench's row, counted in instructions instead of timed.

use std::hint::black_box;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

use super::mcp_servers::{BareServer, guarded_server};

/// Calls sent together, as the `mcp` bench's in-flight row does.
const IN_FLIGHT: usize = 32;

/// `calls` calls (rounded down to whole batches of 32) to the bare server or to ours.
pub fn count(runtime: &tokio::runtime::Runtime, bare: bool, calls: usize) {
    runtime.block_on(async {
        let (server_side, client_side) = tokio::io::duplex(64 * 1024);
        match bare {
            true => {
                tokio::spawn(async move {
                    if let Ok(running) =
                        BareServer::new().serve(tokio::io::split(server_side)).await
                    {
                        let _ = running.waiting().await;
                    }
                });
            }
            false => {
                tokio::spawn(guarded_server().serve(tokio::io::split(server_side)));
            }
        }
        let client = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("bench", "1.0"),
        )
        .serve(tokio::io::split(client_side))
        .await
        .expect("the client connects");
        for _ in 0..calls / IN_FLIGHT {
            futures::future::join_all((0..IN_FLIGHT).map(|_| round_trip(&client))).await;
        }
    });
}

async fn round_trip(client: &RunningService<RoleClient, ClientConfig>) {
    let Value::Object(arguments) = json!({"city": "Reykjavík", "days": 3}) else {
        unreachable!("a JSON object literal")
    };
    let request = CallToolRequestParams::new("get_weather").with_arguments(arguments);
    let result = client.call_tool(request).await.expect("the call completes");
    assert_ne!(result.is_error, Some(true), "the tool answered: {result:?}");
    black_box(result);
}
