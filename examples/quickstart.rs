//! Quickstart: an agent with three tools and interceptors showing all four decisions — and the
//! pattern to keep: rewrite in an interceptor, check in a gate — run offline on a scripted model,
//! printing a transcript of what happened.
//!
//! `cargo run --example quickstart`

use agents_kt::prelude::*;
use agents_kt_examples::print_event;
use futures::{FutureExt, StreamExt};
use serde_json::{Value, json};

/// Current weather for a city.
#[tool(params(city = "City name, capitalized"))]
fn get_weather(city: String) -> Result<Value, String> {
    match city.as_str() {
        "Paris" => Ok(json!({"city": "Paris", "celsius": 18, "sky": "sunny"})),
        other => Err(format!("no station in {other}")),
    }
}

/// Write text to a file (here: pretends to, and says how many bytes).
#[tool(name = "writeFile")]
fn write_file(path: String, contents: String) -> String {
    format!("wrote {} bytes to {path}", contents.len())
}

/// Fetch an account's balance (unreachable offline: an interceptor substitutes a result).
#[tool(name = "fetchAccount")]
async fn fetch_account(id: String) -> Result<Value, String> {
    Err(format!("the bank is not reachable offline (account {id})"))
}

/// ProceedWith: a typed interceptor normalizes the city name; its replacement must be
/// `GetWeatherArgs`, checked by the compiler.
#[before_tool_call(get_weather)]
fn capitalize_city(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, Value> {
    let mut chars = args.city.chars();
    let capitalized: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => return Decision::deny("empty city"),
    };
    if capitalized == args.city {
        Decision::Proceed
    } else {
        Decision::ProceedWith(GetWeatherArgs { city: capitalized })
    }
}

/// ProceedWith: relative paths resolve against the app's directory, `..` included. A rewrite can
/// turn a harmless-looking path into a system path — so the check must see the result.
#[before_tool_call(write_file)]
fn absolutize(args: &WriteFileArgs) -> Decision<WriteFileArgs, String> {
    if args.path.starts_with('/') {
        return Decision::Proceed;
    }
    let mut parts = vec!["srv", "app"];
    for part in args.path.split('/') {
        match part {
            ".." => drop(parts.pop()),
            "." | "" => {}
            part => parts.push(part),
        }
    }
    let path = format!("/{}", parts.join("/"));
    Decision::ProceedWith(WriteFileArgs {
        path,
        ..args.clone()
    })
}

/// Deny, as a gate: it runs after every interceptor, on the final (rewritten) arguments, and its
/// Deny always wins. As an interceptor after `absolutize`, the seed's "first non-Proceed wins"
/// rule would let `absolutize`'s ProceedWith win and the write happen.
#[gate(write_file)]
fn system_paths_are_off_limits(args: &WriteFileArgs) -> Verdict {
    if args.path.starts_with("/etc/") {
        Verdict::deny("system paths are off-limits")
    } else {
        Verdict::Allow
    }
}

/// Proceed: every turn is checked; none is flagged here.
#[before_turn]
fn injection_filter(messages: &[Message]) -> Decision<Vec<Message>, String> {
    if messages
        .iter()
        .any(|m| m.content.contains("ignore previous instructions"))
    {
        Decision::deny("possible prompt injection")
    } else {
        Decision::Proceed
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("get_weather", json!({"city": "paris"})),
            (
                "writeFile",
                json!({"path": "../../etc/passwd", "contents": "root::0:0"}),
            ),
            ("fetchAccount", json!({"id": "acc-42"})),
        ]),
        Reply::tool_call(
            "writeFile",
            json!({"path": "reports/paris.txt", "contents": "18C and sunny"}),
        ),
        Reply::text(
            "Paris is sunny at 18C; the report is in /srv/app/reports/paris.txt; balance 100.00 USD.",
        ),
    ]);

    let agent = Agent::<String, String>::builder("quickstart")
        .model(model)
        .system_prompt("You are a helpful assistant.")
        .tool(GetWeather)
        .tool(WriteFile)
        .tool(FetchAccount)
        .on_before_turn(injection_filter)
        .before_tool_call(capitalize_city)
        .before_tool_call(absolutize)
        .gate_tool_call(system_paths_are_off_limits)
        // Substitute: a cached account instead of the unreachable bank.
        .on_before_tool_call(|name: &str, _args: &Value| match name {
            "fetchAccount" => Decision::Substitute(json!({"balance": 10000, "currency": "USD"})),
            _ => Decision::Proceed,
        })
        .named("cached_account")
        .build()?;

    let mut events = agent.observe();
    let output = agent
        .run("Weather in Paris, save a report, and my balance?".to_string())
        .await;

    println!("== transcript of {} ==", agent.name());
    while let Some(Some(event)) = events.next().now_or_never() {
        print_event(&event);
    }
    let output = output?;
    println!("final output: {output}");
    Ok(())
}
