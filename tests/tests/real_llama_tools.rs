//! A real model drives tool calls through the chain: llama-server with SmolLM2-135M and the
//! tool-call template in `tests/fixtures/llama-tools.jinja`, asked with `tool_choice: "required"`
//! so its grammar forces a call. A recording proxy keeps the exact bytes the server sent, so the
//! tests compare what the tool saw with what the server said — on the run path (`chat`) and the
//! session path (streamed tool-call deltas).

use std::time::Duration;

use agents_kt::prelude::*;
use agents_kt::{AgentBuilder, InterceptContext, OpenAiCompatible};
use agents_kt_tests::llama::{Exchange, Recorder, Tools, greedy_server, locate, patient};
use agents_kt_tests::{GetWeather, GetWeatherArgs, PATHS, Path, drive};
use serde_json::{Value, json};

fn model(recorder: &Recorder) -> OpenAiCompatible {
    OpenAiCompatible::new(format!("{}/v1", recorder.base), "smollm2")
        .max_tokens(48)
        .tool_choice(json!("required"))
        .settings(patient())
}

/// The tool calls a recorded answer carried, as `(id, name, arguments text)`: from the JSON body,
/// or joined from the deltas of a server-sent event stream.
fn calls_in(exchange: &Exchange) -> Vec<(String, String, String)> {
    let text = String::from_utf8_lossy(&exchange.response);
    let body: Result<Value, _> = serde_json::from_str(&text);
    if let Ok(body) = body {
        return body["choices"][0]["message"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|call| {
                (
                    call["id"].as_str().unwrap_or_default().to_string(),
                    call["function"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    call["function"]["arguments"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                )
            })
            .collect();
    }
    let mut calls: Vec<(String, String, String)> = Vec::new();
    for line in text.lines() {
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        let Ok(chunk) = serde_json::from_str::<Value>(data) else {
            continue;
        };
        for delta in chunk["choices"][0]["delta"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let index = delta["index"].as_u64().unwrap_or(0) as usize;
            if calls.len() <= index {
                calls.resize(index + 1, Default::default());
            }
            let call = &mut calls[index];
            if let Some(id) = delta["id"].as_str() {
                call.0 = id.to_string();
            }
            if let Some(name) = delta["function"]["name"].as_str() {
                call.1.push_str(name);
            }
            if let Some(arguments) = delta["function"]["arguments"].as_str() {
                call.2.push_str(arguments);
            }
        }
    }
    calls
}

/// The messages of a recorded request.
fn messages_of(exchange: &Exchange) -> Vec<Value> {
    let body: Value = serde_json::from_slice(&exchange.request).expect("a JSON request");
    body["messages"].as_array().cloned().unwrap_or_default()
}

/// Stops the run at turn 3 (the model, asked to call a tool every turn, never answers in text):
/// turns 1 and 2 reach the server.
fn two_turns(_: &[Message], ctx: &InterceptContext) -> Decision<Vec<Message>, String> {
    if ctx.turn() >= 3 {
        Decision::Substitute("stopped after two turns".to_string())
    } else {
        Decision::Proceed
    }
}

/// An agent with `tool` on the real server (through `recorder`), stopped after two turns, with
/// what `policy` registers.
fn weather_agent(
    recorder: &Recorder,
    tool: &GetWeather,
    policy: impl FnOnce(AgentBuilder<String, String>) -> AgentBuilder<String, String>,
) -> Agent<String, String> {
    policy(
        Agent::builder("weather")
            .model(model(recorder))
            .tool(tool.clone())
            .on_before_turn(two_turns),
    )
    .build()
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_models_tool_calls_pass_the_typed_chain_and_the_server_reads_what_it_decided() {
    let Some((binary, model_path)) = locate() else {
        return;
    };
    let server = greedy_server(&binary, &model_path, Tools::One).await;

    for path in PATHS {
        // 1. The model's call is parsed, passes the typed chain, and the tool runs with exactly
        //    the arguments the server sent.
        let recorder = Recorder::start(&server.base).await;
        let tool = GetWeather::default();
        let typed_seen = agents_kt_tests::Log::<GetWeatherArgs>::new();
        let log = typed_seen.clone();
        let agent = weather_agent(&recorder, &tool, |builder| {
            builder.before_tool_call(move |args: &GetWeatherArgs| {
                log.push(args.clone());
                Decision::Proceed
            })
        });
        let (output, events) = drive(&agent, "What is the weather in Paris?", path).await;
        assert_eq!(
            output.expect("the run completes"),
            "stopped after two turns",
            "{path:?}"
        );
        let exchanges = recorder.exchanges();
        assert_eq!(exchanges.len(), 2, "{path:?}: two turns reached the server");
        assert!(
            exchanges.iter().all(|e| e.status == 200),
            "{path:?}: the server accepted both"
        );
        let sent = calls_in(&exchanges[0]);
        assert!(!sent.is_empty(), "{path:?}: the server sent a tool call");
        for (position, (_, name, arguments)) in sent.iter().enumerate() {
            assert_eq!(name, "get_weather");
            let server_args: GetWeatherArgs =
                serde_json::from_str(arguments).expect("the server's arguments fit the tool");
            assert_eq!(
                tool.ran.entries()[position],
                server_args,
                "{path:?}: the tool saw what the server sent"
            );
            assert_eq!(
                typed_seen.entries()[position],
                server_args,
                "{path:?}: so did the typed interceptor"
            );
        }
        let id = &sent[0].0;
        if path == Path::Session {
            assert!(
                events
                    .iter()
                    .any(|e| matches!(e, AgentEvent::ToolCallFinished { .. })),
                "streamed tool-call deltas became a call"
            );
            assert!(
                String::from_utf8_lossy(&exchanges[0].response).contains("data: "),
                "the answer was streamed"
            );
        }
        // The follow-up carries the tool's answer, linked to the server's call id.
        let follow_up = messages_of(&exchanges[1]);
        let answer = follow_up
            .iter()
            .find(|m| m["role"] == "tool")
            .expect("a tool message");
        assert_eq!(answer["tool_call_id"], json!(id), "{path:?}");
    }

    // 2 and 3 on both paths.
    for path in PATHS {
        // 2. A Deny: the tool does not run, the model reads the denial in the next prompt — shown by
        //    the server's own rendering of that request.
        let recorder = Recorder::start(&server.base).await;
        let tool = GetWeather::default();
        let agent = weather_agent(&recorder, &tool, |builder| {
            builder.before_tool_call(|_: &GetWeatherArgs| Decision::deny("weather is classified"))
        });
        drive(&agent, "What is the weather in Paris?", path)
            .await
            .0
            .unwrap();
        assert!(tool.ran.is_empty());
        let exchanges = recorder.exchanges();
        let follow_up = messages_of(&exchanges[1]);
        let denial = "ERROR: Tool 'get_weather' denied by policy: weather is classified";
        assert!(
            follow_up
                .iter()
                .any(|m| m["role"] == "tool" && m["content"] == denial)
        );
        let rendered = reqwest::Client::new()
            .post(format!("{}/apply-template", server.base))
            .header("content-type", "application/json")
            .body(json!({"messages": follow_up}).to_string())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let rendered: Value = serde_json::from_str(&rendered).expect("a JSON rendering");
        let prompt = rendered["prompt"].as_str().unwrap_or_default();
        assert!(
            prompt.contains(denial),
            "the server rendered the denial into the prompt: {prompt}"
        );

        // 3. ProceedWith changes what the tool sees; an after-tool redaction never reaches the
        //    server; a Substitute stands in for the tool in the next prompt.
        let recorder = Recorder::start(&server.base).await;
        let tool = GetWeather::default();
        let agent = weather_agent(&recorder, &tool, |builder| {
            builder
                .before_tool_call(|_: &GetWeatherArgs| {
                    Decision::ProceedWith(GetWeatherArgs {
                        city: "Oslo".into(),
                    })
                })
                .after_tool_call::<GetWeather, _>(|reading: &Value| {
                    let mut reading = reading.clone();
                    reading["city"] = json!("[redacted]");
                    Decision::ProceedWith(reading)
                })
        });
        drive(&agent, "What is the weather in Paris?", path)
            .await
            .0
            .unwrap();
        assert_eq!(
            tool.ran.entries()[0].city,
            "Oslo",
            "the replacement reached the tool"
        );
        let follow_up = recorder.exchanges()[1].request.clone();
        let follow_up = String::from_utf8_lossy(&follow_up);
        assert!(follow_up.contains("[redacted]"), "{follow_up}");
        assert!(
            !follow_up.contains(r#"\"city\":\"Oslo\""#),
            "the redacted value never left: {follow_up}"
        );

        let recorder = Recorder::start(&server.base).await;
        let tool = GetWeather::default();
        let agent = weather_agent(&recorder, &tool, |builder| {
            builder.before_tool_call(|_: &GetWeatherArgs| {
                Decision::Substitute(json!({"cached": "12C"}))
            })
        });
        drive(&agent, "What is the weather in Paris?", path)
            .await
            .0
            .unwrap();
        assert!(tool.ran.is_empty(), "a substitute skips the tool");
        let follow_up = messages_of(&recorder.exchanges()[1]);
        assert!(
            follow_up
                .iter()
                .any(|m| m["role"] == "tool" && m["content"] == r#"{"cached":"12C"}"#),
            "{follow_up:?}"
        );
    }
}

/// A typed output the server's grammar must produce.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Forecast {
    // Bounded, so a rambling small model still closes the string within `max_tokens`.
    #[schemars(length(max = 24))]
    city: String,
    celsius: i32,
    sunny: bool,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_servers_grammar_constrained_answer_deserializes_into_the_agents_output_type() {
    let Some((binary, model_path)) = locate() else {
        return;
    };
    // The tool template too: the Messages API carries the answer as a forced tool's input.
    let server = greedy_server(&binary, &model_path, Tools::One).await;
    for anthropic in [false, true] {
        for path in PATHS {
            let recorder = Recorder::start(&server.base).await;
            let builder = Agent::builder("forecaster");
            let builder = if anthropic {
                builder.model(
                    agents_kt::Anthropic::new("smollm2")
                        .base_url(&recorder.base)
                        .max_tokens(96)
                        .settings(patient()),
                )
            } else {
                builder.model(
                    OpenAiCompatible::new(format!("{}/v1", recorder.base), "smollm2")
                        .max_tokens(96)
                        .settings(patient()),
                )
            };
            let agent: Agent<String, Forecast> = builder
                .system_prompt("Answer with the forecast as JSON.")
                .build()
                .unwrap();
            let (output, _) = drive(&agent, "Forecast for Paris tomorrow?", path).await;
            let forecast =
                output.unwrap_or_else(|error| panic!("{path:?} anthropic={anthropic}: {error}"));
            // The value is the model's; its shape is the schema's, enforced by the grammar.
            assert!(
                forecast.city.chars().count() <= 24,
                "{path:?}: {forecast:?}"
            );
            let exchanges = recorder.exchanges();
            let request: Value = serde_json::from_slice(&exchanges[0].request).unwrap();
            if anthropic {
                assert_eq!(request["tool_choice"]["name"], "agents_kt_output");
                let uses = tool_uses_in(&exchanges[0]);
                assert_eq!(uses.len(), 1, "{path:?}: the server called the output tool");
                let (_, name, input) = &uses[0];
                assert_eq!(name, "agents_kt_output");
                assert_eq!(
                    serde_json::from_value::<Forecast>(input.clone()).ok(),
                    Some(forecast),
                    "{path:?}: the output is the tool's input"
                );
            } else {
                assert_eq!(
                    request["response_format"]["type"], "json_schema",
                    "{path:?}"
                );
            }
        }
    }
}

/// The `tool_use` blocks of a recorded Messages API answer, as `(id, name, input)`: from the JSON
/// body, or joined from a stream's `content_block_start` and `input_json_delta` events.
fn tool_uses_in(exchange: &Exchange) -> Vec<(String, String, Value)> {
    let text = String::from_utf8_lossy(&exchange.response);
    if let Ok(body) = serde_json::from_str::<Value>(&text) {
        return body["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|block| block["type"] == "tool_use")
            .map(|block| {
                (
                    block["id"].as_str().unwrap_or_default().to_string(),
                    block["name"].as_str().unwrap_or_default().to_string(),
                    block["input"].clone(),
                )
            })
            .collect();
    }
    let mut blocks: Vec<(u64, String, String, String)> = Vec::new();
    for line in text.lines() {
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        let Ok(event) = serde_json::from_str::<Value>(data) else {
            continue;
        };
        let index = event["index"].as_u64().unwrap_or(0);
        match event["type"].as_str() {
            Some("content_block_start") if event["content_block"]["type"] == "tool_use" => {
                let block = &event["content_block"];
                blocks.push((
                    index,
                    block["id"].as_str().unwrap_or_default().to_string(),
                    block["name"].as_str().unwrap_or_default().to_string(),
                    String::new(),
                ));
            }
            Some("content_block_delta") if event["delta"]["type"] == "input_json_delta" => {
                if let Some(block) = blocks.iter_mut().find(|b| b.0 == index) {
                    block
                        .3
                        .push_str(event["delta"]["partial_json"].as_str().unwrap_or_default());
                }
            }
            _ => {}
        }
    }
    blocks
        .into_iter()
        .map(|(_, id, name, input)| {
            (
                id,
                name,
                serde_json::from_str(&input).unwrap_or(Value::Null),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_client_drives_real_tool_calls_and_a_denial_is_an_error_tool_result() {
    let Some((binary, model_path)) = locate() else {
        return;
    };
    let server = greedy_server(&binary, &model_path, Tools::One).await;
    for path in PATHS {
        for deny in [false, true] {
            let recorder = Recorder::start(&server.base).await;
            let tool = GetWeather::default();
            let agent: Agent<String, String> = Agent::builder("weather")
                .model(
                    agents_kt::Anthropic::new("smollm2")
                        .base_url(&recorder.base)
                        .max_tokens(48)
                        .tool_choice(json!({"type": "any"}))
                        .settings(patient()),
                )
                .tool(tool.clone())
                .before_tool_call(move |_: &GetWeatherArgs| {
                    if deny {
                        Decision::deny("weather is classified")
                    } else {
                        Decision::Proceed
                    }
                })
                .on_before_turn(two_turns)
                .build()
                .unwrap();
            let (output, _) = drive(&agent, "What is the weather in Paris?", path).await;
            assert_eq!(
                output.expect("the run completes"),
                "stopped after two turns"
            );
            let exchanges = recorder.exchanges();
            assert_eq!(exchanges.len(), 2, "{path:?} deny={deny}");
            assert!(
                exchanges.iter().all(|e| e.status == 200),
                "{path:?} deny={deny}"
            );
            let uses = tool_uses_in(&exchanges[0]);
            assert!(
                !uses.is_empty(),
                "{path:?}: the server answered with tool_use"
            );
            let (id, name, input) = &uses[0];
            assert_eq!(name, "get_weather");
            let follow_up = messages_of(&exchanges[1]);
            let result = follow_up
                .iter()
                .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
                .find(|block| block["type"] == "tool_result")
                .expect("a tool_result block");
            assert_eq!(result["tool_use_id"], json!(id), "{path:?}");
            if deny {
                assert!(tool.ran.is_empty());
                assert_eq!(result["is_error"], json!(true), "{path:?}");
                assert!(
                    result.to_string().contains(
                        "ERROR: Tool 'get_weather' denied by policy: weather is classified"
                    ),
                    "{result}"
                );
            } else {
                let server_args: GetWeatherArgs =
                    serde_json::from_value(input.clone()).expect("the input fits the tool");
                assert_eq!(
                    tool.ran.entries()[0],
                    server_args,
                    "{path:?}: the tool saw the server's input"
                );
            }
        }
    }
}

/// `get_weather` that answers only once a second call is running beside it (or, after a wait,
/// alone): what it answers tells whether the calls ran at the same time.
#[derive(Clone)]
struct Rendezvous {
    barrier: std::sync::Arc<tokio::sync::Barrier>,
    ran: agents_kt_tests::Log<GetWeatherArgs>,
}

impl agents_kt::Tool for Rendezvous {
    const NAME: &'static str = "get_weather";
    type Args = GetWeatherArgs;
    type Output = Value;

    fn description(&self) -> std::borrow::Cow<'static, str> {
        "Current weather for a city.".into()
    }

    async fn call(
        &self,
        args: GetWeatherArgs,
        _: &agents_kt::ToolContext,
    ) -> Result<Value, agents_kt::ToolError> {
        self.ran.push(args.clone());
        let met = tokio::time::timeout(Duration::from_secs(20), self.barrier.wait())
            .await
            .is_ok();
        Ok(json!({"city": args.city, "met": met}))
    }
}

/// The tool messages of a recorded request, as `(tool_call_id, content)`, in order.
fn tool_messages(exchange: &Exchange) -> Vec<(String, String)> {
    messages_of(exchange)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or_default().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_models_parallel_calls_run_together_each_through_its_chain_answered_in_order() {
    let Some((binary, model_path)) = locate() else {
        return;
    };
    let server = greedy_server(&binary, &model_path, Tools::Parallel).await;
    let question = "What is the weather in Paris and in Oslo? Call get_weather once per city.";
    for path in PATHS {
        // Two calls in one answer run at the same time; the answers go back in the model's order.
        let recorder = Recorder::start(&server.base).await;
        let tool = Rendezvous {
            barrier: std::sync::Arc::new(tokio::sync::Barrier::new(2)),
            ran: agents_kt_tests::Log::new(),
        };
        let agent: Agent<String, String> = Agent::builder("weather")
            .model(model(&recorder).parallel_tool_calls(true))
            .tool(tool.clone())
            .tool_concurrency(2)
            .on_before_turn(two_turns)
            .build()
            .unwrap();
        let (output, _) = drive(&agent, question, path).await;
        output.unwrap_or_else(|error| panic!("{path:?}: {error}"));
        let exchanges = recorder.exchanges();
        let request: Value = serde_json::from_slice(&exchanges[0].request).unwrap();
        assert_eq!(request["parallel_tool_calls"], true);
        let sent = calls_in(&exchanges[0]);
        assert_eq!(
            sent.len(),
            2,
            "{path:?}: the server sent two calls: {sent:?}"
        );
        let answers = tool_messages(&exchanges[1]);
        assert_eq!(answers.len(), 2, "{path:?}");
        for ((id, _, arguments), (answer_id, answer)) in sent.iter().zip(&answers) {
            assert_eq!(id, answer_id, "{path:?}: answers in the model's order");
            let args: GetWeatherArgs = serde_json::from_str(arguments).unwrap();
            let answer: Value = serde_json::from_str(answer).unwrap();
            assert_eq!(answer["city"], json!(args.city), "{path:?}");
            assert_eq!(answer["met"], true, "{path:?}: the two calls ran together");
        }

        // A Deny of one call leaves the other alone.
        let recorder = Recorder::start(&server.base).await;
        let weather = GetWeather::default();
        let first_city = std::sync::Arc::new(std::sync::Mutex::new(None::<String>));
        let first = first_city.clone();
        let agent: Agent<String, String> = Agent::builder("weather")
            .model(model(&recorder).parallel_tool_calls(true))
            .tool(weather.clone())
            .tool_concurrency(2)
            .before_tool_call(move |args: &GetWeatherArgs| {
                // The first call the chain sees is denied, whichever city it names.
                let mut first = first.lock().unwrap();
                match first.as_deref() {
                    None => {
                        *first = Some(args.city.clone());
                        Decision::deny("one city at a time")
                    }
                    Some(_) => Decision::Proceed,
                }
            })
            .on_before_turn(two_turns)
            .build()
            .unwrap();
        drive(&agent, question, path).await.0.unwrap();
        let exchanges = recorder.exchanges();
        let sent = calls_in(&exchanges[0]);
        assert_eq!(sent.len(), 2, "{path:?}: {sent:?}");
        let answers = tool_messages(&exchanges[1]);
        let denied = first_city.lock().unwrap().clone().unwrap();
        let denials = answers
            .iter()
            .filter(|(_, text)| {
                text == "ERROR: Tool 'get_weather' denied by policy: one city at a time"
            })
            .count();
        assert_eq!(denials, 1, "{path:?}: {answers:?}");
        let other = answers
            .iter()
            .find(|(_, text)| !text.starts_with("ERROR"))
            .expect("the other call's result");
        let other: Value = serde_json::from_str(&other.1).unwrap();
        assert_ne!(other["city"], json!(denied), "{path:?}: the other call ran");
        assert_eq!(
            weather.ran.entries()[0].city,
            other["city"].as_str().unwrap()
        );
    }
}
