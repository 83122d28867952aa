//! A client of `McpServer` over streamable HTTP that hangs up on a call's answer — closes the
//! connection without ending its session — gets the call cancelled once the grace period has
//! passed (its tool's future dropped, its slot free again); a client that comes back for the
//! answer within it (`GET` with `Last-Event-ID`) keeps the call. Driven with raw HTTP (reqwest),
//! as a client that crashed or lost its network would leave things.

use std::time::Duration;

use agents_kt::McpServer;
use agents_kt::prelude::*;
use agents_kt_tests::Forever;
use futures::StreamExt;
use serde_json::{Value, json};

/// A server with one slot for calls and the given grace period, and its URL.
async fn serve(forever: &Forever, grace: Duration) -> (agents_kt::McpHttpServer, String) {
    let agent: Agent<String, String> = Agent::builder("patient")
        .model(ScriptedModel::default())
        .tool(forever.clone())
        .build()
        .unwrap();
    let server = McpServer::builder(agent)
        .expose_tool::<Forever>()
        .max_concurrent_calls(1)
        .hang_up_grace(grace)
        .build()
        .unwrap()
        .bind_http(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap();
    let url = format!("http://{}/mcp", server.local_addr());
    (server, url)
}

fn post(url: &str, session: Option<&str>, body: Value) -> reqwest::RequestBuilder {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request
}

/// An initialized session's id.
async fn open_session(url: &str) -> String {
    let opened = post(
        url,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "flaky", "version": "1"}
        }}),
    )
    .send()
    .await
    .unwrap();
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    opened.text().await.unwrap();
    post(
        url,
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .send()
    .await
    .unwrap();
    session
}

/// Starts `forever` in `session`, reads the stream's first event and hangs up; the event's id.
async fn call_and_hang_up(url: &str, session: &str, forever: &Forever) -> Option<String> {
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "forever", "arguments": {}}});
    let started = forever.started.notified();
    let answer = post(url, Some(session), call).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    started.await;
    let mut stream = answer.bytes_stream();
    let first = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .ok()
        .flatten()
        .and_then(Result::ok)
        .unwrap_or_default();
    // The connection goes with the stream: the client is gone, its session is not.
    drop(stream);
    String::from_utf8_lossy(&first)
        .lines()
        .find_map(|line| line.strip_prefix("id:"))
        .map(|id| id.trim().to_string())
}

/// Whether the server answers a second call of `forever` (it has one slot).
async fn slot_free(url: &str, session: &str, forever: &Forever) -> bool {
    let started = forever.started.notified();
    let call = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                      "params": {"name": "forever", "arguments": {}}});
    let request = post(url, Some(session), call).send();
    let _answer = tokio::spawn(request);
    tokio::time::timeout(Duration::from_secs(10), started)
        .await
        .is_ok()
}

#[tokio::test]
async fn a_call_whose_client_hung_up_is_cancelled_after_the_grace_period_and_frees_its_slot() {
    let forever = Forever::default();
    let (server, url) = serve(&forever, Duration::from_millis(300)).await;
    let session = open_session(&url).await;
    let dropped = forever.dropped.notified();
    call_and_hang_up(&url, &session, &forever).await;
    tokio::time::timeout(Duration::from_secs(20), dropped)
        .await
        .expect("the abandoned call is cancelled");
    assert!(
        slot_free(&url, &session, &forever).await,
        "the only slot is free again, and the session still serves"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_client_that_comes_back_for_the_answer_within_the_grace_period_keeps_its_call() {
    let forever = Forever::default();
    let (server, url) = serve(&forever, Duration::from_secs(1)).await;
    let session = open_session(&url).await;
    let dropped = forever.dropped.notified();
    let event = call_and_hang_up(&url, &session, &forever)
        .await
        .expect("the answer's stream names its events (resumable)");
    // Back for the rest of the answer.
    let resumed = reqwest::Client::new()
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("last-event-id", &event)
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), 200);
    // Three grace periods later the call still runs.
    assert!(
        tokio::time::timeout(Duration::from_secs(3), dropped)
            .await
            .is_err(),
        "the call of a client that came back was cancelled"
    );
    drop(resumed);
    server.shutdown().await.unwrap();
}
