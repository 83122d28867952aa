//! After-tool interceptors: a result is kept, replaced or withheld before the model, the observers
//! and the session see it — on the run and session paths and for code skills' tool calls.

use agents_kt::{
    Agent, AgentError, AgentEvent, Decision, InterceptContext, InterceptionPoint, PipelineEvent,
    Reply, ScriptedModel, Skill, SkillContext, SkillError,
};
use agents_kt_tests::{GetWeather, GetWeatherArgs, PATHS, Path, Seen, drain, drive, last_message};
use serde_json::{Value, json};

fn weather_model() -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Oslo"})),
        Reply::text("done"),
    ])
}

/// Replaces the reading with a redacted one.
fn redact(reading: &Value) -> Decision<Value, Value> {
    let mut reading = reading.clone();
    reading["city"] = json!("[redacted]");
    Decision::ProceedWith(reading)
}

#[tokio::test]
async fn a_replaced_result_is_what_the_model_observers_and_session_see() {
    for path in PATHS {
        let model = weather_model();
        let seen = Seen::default();
        let agent: Agent<String, String> = seen
            .watch(Agent::builder("weather"))
            .model(model.clone())
            .tool(GetWeather::default())
            .after_tool_call::<GetWeather, _>(redact)
            .build()
            .unwrap();
        let (output, events) = drive(&agent, "weather?", path).await;
        assert_eq!(output.unwrap(), "done");
        assert_eq!(
            last_message(&model, 1),
            r#"{"celsius":18,"city":"[redacted]"}"#,
            "{path:?}"
        );
        let used = seen.lines("tool_use");
        assert_eq!(used.len(), 1);
        assert!(
            used[0].ends_with(r#"{"celsius":18,"city":"[redacted]"}"#),
            "{used:?}"
        );
        if path == Path::Session {
            let finished: Vec<_> = events
                .iter()
                .filter_map(|e| match e {
                    AgentEvent::ToolCallFinished { result, .. } => Some(result.clone()),
                    _ => None,
                })
                .collect();
            assert_eq!(finished, [json!({"city": "[redacted]", "celsius": 18})]);
        }
    }
}

#[tokio::test]
async fn a_withheld_result_never_reaches_the_model_and_is_audited() {
    for path in PATHS {
        let model = weather_model();
        let seen = Seen::default();
        let agent: Agent<String, String> = seen
            .watch(Agent::builder("weather"))
            .model(model.clone())
            .tool(GetWeather::default())
            .on_after_tool_call(|name: &str, args: &Value, result: &Value| {
                assert_eq!(name, "get_weather");
                assert_eq!(args, &json!({"city": "Oslo"}));
                if result["city"] == "Oslo" {
                    Decision::deny("contains a location")
                } else {
                    Decision::Proceed
                }
            })
            .build()
            .unwrap();
        let mut pipeline = agent.observe();
        let (output, events) = drive(&agent, "weather?", path).await;
        assert_eq!(output.unwrap(), "done");
        assert_eq!(
            last_message(&model, 1),
            "ERROR: Tool 'get_weather' result withheld by policy: contains a location"
        );
        assert!(
            seen.lines("tool_use").is_empty(),
            "{path:?}: the result is withheld from observers"
        );
        let withheld: Vec<_> = drain(&mut pipeline)
            .into_iter()
            .filter(|e| matches!(e, PipelineEvent::ToolResultWithheld { reason, .. } if reason == "contains a location"))
            .collect();
        assert_eq!(withheld.len(), 1, "{path:?}");
        if path == Path::Session {
            assert!(
                !format!("{events:?}").contains("\"celsius\""),
                "{path:?}: the session must not see it"
            );
        }
    }
}

#[tokio::test]
async fn a_dynamic_replacement_that_does_not_fit_the_output_withholds_the_result() {
    let model = ScriptedModel::new([
        Reply::tool_call("writeFile", json!({"path": "/tmp/a", "contents": "x"})),
        Reply::text("done"),
    ]);
    let agent: Agent<String, String> = Agent::builder("files")
        .model(model.clone())
        .tool(agents_kt_tests::WriteFile::default())
        .on_after_tool_call(|_: &str, _: &Value, _: &Value, ctx: &InterceptContext| {
            assert!(ctx.tool_call_id().is_some());
            assert_eq!(
                ctx.arguments(),
                Some(&json!({"path": "/tmp/a", "contents": "x"}))
            );
            Decision::ProceedWith(json!({"not": "a string"}))
        })
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    let text = last_message(&model, 1);
    assert!(
        text.starts_with(
            "ERROR: Tool 'writeFile' result withheld by policy: interceptor's replacement"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn a_code_skills_tool_call_gets_the_replaced_result_or_a_withheld_error() {
    for (city, expected) in [("Oslo", Ok(json!("[redacted]"))), ("Bergen", Err(()))] {
        let agent: Agent<String, String> = Agent::builder("weather")
            .tool(GetWeather::default())
            .after_tool_call::<GetWeather, _>(|reading: &Value| {
                if reading["city"] == "Bergen" {
                    Decision::deny("no Bergen")
                } else {
                    redact(reading)
                }
            })
            .skill(Skill::code(
                "look",
                |city: String, ctx: SkillContext<String>| async move {
                    let reading = ctx.call_tool(GetWeatherArgs { city }).await?;
                    Ok::<_, SkillError>(reading["city"].to_string())
                },
            ))
            .build()
            .unwrap();
        let result = agent.run(city.into()).await;
        match expected {
            Ok(value) => assert_eq!(result.unwrap(), value.to_string()),
            Err(()) => {
                let error = result.unwrap_err();
                assert!(matches!(
                    error,
                    AgentError::InterceptorDenied {
                        point: InterceptionPoint::AfterToolCall,
                        ..
                    }
                ));
                assert_eq!(
                    error.to_string(),
                    "Tool 'get_weather' result withheld by policy: no Bergen"
                );
            }
        }
    }
}

/// Withholds the reading of a city the call was not meant to reveal: it needs the arguments the
/// call ran with, and its `&GetWeatherArgs` names the tool.
fn withhold_oslo(args: &GetWeatherArgs, reading: &Value) -> Decision<Value, Value> {
    if args.city == "Oslo" {
        Decision::deny(format!(
            "no readings of {} ({})",
            args.city, reading["celsius"]
        ))
    } else {
        Decision::Proceed
    }
}

#[tokio::test]
async fn an_after_tool_interceptor_over_the_arguments_infers_its_tool_and_sees_the_rewritten_call()
{
    for path in PATHS {
        // Asked about Bergen; a before-tool interceptor rewrites the call to Oslo, and the
        // after-tool interceptor judges the call as it ran.
        let model = ScriptedModel::new([
            Reply::tool_call("get_weather", json!({"city": "Bergen"})),
            Reply::text("done"),
        ]);
        let agent: Agent<String, String> = Agent::builder("weather")
            .model(model.clone())
            .tool(GetWeather::default())
            .before_tool_call(|_: &GetWeatherArgs| {
                Decision::<GetWeatherArgs, Value>::ProceedWith(GetWeatherArgs {
                    city: "Oslo".into(),
                })
            })
            .after_tool_call(
                |args: &GetWeatherArgs, _: &Value, ctx: &InterceptContext<'_>| {
                    assert_eq!(ctx.tool(), Some("get_weather"));
                    assert_eq!(args.city, "Oslo");
                    Decision::<Value, Value>::Proceed
                },
            )
            .after_tool_call(withhold_oslo)
            .build()
            .unwrap();
        let (output, _) = drive(&agent, "weather?", path).await;
        assert_eq!(output.unwrap(), "done");
        let told = last_message(&model, 1);
        assert!(
            told.contains("no readings of Oslo (18)"),
            "{path:?}: {told}"
        );
    }
}
