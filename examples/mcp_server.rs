//! An agent's tools and a skill served over MCP, with interceptors on `tools/call` and a
//! per-client policy. On stdio, connect any MCP client that launches a command:
//!
//! ```sh
//! cargo build --example mcp_server
//! npx @modelcontextprotocol/inspector@0.15 --cli target/debug/examples/mcp_server --method tools/list
//! ```
//!
//! Over streamable HTTP (`cargo run --example mcp_server -- --http 127.0.0.1:8808`), clients send
//! `Authorization: Bearer trusted-token` or `Bearer intern-token`; anything else gets 401.

use agents_kt::McpServer;
use agents_kt::prelude::*;
use agents_kt_examples::normalize_path;
use serde_json::{Value, json};

/// Current weather for a city. It reports its progress (an MCP client that sent a
/// `progressToken` receives it as `notifications/progress`) and logs the lookup (a client that
/// set a logging level receives it as `notifications/message`).
#[tool(params(city = "City name"))]
fn get_weather(city: String, ctx: &ToolContext) -> Result<Value, String> {
    ctx.emit(json!({"progress": 1, "total": 2, "message": format!("looking up {city}")}));
    tracing::info!(city = %city, "weather looked up");
    ctx.emit(json!({"progress": 2, "total": 2, "message": "done"}));
    match city.as_str() {
        "Atlantis" => Err("no station in Atlantis".into()),
        _ => Ok(json!({"city": city, "celsius": 18})),
    }
}

/// Write text to a file (this example only reports what it would write).
#[tool(name = "writeFile")]
fn write_file(path: String, contents: String) -> String {
    format!("wrote {} bytes to {path}", contents.len())
}

/// Rewrite: one spelling per path, so the check below cannot be dodged — `//etc/passwd`,
/// `/tmp/../etc/passwd` and `/etc/./passwd` all become `/etc/passwd`. (Lexical: symbolic links
/// are the file system's business; a real tool opens files relative to a directory it controls.)
#[before_tool_call(write_file)]
fn one_spelling(args: &WriteFileArgs) -> Decision<WriteFileArgs, String> {
    let normalized = normalize_path(&args.path);
    if normalized == args.path {
        Decision::Proceed
    } else {
        Decision::ProceedWith(WriteFileArgs {
            path: normalized,
            ..args.clone()
        })
    }
}

/// Check, on the final (normalized) path — a gate always sees it and always wins: system paths
/// are off-limits, in any letter case (some file systems ignore it), and so are relative paths,
/// whose meaning depends on where the server runs.
#[gate(write_file)]
fn system_paths(args: &WriteFileArgs) -> Verdict {
    let path = args.path.to_ascii_lowercase();
    if !path.starts_with('/') {
        Verdict::deny("give an absolute path")
    } else if path == "/etc" || path.starts_with("/etc/") {
        Verdict::deny("system paths are off-limits")
    } else {
        Verdict::Allow
    }
}

/// Substitute a cached answer for the Moon; ProceedWith a capitalized city.
#[before_tool_call(get_weather)]
fn weather_policy(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, Value> {
    let capitalized: String = args
        .city
        .chars()
        .take(1)
        .flat_map(char::to_uppercase)
        .chain(args.city.chars().skip(1))
        .collect();
    match args.city.as_str() {
        "Moon" => Decision::Substitute(json!({"city": "Moon", "celsius": -170, "cached": true})),
        _ if capitalized != args.city => {
            Decision::ProceedWith(GetWeatherArgs { city: capitalized })
        }
        _ => Decision::Proceed,
    }
}

/// Echoes its input.
#[skill]
fn echo(text: String) -> String {
    format!("echo: {text}")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let agent = Agent::<String, String>::builder("mcp-demo")
        .tool(GetWeather)
        .tool(WriteFile)
        .skill(Echo)
        .before_tool_call(one_spelling)
        .gate_tool_call(system_paths)
        .before_tool_call(weather_policy)
        .on_tool_denied(|name, args, reason| eprintln!("audit: {name} {args} denied: {reason}"))
        .build()?;
    let server = McpServer::builder(agent)
        .expose_tool::<GetWeather>()
        .expose_tool::<WriteFile>()
        .expose_skill("echo")
        // Interns may read the weather and echo, but not write files.
        .client_policy(|client, tool| client.name != "intern" || tool != "writeFile")
        // Over HTTP the principal comes from the bearer token (a demo table, not a real store).
        .authenticator(|authorization| match authorization {
            "Bearer trusted-token" => Some("trusted".to_string()),
            "Bearer intern-token" => Some("intern".to_string()),
            _ => None,
        })
        .max_body_bytes(64 * 1024)
        .build()?;
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (None, _) => server.serve_stdio().await?,
        (Some("--http"), Some(address)) => {
            let running = server.bind_http(address.parse()?).await?;
            eprintln!("listening on http://{}/mcp", running.local_addr());
            running.wait().await?;
        }
        _ => return Err("usage: mcp_server [--http ADDRESS:PORT]".into()),
    }
    Ok(())
}
