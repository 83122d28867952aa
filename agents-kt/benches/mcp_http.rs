//! MCP `tools/call` over streamable HTTP on loopback, one call at a time on one kept-alive
//! connection: `McpServer::bind_http` with 8 Proceed interceptors on the tool, against a bare
//! rmcp `StreamableHttpService` serving the same tool with rmcp's own macros, served by axum with
//! `TCP_NODELAY` set. The client is a plain `reqwest` session (initialize, then calls with the
//! session id), reading each streamed reply to its end.
//!
//! `cargo bench -p agents-kt --bench mcp_http`; see BENCHMARKS.md for the numbers.

use std::hint::black_box;
use std::net::SocketAddr;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

#[path = "support/mcp_servers.rs"]
mod mcp_servers;
#[path = "support/weather.rs"]
mod weather;
use mcp_servers::{guarded_server, serve_bare_http};

async fn ours() -> agents_kt::McpHttpServer {
    guarded_server()
        .bind_http("127.0.0.1:0".parse().expect("an address"))
        .await
        .expect("the server listens")
}

/// An initialized MCP session over HTTP.
struct Session {
    http: reqwest::Client,
    url: String,
    id: String,
}

impl Session {
    async fn open(address: SocketAddr) -> Session {
        let http = reqwest::Client::new();
        let url = format!("http://{address}/mcp");
        let reply = post(
            &http,
            &url,
            None,
            json!({
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "bench", "version": "1"}},
            }),
        )
        .await;
        let id = reply
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_string();
        reply.bytes().await.expect("the initialize reply");
        post(
            &http,
            &url,
            Some(&id),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await
        .bytes()
        .await
        .expect("accepted");
        Session { http, url, id }
    }

    async fn call(&self) {
        let reply = post(
            &self.http,
            &self.url,
            Some(&self.id),
            json!({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "get_weather", "arguments": {"city": "Reykjavík", "days": 3}},
            }),
        )
        .await;
        let body = reply.bytes().await.expect("the reply");
        assert!(
            body.windows(7).any(|w| w == b"celsius"),
            "the tool answered: {}",
            String::from_utf8_lossy(&body)
        );
        black_box(body);
    }
}

async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: serde_json::Value,
) -> reqwest::Response {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let reply = request.send().await.expect("the server answers");
    assert!(reply.status().is_success(), "{}", reply.status());
    reply
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
