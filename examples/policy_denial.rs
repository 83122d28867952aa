//! The seed's policy denial: `writeFile` under `/etc/` is denied; the tool never runs, the model
//! reads the denial and recovers, and the audit observer records the attempt.
//!
//! `cargo run --example policy_denial`

use agents_kt::prelude::*;
use agents_kt_examples::ensure;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// Writes text to a file (here: only reports what it would write).
#[tool(name = "writeFile")]
fn write_file(path: String, contents: String) -> String {
    format!("wrote {} bytes to {path}", contents.len())
}

#[before_tool_call]
fn system_paths_are_off_limits(name: &str, args: &Value) -> Decision<Value, Value> {
    match args["path"].as_str() {
        Some(path) if name == "writeFile" && path.starts_with("/etc/") => {
            Decision::deny("system paths are off-limits")
        }
        _ => Decision::Proceed,
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = ScriptedModel::new([
        Reply::tool_call(
            "writeFile",
            json!({"path": "/etc/hosts", "contents": "0.0.0.0 bank"}),
        ),
        Reply::tool_call(
            "writeFile",
            json!({"path": "/tmp/hosts", "contents": "0.0.0.0 bank"}),
        ),
        Reply::text("I could not touch /etc/hosts, so I wrote /tmp/hosts instead."),
    ]);
    let audit = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&audit);
    let agent = Agent::<String, String>::builder("files")
        .model(model.clone())
        .tool(WriteFile)
        .on_before_tool_call(system_paths_are_off_limits)
        .on_tool_denied(move |name, args, reason| {
            if let Ok(mut log) = log.lock() {
                log.push(format!("{name} {args} denied: {reason}"));
            }
        })
        .build()?;

    let output = agent.run("Block the bank in the hosts file".into()).await?;
    let told = model.requests()[1]
        .messages
        .last()
        .map(|m| m.content.clone())
        .unwrap_or_default();
    println!("model was told: {told}");
    println!(
        "audit log: {:?}",
        audit.lock().map(|l| l.clone()).unwrap_or_default()
    );
    println!("final output: {output}");

    let expected = "ERROR: Tool 'writeFile' denied by policy: system paths are off-limits";
    ensure(told == expected, "the model must read the denial")?;
    ensure(
        audit.lock().map(|l| l.len()).unwrap_or(0) == 1,
        "the denial must be audited once",
    )?;
    println!("outcome: denied by policy, audited, and the model recovered");
    Ok(())
}
