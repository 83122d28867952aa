//! What tracing costs: the agent loop of `interception.rs` (50 model turns, 2 tool calls each,
//! run path) with the `otel` feature on, measured in one run against its own baseline:
//!
//! 1. nobody listens (the spans are disabled `tracing` callsites; metrics go to the no-op global
//!    meter) — the baseline;
//! 2. the OpenTelemetry layer exporting every span to a no-op exporter, metrics recorded by an
//!    SDK meter provider — the cost of building and ending OpenTelemetry spans and events;
//! 3. the same, exporting to `opentelemetry_sdk`'s in-memory exporter.
//!
//! The build without `otel` runs the same loop as `interception.rs`'s "run path".
//!
//! `cargo bench -p agents-kt --features otel --bench otel`

#[path = "support/weather.rs"]
#[allow(dead_code)]
mod weather;

use std::hint::black_box;

use agents_kt::prelude::*;
use agents_kt::telemetry::Telemetry;
use criterion::{Criterion, criterion_group, criterion_main};
use futures::future::BoxFuture;
use opentelemetry::metrics::MeterProvider;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData, SpanExporter};
use tracing_subscriber::layer::SubscriberExt;
use weather::{GetWeather, TURNS, loop_script};

fn agent(meter: Option<&SdkMeterProvider>) -> Agent<String, String> {
    let builder = Agent::builder("bench")
        .model(loop_script())
        .tool(GetWeather)
        .budget(
            Budget::default()
                .max_turns(TURNS as u32)
                .max_tool_calls(2 * TURNS as u32),
        );
    match meter {
        Some(provider) => builder.meter(provider.meter("bench")),
        None => builder,
    }
    .build()
    .unwrap()
}

/// Takes every span and keeps none.
#[derive(Debug)]
struct Discard;

impl SpanExporter for Discard {
    fn export(&self, batch: Vec<SpanData>) -> impl Future<Output = OTelSdkResult> + Send {
        black_box(batch);
        std::future::ready(Ok(()))
    }
}

/// An SDK meter provider that aggregates every measurement (its reader exports once a minute,
/// so never during a sample).
fn meter_provider() -> SdkMeterProvider {
    SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(InMemoryMetricExporter::default()).build())
        .build()
}

fn traced_loop(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let run = |agent: Agent<String, String>| -> BoxFuture<'static, ()> {
        Box::pin(async move {
            black_box(agent.run("weather".into()).await.unwrap());
        })
    };
    let mut group = c.benchmark_group("traced_agent_loop_50_turns");
    group.sample_size(20);

    group.bench_function("nobody listens (baseline)", |b| {
        tracing::callsite::rebuild_interest_cache();
        b.iter_batched(
            || agent(None),
            |agent| runtime.block_on(run(agent)),
            criterion::BatchSize::SmallInput,
        )
    });

    let discard = Telemetry::new(
        SdkTracerProvider::builder()
            .with_simple_exporter(Discard)
            .build(),
        None,
    );
    let meters = meter_provider();
    group.bench_function("otel layer, no-op exporter, SDK metrics", |b| {
        let subscriber = tracing_subscriber::registry().with(discard.layer());
        tracing::subscriber::with_default(subscriber, || {
            b.iter_batched(
                || agent(Some(&meters)),
                |agent| runtime.block_on(run(agent)),
                criterion::BatchSize::SmallInput,
            )
        })
    });

    let memory = InMemorySpanExporter::default();
    let in_memory = Telemetry::new(
        SdkTracerProvider::builder()
            .with_simple_exporter(memory.clone())
            .build(),
        None,
    );
    group.bench_function("otel layer, in-memory exporter, SDK metrics", |b| {
        let subscriber = tracing_subscriber::registry().with(in_memory.layer());
        tracing::subscriber::with_default(subscriber, || {
            b.iter_batched(
                || {
                    memory.reset();
                    agent(Some(&meters))
                },
                |agent| runtime.block_on(run(agent)),
                criterion::BatchSize::SmallInput,
            )
        })
    });
    group.finish();
}

criterion_group!(benches, traced_loop);
criterion_main!(benches);
