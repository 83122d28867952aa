//! The OpenAI-compatible client against a loopback HTTP server replaying realistic answers and
//! SSE streams; the outbound request bodies are asserted too.

use std::time::Duration;

use agents_kt::prelude::*;
use agents_kt::{
    AgentError, BudgetLimit, HttpSettings, ModelError, OpenAiCompatible, RetryPolicy, Usage,
};
use agents_kt_tests::{GetWeather, Log, PATHS, Path, WriteFile, bodies, drive, mount_in_order};
use serde_json::{Value, json};
use wiremock::matchers::{header, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The endpoint the client posts to.
const ROUTE: &str = "/v1/chat/completions";

fn fast_retries() -> HttpSettings {
    HttpSettings::default()
        .retry(
            RetryPolicy::default()
                .max_retries(2)
                .initial_backoff(Duration::from_millis(5))
                .max_backoff(Duration::from_millis(50)),
        )
        .idle_timeout(Duration::from_secs(5))
}

fn client(server: &MockServer) -> OpenAiCompatible {
    OpenAiCompatible::new(format!("{}/v1", server.uri()), "test-model")
        .api_key("sk-test")
        .settings(fast_retries())
}

fn completion(message: Value, usage: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": usage,
    }))
}

fn text(content: &str) -> ResponseTemplate {
    completion(
        json!({"role": "assistant", "content": content}),
        json!({"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}),
    )
}

fn calls(calls: &[(&str, &str, Value)]) -> ResponseTemplate {
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}))
        .collect();
    completion(
        json!({"role": "assistant", "content": null, "tool_calls": tool_calls}),
        json!({"prompt_tokens": 20, "completion_tokens": 8}),
    )
}

/// An SSE body of `data:` events (chat-completions chunks), `[DONE]` last if `done`.
fn sse(chunks: &[Value], done: bool) -> ResponseTemplate {
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    if done {
        body.push_str("data: [DONE]\n\n");
    }
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

fn delta(delta: Value) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

#[tokio::test]
async fn the_request_carries_messages_tools_schemas_and_tool_choice() {
    let server = MockServer::start().await;
    mount_in_order(&server, ROUTE, vec![text("hello")]).await;
    let agent: Agent<String, String> = Agent::builder("a")
        .model(client(&server))
        .system_prompt("be brief")
        .tool(GetWeather::default())
        .build()
        .unwrap();
    assert_eq!(agent.run("hi".into()).await.unwrap(), "hello");
    let body = &bodies(&server).await[0];
    assert_eq!(body["model"], "test-model");
    assert_eq!(
        body["messages"],
        json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}])
    );
    assert_eq!(body["tool_choice"], "auto");
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "get_weather");
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"],
        json!(["city"])
    );
    assert!(body.get("stream").is_none());
    assert!(
        body.get("parallel_tool_calls").is_none(),
        "the server's default unless set"
    );
    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(
        request.headers.get("authorization").unwrap(),
        "Bearer sk-test"
    );
}

#[tokio::test]
async fn parallel_tool_calls_run_in_order_and_results_carry_their_tool_call_ids() {
    let server = MockServer::start().await;
    mount_in_order(
        &server,
        ROUTE,
        vec![
            calls(&[
                ("call_a", "get_weather", json!({"city": "Oslo"})),
                (
                    "call_b",
                    "writeFile",
                    json!({"path": "/etc/x", "contents": "y"}),
                ),
            ]),
            text("done"),
        ],
    )
    .await;
    let weather = GetWeather::default();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(client(&server))
        .tool(weather.clone())
        .tool(WriteFile::default())
        .on_before_tool_call(|name: &str, _: &Value| {
            if name == "writeFile" {
                Decision::deny("system paths are off-limits")
            } else {
                Decision::Proceed
            }
        })
        .build()
        .unwrap();
    assert_eq!(agent.run("go".into()).await.unwrap(), "done");
    assert_eq!(weather.ran.len(), 1);
    let second = &bodies(&server).await[1];
    let messages = second["messages"].as_array().unwrap();
    let n = messages.len();
    assert_eq!(messages[n - 3]["role"], "assistant");
    assert_eq!(messages[n - 3]["tool_calls"][1]["id"], "call_b");
    assert_eq!(
        messages[n - 2],
        json!({"role": "tool", "tool_call_id": "call_a", "content": r#"{"celsius":18,"city":"Oslo"}"#})
    );
    assert_eq!(
        messages[n - 1],
        json!({"role": "tool", "tool_call_id": "call_b", "content": "ERROR: Tool 'writeFile' denied by policy: system paths are off-limits"})
    );
}

#[tokio::test]
async fn streamed_tool_arguments_split_over_many_chunks_are_assembled() {
    let server = MockServer::start().await;
    let arguments = r#"{"city": "Reykjavík"}"#;
    let mut chunks = vec![delta(
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
        ]}),
    )];
    for piece in arguments.chars() {
        chunks.push(delta(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": piece.to_string()}}]}),
        ));
    }
    chunks.push(
        json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 12}}),
    );
    mount_in_order(
        &server,
        ROUTE,
        vec![
            sse(&chunks, true),
            sse(&[delta(json!({"content": "Cold."}))], true),
        ],
    )
    .await;
    let weather = GetWeather::default();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(client(&server))
        .tool(weather.clone())
        .build()
        .unwrap();
    let (output, _) = drive(&agent, "x", Path::Session).await;
    assert_eq!(output.unwrap(), "Cold.");
    assert_eq!(weather.ran.entries()[0].city, "Reykjavík");
    let first = &bodies(&server).await[0];
    assert_eq!(first["stream"], true);
    assert_eq!(first["stream_options"]["include_usage"], true);
}

#[tokio::test]
async fn interleaved_parallel_streamed_calls_and_empty_deltas_are_handled() {
    let server = MockServer::start().await;
    let chunks = vec![
        delta(json!({"role": "assistant", "content": ""})),
        delta(
            json!({"tool_calls": [{"index": 0, "id": "c0", "function": {"name": "get_weather", "arguments": "{\"ci"}}]}),
        ),
        delta(
            json!({"tool_calls": [{"index": 1, "id": "c1", "function": {"name": "get_weather", "arguments": "{\"city\""}}]}),
        ),
        delta(json!({})),
        delta(json!({"content": null})),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "ty\": \"A\"}"}}]})),
        delta(json!({"tool_calls": [{"index": 1, "function": {"arguments": ": \"B\"}"}}]})),
    ];
    mount_in_order(
        &server,
        ROUTE,
        vec![
            sse(&chunks, true),
            sse(&[delta(json!({"content": "ok"}))], true),
        ],
    )
    .await;
    let weather = GetWeather::default();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(client(&server))
        .tool(weather.clone())
        .build()
        .unwrap();
    drive(&agent, "x", Path::Session).await.0.unwrap();
    let cities: Vec<String> = weather.ran.entries().into_iter().map(|a| a.city).collect();
    assert_eq!(cities, vec!["A", "B"]);
}

#[tokio::test]
async fn a_stream_cut_mid_call_is_an_error_and_runs_no_tool() {
    let server = MockServer::start().await;
    let chunks = vec![delta(
        json!({"tool_calls": [{"index": 0, "id": "c0", "function": {"name": "get_weather", "arguments": "{\"city\": \"Os"}}]}),
    )];
    mount_in_order(&server, ROUTE, vec![sse(&chunks, false)]).await;
    let weather = GetWeather::default();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(client(&server))
        .tool(weather.clone())
        .build()
        .unwrap();
    let error = drive(&agent, "x", Path::Session).await.0.unwrap_err();
    assert!(
        matches!(error, AgentError::Model(ModelError::StreamBroken(_))),
        "{error}"
    );
    assert!(weather.ran.is_empty());
}

#[tokio::test]
async fn a_429_is_retried_after_retry_after_then_succeeds() {
    let server = MockServer::start().await;
    mount_in_order(
        &server,
        ROUTE,
        vec![
            ResponseTemplate::new(429)
                .insert_header("retry-after", "0")
                .set_body_string("slow down"),
            text("finally"),
        ],
    )
    .await;
    let agent: Agent<String, String> = Agent::builder("a").model(client(&server)).build().unwrap();
    assert_eq!(agent.run("x".into()).await.unwrap(), "finally");
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_streaming_request_is_retried_before_it_starts_delivering() {
    let server = MockServer::start().await;
    mount_in_order(
        &server,
        ROUTE,
        vec![
            ResponseTemplate::new(503).set_body_string("busy"),
            sse(&[delta(json!({"content": "streamed"}))], true),
        ],
    )
    .await;
    let agent: Agent<String, String> = Agent::builder("a").model(client(&server)).build().unwrap();
    assert_eq!(
        drive(&agent, "x", Path::Session).await.0.unwrap(),
        "streamed"
    );
}

#[tokio::test]
async fn a_500_until_retries_run_out_reports_the_status_and_body() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string(r#"{"error":{"message":"boom"}}"#))
        .mount(&server)
        .await;
    for path in PATHS {
        let agent: Agent<String, String> =
            Agent::builder("a").model(client(&server)).build().unwrap();
        let error = drive(&agent, "x", path).await.0.unwrap_err();
        assert!(
            matches!(&error, AgentError::Model(ModelError::Http { status: 500, body, .. })
                if body == r#"{"error":{"message":"boom"}}"#),
            "{error:?}"
        );
    }
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        6,
        "1 try + 2 retries, per path"
    );
}

#[tokio::test]
async fn a_400_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_string("bad request: unknown model"))
        .mount(&server)
        .await;
    let agent: Agent<String, String> = Agent::builder("a").model(client(&server)).build().unwrap();
    let error = agent.run("x".into()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "model provider answered HTTP 400: bad request: unknown model"
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn an_invalid_json_body_is_a_clear_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>gateway</html>"))
        .mount(&server)
        .await;
    let agent: Agent<String, String> = Agent::builder("a").model(client(&server)).build().unwrap();
    let error = agent.run("x".into()).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::Model(ModelError::InvalidResponse(m)) if m.contains("<html>gateway</html>")),
        "{error}"
    );
}

#[tokio::test]
async fn an_invalid_stream_chunk_is_a_clear_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("data: {not json\n\n", "text/event-stream"),
        )
        .mount(&server)
        .await;
    let agent: Agent<String, String> = Agent::builder("a").model(client(&server)).build().unwrap();
    let error = drive(&agent, "x", Path::Session).await.0.unwrap_err();
    assert!(
        matches!(&error, AgentError::Model(ModelError::InvalidResponse(m)) if m.contains("not JSON")),
        "{error}"
    );
}

#[tokio::test]
async fn token_usage_feeds_on_token_usage_and_max_tokens() {
    let server = MockServer::start().await;
    mount_in_order(
        &server,
        ROUTE,
        vec![
            calls(&[("c", "get_weather", json!({"city": "Oslo"}))]),
            text("never"),
        ],
    )
    .await;
    let seen = Log::new();
    let record = seen.clone();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(client(&server))
        .tool(GetWeather::default())
        .budget(Budget::default().max_tokens(25))
        .on_token_usage(move |usage| record.push(*usage))
        .build()
        .unwrap();
    let error = agent.run("x".into()).await.unwrap_err();
    assert!(
        matches!(
            error,
            AgentError::BudgetExceeded {
                limit: BudgetLimit::MaxTokens,
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(seen.entries(), vec![Usage::new(20, 8)]);
}

#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Verdict {
    approved: bool,
}

#[tokio::test]
async fn a_structured_output_sends_its_schema_as_the_response_format() {
    let server = MockServer::start().await;
    mount_in_order(&server, ROUTE, vec![text(r#"{"approved": true}"#)]).await;
    let agent: Agent<String, Verdict> = Agent::builder("a").model(client(&server)).build().unwrap();
    assert_eq!(
        agent.run("x".into()).await.unwrap(),
        Verdict { approved: true }
    );
    let body = &bodies(&server).await[0];
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["properties"]["approved"]["type"],
        "boolean"
    );
}

#[tokio::test]
async fn the_stream_path_streams_tokens_and_reports_usage() {
    let server = MockServer::start().await;
    let chunks = vec![
        delta(json!({"role": "assistant", "content": "Hel"})),
        delta(json!({"content": "lo"})),
        json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}),
    ];
    Mock::given(method("POST"))
        .and(header("content-type", "application/json"))
        .respond_with(sse(&chunks, true))
        .mount(&server)
        .await;
    let seen = Log::new();
    let record = seen.clone();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(client(&server))
        .on_token_usage(move |usage| record.push(usage.total()))
        .build()
        .unwrap();
    let (output, events) = drive(&agent, "x", Path::Session).await;
    assert_eq!(output.unwrap(), "Hello");
    let tokens: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Token { .. }))
        .collect();
    assert_eq!(tokens.len(), 2);
    assert_eq!(seen.entries(), vec![7]);
}

#[tokio::test]
async fn parallel_tool_calls_is_sent_with_tools_when_set() {
    let server = MockServer::start().await;
    mount_in_order(&server, ROUTE, vec![text("a"), text("b")]).await;
    let with_tools: Agent<String, String> = Agent::builder("a")
        .model(client(&server).parallel_tool_calls(false))
        .tool(GetWeather::default())
        .build()
        .unwrap();
    with_tools.run("hi".into()).await.unwrap();
    let without_tools: Agent<String, String> = Agent::builder("a")
        .model(client(&server).parallel_tool_calls(true))
        .build()
        .unwrap();
    without_tools.run("hi".into()).await.unwrap();
    let bodies = bodies(&server).await;
    assert_eq!(bodies[0]["parallel_tool_calls"], false);
    assert!(
        bodies[1].get("parallel_tool_calls").is_none(),
        "meaningless without tools"
    );
}

/// A server that answers the first request on each connection with keep-alive, then — as
/// llama-server does after a streamed answer — closes the connection when the next request
/// arrives on it, without answering. Returns its base URL and a count of connections.
async fn server_closing_kept_alive_connections()
-> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<()> {
        let mut seen = Vec::new();
        let mut buffer = [0u8; 4096];
        loop {
            let read = socket.read(&mut buffer).await.ok()?;
            if read == 0 {
                return None;
            }
            seen.extend_from_slice(&buffer[..read]);
            let text = String::from_utf8_lossy(&seen);
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|line| {
                        let (name, value) = line.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if seen.len() >= end + 4 + length {
                    return Some(());
                }
            }
        }
    }

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let connections = std::sync::Arc::new(AtomicUsize::new(0));
    let count = connections.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                if read_request(&mut socket).await.is_none() {
                    return;
                }
                let body = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}]}).to_string();
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nkeep-alive: timeout=5, max=100\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
                // The next request on this connection is read, then the connection dropped.
                let _ = read_request(&mut socket).await;
            });
        }
    });
    (base, connections)
}

#[tokio::test]
async fn a_kept_alive_connection_the_server_closed_is_resent_at_once_not_failed() {
    let (base, connections) = server_closing_kept_alive_connections().await;
    let model = OpenAiCompatible::new(base, "m").settings(
        // No retries: the resend is not one, it is the same request on a fresh connection.
        HttpSettings::default().retry(RetryPolicy::default().max_retries(0)),
    );
    let request = agents_kt::ChatRequest::new(vec![Message::user("hi")]);
    for turn in 0..3 {
        let answer = model.chat(&request).await;
        assert_eq!(
            answer.map(|a| a.content).ok().as_deref(),
            Some("hello"),
            "turn {turn}"
        );
    }
    assert_eq!(
        connections.load(std::sync::atomic::Ordering::SeqCst),
        3,
        "each later turn met a closed connection and opened a fresh one"
    );
}

#[tokio::test]
async fn the_answering_model_and_finish_reason_are_read_whole_and_streamed() {
    use agents_kt::{ChatRequest, Message, ModelClient};
    let server = MockServer::start().await;
    let finished = json!({"id": "c", "model": "test-model-2026", "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]});
    mount_in_order(
        &server,
        ROUTE,
        vec![
            text("whole"),
            sse(&[delta(json!({"content": "streamed"})), finished], true),
        ],
    )
    .await;
    let model = client(&server);
    let request = ChatRequest::new(vec![Message::user("x")]);
    let whole = model.chat(&request).await.unwrap();
    assert_eq!(whole.model.as_deref(), Some("test-model"));
    assert_eq!(whole.finish_reason.as_deref(), Some("stop"));
    let streamed = agents_kt_tests::streamed(&model, &request).await;
    assert_eq!(streamed.content, "streamed");
    assert_eq!(streamed.model.as_deref(), Some("test-model-2026"));
    assert_eq!(streamed.finish_reason.as_deref(), Some("length"));

    let info = model.info();
    let address: std::net::SocketAddr = server.address().to_owned();
    assert_eq!(info.provider, "openai");
    assert_eq!(info.model.as_deref(), Some("test-model"));
    assert_eq!(info.server_address.as_deref(), Some("127.0.0.1"));
    assert_eq!(info.server_port, Some(address.port()));
}
