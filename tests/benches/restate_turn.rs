//! What a journaled turn costs on Restate, against the same one-turn run in process, same run:
//! 1. the agent run in process, no journal (baseline);
//! 2. the same run journaled in memory (`MemoryJournal`);
//! 3. a bare Restate workflow doing one journaled step (`ctx.run`) and nothing else, invoked the
//!    same way — what Restate itself costs per invocation;
//! 4. the same run as the Restate workflow `AgentRun`, invoked through the server's ingress and
//!    waited for: HTTP to the server, the invocation over HTTP/2 to the service, the turn
//!    recorded with `ctx.run`, the answer back. (4) − (3) is ours.
//!
//! Needs the Restate server: `eval "$(scripts/restate-server.sh)"; RESTATE_SERVER=$RESTATE_SERVER
//! cargo bench -p agents-kt-tests --bench restate_turn`. Without it, the bench says so and exits.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use agents_kt::{
    Agent, ChatChunk, ChatRequest, ChatResponse, ChatStream, Extensions, MemoryJournal,
    ModelClient, ModelError,
};
use agents_kt_restate::AgentWorkflow;
use agents_kt_tests::restate::RestateServer;
use criterion::{Criterion, criterion_group, criterion_main};
use futures::future::BoxFuture;

/// Answers at once, the same every time: the model costs nothing measurable.
struct Instant;

impl ModelClient for Instant {
    fn chat<'a>(&'a self, _: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        Box::pin(async { Ok(ChatResponse::text("ok")) })
    }

    fn chat_stream<'a>(&'a self, _: &'a ChatRequest) -> ChatStream<'a> {
        Box::pin(futures::stream::once(async {
            Ok::<_, ModelError>(ChatChunk::Text("ok".into()))
        }))
    }
}

/// The baseline: one journaled step, no agent.
struct Bare;

#[restate_sdk::workflow(name = "Bare")]
impl Bare {
    #[handler]
    async fn run(
        &self,
        ctx: restate_sdk::prelude::WorkflowContext<'_>,
        _input: restate_sdk::prelude::Json<serde_json::Value>,
    ) -> Result<restate_sdk::prelude::Json<serde_json::Value>, restate_sdk::prelude::HandlerError>
    {
        use restate_sdk::prelude::*;
        let reply = ctx
            .run(|| async { Ok(Json(serde_json::json!({ "content": "ok" }))) })
            .name("turn#1")
            .await?;
        Ok(reply)
    }
}

fn agent() -> Agent<String, String> {
    Agent::builder("bench").model(Instant).build().unwrap()
}

fn restate_turn(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let Some(server) = runtime.block_on(RestateServer::start()) else {
        eprintln!("restate_turn: RESTATE_SERVER is not set; nothing measured");
        return;
    };
    let service = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let uri = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(AgentWorkflow::new(agent()).serve_on(listener));
        server.register(&uri).await;
        let bare = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let bare_uri = format!("http://{}", bare.local_addr().unwrap());
        tokio::spawn(
            restate_sdk::prelude::HttpServer::new(
                restate_sdk::prelude::Endpoint::builder().bind(Bare).build(),
            )
            .serve(bare),
        );
        server.register(&bare_uri).await;
        uri
    });
    let http = reqwest::Client::new();
    let agent = agent();
    let mut group = c.benchmark_group("one_turn");
    group.sample_size(20);
    group.bench_function("in process, no journal (baseline)", |b| {
        b.iter(|| runtime.block_on(async { black_box(agent.run("x".into()).await.unwrap()) }))
    });
    group.bench_function("in process, journaled in memory", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let journal = Arc::new(MemoryJournal::new("bench"));
                black_box(
                    agent
                        .run_journaled("x".into(), Extensions::new(), journal)
                        .await
                        .unwrap(),
                )
            })
        })
    });
    let runs = AtomicU64::new(0);
    group.bench_function("bare Restate workflow, one ctx.run step", |b| {
        b.iter(|| {
            let key = format!("bare-{}", runs.fetch_add(1, Ordering::Relaxed));
            runtime.block_on(async {
                let response = http
                    .post(format!("{}/Bare/{key}/run", server.ingress))
                    .json(&serde_json::json!("x"))
                    .send()
                    .await
                    .unwrap();
                assert!(response.status().is_success());
                black_box(response.bytes().await.unwrap())
            })
        })
    });
    group.bench_function("Restate workflow through the ingress", |b| {
        b.iter(|| {
            let key = format!("bench-{}", runs.fetch_add(1, Ordering::Relaxed));
            runtime.block_on(async {
                let (status, output) = server.call(&key, "run", Some(serde_json::json!("x"))).await;
                assert_eq!(status, 200, "{output}");
                black_box(output)
            })
        })
    });
    group.finish();
    drop(service);
}

criterion_group!(benches, restate_turn);
criterion_main!(benches);
