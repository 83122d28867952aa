//! A guarded run, traced the OpenTelemetry GenAI way. With `OTEL_EXPORTER_OTLP_ENDPOINT` set, the
//! one-call setup exports it over OTLP to that backend (Arize Phoenix, Jaeger, an OpenTelemetry
//! Collector, …); without it, the example keeps the spans in memory and prints the tree a backend
//! would show. Either way it checks that the blocked attempts are in the trace.
//!
//! ```text
//! cargo run --example otel
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:6006 OTEL_SERVICE_NAME=payments \
//!   OTEL_METRICS_EXPORTER=none cargo run --example otel     # Phoenix takes traces, not metrics
//! ```

use agents_kt::telemetry::{self, Telemetry};
use agents_kt_examples::ensure;
use agents_kt_examples::telemetry_demo::{REQUEST, payments_desk, script};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing_subscriber::layer::SubscriberExt;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let exported = std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_some();
    let memory = InMemorySpanExporter::default();
    let telemetry = if exported {
        telemetry::init()?
    } else {
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(memory.clone())
            .build();
        let telemetry = Telemetry::new(provider, None);
        tracing::subscriber::set_global_default(
            tracing_subscriber::registry().with(telemetry.layer()),
        )?;
        telemetry
    };
    // Built after the setup, so its metrics go to the meter provider `init` installed.
    let agent = payments_desk(script())?;
    let answer = agent.run(REQUEST.to_string()).await?;
    println!("answer: {answer}");
    telemetry.flush()?;
    if exported {
        println!(
            "exported to {:?}",
            std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT")?
        );
        telemetry.shutdown()?;
        return Ok(());
    }
    let spans = memory.get_finished_spans()?;
    print_tree(&spans, None, 0);
    let blocked = spans.iter().filter(|span| {
        span.name == "execute_tool pay"
            && span
                .attributes
                .iter()
                .any(|kv| kv.key.as_str() == "agents_kt.executed" && kv.value.as_str() == "false")
    });
    ensure(
        blocked.count() == 2,
        "two blocked payments traced as not executed",
    )?;
    Ok(())
}

/// Each span under its parent, with its decisions.
fn print_tree(spans: &[SpanData], parent: Option<opentelemetry::trace::SpanId>, depth: usize) {
    let mut children: Vec<&SpanData> = spans
        .iter()
        .filter(|span| match parent {
            None => !spans
                .iter()
                .any(|other| other.span_context.span_id() == span.parent_span_id),
            Some(id) => span.parent_span_id == id,
        })
        .collect();
    children.sort_by_key(|span| span.start_time);
    for span in children {
        let indent = "  ".repeat(depth);
        let attribute = |key: &str| {
            span.attributes
                .iter()
                .find(|kv| kv.key.as_str() == key)
                .map(|kv| kv.value.to_string())
        };
        let mut line = format!("{indent}{} [{:?}]", span.name, span.span_kind);
        for key in [
            "agents_kt.executed",
            "error.type",
            "gen_ai.usage.output_tokens",
        ] {
            if let Some(value) = attribute(key) {
                line.push_str(&format!(" {key}={value}"));
            }
        }
        println!("{line}");
        for event in span.events.iter() {
            let field = |key: &str| {
                event
                    .attributes
                    .iter()
                    .find(|kv| kv.key.as_str() == key)
                    .map_or(String::new(), |kv| kv.value.to_string())
            };
            println!(
                "{indent}  · {} {} {} {}",
                field("gen_ai.security.guardrail.type"),
                field("gen_ai.security.guardrail.name"),
                field("gen_ai.security.verdict.type"),
                field("gen_ai.security.verdict.reason"),
            );
        }
        print_tree(spans, Some(span.span_context.span_id()), depth + 1);
    }
}
