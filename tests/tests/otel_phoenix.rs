//! A guarded run, exported by the one-call setup (`agents_kt::telemetry::init`, configured only by
//! the standard OpenTelemetry environment variables) to a real Arize Phoenix, and read back
//! through Phoenix's own API: span names, parent and child, the conventions' attributes as
//! Phoenix interprets them (its AGENT / LLM / TOOL kinds), errors, and the decision events.
//!
//! The export runs in a child process (this binary, running the ignored `export_to_phoenix`
//! test) so the environment is set for it alone and it exits — flushing — as a program does.

use agents_kt_examples::telemetry_demo::{REQUEST, payments_desk, script};
use agents_kt_tests::phoenix::Phoenix;
use serde_json::{Value, json};

/// The Phoenix project the child's spans go to (by the resource attribute Phoenix reads).
const PROJECT: &str = "agents-kt-desk";

/// Run in a child process by the test below, with the OTLP environment pointing at Phoenix.
#[test]
#[ignore = "run by a_guarded_run_reads_back_from_phoenix in a child process"]
fn export_to_phoenix() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let telemetry = agents_kt::telemetry::init().expect("telemetry from the environment");
    let agent = payments_desk(script()).unwrap();
    let answer = runtime.block_on(agent.run(REQUEST.to_string())).unwrap();
    assert!(answer.contains("ACME"), "{answer}");
    telemetry.shutdown().expect("every span exported");
}

fn attr<'a>(span: &'a Value, key: &str) -> &'a Value {
    &span["attributes"][key]
}

#[tokio::test(flavor = "multi_thread")]
async fn a_guarded_run_reads_back_from_phoenix() {
    let Some(phoenix) = Phoenix::start().await else {
        return;
    };
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "export_to_phoenix", "--nocapture"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &phoenix.url)
        .env("OTEL_SERVICE_NAME", "payments")
        .env(
            "OTEL_RESOURCE_ATTRIBUTES",
            format!("openinference.project.name={PROJECT}"),
        )
        // Phoenix takes traces only.
        .env("OTEL_METRICS_EXPORTER", "none")
        .env_remove("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
        .output()
        .expect("the exporting child runs");
    assert!(
        child.status.success(),
        "the export failed:\n{}\n{}",
        String::from_utf8_lossy(&child.stdout),
        String::from_utf8_lossy(&child.stderr)
    );

    let mut spans = phoenix.spans_when(PROJECT, 7).await;
    assert_eq!(
        spans.len(),
        7,
        "Phoenix stored:\n{spans:#?}\n{}",
        phoenix.log()
    );
    spans.sort_by(|a, b| a["start_time"].as_str().cmp(&b["start_time"].as_str()));
    let names: Vec<&str> = spans.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "invoke_agent payments-desk",
            "chat scripted",
            "execute_tool exchange_rate",
            "execute_tool pay",
            "execute_tool pay",
            "execute_tool pay",
            "chat scripted",
        ]
    );

    // One trace: the agent's span is the root, every other one its child.
    let root = &spans[0];
    let trace = &root["context"]["trace_id"];
    assert_eq!(root["parent_id"], Value::Null);
    for span in &spans[1..] {
        assert_eq!(&span["context"]["trace_id"], trace);
        assert_eq!(span["parent_id"], root["context"]["span_id"], "{span:#}");
    }

    // Phoenix reads the GenAI conventions: it files the spans as an agent, model calls and tools.
    let kinds: Vec<&str> = spans
        .iter()
        .map(|s| s["span_kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["AGENT", "LLM", "TOOL", "TOOL", "TOOL", "TOOL", "LLM"]
    );
    assert_eq!(attr(root, "gen_ai.operation.name"), "invoke_agent");
    assert_eq!(attr(root, "gen_ai.agent.name"), "payments-desk");
    assert_eq!(attr(root, "gen_ai.provider.name"), "agents_kt.scripted");
    assert!(
        attr(root, "gen_ai.system").is_null(),
        "deprecated attribute"
    );
    let answer = &spans[6];
    assert_eq!(attr(answer, "gen_ai.operation.name"), "chat");
    assert_eq!(attr(answer, "gen_ai.response.model"), "scripted-2026-12");
    assert_eq!(
        attr(answer, "gen_ai.response.finish_reasons"),
        &json!(["stop"])
    );
    assert_eq!(attr(answer, "gen_ai.usage.input_tokens"), 182);
    assert_eq!(attr(answer, "gen_ai.usage.output_tokens"), 17);
    assert!(
        attr(answer, "gen_ai.input.messages").is_null(),
        "content is opt-in"
    );

    // The tool calls: run, substituted, denied by an interceptor, denied by a gate.
    let tool = |i: usize| &spans[i];
    assert_eq!(attr(tool(2), "gen_ai.tool.name"), "exchange_rate");
    assert_eq!(attr(tool(2), "agents_kt.executed"), false);
    assert_eq!(tool(2)["status_code"], "UNSET");
    assert_eq!(attr(tool(3), "agents_kt.executed"), false);
    assert_eq!(attr(tool(3), "error.type"), "denied");
    assert_eq!(tool(3)["status_code"], "ERROR");
    assert_eq!(
        tool(3)["status_message"],
        "ERROR: Tool 'pay' denied by policy: mallory is on the blocked list"
    );
    assert_eq!(attr(tool(4), "agents_kt.executed"), true);
    assert_eq!(attr(tool(5), "error.type"), "denied");
    for i in 2..6 {
        assert_eq!(attr(tool(i), "gen_ai.operation.name"), "execute_tool");
        assert_eq!(attr(tool(i), "gen_ai.tool.type"), "function");
        assert!(attr(tool(i), "gen_ai.tool.call.id").is_string());
    }

    // Every decision and gate verdict, on the span it guarded.
    let decision = |i: usize| -> Vec<(String, String, String)> {
        tool(i)["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|event| {
                assert_eq!(event["name"], "agents_kt.decision");
                let field = |key: &str| event["attributes"][key].as_str().unwrap_or("").to_string();
                (
                    field("gen_ai.security.guardrail.name"),
                    field("gen_ai.security.verdict.type"),
                    field("gen_ai.security.action.type"),
                )
            })
            .collect()
    };
    let row = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(
        decision(2),
        [row("cached_rates", "substitute", "substitute")]
    );
    assert_eq!(decision(3), [row("blocked_payees", "deny", "block")]);
    assert_eq!(decision(4), [row("within_limit", "allow", "none")]);
    assert_eq!(decision(5), [row("within_limit", "deny", "block")]);
    let gate_denial = &tool(5)["events"][0]["attributes"];
    assert_eq!(gate_denial["gen_ai.security.guardrail.type"], "gate");
    assert_eq!(
        gate_denial["gen_ai.security.verdict.reason"],
        "over the 1000 USD limit"
    );
    assert_eq!(gate_denial["agents_kt.decision.effective"], true);
}
