//! Whatever the model sends, the run never panics: unknown tools, malformed, ill-typed or oversized
//! arguments and failing tools are told to the model so it can recover; broken streams and
//! unparsable answers end the run with a clear error.

use agents_kt::{
    Agent, AgentError, Budget, ChatChunk, ModelError, PipelineEvent, Reply, ScriptedModel, Skill,
};
use agents_kt_tests::{GetWeather, PATHS, Path, Seen, WriteFile, drain, drive, last_message};
use serde_json::json;

fn forecast_agent(
    model: &ScriptedModel,
    weather: &GetWeather,
    seen: &Seen,
) -> Agent<String, String> {
    seen.watch(Agent::builder("forecaster"))
        .model(model.clone())
        .tool(weather.clone())
        .tool(WriteFile::default())
        .skill(Skill::agentic("forecast").tool::<GetWeather>())
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_tool_outside_the_allow_list_is_refused_and_the_model_recovers() {
    for path in PATHS {
        let model = ScriptedModel::new([
            Reply::tool_calls([
                ("writeFile", json!({"path": "/tmp/x", "contents": "y"})),
                ("launch_missiles", json!({})),
            ]),
            Reply::text("sorry, only weather"),
        ]);
        let (weather, seen) = (GetWeather::default(), Seen::default());
        let agent = forecast_agent(&model, &weather, &seen);
        let mut pipeline = agent.observe();
        let (output, _) = drive(&agent, "x", path).await;
        assert_eq!(output.unwrap(), "sorry, only weather");
        let sent = &model.requests()[1].messages;
        let answers: Vec<_> = sent
            .iter()
            .rev()
            .take(2)
            .rev()
            .map(|m| m.content.clone())
            .collect();
        assert_eq!(
            answers,
            vec![
                "ERROR: Tool 'writeFile' is unknown for skill 'forecast'. Allowed tools: get_weather",
                "ERROR: Tool 'launch_missiles' is unknown for skill 'forecast'. Allowed tools: get_weather",
            ]
        );
        assert!(sent.last().unwrap().is_error);
        let rejected = drain(&mut pipeline)
            .into_iter()
            .filter(|e| matches!(e, PipelineEvent::ToolRejected { .. }))
            .count();
        assert_eq!(rejected, 2, "{path:?}");
    }
}

/// The arguments are read once — straight into the tool's type, or, when a dynamic interceptor
/// reads them, into the JSON it sees and from there — and a misfit reads the same either way.
#[tokio::test]
async fn invalid_arguments_read_the_same_with_or_without_a_dynamic_interceptor() {
    let calls = [r#"{"city": "Os"#, r#"{"city": 5}"#, r#"{"town": "Oslo"}"#];
    let mut answers = Vec::new();
    for dynamic in [false, true] {
        let model = ScriptedModel::new(
            calls
                .iter()
                .map(|text| Reply::raw_tool_calls([("get_weather", *text)]))
                .chain([Reply::text("gave up")]),
        );
        let weather = GetWeather::default();
        let seen_by_interceptor = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut builder = Agent::<String, String>::builder("forecaster")
            .model(model.clone())
            .tool(weather.clone());
        if dynamic {
            let seen = std::sync::Arc::clone(&seen_by_interceptor);
            builder = builder.on_before_tool_call(move |_: &str, args: &serde_json::Value| {
                seen.lock().unwrap().push(args.clone());
                agents_kt::Decision::Proceed
            });
        }
        let agent = builder.build().unwrap();
        assert_eq!(agent.run("x".into()).await.unwrap(), "gave up");
        assert!(weather.ran.is_empty());
        assert!(
            seen_by_interceptor.lock().unwrap().is_empty(),
            "no interceptor sees arguments that do not fit the tool"
        );
        answers.push(
            (1..=calls.len())
                .map(|n| last_message(&model, n))
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(
        answers[0][1],
        "ERROR: Invalid arguments for tool 'get_weather': invalid type: integer `5`, expected a string"
    );
    assert!(
        answers[0][0].contains("EOF while parsing a string at line 1 column"),
        "a text that is not JSON keeps its place: {:?}",
        answers[0][0]
    );
}

/// A code skill's JSON arguments reach a dynamic interceptor as they were given, unknown fields
/// kept, and the tool typed.
#[tokio::test]
async fn a_code_skills_json_arguments_reach_dynamic_interceptors_unchanged() {
    let weather = GetWeather::default();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen_by_interceptor = std::sync::Arc::clone(&seen);
    let agent = Agent::<String, String>::builder("forecaster")
        .model(ScriptedModel::new([]))
        .tool(weather.clone())
        .on_before_tool_call(move |_: &str, args: &serde_json::Value| {
            seen_by_interceptor.lock().unwrap().push(args.clone());
            agents_kt::Decision::Proceed
        })
        .skill(Skill::code(
            "ask",
            |_: String, ctx: agents_kt::SkillContext<String>| async move {
                let answer = ctx
                    .call_tool_named("get_weather", json!({"city": "Oslo", "units": "metric"}))
                    .await?;
                Ok(answer.to_string())
            },
        ))
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    let ran: Vec<String> = weather.ran.entries().into_iter().map(|a| a.city).collect();
    assert_eq!(ran, ["Oslo"]);
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        [json!({"city": "Oslo", "units": "metric"})]
    );
}

#[tokio::test]
async fn malformed_and_ill_typed_arguments_are_told_to_the_model() {
    for path in PATHS {
        let model = ScriptedModel::new([
            Reply::raw_tool_calls([("get_weather", r#"{"city": "Os"#)]),
            Reply::tool_call("get_weather", json!({"city": 5})),
            Reply::tool_call("get_weather", json!({"town": "Oslo"})),
            Reply::text("gave up"),
        ]);
        let (weather, seen) = (GetWeather::default(), Seen::default());
        let agent = forecast_agent(&model, &weather, &seen);
        assert_eq!(drive(&agent, "x", path).await.0.unwrap(), "gave up");
        assert!(weather.ran.is_empty());
        let answers: Vec<String> = (1..=3).map(|n| last_message(&model, n)).collect();
        assert!(
            answers[0]
                .starts_with("ERROR: Invalid arguments for tool 'get_weather': EOF while parsing"),
            "{answers:?}"
        );
        assert!(
            answers[1].starts_with(
                "ERROR: Invalid arguments for tool 'get_weather': invalid type: integer `5`"
            ),
            "{answers:?}"
        );
        assert!(
            answers[2].starts_with(
                "ERROR: Invalid arguments for tool 'get_weather': missing field `city`"
            ),
            "{answers:?}"
        );
        assert!(
            seen.lines("tool_error").is_empty(),
            "invalid arguments are not a tool failure"
        );
    }
}

#[tokio::test]
async fn oversized_arguments_are_refused_without_running_the_tool() {
    let model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "x".repeat(200)})),
        Reply::text("ok"),
    ]);
    let weather = GetWeather::default();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model.clone())
        .tool(weather.clone())
        .budget(Budget::default().max_tool_args_bytes(64))
        .build()
        .unwrap();
    assert_eq!(agent.run("x".into()).await.unwrap(), "ok");
    assert!(weather.ran.is_empty());
    assert_eq!(
        last_message(&model, 1),
        "ERROR: Arguments for tool 'get_weather' are too large: 211 bytes, the limit is 64 bytes (max_tool_args_bytes)"
    );
}

#[tokio::test]
async fn a_failing_tool_fires_on_tool_error_and_the_model_is_told() {
    for path in PATHS {
        let model = ScriptedModel::new([
            Reply::tool_call("get_weather", json!({"city": "Atlantis"})),
            Reply::text("no station there"),
        ]);
        let (weather, seen) = (GetWeather::default(), Seen::default());
        let agent = forecast_agent(&model, &weather, &seen);
        assert_eq!(
            drive(&agent, "x", path).await.0.unwrap(),
            "no station there"
        );
        assert_eq!(
            last_message(&model, 1),
            "ERROR: Tool 'get_weather' failed: no station in Atlantis"
        );
        assert_eq!(
            seen.lines("tool_error"),
            vec![r#"tool_error get_weather {"city":"Atlantis"} no station in Atlantis"#]
        );
        assert!(seen.lines("tool_use").is_empty());
        assert!(seen.lines("tool_denied").is_empty());
    }
}

#[tokio::test]
async fn a_panicking_tool_is_a_tool_error_not_a_crash() {
    let model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Panic City"})),
        Reply::text("recovered"),
    ]);
    let (weather, seen) = (GetWeather::default(), Seen::default());
    let agent = forecast_agent(&model, &weather, &seen);
    assert_eq!(agent.run("x".into()).await.unwrap(), "recovered");
    assert_eq!(
        last_message(&model, 1),
        "ERROR: Tool 'get_weather' failed: tool panicked: weather station exploded"
    );
    assert_eq!(seen.lines("tool_error").len(), 1);
}

#[tokio::test]
async fn a_stream_broken_mid_tool_call_ends_the_turn_and_runs_no_tool() {
    let model = ScriptedModel::new([Reply::broken_stream(
        vec![
            ChatChunk::Text("Let me check".into()),
            ChatChunk::tool_call_delta(
                0,
                Some("c1".into()),
                Some("get_weather".into()),
                r#"{"city": "Os"#,
            ),
        ],
        ModelError::StreamBroken("connection reset".into()),
    )]);
    let (weather, seen) = (GetWeather::default(), Seen::default());
    let agent = forecast_agent(&model, &weather, &seen);
    let (output, events) = drive(&agent, "x", Path::Session).await;
    assert_eq!(
        output.unwrap_err(),
        AgentError::Model(ModelError::StreamBroken("connection reset".into()))
    );
    assert!(weather.ran.is_empty());
    assert!(
        events
            .iter()
            .any(|e| matches!(e, agents_kt::AgentEvent::Token { .. }))
    );
    assert!(matches!(
        events.last(),
        Some(agents_kt::AgentEvent::Failed { .. })
    ));
}

#[tokio::test]
async fn a_streamed_tool_call_without_a_name_is_a_malformed_answer() {
    let model = ScriptedModel::new([Reply::chunks(vec![ChatChunk::tool_call_delta(
        0,
        Some("c1".into()),
        None,
        "{}",
    )])]);
    let (weather, seen) = (GetWeather::default(), Seen::default());
    let agent = forecast_agent(&model, &weather, &seen);
    for path in PATHS {
        model.push(Reply::chunks(vec![ChatChunk::tool_call_delta(
            0, None, None, "{}",
        )]));
        let error = drive(&agent, "x", path).await.0.unwrap_err();
        assert!(
            matches!(&error, AgentError::Model(ModelError::InvalidResponse(m)) if m.contains("no tool name")),
            "{error}"
        );
    }
}

#[tokio::test]
async fn a_model_error_ends_the_run_with_that_error() {
    for path in PATHS {
        let model = ScriptedModel::new([Reply::error(ModelError::http(503, "overloaded"))]);
        let agent: Agent<String, String> = Agent::builder("a").model(model).build().unwrap();
        let error = drive(&agent, "x", path).await.0.unwrap_err();
        assert_eq!(
            error.to_string(),
            "model provider answered HTTP 503: overloaded"
        );
    }
}

#[tokio::test]
async fn an_exhausted_script_fails_clearly() {
    let model = ScriptedModel::new([Reply::tool_call("get_weather", json!({"city": "Oslo"}))]);
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model)
        .tool(GetWeather::default())
        .build()
        .unwrap();
    let error = agent.run("x".into()).await.unwrap_err();
    assert!(
        matches!(
            error,
            AgentError::Model(ModelError::ScriptExhausted { request: 2, .. })
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("add more replies"));
}

#[derive(Clone, Debug, serde::Deserialize, schemars::JsonSchema)]
struct Verdict {
    approved: bool,
}

#[tokio::test]
async fn an_answer_still_unparsable_after_the_repair_is_an_output_error_naming_the_type() {
    for path in PATHS {
        let model = ScriptedModel::new([Reply::text("yes, approved"), Reply::text("approved!")]);
        let agent: Agent<String, Verdict> = Agent::builder("a").model(model).build().unwrap();
        let error = drive(&agent, "x", path).await.0.unwrap_err();
        assert!(
            error
                .to_string()
                .contains("not a valid `bad_model_output::Verdict`"),
            "{error}"
        );
        match error {
            AgentError::Output {
                expected,
                raw,
                reason,
                ..
            } => {
                assert_eq!(expected, "bad_model_output::Verdict");
                assert_eq!(raw, "approved!", "the repaired answer is the one reported");
                assert!(reason.contains("expected value"), "{reason}");
            }
            other => panic!("expected an output error, got {other}"),
        }
    }
}

#[tokio::test]
async fn an_unfit_answer_is_repaired_once_and_the_model_is_told_why() {
    for path in PATHS {
        let model = ScriptedModel::new([
            Reply::text(r#"{"approved": "yes"}"#),
            Reply::text(r#"{"approved": true}"#),
        ]);
        let agent: Agent<String, Verdict> =
            Agent::builder("a").model(model.clone()).build().unwrap();
        let verdict = drive(&agent, "x", path).await.0.expect("the repair fits");
        assert!(verdict.approved);
        let requests = model.requests();
        assert_eq!(requests.len(), 2, "{path:?}: one repair turn");
        let history = &requests[1].messages;
        let [.., answer, repair] = history.as_slice() else {
            panic!("a history")
        };
        assert_eq!(
            answer.content, r#"{"approved": "yes"}"#,
            "the model sees its answer"
        );
        assert!(
            repair
                .content
                .starts_with("Your answer is not a valid `Verdict`: invalid type: string"),
            "and why it did not fit: {}",
            repair.content
        );
        assert!(
            requests[1].response_format.is_some(),
            "the schema goes again"
        );
    }
}

#[tokio::test]
async fn with_no_repairs_an_unfit_answer_fails_at_once() {
    for path in PATHS {
        let model = ScriptedModel::new([Reply::text("yes"), Reply::text(r#"{"approved": true}"#)]);
        let agent: Agent<String, Verdict> = Agent::builder("a")
            .model(model.clone())
            .budget(Budget::default().max_output_repairs(0))
            .build()
            .unwrap();
        let error = drive(&agent, "x", path).await.0.unwrap_err();
        assert!(matches!(error, AgentError::Output { .. }), "{error}");
        assert_eq!(model.request_count(), 1, "{path:?}");
    }
}

#[tokio::test]
async fn a_repair_is_a_turn_counted_toward_max_turns() {
    for path in PATHS {
        let model = ScriptedModel::new([Reply::text("yes"), Reply::text(r#"{"approved": true}"#)]);
        let agent: Agent<String, Verdict> = Agent::builder("a")
            .model(model.clone())
            .budget(Budget::default().max_turns(1))
            .build()
            .unwrap();
        let error = drive(&agent, "x", path).await.0.unwrap_err();
        assert!(
            matches!(error, AgentError::BudgetExceeded { .. }),
            "{path:?}: {error}"
        );
        assert_eq!(model.request_count(), 1);
    }
}
