//! A remote MCP tool called through an agent's chain against the same call made with a bare
//! rmcp client, in the same run: one bare rmcp server (the weather tool, rmcp's own macros)
//! serves both over streamable HTTP on loopback. Ours: `McpToolset` with a typed binding of the
//! tool (`remote_tool!`), 8 typed Proceed interceptors on it, called from a code skill with
//! `ctx.call_tool(args)` — one agent run per call, and (the call alone) one run making every
//! call of a criterion batch. Bare: rmcp's client `call_tool`, and the
//! same client sending exactly the request ours sends (`send_cancellable_request`, whose handle
//! ours keeps to send `notifications/cancelled` when a call is abandoned).
//! Target: ours ≥ 0.9× the bare client's throughput.
//!
//! `cargo bench -p agents-kt --bench mcp_client`; see BENCHMARKS.md for the numbers.

use std::hint::black_box;

use agents_kt::McpToolset;
use agents_kt::prelude::*;
use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    Implementation,
};
use rmcp::service::PeerRequestOptions;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

// Shared with the other benches; this one uses the bare server and the tool's types only.
#[allow(dead_code)]
#[path = "support/mcp_servers.rs"]
mod mcp_servers;
#[allow(dead_code)]
#[path = "support/weather.rs"]
mod weather;
use mcp_servers::serve_bare_http;
use weather::{Weather, WeatherArgs, allowed};

agents_kt::remote_tool! {
    /// The bare server's weather tool, typed.
    pub struct RemoteWeather("get_weather"): WeatherArgs => Weather;
}

/// An agent whose one skill calls the remote tool once, through 8 typed interceptors.
async fn agent(url: String) -> Agent<String, String> {
    let set = McpToolset::http(url)
        .connect()
        .await
        .expect("the server answers")
        .bind::<RemoteWeather>()
        .expect("WeatherArgs fits the server's schema");
    // A batch makes many calls in one run.
    let budget = Budget::default()
        .max_tool_calls(u32::MAX)
        .max_duration(std::time::Duration::from_secs(3600));
    let mut builder = Agent::<String, String>::builder("bench")
        .toolset(set)
        .budget(budget);
    for _ in 0..8 {
        builder = builder.before_tool_call(ToolInterceptor::<RemoteWeather>::new(
            |args: &WeatherArgs| {
                if allowed(args) {
                    Decision::Proceed
                } else {
                    Decision::deny("out of range")
                }
            },
        ));
    }
    // The input is how many calls to make.
    builder
        .skill(Skill::code(
            "forecast",
            |calls: String, ctx: SkillContext<String>| async move {
                let mut city = String::new();
                for _ in 0..calls.parse::<u64>().unwrap_or(1) {
                    let weather = ctx
                        .call_tool(WeatherArgs {
                            city: "Reykjavík".into(),
                            days: 3,
                        })
                        .await?;
                    city = weather.city;
                }
                Ok::<_, SkillError>(city)
            },
        ))
        .build()
        .expect("the agent builds")
}

fn remote_call(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let (bare, ours) = runtime.block_on(async {
        let url = format!("http://{}/mcp", serve_bare_http().await);
        let bare = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("bench", "1"),
        )
        .serve(StreamableHttpClientTransport::with_client(
            reqwest::Client::new(),
            StreamableHttpClientTransportConfig::with_uri(url.clone()),
        ))
        .await
        .expect("the bare client connects");
        (bare, agent(url).await)
    });
    let arguments = json!({"city": "Reykjavík", "days": 3});
    let mut group = c.benchmark_group("mcp_remote_tool_call_http");
    group.bench_function(
        "one call at a time, agents-kt McpToolset, typed binding, 8 interceptors, a run per call",
        |b| {
            b.iter(|| {
                runtime.block_on(async {
                    let city = ours.run("1".into()).await.expect("the skill runs");
                    assert_eq!(city, "Reykjavík");
                })
            })
        },
    );
    group.bench_function(
        "one call at a time, agents-kt McpToolset, typed binding, 8 interceptors, one run per batch",
        |b| {
            b.iter_custom(|calls| {
                runtime.block_on(async {
                    let started = std::time::Instant::now();
                    let city = ours.run(calls.to_string()).await.expect("the skill runs");
                    assert_eq!(city, "Reykjavík");
                    started.elapsed()
                })
            })
        },
    );
    group.bench_function("one call at a time, bare rmcp client (baseline)", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let params = CallToolRequestParams::new("get_weather")
                    .with_arguments(arguments.as_object().cloned().expect("an object"));
                let result = bare.call_tool(params).await.expect("the tool answers");
                black_box(result);
            })
        })
    });
    group.bench_function(
        "one call at a time, bare rmcp client, the request ours sends (baseline 2)",
        |b| {
            b.iter(|| {
                runtime.block_on(async {
                    let params = CallToolRequestParams::new("get_weather")
                        .with_arguments(arguments.as_object().cloned().expect("an object"));
                    let handle = bare
                        .peer()
                        .send_cancellable_request(
                            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
                            PeerRequestOptions::no_options(),
                        )
                        .await
                        .expect("sent");
                    black_box(handle.await_response().await.expect("the tool answers"));
                })
            })
        },
    );
    group.finish();
}

criterion_group!(benches, remote_call);
criterion_main!(benches);
