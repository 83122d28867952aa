//! The seed's argument mutation: every tool call gets a `traceId`, and both the tool and
//! `on_tool_use` see the mutated arguments.
//!
//! `cargo run --example args_mutation`

use agents_kt::prelude::*;
use agents_kt_examples::ensure;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// Sends an email.
#[tool]
fn send_email(to: String, subject: String, trace_id: Option<String>) -> String {
    format!(
        "sent '{subject}' to {to} (trace {})",
        trace_id.unwrap_or_else(|| "none".into())
    )
}

fn current_trace_id() -> String {
    "trace-7f3a".to_string()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = ScriptedModel::new([
        Reply::tool_call(
            "send_email",
            json!({"to": "ops@example.com", "subject": "deploy done"}),
        ),
        Reply::text("Email sent."),
    ]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let agent = Agent::<String, String>::builder("mailer")
        .model(model.clone())
        .tool(SendEmail)
        .on_before_tool_call(|_name: &str, args: &Value| {
            let mut args = args.clone();
            args["trace_id"] = json!(current_trace_id());
            Decision::ProceedWith(args)
        })
        .on_tool_use(move |name, args, result| {
            if let Ok(mut seen) = record.lock() {
                seen.push((name.to_string(), args.clone(), result.clone()));
            }
        })
        .build()?;

    let output = agent.run("Tell ops the deploy is done".into()).await?;
    let seen = seen.lock().map(|s| s.clone()).unwrap_or_default();
    for (name, args, result) in &seen {
        println!("on_tool_use: {name}({args}) -> {result}");
    }
    println!("final output: {output}");
    let (_, args, result) = seen.first().ok_or("on_tool_use did not fire")?;
    ensure(
        args["trace_id"] == "trace-7f3a",
        "on_tool_use must see the traceId",
    )?;
    ensure(
        result
            .as_str()
            .is_some_and(|r| r.contains("trace trace-7f3a")),
        "the tool must see the traceId",
    )?;
    println!("outcome: the tool and on_tool_use both saw trace_id = trace-7f3a");
    Ok(())
}
