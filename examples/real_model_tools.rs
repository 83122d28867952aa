//! The interceptor chain driving a real model's tool calls: an agent on whatever
//! OpenAI-compatible server the environment names, printing the same transcript as the
//! quickstart — the model's calls, each decision, what each tool did.
//!
//! `scripts/real-model-example.sh` runs it against the cached llama-server and its 135M model,
//! in one command. By hand:
//!
//! ```sh
//! OPENAI_BASE_URL=http://127.0.0.1:8080/v1 AGENTS_KT_MODEL=any AGENTS_KT_TOOL_CHOICE=required \
//!   cargo run --example real_model_tools
//! ```

use agents_kt::prelude::*;
use agents_kt::{InterceptContext, OpenAiCompatible};
use agents_kt_examples::print_event;
use futures::{FutureExt, StreamExt};
use serde_json::{Value, json};

/// Says what to set when no server is configured.
const HOW_TO: &str = "No model configured. Set:
  AGENTS_KT_MODEL        the model's name (any name for llama-server)
  OPENAI_BASE_URL        the server's /v1 URL, e.g. http://127.0.0.1:8080/v1
  OPENAI_API_KEY         if the server needs one
  AGENTS_KT_TOOL_CHOICE  optional: `required` makes the server's grammar write a tool call
                         (what a small model needs; it then calls a tool every turn)
or run scripts/real-model-example.sh, which starts the cached llama-server for you.";

/// Current weather for a city.
#[tool(params(city = "City name"))]
fn get_weather(city: String) -> Value {
    json!({"city": city, "celsius": 18, "sky": "sunny", "station_key": "sk-live-3f9a"})
}

/// Normalizes the city the model wrote (ProceedWith: the tool sees the replacement).
#[before_tool_call(get_weather)]
fn capitalize_city(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, Value> {
    let mut chars = args.city.trim().chars();
    let capitalized: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => return Decision::deny("no city given"),
    };
    if capitalized == args.city {
        Decision::Proceed
    } else {
        Decision::ProceedWith(GetWeatherArgs { city: capitalized })
    }
}

/// Only cities we cover (a gate: it sees the normalized city, and its Deny always wins).
#[gate(get_weather)]
fn covered_cities(args: &GetWeatherArgs) -> Verdict {
    if args.city.len() <= 40 {
        Verdict::Allow
    } else {
        Verdict::deny("not a city we cover")
    }
}

/// Keeps the station's key out of what the model reads.
#[after_tool_call]
fn redact_keys(_name: &str, _args: &Value, result: &Value) -> Decision<Value, Value> {
    match result.get("station_key") {
        Some(_) => {
            let mut result = result.clone();
            result["station_key"] = json!("[redacted]");
            Decision::ProceedWith(result)
        }
        None => Decision::Proceed,
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = match OpenAiCompatible::from_env() {
        Ok(model) => model,
        Err(_) => {
            println!("{HOW_TO}");
            return Ok(());
        }
    };
    let required = std::env::var("AGENTS_KT_TOOL_CHOICE").is_ok_and(|c| c == "required");
    let model = if required {
        model.tool_choice(json!("required"))
    } else {
        model
    };
    let agent = Agent::<String, String>::builder("real_model_tools")
        .model(model.max_tokens(96))
        .system_prompt("You are a weather assistant. Use the tools.")
        .tool(GetWeather)
        .before_tool_call(capitalize_city)
        .gate_tool_call(covered_cities)
        .on_after_tool_call(redact_keys)
        // A model forced to call a tool every turn never answers in text: stop after two turns.
        .on_before_turn(move |_: &[Message], ctx: &InterceptContext| {
            if required && ctx.turn() >= 3 {
                Decision::Substitute(
                    "(stopped after two turns: the model must call a tool every turn)".to_string(),
                )
            } else {
                Decision::Proceed
            }
        })
        .named("two_turns_when_forced")
        .build()?;

    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is the weather in paris?".into());
    let mut events = agent.observe();
    let output = agent.run(question).await;
    println!("== transcript of {} ==", agent.name());
    while let Some(Some(event)) = events.next().now_or_never() {
        print_event(&event);
    }
    println!("final output: {}", output?);
    Ok(())
}
