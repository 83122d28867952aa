//! A2A on loopback, one task at a time on a kept-alive connection:
//!
//! - **Server**: a blocking `SendMessage` to `A2aServer` against two baselines running the same
//!   agent (one tool call behind 8 Proceed interceptors, then an answer) with `Agent::run` and
//!   answering with the completed task: a bare `a2a-server-lf` handler on the official crate's
//!   JSON-RPC router (what our server is built on: the ratio is what our layer — admission, the
//!   task table, the session path and its events as task updates — costs), and a bare axum
//!   handler parsing the request as JSON (the cost of the official crate's typed parsing too).
//! - **Client**: `A2aAgent::send` against a bare `reqwest` POST of the same
//!   `SendStreamingMessage` request to the same server, reading its event stream to the end. The
//!   difference is what our client adds per call.
//!
//! `cargo bench -p agents-kt --bench a2a --features a2a`; see BENCHMARKS.md for the numbers.

use std::hint::black_box;

use a2a::A2AError;
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::{RequestHandler, ServiceParams};
use agents_kt::prelude::*;
use agents_kt::{
    A2aAgent, A2aServer, ChatRequest, ChatResponse, ChatStream, ModelError, Role, ToolCall,
};
use criterion::{Criterion, criterion_group, criterion_main};
use futures::future::BoxFuture;
use serde_json::{Value, json};

#[path = "support/weather.rs"]
mod weather;
use weather::{GetWeather, interceptors};

/// Asks for the weather, then answers with what the tool said: every task is one tool call.
struct WeatherModel;

impl WeatherModel {
    fn answer(request: &ChatRequest) -> ChatResponse {
        let last = request.messages.last();
        match last.filter(|m| m.role == Role::Tool) {
            Some(result) => ChatResponse::text(format!("report: {}", result.content)),
            None => ChatResponse::default().with_tool_calls(vec![ToolCall::new(
                "call-1",
                "get_weather",
                r#"{"city":"Oslo","days":3}"#,
            )]),
        }
    }
}

impl ModelClient for WeatherModel {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let response = WeatherModel::answer(request);
        Box::pin(async move { Ok(response) })
    }

    // The A2A server runs the session path: the same answer, as one chunk each.
    fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a> {
        let chunks = WeatherModel::answer(request).to_chunks();
        Box::pin(futures::stream::iter(chunks.into_iter().map(Ok)))
    }
}

fn agent() -> Agent<String, String> {
    let mut builder = Agent::<String, String>::builder("bench")
        .model(WeatherModel)
        .tool(GetWeather);
    for interceptor in interceptors(8) {
        builder = builder.before_tool_call(interceptor);
    }
    builder.build().expect("the agent builds")
}

/// The official crate's baseline: its JSON-RPC router over a handler that runs the agent and
/// answers with the completed task (every other method unsupported).
struct BareHandler(Agent<String, String>);

#[async_trait::async_trait]
impl RequestHandler for BareHandler {
    async fn send_message(
        &self,
        _: &ServiceParams,
        request: a2a::SendMessageRequest,
    ) -> Result<a2a::SendMessageResponse, A2AError> {
        let text = request.message.text().unwrap_or_default().to_string();
        let output = self.0.run(text).await.unwrap_or_else(|e| e.to_string());
        let mut task = a2a::Task {
            id: a2a::new_task_id(),
            context_id: a2a::new_context_id(),
            status: a2a::TaskStatus {
                state: a2a::TaskState::Completed,
                message: None,
                timestamp: None,
            },
            artifacts: None,
            history: Some(vec![request.message]),
            metadata: None,
        };
        task.artifacts = Some(vec![a2a::Artifact {
            artifact_id: "output".into(),
            name: None,
            description: None,
            parts: vec![a2a::Part::text(output)],
            metadata: None,
            extensions: None,
        }]);
        Ok(a2a::SendMessageResponse::Task(task))
    }
    async fn send_streaming_message(
        &self,
        _: &ServiceParams,
        _: a2a::SendMessageRequest,
    ) -> Result<Events, A2AError> {
        Err(unsupported())
    }
    async fn get_task(
        &self,
        _: &ServiceParams,
        _: a2a::GetTaskRequest,
    ) -> Result<a2a::Task, A2AError> {
        Err(unsupported())
    }
    async fn list_tasks(
        &self,
        _: &ServiceParams,
        _: a2a::ListTasksRequest,
    ) -> Result<a2a::ListTasksResponse, A2AError> {
        Err(unsupported())
    }
    async fn cancel_task(
        &self,
        _: &ServiceParams,
        _: a2a::CancelTaskRequest,
    ) -> Result<a2a::Task, A2AError> {
        Err(unsupported())
    }
    async fn subscribe_to_task(
        &self,
        _: &ServiceParams,
        _: a2a::SubscribeToTaskRequest,
    ) -> Result<Events, A2AError> {
        Err(unsupported())
    }
    async fn create_push_config(
        &self,
        _: &ServiceParams,
        _: a2a::TaskPushNotificationConfig,
    ) -> Result<a2a::TaskPushNotificationConfig, A2AError> {
        Err(unsupported())
    }
    async fn get_push_config(
        &self,
        _: &ServiceParams,
        _: a2a::GetTaskPushNotificationConfigRequest,
    ) -> Result<a2a::TaskPushNotificationConfig, A2AError> {
        Err(unsupported())
    }
    async fn list_push_configs(
        &self,
        _: &ServiceParams,
        _: a2a::ListTaskPushNotificationConfigsRequest,
    ) -> Result<a2a::ListTaskPushNotificationConfigsResponse, A2AError> {
        Err(unsupported())
    }
    async fn delete_push_config(
        &self,
        _: &ServiceParams,
        _: a2a::DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), A2AError> {
        Err(unsupported())
    }
    async fn get_extended_agent_card(
        &self,
        _: &ServiceParams,
        _: a2a::GetExtendedAgentCardRequest,
    ) -> Result<a2a::AgentCard, A2AError> {
        Err(unsupported())
    }
}

type Events = futures::stream::BoxStream<'static, Result<a2a::StreamResponse, A2AError>>;

fn unsupported() -> A2AError {
    A2AError::unsupported_operation("not in the baseline")
}

/// Serve `router` on loopback; its URL.
async fn serve_router(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let url = format!("http://{}", listener.local_addr().expect("its address"));
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

/// The bare axum baseline: parse the JSON-RPC request, run the agent, write the completed task.
async fn serve_bare() -> String {
    let agent = agent();
    let handler = move |body: axum::body::Bytes| {
        let agent = agent.clone();
        async move {
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let text = request["params"]["message"]["parts"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let output = agent.run(text).await.unwrap_or_else(|e| e.to_string());
            axum::Json(json!({
                "jsonrpc": "2.0",
                "id": request["id"],
                "result": {"task": {
                    "id": "t", "contextId": "c",
                    "status": {"state": "TASK_STATE_COMPLETED"},
                    "artifacts": [{"artifactId": "output", "parts": [{"text": output}]}],
                }},
            }))
        }
    };
    serve_router(axum::Router::new().route("/", axum::routing::post(handler))).await
}

fn request(method: &str) -> String {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": method,
        "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "weather?"}]}},
    })
    .to_string()
}

/// One POST of `body`, read to its end; it must report the weather.
async fn post(http: &reqwest::Client, url: &str, body: &str) {
    let reply = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream, application/json")
        .header("A2A-Version", "1.0")
        .body(body.to_string())
        .send()
        .await
        .expect("the server answers");
    assert!(reply.status().is_success(), "{}", reply.status());
    let body = reply.bytes().await.expect("the reply");
    assert!(
        body.windows(7).any(|w| w == b"celsius"),
        "the tool answered: {}",
        String::from_utf8_lossy(&body)
    );
    black_box(body);
}

fn a2a_round_trip(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let http = reqwest::Client::new();
    let (server, bare_url, official_url) = runtime.block_on(async {
        let server = A2aServer::builder(agent())
            .build()
            .expect("the server builds")
            .bind("127.0.0.1:0".parse().expect("an address"))
            .await
            .expect("the server listens");
        let official = jsonrpc_router(std::sync::Arc::new(BareHandler(agent())));
        (server, serve_bare().await, serve_router(official).await)
    });
    let ours_url = server.url().to_string();
    let send = request("SendMessage");
    let mut group = c.benchmark_group("a2a_send_message");
    group.bench_function("bare axum handler running the agent", |b| {
        b.iter(|| runtime.block_on(post(&http, &bare_url, &send)))
    });
    group.bench_function(
        "bare a2a-server-lf handler running the agent (baseline)",
        |b| b.iter(|| runtime.block_on(post(&http, &official_url, &send))),
    );
    group.bench_function("agents-kt A2aServer, 8 interceptors", |b| {
        b.iter(|| runtime.block_on(post(&http, &ours_url, &send)))
    });
    group.finish();

    let client = runtime.block_on(async {
        A2aAgent::<String, String>::connect(&ours_url)
            .await
            .expect("the client connects")
    });
    let stream = request("SendStreamingMessage");
    let mut group = c.benchmark_group("a2a_client");
    group.bench_function("bare POST of SendStreamingMessage (baseline)", |b| {
        b.iter(|| runtime.block_on(post(&http, &ours_url, &stream)))
    });
    group.bench_function("A2aAgent::send", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let output = client.send("weather?".into()).await.expect("an answer");
                assert!(output.contains("celsius"), "{output}");
                black_box(output)
            })
        })
    });
    group.finish();
}

criterion_group!(benches, a2a_round_trip);
criterion_main!(benches);
