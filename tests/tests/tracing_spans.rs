//! Runs, turns and tool calls are traced as GenAI-shaped spans (`invoke_agent`, `chat`,
//! `execute_tool`) carrying the agent, run id, skill, turn, tool, call id and decision, for any
//! `tracing` subscriber (the `otel` feature's exporter is tested in `otel_spans.rs`). Alone in its
//! binary: tracing caches per-callsite interest process-wide, so a concurrent test without a
//! subscriber could hide these spans.

use std::sync::{Arc, Mutex};

use agents_kt::{Agent, Decision, Reply, ScriptedModel};
use agents_kt_tests::{GetWeather, WriteFile};
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

/// One span: its id, name, and `(field, value)` pairs.
type SpanRecord = (u64, String, Vec<(String, String)>);

/// Records every span's name and fields, including fields recorded after creation.
#[derive(Clone, Default)]
struct SpanRecorder {
    spans: Arc<Mutex<Vec<SpanRecord>>>,
}

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((
            field.name().to_string(),
            format!("{value:?}").trim_matches('"').to_string(),
        ));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_string(), value.to_string()));
    }
}

impl<S: tracing::Subscriber> Layer<S> for SpanRecorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        let mut fields = Vec::new();
        attrs.record(&mut Fields(&mut fields));
        let name = attrs.metadata().name().to_string();
        self.spans
            .lock()
            .unwrap()
            .push((id.into_u64(), name, fields));
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut spans = self.spans.lock().unwrap();
        if let Some((_, _, fields)) = spans
            .iter_mut()
            .rev()
            .find(|(span, _, _)| *span == id.into_u64())
        {
            values.record(&mut Fields(fields));
        }
    }
}

impl SpanRecorder {
    fn field(&self, span: &str, name: &str) -> Vec<String> {
        self.spans
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, n, _)| n == span)
            .flat_map(|(_, _, fields)| {
                fields
                    .iter()
                    .filter(|(f, _)| f == name)
                    .map(|(_, v)| v.clone())
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

#[test]
fn runs_skills_turns_and_tool_calls_are_traced_with_their_decisions() {
    let recorder = SpanRecorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    tracing::subscriber::with_default(subscriber, || {
        // Another test may have registered these callsites while no subscriber listened.
        tracing::callsite::rebuild_interest_cache();
        let model = ScriptedModel::new([
            Reply::tool_calls([
                ("get_weather", json!({"city": "Oslo"})),
                ("writeFile", json!({"path": "/etc/x", "contents": ""})),
            ]),
            Reply::text("done"),
        ]);
        let agent: Agent<String, String> = Agent::builder("traced")
            .model(model)
            .tool(GetWeather::default())
            .tool(WriteFile::default())
            .on_before_tool_call(|name: &str, _: &Value| {
                if name == "writeFile" {
                    Decision::deny("no")
                } else {
                    Decision::Proceed
                }
            })
            .build()
            .unwrap();
        runtime.block_on(agent.run("x".into())).unwrap();
    });
    assert_eq!(
        recorder.field("invoke_agent", "gen_ai.agent.name"),
        vec!["traced"]
    );
    assert_eq!(
        recorder.field("invoke_agent", "agents_kt.run.id"),
        vec!["traced/run-1"]
    );
    assert_eq!(
        recorder.field("invoke_agent", "agents_kt.skill.name"),
        vec!["default"]
    );
    assert_eq!(recorder.field("chat", "agents_kt.turn"), vec!["1", "2"]);
    assert_eq!(
        recorder.field("execute_tool", "gen_ai.tool.name"),
        vec!["get_weather", "writeFile"]
    );
    assert_eq!(
        recorder.field("execute_tool", "agents_kt.decision"),
        vec!["Proceed", "Deny"]
    );
    assert_eq!(
        recorder.field("execute_tool", "gen_ai.tool.call.id").len(),
        2
    );
}
