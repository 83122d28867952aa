//! The Anthropic client against a loopback HTTP server replaying Messages API answers and event
//! streams; outbound bodies and headers are asserted.

use std::time::Duration;

use agents_kt::prelude::*;
use agents_kt::{AgentError, Anthropic, HttpSettings, ModelError, RetryPolicy};
use agents_kt_tests::{GetWeather, Path, WriteFile, bodies, drive, mount_in_order};
use serde_json::{Value, json};
use wiremock::matchers::{header, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The endpoint the client posts to.
const ROUTE: &str = "/v1/messages";

fn client(server: &MockServer) -> Anthropic {
    Anthropic::new("claude-test")
        .base_url(server.uri())
        .api_key("ak-test")
        .max_tokens(512)
        .settings(
            HttpSettings::default().retry(
                RetryPolicy::default()
                    .max_retries(2)
                    .initial_backoff(Duration::from_millis(5))
                    .max_backoff(Duration::from_millis(50)),
            ),
        )
}

fn message(content: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content, "stop_reason": "end_turn",
        "usage": {"input_tokens": 12, "output_tokens": 4},
    }))
}

/// An event stream: `(event, data)` pairs.
fn events(events: &[(&str, Value)]) -> ResponseTemplate {
    let body: String = events
        .iter()
        .map(|(kind, data)| format!("event: {kind}\ndata: {data}\n\n"))
        .collect();
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

#[tokio::test]
async fn the_request_carries_system_tools_and_headers() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(header("x-api-key", "ak-test"))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(message(json!([{"type": "text", "text": "hi there"}])))
        .mount(&server)
        .await;
    let agent: Agent<String, String> = Agent::builder("a")
        .model(client(&server))
        .system_prompt("be brief")
        .tool(GetWeather::default())
        .build()
        .unwrap();
    assert_eq!(agent.run("hello".into()).await.unwrap(), "hi there");
    let body = &bodies(&server).await[0];
    assert_eq!(body["model"], "claude-test");
    assert_eq!(body["max_tokens"], 512);
    assert_eq!(body["system"], "be brief");
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "hello"}]}])
    );
    assert_eq!(body["tools"][0]["name"], "get_weather");
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
}

#[tokio::test]
async fn tool_use_answers_run_tools_and_results_carry_ids_and_is_error() {
    let server = MockServer::start().await;
    mount_in_order(
        &server,
        ROUTE,
        vec![
            message(json!([
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
                {"type": "tool_use", "id": "toolu_2", "name": "writeFile", "input": {"path": "/etc/x", "contents": "y"}},
            ])),
            message(json!([{"type": "text", "text": "Done."}])),
        ],
    )
    .await;
    let agent: Agent<String, String> = Agent::builder("a")
        .model(client(&server))
        .tool(GetWeather::default())
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
    assert_eq!(agent.run("go".into()).await.unwrap(), "Done.");
    let messages = bodies(&server).await[1]["messages"].clone();
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["content"][1],
        json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}})
    );
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": r#"{"celsius":18,"city":"Oslo"}"#, "is_error": false},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "ERROR: Tool 'writeFile' denied by policy: system paths are off-limits", "is_error": true},
        ]}),
        "consecutive tool results form one user turn"
    );
}

fn stream_with_tool_call() -> Vec<(&'static str, Value)> {
    vec![
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 25, "output_tokens": 1}}}),
        ),
        ("ping", json!({"type": "ping"})),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me "}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "check."}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_9", "name": "get_weather", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Ber"}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "gen\"}"}}),
        ),
        (
            "future_event_type",
            json!({"type": "future_event_type", "anything": 1}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 40}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]
}

#[tokio::test]
async fn streamed_text_and_tool_input_deltas_are_assembled_and_unknown_events_ignored() {
    let server = MockServer::start().await;
    mount_in_order(
        &server,
        ROUTE,
        vec![
            events(&stream_with_tool_call()),
            events(&[
                ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Rainy."}})),
                ("message_stop", json!({"type": "message_stop"})),
            ]),
        ],
    )
    .await;
    let weather = GetWeather::default();
    let usage = agents_kt_tests::Log::new();
    let record = usage.clone();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(client(&server))
        .tool(weather.clone())
        .on_token_usage(move |u| record.push(*u))
        .build()
        .unwrap();
    let (output, events) = drive(&agent, "x", Path::Session).await;
    assert_eq!(output.unwrap(), "Rainy.");
    assert_eq!(weather.ran.entries()[0].city, "Bergen");
    assert!(events.contains(&AgentEvent::token("Let me ")));
    assert_eq!(usage.entries(), vec![agents_kt::Usage::new(25, 40)]);
    assert_eq!(bodies(&server).await[0]["stream"], true);
    let second = &bodies(&server).await[1]["messages"];
    assert_eq!(second[2]["content"][0]["tool_use_id"], "toolu_9");
}

#[tokio::test]
async fn a_stream_error_event_ends_the_turn_with_the_providers_error() {
    let server = MockServer::start().await;
    mount_in_order(
        &server,
        ROUTE,
        vec![events(&[
            ("message_start", json!({"type": "message_start", "message": {"usage": {"input_tokens": 1}}})),
            ("error", json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
        ])],
    )
    .await;
    let agent: Agent<String, String> = Agent::builder("a").model(client(&server)).build().unwrap();
    let error = drive(&agent, "x", Path::Session).await.0.unwrap_err();
    assert!(error.to_string().contains("overloaded_error"), "{error}");
}

#[tokio::test]
async fn a_stream_cut_before_message_stop_runs_no_tool() {
    let server = MockServer::start().await;
    let mut cut = stream_with_tool_call();
    cut.truncate(9);
    mount_in_order(&server, ROUTE, vec![events(&cut)]).await;
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
async fn an_overloaded_answer_is_retried_then_succeeds() {
    let server = MockServer::start().await;
    mount_in_order(
        &server,
        ROUTE,
        vec![
            ResponseTemplate::new(529)
                .set_body_json(json!({"type": "error", "error": {"type": "overloaded_error"}})),
            message(json!([{"type": "text", "text": "ok"}])),
        ],
    )
    .await;
    let agent: Agent<String, String> = Agent::builder("a").model(client(&server)).build().unwrap();
    assert_eq!(agent.run("x".into()).await.unwrap(), "ok");
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

/// A structured output, which the Messages API carries as the input of a forced tool.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Forecast {
    city: String,
    celsius: i32,
}

#[tokio::test]
async fn a_structured_output_is_the_input_of_a_forced_output_tool_on_run() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(message(json!([
            {"type": "text", "text": "Here it is:"},
            {"type": "tool_use", "id": "toolu_1", "name": "agents_kt_output",
             "input": {"city": "Oslo", "celsius": 3}},
        ])))
        .mount(&server)
        .await;
    let agent: Agent<String, Forecast> =
        Agent::builder("a").model(client(&server)).build().unwrap();
    let forecast = agent.run("forecast".into()).await.unwrap();
    assert_eq!(
        forecast,
        Forecast {
            city: "Oslo".into(),
            celsius: 3
        },
        "the commentary beside the call is not part of the output"
    );
    let body = &bodies(&server).await[0];
    assert_eq!(body["tools"][0]["name"], "agents_kt_output");
    assert_eq!(
        body["tools"][0]["input_schema"]["required"],
        json!(["city", "celsius"])
    );
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "agents_kt_output", "disable_parallel_tool_use": true})
    );
}

#[tokio::test]
async fn a_streamed_structured_output_is_released_whole_at_message_stop() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(events(&[
            ("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
            ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Sure."}})),
            ("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "agents_kt_output", "input": {}}})),
            ("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Os"}})),
            ("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "lo\", \"celsius\": -2}"}})),
            ("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
            ("message_stop", json!({"type": "message_stop"})),
        ]))
        .mount(&server)
        .await;
    let agent: Agent<String, Forecast> =
        Agent::builder("a").model(client(&server)).build().unwrap();
    let (output, events) = drive(&agent, "forecast", Path::Session).await;
    assert_eq!(output.unwrap().celsius, -2);
    let tokens: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Token { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        tokens,
        vec![r#"{"city": "Oslo", "celsius": -2}"#.to_string()],
        "no commentary, no call: the answer"
    );
}

#[tokio::test]
async fn beside_other_tools_the_output_tool_is_offered_and_some_tool_is_required() {
    let server = MockServer::start().await;
    mount_in_order(
        &server,
        ROUTE,
        vec![
            message(json!([{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}])),
            message(json!([{"type": "tool_use", "id": "toolu_2", "name": "agents_kt_output", "input": {"city": "Oslo", "celsius": 7}}])),
        ],
    )
    .await;
    let weather = GetWeather::default();
    let agent: Agent<String, Forecast> = Agent::builder("a")
        .model(client(&server))
        .tool(weather.clone())
        .build()
        .unwrap();
    assert_eq!(agent.run("x".into()).await.unwrap().celsius, 7);
    assert_eq!(weather.ran.entries()[0].city, "Oslo", "the real tool ran");
    let body = &bodies(&server).await[0];
    let names: Vec<_> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("get_weather"), json!("agents_kt_output")]);
    assert_eq!(body["tool_choice"], json!({"type": "any"}));
}

#[tokio::test]
async fn a_list_output_travels_wrapped_and_comes_back_unwrapped() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(message(json!([{"type": "tool_use", "id": "toolu_1", "name": "agents_kt_output", "input": {"value": [{"city": "Oslo", "celsius": 1}]}}])))
        .mount(&server)
        .await;
    let agent: Agent<String, Vec<Forecast>> =
        Agent::builder("a").model(client(&server)).build().unwrap();
    assert_eq!(agent.run("x".into()).await.unwrap()[0].city, "Oslo");
    let schema = &bodies(&server).await[0]["tools"][0]["input_schema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["value"]["type"], "array");
    assert!(schema["$defs"]["Forecast"].is_object(), "{schema}");
}

#[tokio::test]
async fn the_answering_model_and_stop_reason_are_read_whole_and_streamed() {
    use agents_kt::{ChatRequest, Message, ModelClient};
    let server = MockServer::start().await;
    let stream = events(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"model": "claude-test-2026", "usage": {"input_tokens": 3}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "streamed"}}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 1}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    mount_in_order(
        &server,
        ROUTE,
        vec![message(json!([{"type": "text", "text": "whole"}])), stream],
    )
    .await;
    let model = client(&server);
    let request = ChatRequest::new(vec![Message::user("x")]);
    let whole = model.chat(&request).await.unwrap();
    assert_eq!(whole.model.as_deref(), Some("claude-test"));
    assert_eq!(whole.finish_reason.as_deref(), Some("end_turn"));
    let streamed = agents_kt_tests::streamed(&model, &request).await;
    assert_eq!(streamed.content, "streamed");
    assert_eq!(streamed.model.as_deref(), Some("claude-test-2026"));
    assert_eq!(streamed.finish_reason.as_deref(), Some("max_tokens"));
    assert_eq!(model.info().provider, "anthropic");
    assert_eq!(model.info().model.as_deref(), Some("claude-test"));
}
