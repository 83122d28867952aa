//! The byte-stream transport (stdio, pipes) probed with raw lines: lines that are not JSON-RPC
//! messages get JSON-RPC errors, and a client that stops reading replies is stopped from sending
//! more, instead of the server buffering without bound.

use std::time::Duration;

use agents_kt::McpServer;
use agents_kt::prelude::*;
use agents_kt_tests::GetWeather;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// A server on an in-process pipe: the client's writer and a reader of the server's lines.
fn start() -> (DuplexStream, tokio::io::Lines<BufReader<DuplexStream>>) {
    let agent: Agent<String, String> = Agent::builder("desk")
        .model(ScriptedModel::default())
        .tool(GetWeather::default())
        .build()
        .unwrap();
    let server = McpServer::builder(agent)
        .expose_tool::<GetWeather>()
        .build()
        .unwrap();
    let (client_writes, server_reads) = tokio::io::duplex(4 * 1024);
    let (server_writes, client_reads) = tokio::io::duplex(4 * 1024);
    tokio::spawn(server.serve((server_reads, server_writes)));
    (client_writes, BufReader::new(client_reads).lines())
}

async fn send(writer: &mut DuplexStream, line: &str) {
    writer.write_all(line.as_bytes()).await.unwrap();
    writer.write_all(b"\n").await.unwrap();
}

async fn next(lines: &mut tokio::io::Lines<BufReader<DuplexStream>>) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("an answer")
        .unwrap()
        .expect("a line");
    serde_json::from_str(&line).unwrap()
}

async fn initialize(
    writer: &mut DuplexStream,
    lines: &mut tokio::io::Lines<BufReader<DuplexStream>>,
) {
    let hello = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    send(writer, &hello.to_string()).await;
    assert!(next(lines).await["result"]["serverInfo"].is_object());
    send(
        writer,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    )
    .await;
}

#[tokio::test]
async fn lines_that_are_not_json_rpc_messages_are_answered_and_the_server_keeps_serving() {
    let (mut writer, mut lines) = start();
    initialize(&mut writer, &mut lines).await;
    let cases = [
        ("{not json", -32700, Value::Null),
        (
            r#"[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]"#,
            -32600,
            Value::Null,
        ),
        (r#"{"id": 5, "method": "ping"}"#, -32600, json!(5)),
        (r#"{"jsonrpc": "2.0", "id": 6}"#, -32600, json!(6)),
        // An id that cannot be echoed is answered with null.
        (
            r#"{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc": "2.0", "id": [7], "method": "ping"}"#,
            -32600,
            Value::Null,
        ),
        // Invalid params: -32602 for the request's id, not "method not found".
        (
            r#"{"jsonrpc": "2.0", "id": 21, "method": "tools/call", "params": {"name": "get_weather", "arguments": "x"}}"#,
            -32602,
            json!(21),
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 22, "method": "tools/call", "params": {"arguments": {}}}"#,
            -32602,
            json!(22),
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 23, "method": "tools/call", "params": {"name": 5}}"#,
            -32602,
            json!(23),
        ),
        (
            r#"{"jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": ["get_weather"]}"#,
            -32602,
            json!("s"),
        ),
    ];
    for (line, code, id) in cases {
        send(&mut writer, line).await;
        let answer = next(&mut lines).await;
        assert_eq!(answer["error"]["code"], code, "{line}: {answer}");
        assert_eq!(answer["id"], id, "{line}");
    }
    send(
        &mut writer,
        &json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string(),
    )
    .await;
    assert_eq!(next(&mut lines).await["id"], 9, "still serving");
}

#[tokio::test]
async fn a_client_that_stops_reading_replies_is_stopped_from_sending_more() {
    let (mut writer, mut lines) = start();
    initialize(&mut writer, &mut lines).await;
    // Requests, without reading a single reply: the server stops reading them once its
    // outstanding answers are full and the pipes are, so the client's writes block.
    let mut sent = 0;
    loop {
        let request = json!({"jsonrpc": "2.0", "id": 100 + sent, "method": "ping"}).to_string();
        let write = async {
            writer.write_all(request.as_bytes()).await.unwrap();
            writer.write_all(b"\n").await.unwrap();
        };
        if tokio::time::timeout(Duration::from_millis(500), write)
            .await
            .is_err()
        {
            break;
        }
        sent += 1;
        assert!(
            sent < 5_000,
            "the server read 5,000 requests nobody reads answers to"
        );
    }
    assert!(
        sent >= 64,
        "at least the outstanding window is accepted: {sent}"
    );
    // Reading resumes the flow: every request sent is answered, in order.
    for expected in 0..sent {
        let answer = next(&mut lines).await;
        assert_eq!(answer["id"], 100 + expected, "{answer}");
    }
}
