//! The MCP server's HTTP hardening, probed with raw requests: authentication (401), the Host
//! allow-list against DNS rebinding, the body size limit, and malformed JSON-RPC — after each
//! of which the server still serves.

use std::net::SocketAddr;

use agents_kt::prelude::*;
use agents_kt::{McpHttpServer, McpServer};
use agents_kt_tests::GetWeather;
use serde_json::{Value, json};

/// A server exposing `get_weather`, before its options.
fn desk() -> agents_kt::McpServerBuilder<String, String> {
    let agent: Agent<String, String> = Agent::builder("desk")
        .model(ScriptedModel::default())
        .tool(GetWeather::default())
        .build()
        .unwrap();
    McpServer::builder(agent).expose_tool::<GetWeather>()
}

/// `builder`'s server, listening on a free loopback port.
async fn bind(builder: agents_kt::McpServerBuilder<String, String>) -> McpHttpServer {
    builder
        .build()
        .unwrap()
        .bind_http(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap()
}

async fn start() -> McpHttpServer {
    bind(
        desk()
            .authenticator(|authorization| {
                (authorization == "Bearer good").then(|| "alice".to_string())
            })
            .max_body_bytes(4 * 1024),
    )
    .await
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}
    }})
}

async fn post(
    server: &McpHttpServer,
    authorization: Option<&str>,
    host: Option<&str>,
    body: String,
) -> (u16, String) {
    let url = format!("http://{}/mcp", server.local_addr());
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body);
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    if let Some(host) = host {
        request = request.header("host", host);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

#[tokio::test]
async fn a_missing_or_rejected_authorization_is_401() {
    let server = start().await;
    assert_eq!(
        post(&server, None, None, initialize().to_string()).await.0,
        401
    );
    assert_eq!(
        post(&server, Some("Bearer bad"), None, initialize().to_string())
            .await
            .0,
        401
    );
    let (status, body) = post(&server, Some("Bearer good"), None, initialize().to_string()).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"serverInfo\""), "{body}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_foreign_host_is_refused_against_dns_rebinding() {
    let server = start().await;
    let (status, _) = post(
        &server,
        Some("Bearer good"),
        Some("evil.example"),
        initialize().to_string(),
    )
    .await;
    assert!(
        (400..500).contains(&status),
        "a rebinding attempt is refused, got {status}"
    );
    assert_eq!(
        post(&server, Some("Bearer good"), None, initialize().to_string())
            .await
            .0,
        200
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_oversized_body_is_refused_and_the_server_keeps_serving() {
    let server = start().await;
    let mut huge = initialize();
    huge["params"]["padding"] = json!("x".repeat(64 * 1024));
    let (status, _) = post(&server, Some("Bearer good"), None, huge.to_string()).await;
    assert_eq!(status, 413);
    assert_eq!(
        post(&server, Some("Bearer good"), None, initialize().to_string())
            .await
            .0,
        200
    );
    server.shutdown().await.unwrap();
}

/// A raw POST with `headers`, answered as (status, content type, body).
async fn raw_post(
    server: &McpHttpServer,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut request = reqwest::Client::new()
        .post(format!("http://{}/mcp", server.local_addr()))
        .header("authorization", "Bearer good")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (
        status,
        content_type,
        response.text().await.unwrap_or_default(),
    )
}

/// The JSON-RPC error code of a body, if it is a JSON-RPC error.
fn error_code(body: &str) -> Option<i64> {
    serde_json::from_str::<Value>(body).ok()?["error"]["code"].as_i64()
}

#[tokio::test]
async fn a_loopback_server_accepts_loopback_origins_and_refuses_foreign_ones() {
    let json = ("content-type", "application/json");
    let server = start().await;
    let host = format!("localhost:{}", server.local_addr().port());
    // What the MCP conformance suite's DNS-rebinding check sends: a local page, a local host.
    for origin in [
        format!("http://localhost:{}", server.local_addr().port()),
        "http://localhost:6274".to_string(),
        "https://127.0.0.1:1".to_string(),
        "http://[::1]:8080".to_string(),
    ] {
        let headers = [json, ("origin", origin.as_str()), ("host", host.as_str())];
        let (status, _, body) = raw_post(&server, &headers, &initialize().to_string()).await;
        assert_eq!(status, 200, "{origin}: {body}");
    }
    for origin in [
        "http://evil.com",
        "null",
        "http://localhost.evil.com",
        "http://localhost@evil.com",
    ] {
        let headers = [json, ("origin", origin), ("host", host.as_str())];
        let (status, _, body) = raw_post(&server, &headers, &initialize().to_string()).await;
        assert_eq!(status, 403, "{origin}: {body}");
        assert_eq!(error_code(&body), Some(-32600), "{body}");
    }
    // A foreign Host is refused too (DNS rebinding), even from a local page.
    let headers = [json, ("origin", "http://localhost:1"), ("host", "evil.com")];
    let (status, _, body) = raw_post(&server, &headers, &initialize().to_string()).await;
    assert_ne!(status, 200, "{body}");
    let (status, _, _) = raw_post(&server, &[json], &initialize().to_string()).await;
    assert_eq!(status, 200, "no Origin: not a browser, served");
    server.shutdown().await.unwrap();

    // Listed origins add to the loopback ones.
    let server = bind(desk().allowed_origins(["https://app.example"])).await;
    for (origin, expected) in [
        ("https://app.example", 200),
        ("http://localhost:6274", 200),
        ("https://app.example:444", 403),
        ("https://other.example", 403),
    ] {
        let (status, _, body) = raw_post(
            &server,
            &[json, ("origin", origin)],
            &initialize().to_string(),
        )
        .await;
        assert_eq!(status, expected, "{origin}: {body}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_server_on_every_interface_accepts_only_listed_origins() {
    let server = desk()
        .allowed_origins(["https://app.example"])
        .build()
        .unwrap()
        .bind_http(SocketAddr::from(([0, 0, 0, 0], 0)))
        .await
        .unwrap();
    let local = format!("http://127.0.0.1:{}", server.local_addr().port());
    let post = |origin: &'static str| {
        let local = local.clone();
        async move {
            reqwest::Client::new()
                .post(format!("{local}/mcp"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("origin", origin)
                .body(initialize().to_string())
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(
        post("http://localhost:6274").await,
        403,
        "not on loopback: no default origins"
    );
    assert_eq!(post("https://app.example").await, 200);
    server.shutdown().await.unwrap();
}

/// Headers, body, and the status and JSON-RPC error code expected.
type Case<'a> = (&'a [(&'a str, &'a str)], String, u16, i64);

#[tokio::test]
async fn bodies_that_are_not_one_json_rpc_message_get_json_rpc_errors() {
    let server = start().await;
    let json = ("content-type", "application/json");
    let cases: [Case; 7] = [
        (&[json], "{not json".into(), 400, -32700),
        // A key given twice is not one message: which value would rmcp read?
        (
            &[json],
            r#"{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "ping"}"#.into(),
            400,
            -32600,
        ),
        (
            &[("content-type", "text/plain")],
            initialize().to_string(),
            415,
            -32600,
        ),
        (&[], initialize().to_string(), 415, -32600),
        (&[json], json!([initialize()]).to_string(), 400, -32600),
        (
            &[json],
            json!({"id": 3, "method": "ping"}).to_string(),
            400,
            -32600,
        ),
        (
            &[json],
            json!({"jsonrpc": "2.0", "id": 2, "method": 7}).to_string(),
            400,
            -32600,
        ),
    ];
    for (headers, body, status, code) in cases {
        let (got, content_type, answer) = raw_post(&server, headers, &body).await;
        assert_eq!(
            (got, error_code(&answer)),
            (status, Some(code)),
            "{body}: {answer}"
        );
        assert_eq!(content_type, "application/json", "{body}");
    }
    // The id of an invalid request is echoed when it can be read.
    let (_, _, answer) = raw_post(
        &server,
        &[json],
        &json!({"jsonrpc": "1.0", "id": 42, "method": "ping"}).to_string(),
    )
    .await;
    assert_eq!(serde_json::from_str::<Value>(&answer).unwrap()["id"], 42);
    let (status, _, _) = raw_post(&server, &[json], &initialize().to_string()).await;
    assert_eq!(status, 200, "the server keeps serving");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn malformed_params_and_ids_get_json_rpc_errors_for_their_request() {
    let server = start().await;
    let json = ("content-type", "application/json");
    let call = |id: Value, params: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
    };
    // Invalid params: answered -32602 for that request's id (rmcp said "method not found").
    let invalid_params = [
        call(json!(11), json!({"name": "get_weather", "arguments": [1]})),
        call(json!(12), json!({"arguments": {}})),
        call(json!(13), json!({"name": 7, "arguments": {}})),
        call(json!(14), json!(["get_weather"])),
        json!({"jsonrpc": "2.0", "id": 15, "method": "ping", "params": [1]}).to_string(),
    ];
    for (body, id) in invalid_params.iter().zip(11..) {
        let (status, content_type, answer) = raw_post(&server, &[json], body).await;
        let answer: Value = serde_json::from_str(&answer).expect("a JSON-RPC answer");
        assert_eq!(
            (
                status,
                answer["error"]["code"].as_i64(),
                answer["id"].as_i64()
            ),
            (200, Some(-32602), Some(id)),
            "{body}: {answer}"
        );
        assert_eq!(content_type, "application/json", "{body}");
    }
    // A notification is never answered with an error, whatever its params.
    let notification =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [1]}).to_string();
    let (_, _, answer) = raw_post(&server, &[json], &notification).await;
    assert!(!answer.contains("-32602"), "{answer}");
    // An id that is an object or an array: an invalid request, answered with a null id.
    for id in [json!({"a": 1}), json!([1])] {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
        let (status, content_type, answer) = raw_post(&server, &[json], &body).await;
        let answer: Value = serde_json::from_str(&answer).expect("a JSON-RPC answer");
        assert_eq!(
            (status, answer["error"]["code"].as_i64()),
            (400, Some(-32600)),
            "{body}: {answer}"
        );
        assert_eq!(answer["id"], Value::Null, "{body}");
        assert_eq!(content_type, "application/json", "{body}");
    }
    let (status, _, _) = raw_post(&server, &[json], &initialize().to_string()).await;
    assert_eq!(status, 200, "the server keeps serving");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn malformed_json_rpc_gets_an_error_and_the_server_keeps_serving() {
    let server = start().await;
    let (status, body) = post(&server, Some("Bearer good"), None, "{not json".to_string()).await;
    assert!(
        (400..500).contains(&status),
        "malformed JSON is a client error, got {status}: {body}"
    );
    let (status, body) = post(
        &server,
        Some("Bearer good"),
        None,
        json!({"jsonrpc": "2.0", "id": 2, "method": 7}).to_string(),
    )
    .await;
    assert!(
        (400..500).contains(&status) || body.contains("error"),
        "an ill-formed request is an error: {status} {body}"
    );
    assert_eq!(
        post(&server, Some("Bearer good"), None, initialize().to_string())
            .await
            .0,
        200
    );
    server.shutdown().await.unwrap();
}

/// A tool that says when it has started, and answers once the test lets it.
#[derive(Clone, Default)]
struct Gate {
    entered: std::sync::Arc<tokio::sync::Notify>,
    release: std::sync::Arc<tokio::sync::Notify>,
}

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema, Clone, Debug)]
struct WaitArgs {}

impl agents_kt::Tool for Gate {
    const NAME: &'static str = "wait";
    type Args = WaitArgs;
    type Output = String;
    fn description(&self) -> std::borrow::Cow<'static, str> {
        "Waits until released.".into()
    }
    async fn call(&self, _: WaitArgs, _: &ToolContext) -> Result<String, ToolError> {
        self.entered.notify_one();
        self.release.notified().await;
        Ok("released".into())
    }
}

#[tokio::test]
async fn a_request_id_already_in_flight_in_the_session_is_refused_and_free_again_after() {
    let gate = Gate::default();
    let agent: Agent<String, String> = Agent::builder("desk")
        .model(ScriptedModel::default())
        .tool(gate.clone())
        .build()
        .unwrap();
    let server = McpServer::builder(agent)
        .expose_tool::<Gate>()
        .build()
        .unwrap()
        .bind_http(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap();
    let url = format!("http://{}/mcp", server.local_addr());
    let http = reqwest::Client::new();
    let send = |session: Option<String>, body: Value| {
        let mut request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let opened = send(None, initialize()).await.unwrap();
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    opened.text().await.unwrap();
    send(
        Some(session.clone()),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await
    .unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "wait", "arguments": {}}});

    for round in 0..2 {
        // The first call with id 7 is in the tool...
        let first = tokio::spawn(send(Some(session.clone()), call.clone()));
        gate.entered.notified().await;
        // ...so a second with the same id is refused at once, without reaching the tool.
        let second = send(Some(session.clone()), call.clone()).await.unwrap();
        assert_eq!(second.status(), 409, "round {round}");
        let second = second.text().await.unwrap();
        assert_eq!(error_code(&second), Some(-32600), "{second}");
        assert!(second.contains("already in flight"), "{second}");
        // A different id is not affected.
        let other = json!({"jsonrpc": "2.0", "id": 8, "method": "ping"});
        let other = send(Some(session.clone()), other).await.unwrap();
        assert_eq!(other.status(), 200, "round {round}");
        other.text().await.unwrap();
        // The first is answered; then (next round) the id is free again.
        gate.release.notify_one();
        let first = first.await.unwrap().unwrap();
        assert_eq!(first.status(), 200);
        assert!(first.text().await.unwrap().contains("released"));
    }
    server.shutdown().await.unwrap();
}

async fn limited_server(idle: std::time::Duration) -> McpHttpServer {
    bind(desk().max_sessions(2).session_idle_timeout(idle)).await
}

/// `initialize` without credentials; the session id, or the status and body of a refusal.
async fn open_session(server: &McpHttpServer) -> Result<String, (u16, String)> {
    let reply = reqwest::Client::new()
        .post(format!("http://{}/mcp", server.local_addr()))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(initialize().to_string())
        .send()
        .await
        .unwrap();
    let status = reply.status().as_u16();
    let session = reply
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = reply.text().await.unwrap_or_default();
    session.ok_or((status, body))
}

#[tokio::test]
async fn sessions_beyond_the_limit_are_refused_until_one_is_closed() {
    let server = limited_server(std::time::Duration::from_secs(300)).await;
    let first = open_session(&server).await.unwrap();
    open_session(&server).await.unwrap();
    let (status, body) = open_session(&server).await.unwrap_err();
    assert_eq!(status, 503, "{body}");
    assert_eq!(error_code(&body), Some(-32000), "{body}");
    let closed = reqwest::Client::new()
        .delete(format!("http://{}/mcp", server.local_addr()))
        .header("mcp-session-id", &first)
        .send()
        .await
        .unwrap();
    assert!(closed.status().is_success(), "{}", closed.status());
    open_session(&server)
        .await
        .expect("a closed session's slot is free again");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_idle_session_expires_and_frees_its_slot() {
    let server = limited_server(std::time::Duration::from_millis(200)).await;
    let idle = open_session(&server).await.unwrap();
    open_session(&server).await.unwrap();
    // Well past the idle timeout, both have expired (a generous margin, not a measurement).
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let reply = reqwest::Client::new()
        .post(format!("http://{}/mcp", server.local_addr()))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &idle)
        .body(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 404, "an expired session is gone");
    open_session(&server).await.expect("slots are free again");
    open_session(&server).await.expect("both of them");
    server.shutdown().await.unwrap();
}

async fn guarded_server(max_connections: usize) -> McpHttpServer {
    bind(
        desk()
            .max_connections(max_connections)
            .header_timeout(std::time::Duration::from_millis(300))
            .body_timeout(std::time::Duration::from_millis(300)),
    )
    .await
}

/// Whether the server closed `tcp` (read returns end of stream, or an error), waiting at most
/// `within` — a generous bound on a timeout set ten times shorter, not a measurement.
async fn closed_by_server(tcp: &mut tokio::net::TcpStream, within: std::time::Duration) -> bool {
    use tokio::io::AsyncReadExt;
    let mut buffer = [0u8; 1024];
    loop {
        match tokio::time::timeout(within, tcp.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
            Err(_) => return false,
        }
    }
}

#[tokio::test]
async fn silent_and_slow_connections_are_closed_and_the_server_keeps_serving() {
    use tokio::io::AsyncWriteExt;
    let server = guarded_server(64).await;
    let address = server.local_addr();
    let within = std::time::Duration::from_secs(3);
    // Connect and say nothing.
    let mut silent = tokio::net::TcpStream::connect(address).await.unwrap();
    // Send half a request head and stop (slowloris).
    let mut slowloris = tokio::net::TcpStream::connect(address).await.unwrap();
    slowloris
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .unwrap();
    // A whole head, then a body that never comes.
    let mut slow_body = tokio::net::TcpStream::connect(address).await.unwrap();
    slow_body
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n\
              accept: application/json, text/event-stream\r\ncontent-length: 500\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();
    assert!(
        closed_by_server(&mut silent, within).await,
        "connect-and-wait"
    );
    assert!(closed_by_server(&mut slowloris, within).await, "slowloris");
    let mut answer = Vec::new();
    {
        use tokio::io::AsyncReadExt;
        let read = tokio::time::timeout(within, slow_body.read_to_end(&mut answer)).await;
        assert!(read.is_ok(), "the slow body is answered and closed");
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    let (status, _, _) = raw_post(
        &server,
        &[("content-type", "application/json")],
        &initialize().to_string(),
    )
    .await;
    assert_eq!(status, 200, "the server keeps serving");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_until_a_slot_is_free() {
    let server = bind(
        desk()
            .max_connections(2)
            .header_timeout(std::time::Duration::from_secs(60)),
    )
    .await;
    let address = server.local_addr();
    // Both slots held by connections that have not sent their request yet.
    let held = [
        tokio::net::TcpStream::connect(address).await.unwrap(),
        tokio::net::TcpStream::connect(address).await.unwrap(),
    ];
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let url = format!("http://{address}/mcp");
    let mut waiting = tokio::spawn(async move {
        reqwest::Client::new()
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize().to_string())
            .send()
            .await
            .map(|reply| reply.status().as_u16())
    });
    // While both slots are held, the third connection is not served...
    let early = tokio::time::timeout(std::time::Duration::from_millis(500), &mut waiting).await;
    assert!(early.is_err(), "served beyond the cap: {early:?}");
    // ...and once a slot is given back, it is.
    drop(held);
    let status = tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
        .await
        .expect("served once a slot is free")
        .unwrap()
        .unwrap();
    assert_eq!(status, 200);
    server.shutdown().await.unwrap();
}

/// Oversized headers — one 1 MiB header, or 500 small ones — are refused with 431 before any
/// handler runs, and the server keeps serving.
#[tokio::test]
async fn oversized_headers_are_refused_and_the_server_keeps_serving() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = start().await;
    let huge = format!("x-padding: {}\r\n", "x".repeat(1024 * 1024));
    let many: String = (0..500).map(|i| format!("x-header-{i}: {i}\r\n")).collect();
    for headers in [huge, many] {
        let mut tcp = tokio::net::TcpStream::connect(server.local_addr())
            .await
            .unwrap();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer good\r\n\
             content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
             {headers}content-length: 2\r\n\r\n{{}}"
        );
        // The server may stop reading before the whole request is written.
        let _ = tcp.write_all(request.as_bytes()).await;
        let mut answer = Vec::new();
        let read = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            tcp.read_to_end(&mut answer),
        )
        .await
        .expect("the server answers or closes within 10 s");
        let answer = String::from_utf8_lossy(&answer);
        assert!(read.is_ok(), "{read:?}");
        assert!(
            answer.starts_with("HTTP/1.1 431"),
            "{}",
            answer.lines().next().unwrap_or_default()
        );
        assert!(!answer.contains("jsonrpc"), "no handler ran: {answer}");
    }
    assert_eq!(
        post(&server, Some("Bearer good"), None, initialize().to_string())
            .await
            .0,
        200,
        "the server keeps serving"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn only_the_mcp_path_is_served() {
    let server = bind(desk()).await;
    let at = |path: &str| format!("http://{}{path}", server.local_addr());
    let client = reqwest::Client::new();
    let send = |path: &str| {
        client
            .post(at(path))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize().to_string())
            .send()
    };
    for path in ["/", "/other", "/mcpx", "/api/mcp"] {
        let reply = send(path).await.unwrap();
        assert_eq!(reply.status(), 404, "{path}");
    }
    // The endpoint, and (as before) a path under it: rmcp reads no path.
    for path in ["/mcp", "/mcp/"] {
        let reply = send(path).await.unwrap();
        assert_eq!(reply.status(), 200, "{path}");
        assert!(reply.headers().contains_key("mcp-session-id"), "{path}");
    }
}
