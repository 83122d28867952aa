//! A peer parses the same bytes: a real llama-server answers our `OpenAiCompatible` client (chat
//! and stream; two tool calls in one answer, and a text answer); the exact request and answer
//! are recorded, and the official `openai` Python client is sent the same request and handed the
//! same answer bytes.
//! What each understood — text, every tool call's id, name and arguments, the token usage — must
//! match field for field, and the peer's request must be the one we sent.
//!
//! The peer is installed by `scripts/provider-peers.sh` (which `scripts/test.sh` runs, exporting
//! `OPENAI_PEER_PYTHONPATH`); `AGENTS_KT_REQUIRE_PEERS=1` makes its absence a failure.

use std::process::Command;

use agents_kt::{
    ChatRequest, ChatResponse, Message, ModelClient, OpenAiCompatible, ResponseAssembler, ToolSpec,
};
use agents_kt_tests::llama::{Exchange, Recorder, Tools, greedy_server, locate, patient};
use futures::StreamExt;
use serde_json::{Value, json};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// Where the `openai` package is installed, or `None` (after saying why) when it is not.
fn peer_path() -> Option<String> {
    match std::env::var("OPENAI_PEER_PYTHONPATH") {
        Ok(dir) => Some(dir),
        Err(_) => {
            let required = std::env::var("AGENTS_KT_REQUIRE_PEERS").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "AGENTS_KT_REQUIRE_PEERS=1 but OPENAI_PEER_PYTHONPATH is not set"
            );
            eprintln!(
                "skipping: run `eval \"$(scripts/provider-peers.sh)\"` to compare with the openai client"
            );
            None
        }
    }
}

fn weather_request() -> ChatRequest {
    ChatRequest::new(vec![Message::user(
        "What is the weather in Paris and in Oslo? Call get_weather once per city.",
    )])
    .with_tools(vec![ToolSpec::new(
        "get_weather",
        "Current weather for a city.",
        json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        }),
    )])
}

/// What a client understood of one answer, in the peer script's shape.
fn understood(response: &ChatResponse) -> Value {
    json!({
        "content": response.content,
        "tool_calls": response.tool_calls.iter().map(|call| json!({
            "id": call.id, "name": call.name, "arguments": call.arguments,
        })).collect::<Vec<_>>(),
        "usage": response.usage.map(|usage| json!({
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
        })),
    })
}

/// Our client's answer to `request`, whole or streamed (and assembled), through the recorder.
async fn ours(model: &OpenAiCompatible, request: &ChatRequest, stream: bool) -> ChatResponse {
    if !stream {
        return model.chat(request).await.expect("the server answers");
    }
    let mut chunks = model.chat_stream(request);
    let mut answer = ResponseAssembler::default();
    while let Some(chunk) = chunks.next().await {
        answer.push(chunk.expect("the stream holds"));
    }
    answer.finish().expect("a whole answer")
}

/// The peer's understanding of `exchange`'s answer, when sent `exchange`'s request; and the
/// request it sent.
async fn peer(python_path: &str, exchange: &Exchange, stream: bool) -> (Value, Value) {
    let replay = MockServer::start().await;
    let content_type = if stream {
        "text/event-stream"
    } else {
        "application/json"
    };
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(exchange.response.clone(), content_type),
        )
        .mount(&replay)
        .await;
    let request_file = std::env::temp_dir().join(format!(
        "agents-kt-peer-request-{}-{stream}.json",
        std::process::id()
    ));
    std::fs::write(&request_file, &exchange.request).expect("the request is written");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/providers-peer/openai_peer.py");
    let base = format!("{}/v1", replay.uri());
    let output = tokio::task::spawn_blocking({
        let python_path = python_path.to_string();
        move || {
            Command::new("python3")
                .arg(script)
                .arg(base)
                .arg(&request_file)
                .env("PYTHONPATH", python_path)
                .output()
                .expect("python3 runs")
        }
    })
    .await
    .expect("the peer's task");
    assert!(
        output.status.success(),
        "the openai client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let understood: Value = serde_json::from_slice(&output.stdout).expect("the peer prints JSON");
    let received = replay.received_requests().await.expect("recorded");
    let sent: Value = serde_json::from_slice(&received[0].body).expect("a JSON request");
    (understood, sent)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_client_understands_a_real_servers_answer_exactly_as_we_do() {
    let (Some((binary, model_path)), Some(python_path)) = (locate(), peer_path()) else {
        return;
    };
    let server = greedy_server(&binary, &model_path, Tools::Parallel).await;
    let text_request = ChatRequest::new(vec![Message::user("Say hello in three words.")]);
    let cases = [
        (weather_request(), false, 2),
        (weather_request(), true, 2),
        (text_request.clone(), false, 0),
        (text_request, true, 0),
    ];
    for (request, stream, calls) in cases {
        let recorder = Recorder::start(&server.base).await;
        let model = OpenAiCompatible::new(format!("{}/v1", recorder.base), "smollm2")
            .max_tokens(64)
            .tool_choice(json!("required"))
            .parallel_tool_calls(true)
            .settings(patient());
        let our_answer = understood(&ours(&model, &request, stream).await);
        let exchange = &recorder.exchanges()[0];
        assert_eq!(exchange.status, 200);
        let (their_answer, their_request) = peer(&python_path, exchange, stream).await;
        println!("stream={stream}: {our_answer}");

        assert_eq!(
            their_request,
            serde_json::from_slice::<Value>(&exchange.request).unwrap(),
            "stream={stream}: the peer sent our request"
        );
        assert_eq!(
            our_answer["tool_calls"].as_array().map(Vec::len),
            Some(calls),
            "stream={stream}: {calls} calls to compare: {our_answer}"
        );
        if calls == 0 {
            assert_ne!(
                our_answer["content"], "",
                "stream={stream}: text to compare"
            );
        }
        assert_eq!(
            our_answer, their_answer,
            "stream={stream}: both clients understood the same answer"
        );
    }
}
