//! A policy gateway in front of any MCP server: the server's tools are re-served over MCP
//! through an agent's chain — writes are allowed only inside one directory (the path normalized
//! in an interceptor, checked in a gate), and lines that look like secrets are removed from
//! every result before the client sees it.
//!
//! The path check is lexical: it sees the path as written, not where a symbolic link inside the
//! directory points. Start the upstream server with roots at least as narrow as the gateway's
//! directory (as below), so the server itself refuses what a link would reach outside it.
//!
//! ```sh
//! # The npm filesystem server behind the gateway, on stdio (any MCP client that launches a
//! # command can use it), writes allowed only in /srv/notes:
//! cargo run --example mcp_gateway -- --writes-in /srv/notes -- \
//!   npx -y @modelcontextprotocol/server-filesystem /srv/notes
//! # The same over streamable HTTP at http://127.0.0.1:8809/mcp:
//! cargo run --example mcp_gateway -- --writes-in /srv/notes --http 127.0.0.1:8809 -- \
//!   npx -y @modelcontextprotocol/server-filesystem /srv/notes
//! ```

use agents_kt::prelude::*;
use agents_kt::{McpServer, McpToolset};
use agents_kt_examples::normalize_path;
use serde_json::Value;

/// The tools of the filesystem server confined to the allowed directory, and their path
/// arguments: those that change the disk, and `read_media_file` — its content comes back
/// base64-encoded, which the line-based secret filter below cannot read, so a media read
/// anywhere else could carry a secret file out past it.
const CONFINED: &[(&str, &[&str])] = &[
    ("write_file", &["path"]),
    ("edit_file", &["path"]),
    ("create_directory", &["path"]),
    ("move_file", &["source", "destination"]),
    ("read_media_file", &["path"]),
];

/// Every string of `value` without the lines that look like a secret.
fn without_secrets(value: &Value) -> Value {
    let secret = |line: &str| {
        let lower = line.to_ascii_lowercase();
        ["api_key", "apikey", "secret", "password", "token"]
            .iter()
            .any(|word| lower.contains(word) && (lower.contains('=') || lower.contains(':')))
    };
    match value {
        Value::String(text) => Value::String(
            text.lines()
                .filter(|line| !secret(line))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_secrets).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, field)| (key.clone(), without_secrets(field)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let usage = "usage: mcp_gateway --writes-in DIR [--http ADDRESS:PORT] -- COMMAND [ARGS...]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let split = args.iter().position(|a| a == "--").ok_or(usage)?;
    let (options, command) = (&args[..split], &args[split + 1..]);
    let option = |name: &str| {
        options
            .iter()
            .position(|o| o == name)
            .and_then(|i| options.get(i + 1))
            .cloned()
    };
    let writes_in = normalize_path(&option("--writes-in").ok_or(usage)?);
    let (program, program_args) = command.split_first().ok_or(usage)?;

    let set = McpToolset::stdio(program.clone())
        .args(program_args.iter().cloned())
        .connect()
        .await?;
    eprintln!("gateway in front of `{}`: {:?}", set.server(), set.names());
    let agent = Agent::<String, String>::builder("mcp-gateway")
        // A gateway only relays tool calls; its (never used) model is a scripted one.
        .model(ScriptedModel::default())
        .toolset(set.clone())
        // Rewrite: one spelling per path, so the gate below cannot be dodged.
        .on_before_tool_call(|name: &str, args: &Value| {
            let Some((_, keys)) = CONFINED.iter().find(|(tool, _)| *tool == name) else {
                return Decision::Proceed;
            };
            let mut normalized = args.clone();
            for key in *keys {
                if let Some(path) = args[*key].as_str() {
                    normalized[*key] = Value::String(normalize_path(path));
                }
            }
            if normalized == *args {
                Decision::Proceed
            } else {
                Decision::ProceedWith(normalized)
            }
        })
        // Check, on the final arguments: writes (and media reads) only inside the directory.
        .on_gate_tool_call(move |name: &str, args: &Value| {
            let Some((_, keys)) = CONFINED.iter().find(|(tool, _)| *tool == name) else {
                return Verdict::Allow;
            };
            let inside = keys.iter().all(|key| {
                args[*key]
                    .as_str()
                    .is_some_and(|path| path.starts_with(&format!("{writes_in}/")))
            });
            if inside {
                Verdict::Allow
            } else {
                let what = if name == "read_media_file" {
                    "media reads"
                } else {
                    "writes"
                };
                Verdict::deny(format!("{what} stay inside {writes_in}"))
            }
        })
        // Results: no secret lines reach the client.
        .on_after_tool_call(|_name: &str, _args: &Value, result: &Value| {
            let cleaned = without_secrets(result);
            if cleaned == *result {
                Decision::Proceed
            } else {
                Decision::ProceedWith(cleaned)
            }
        })
        .on_tool_denied(|name, args, reason| eprintln!("audit: {name} {args} denied: {reason}"))
        .build()?;
    let gateway = McpServer::builder(agent).expose_toolset(&set).build()?;
    match option("--http") {
        Some(address) => {
            let running = gateway.bind_http(address.parse()?).await?;
            eprintln!("listening on http://{}/mcp", running.local_addr());
            running.wait().await?;
        }
        None => gateway.serve_stdio().await?,
    }
    Ok(())
}
