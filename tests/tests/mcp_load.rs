//! The MCP server under load and under a flood, over streamable HTTP on loopback (bounded in
//! count and time): ten thousand `tools/call`s from 64 concurrent clients through 8 interceptors,
//! each answered exactly once with its own result; and an `initialize` flood held at
//! `max_sessions` with the process's memory bounded, the server serving afterwards.
//!
//! Alone in its binary: it reads the process's resident memory.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agents_kt::prelude::*;
use agents_kt::{McpHttpServer, McpServer};
use agents_kt_tests::GetWeather;
use serde_json::{Value, json};

/// Resident memory is process-wide: this binary's tests take turns.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const CLIENTS: usize = 64;
const CALLS: usize = 10_000;
const INTERCEPTORS: usize = 8;

/// The process's resident memory, in KiB (Linux).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmRSS:"))
                .and_then(|line| line.split_whitespace().nth(1))
                .and_then(|kib| kib.parse().ok())
        })
        .unwrap_or(0)
}

/// One client of the server's MCP endpoint, in one session.
struct Client {
    http: reqwest::Client,
    url: String,
    session: Option<String>,
}

impl Client {
    fn new(server: &McpHttpServer) -> Self {
        // One HTTP client (its pool opens a connection per concurrent request); building one
        // per session would load the system's root certificates each time.
        static HTTP: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
        Client {
            http: HTTP.get_or_init(reqwest::Client::new).clone(),
            url: format!("http://{}/mcp", server.local_addr()),
            session: None,
        }
    }

    /// POST `body`; the status and the JSON-RPC messages of the answer (JSON or SSE).
    async fn post(&mut self, body: Value) -> (u16, Vec<Value>) {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let response = tokio::time::timeout(Duration::from_secs(30), request.send())
            .await
            .expect("the server answers within 30 s")
            .expect("the request is sent");
        let status = response.status().as_u16();
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = session.to_str().ok().map(str::to_string);
        }
        let text = response.text().await.unwrap_or_default();
        let messages = text
            .lines()
            .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .collect();
        (status, messages)
    }

    /// `initialize` and `notifications/initialized`; the status of the first.
    async fn open(&mut self, name: &str) -> u16 {
        let (status, _) = self
            .post(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-03-26", "capabilities": {},
                    "clientInfo": {"name": name, "version": "1"}
                }}),
            )
            .await;
        if status == 200 {
            let (initialized, _) = self
                .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .await;
            assert_eq!(initialized, 202);
        }
        status
    }
}

/// `agent` exposing `get_weather` over HTTP on a free loopback port, with room for `max_sessions`.
async fn serve(agent: Agent<String, String>, max_sessions: usize) -> McpHttpServer {
    McpServer::builder(agent)
        .expose_tool::<GetWeather>()
        .max_sessions(max_sessions)
        .build()
        .unwrap()
        .bind_http(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap()
}

fn weather_desk(seen: &[Arc<AtomicUsize>]) -> (Agent<String, String>, GetWeather) {
    let tool = GetWeather::default();
    let mut builder = Agent::<String, String>::builder("desk")
        .model(ScriptedModel::default())
        .tool(tool.clone());
    for counter in seen {
        let counter = Arc::clone(counter);
        builder = builder.on_before_tool_call(move |_: &str, _: &Value| {
            counter.fetch_add(1, Ordering::Relaxed);
            Decision::<Value, Value>::Proceed
        });
    }
    (builder.build().unwrap(), tool)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_calls_from_64_clients_through_8_interceptors_are_each_answered_once() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let seen: Vec<Arc<AtomicUsize>> = (0..INTERCEPTORS).map(|_| Arc::default()).collect();
    let (agent, tool) = weather_desk(&seen);
    let server = serve(agent, 1024).await;
    let rss_before = rss_kib();
    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let mut connection = Client::new(&server);
            tokio::spawn(async move {
                assert_eq!(connection.open(&format!("client-{client}")).await, 200);
                let mut answered = Vec::new();
                for call in (client..CALLS).step_by(CLIENTS) {
                    let city = format!("city-{call}");
                    let (status, messages) = connection
                        .post(json!({"jsonrpc": "2.0", "id": call, "method": "tools/call",
                            "params": {"name": "get_weather", "arguments": {"city": city}}}))
                        .await;
                    assert_eq!(status, 200, "call {call}");
                    let answers: Vec<&Value> =
                        messages.iter().filter(|m| m["id"] == json!(call)).collect();
                    assert_eq!(answers.len(), 1, "call {call} answered once: {messages:?}");
                    let result = &answers[0]["result"];
                    assert_eq!(result["isError"], json!(false), "{result}");
                    assert_eq!(result["structuredContent"]["city"], json!(city));
                    answered.push(call);
                }
                answered
            })
        })
        .collect();
    let mut answered = Vec::new();
    for client in clients {
        answered.extend(client.await.unwrap());
    }
    let elapsed = started.elapsed();
    let rss_after = rss_kib();
    answered.sort_unstable();
    assert_eq!(
        answered,
        (0..CALLS).collect::<Vec<_>>(),
        "every call answered, none lost"
    );
    assert_eq!(tool.ran.len(), CALLS, "the tool ran once per call");
    for counter in &seen {
        assert_eq!(
            counter.load(Ordering::Relaxed),
            CALLS,
            "every interceptor saw every call"
        );
    }
    eprintln!(
        "{CALLS} calls from {CLIENTS} clients through {INTERCEPTORS} interceptors in {elapsed:?} \
         ({:.0} calls/s); RSS {rss_before} -> {rss_after} KiB",
        CALLS as f64 / elapsed.as_secs_f64()
    );
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_initialize_flood_is_held_at_max_sessions_with_memory_bounded() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let (agent, _) = weather_desk(&[]);
    let max_sessions = 256;
    let server = serve(agent, max_sessions).await;
    let rss_before = rss_kib();
    let flood = 5_000;
    let attackers = 32;
    let started = Instant::now();
    let tasks: Vec<_> = (0..attackers)
        .map(|attacker| {
            let mut connection = Client::new(&server);
            tokio::spawn(async move {
                let mut statuses = Vec::new();
                for _ in (attacker..flood).step_by(attackers) {
                    connection.session = None;
                    let status = connection.open("flood").await;
                    statuses.push((status, connection.session.clone()));
                }
                statuses
            })
        })
        .collect();
    let mut opened = Vec::new();
    let mut refused = 0;
    for task in tasks {
        for (status, session) in task.await.unwrap() {
            match status {
                200 => opened.push(session.expect("an opened session has an id")),
                503 => refused += 1,
                other => panic!("an initialize answered {other}"),
            }
        }
    }
    let elapsed = started.elapsed();
    let rss_after = rss_kib();
    eprintln!(
        "{flood} initialize requests from {attackers} clients in {elapsed:?}: {} sessions, \
         {refused} refused (503); RSS {rss_before} -> {rss_after} KiB",
        opened.len()
    );
    assert!(opened.len() <= max_sessions, "sessions are capped");
    assert!(opened.len() >= max_sessions - 8, "and the room is used");
    assert_eq!(refused, flood - opened.len());
    assert!(
        rss_after.saturating_sub(rss_before) < 256 * 1024,
        "memory grew {} KiB during the flood",
        rss_after - rss_before
    );
    // The server still serves: a session closed by its owner frees a slot for a real client.
    let closed = reqwest::Client::new()
        .delete(format!("http://{}/mcp", server.local_addr()))
        .header("mcp-session-id", &opened[0])
        .send()
        .await
        .unwrap();
    assert!(closed.status().is_success(), "{}", closed.status());
    let mut client = Client::new(&server);
    assert_eq!(client.open("after the flood").await, 200);
    let (status, messages) = client
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_weather", "arguments": {"city": "Oslo"}}}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        messages[0]["result"]["isError"],
        json!(false),
        "{messages:?}"
    );
    server.shutdown().await.unwrap();
}

/// The cap holds at its edge, crossed many times: 40 rounds, each 32 `initialize`s sent at once
/// to a server with room for 4, never open more than 4 sessions (a slot is held from admission
/// until the session is live, so concurrent requests cannot all pass the count; without that,
/// rounds opened 5 and 18).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bursts_of_simultaneous_initializes_open_no_more_than_max_sessions() {
    let _turn = ONE_AT_A_TIME.lock().await;
    for round in 0..40 {
        let (agent, _) = weather_desk(&[]);
        let server = serve(agent, 4).await;
        let start = Arc::new(tokio::sync::Barrier::new(32));
        let burst: Vec<_> = (0..32)
            .map(|_| {
                let mut connection = Client::new(&server);
                let start = Arc::clone(&start);
                tokio::spawn(async move {
                    start.wait().await;
                    connection.open("burst").await
                })
            })
            .collect();
        let mut opened = 0;
        for request in burst {
            match request.await.unwrap() {
                200 => opened += 1,
                503 => {}
                other => panic!("an initialize answered {other}"),
            }
        }
        // Never more. At the edge a session just opened may still count as being opened too
        // (the safe side), so a round may open fewer: CI saw 2.
        assert!(
            (1..=4).contains(&opened),
            "round {round}: {opened} sessions opened"
        );
        server.shutdown().await.unwrap();
    }
}
