//! MCP `tools/call` over streamable HTTP on loopback, one call at a time on one kept-alive
//! connection: `McpServer::bind_http` with 8 Proceed interceptors on the tool, against a bare
//! rmcp `StreamableHttpService` serving the same tool with rmcp's own macros, served by axum with
//! `TCP_NODELAY` set. The client is a plain `reqwest` session (initialize, then calls with the
//! session id), reading each streamed reply to its end.
//!
//! `cargo bench -p agents-kt --bench mcp_http`; see BENCHMARKS.md for the numbers.

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/mcp_http_client.rs"]
mod mcp_http_client;
#[path = "support/mcp_servers.rs"]
mod mcp_servers;
#[path = "support/weather.rs"]
mod weather;
use mcp_http_client::Session;
use mcp_servers::{guarded_server, serve_bare_http};

async fn ours() -> agents_kt::McpHttpServer {
    guarded_server()
        .bind_http("127.0.0.1:0".parse().expect("an address"))
        .await
        .expect("the server listens")
}

fn mcp_http_round_trip(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let server = runtime.block_on(ours());
    let (bare, ours) = runtime.block_on(async {
        (
            Session::open(serve_bare_http().await).await,
            Session::open(server.local_addr()).await,
        )
    });
    let mut group = c.benchmark_group("mcp_tools_call_http");
    group.bench_function("one call at a time, bare rmcp server (baseline)", |b| {
        b.iter(|| runtime.block_on(bare.call()))
    });
    group.bench_function(
        "one call at a time, agents-kt McpServer, 8 interceptors",
        |b| b.iter(|| runtime.block_on(ours.call())),
    );
    group.finish();
}

criterion_group!(benches, mcp_http_round_trip);
criterion_main!(benches);
