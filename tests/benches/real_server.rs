//! Framework time per turn against a real llama-server (issue 11): the wall time of a one-turn
//! `agent.run` (chat) and `agent.session` (streamed), minus the time the server itself reports
//! spending on the turn (its `/metrics` counters `prompt_seconds_total` and
//! `tokens_predicted_seconds_total`, the sums of each answer's `timings`), against the same
//! residual for a bare `reqwest` POST of the same request body in the same run. What is left
//! after the server's compute is HTTP, the server's request handling and our client and loop; the
//! difference between the two rows is ours.
//!
//! Needs `LLAMA_SERVER` and `LLAMA_MODEL` (`eval "$(scripts/llama-server.sh)"`);
//! `cargo bench -p agents-kt-tests --bench real_server`. See BENCHMARKS.md.

use std::time::{Duration, Instant};

use agents_kt::prelude::*;
use agents_kt::{InterceptContext, OpenAiCompatible};
use agents_kt_tests::llama::{LlamaServer, Tools, greedy_server, locate, patient};
use agents_kt_tests::{Path, drive};
use criterion::Criterion;
use futures::StreamExt;
use serde_json::json;

/// Seconds the server has spent computing answers so far, from its metrics.
async fn server_seconds(http: &reqwest::Client, base: &str) -> f64 {
    let metrics = http
        .get(format!("{base}/metrics"))
        .send()
        .await
        .expect("the server's metrics")
        .text()
        .await
        .expect("metrics text");
    metrics
        .lines()
        .filter(|line| {
            line.starts_with("llamacpp:prompt_seconds_total ")
                || line.starts_with("llamacpp:tokens_predicted_seconds_total ")
        })
        .filter_map(|line| line.split_whitespace().nth(1)?.parse::<f64>().ok())
        .sum()
}

/// `iters` repetitions of `turn`, timed, minus what the server reports for them. The metrics
/// are read outside the timed part, each on a fresh connection (the server may have closed a
/// kept-alive one).
async fn residual<F, Fut>(base: &str, iters: u64, mut turn: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let metrics = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .expect("a client");
    let before = server_seconds(&metrics, base).await;
    let start = Instant::now();
    for _ in 0..iters {
        turn().await;
    }
    let wall = start.elapsed();
    let server = server_seconds(&metrics, base).await - before;
    wall.saturating_sub(Duration::from_secs_f64(server.max(0.0)))
}

/// The same request body `OpenAiCompatible` sends for one user message and `max_tokens(1)`.
fn bare_body(stream: bool) -> String {
    let mut body = json!({
        "model": "smollm2",
        "messages": [{"role": "user", "content": "Say hi."}],
        "max_tokens": 1,
    });
    if stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    body.to_string()
}

/// An agent whose turns pass a turn interceptor and a turn gate, as a guarded agent's do.
fn agent(server: &LlamaServer) -> Agent<String, String> {
    Agent::builder("bench")
        .model(
            OpenAiCompatible::new(format!("{}/v1", server.base), "smollm2")
                .max_tokens(1)
                .settings(patient()),
        )
        .on_before_turn(|_: &[Message], _: &InterceptContext| Decision::Proceed)
        .gate_turn(|messages: &[Message]| {
            if messages.is_empty() {
                Verdict::deny("no messages")
            } else {
                Verdict::Allow
            }
        })
        .build()
        .expect("the agent builds")
}

fn main() {
    let Some((binary, model)) = locate() else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let server = runtime.block_on(greedy_server(&binary, &model, Tools::None));
    let agent = agent(&server);
    let http = reqwest::Client::new();
    let url = format!("{}/v1/chat/completions", server.base);
    let mut criterion = Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(20))
        .configure_from_args();
    let mut group = criterion.benchmark_group("turn against llama-server, minus server time");
    for stream in [false, true] {
        let path = if stream { "stream" } else { "chat" };
        group.bench_function(format!("bare reqwest POST, {path}"), |b| {
            b.iter_custom(|iters| {
                runtime.block_on(residual(&server.base, iters, || async {
                    // Resent once at once, as our client does, when the server has closed the
                    // kept-alive connection (it does after every streamed answer).
                    let send = || {
                        http.post(&url)
                            .header("content-type", "application/json")
                            .body(bare_body(stream))
                            .send()
                    };
                    let reply = match send().await {
                        Ok(reply) => reply,
                        Err(_) => send().await.expect("the server answers"),
                    };
                    assert!(reply.status().is_success());
                    let mut body = reply.bytes_stream();
                    while let Some(bytes) = body.next().await {
                        bytes.expect("the body arrives");
                    }
                }))
            })
        });
        group.bench_function(format!("agent, one guarded turn, {path}"), |b| {
            b.iter_custom(|iters| {
                runtime.block_on(residual(&server.base, iters, || async {
                    let path = if stream { Path::Session } else { Path::Run };
                    let (output, _) = drive(&agent, "Say hi.", path).await;
                    output.expect("the agent answers");
                }))
            })
        });
    }
    group.finish();
    criterion.final_summary();
}
