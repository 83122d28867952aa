//! MCP `tools/call` round trips over an in-process transport (a `tokio::io::duplex` pipe, one
//! thread): `McpServer` with 8 Proceed interceptors on the tool, against a bare rmcp server
//! serving the same tool, written with rmcp's own `#[tool_router]`/`#[tool]` macros. The client
//! is rmcp's in both cases. Measured one call at a time and with 32 calls in flight. Target: at
//! least 0.9× the bare server's throughput.
//!
//! `cargo bench -p agents-kt --bench mcp`; see BENCHMARKS.md for the numbers.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};

// Shared with the HTTP benches; this one serves in-process and does not use the HTTP server.
#[allow(dead_code)]
#[path = "support/mcp_servers.rs"]
mod mcp_servers;
#[path = "support/weather.rs"]
mod weather;
use mcp_servers::{BareServer, guarded_server};

type Client = RunningService<RoleClient, ClientConfig>;

async fn client(io: tokio::io::DuplexStream) -> Client {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("bench", "1.0"),
    )
    .serve(tokio::io::split(io))
    .await
    .expect("the client connects")
}

fn request() -> CallToolRequestParams {
    let Value::Object(arguments) = json!({"city": "Reykjavík", "days": 3}) else {
        unreachable!("a JSON object literal")
    };
    CallToolRequestParams::new("get_weather").with_arguments(Map::clone(&arguments))
}

async fn round_trip(client: &Client) {
    let result = client
        .call_tool(request())
        .await
        .expect("the call completes");
    assert_ne!(result.is_error, Some(true), "the tool answered: {result:?}");
    black_box(result);
}

fn mcp_round_trip(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (bare, ours) = runtime.block_on(async {
        let (server_side, client_side) = tokio::io::duplex(64 * 1024);
        tokio::spawn(guarded_server().serve(tokio::io::split(server_side)));
        let ours = client(client_side).await;
        let (server_side, client_side) = tokio::io::duplex(64 * 1024);
        tokio::spawn(async move {
            let server = BareServer::new();
            if let Ok(running) = server.serve(tokio::io::split(server_side)).await {
                let _ = running.waiting().await;
            }
        });
        let bare = client(client_side).await;
        (bare, ours)
    });
    let mut group = c.benchmark_group("mcp_tools_call");
    group.bench_function("one call at a time, bare rmcp server (baseline)", |b| {
        b.iter(|| runtime.block_on(round_trip(&bare)))
    });
    group.bench_function(
        "one call at a time, agents-kt McpServer, 8 interceptors",
        |b| b.iter(|| runtime.block_on(round_trip(&ours))),
    );
    group.throughput(Throughput::Elements(IN_FLIGHT as u64));
    group.bench_function(
        format!("{IN_FLIGHT} calls in flight, bare rmcp server (baseline)"),
        |b| b.iter(|| runtime.block_on(in_flight(&bare))),
    );
    group.bench_function(
        format!("{IN_FLIGHT} calls in flight, agents-kt McpServer, 8 interceptors"),
        |b| b.iter(|| runtime.block_on(in_flight(&ours))),
    );
    group.finish();
}

/// Calls sent together, so the server's work per call shows rather than the scheduler's
/// wake-ups between one call and the next.
const IN_FLIGHT: usize = 32;

async fn in_flight(client: &Client) {
    futures::future::join_all((0..IN_FLIGHT).map(|_| round_trip(client))).await;
}

criterion_group!(benches, mcp_round_trip);
criterion_main!(benches);
