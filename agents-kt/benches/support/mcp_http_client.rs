//! A plain MCP client over streamable HTTP for the HTTP benches: a `reqwest` session
//! (initialize, then calls with the session id), reading each streamed reply to its end.

use std::hint::black_box;
use std::net::SocketAddr;

use serde_json::json;

/// An initialized MCP session over HTTP.
pub struct Session {
    http: reqwest::Client,
    url: String,
    id: String,
}

impl Session {
    pub async fn open(address: SocketAddr) -> Session {
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

    pub async fn call(&self) {
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
