//! Before-tool-call interceptors: every decision on the run and session paths, the seed's
//! examples, and the chain rules as the agent applies them.

use agents_kt::{
    Agent, AgentEvent, Budget, Decision, Message, PipelineEvent, Reply, Role, ScriptedModel,
    ToolInterceptor,
};
use agents_kt_tests::{
    FetchAccount, FetchAccountArgs, GetWeather, GetWeatherArgs, PATHS, Path, Seen, WriteFile,
    WriteFileArgs, drain, drive, last_message,
};
use serde_json::{Value, json};

fn write_etc() -> Reply {
    Reply::tool_call(
        "writeFile",
        json!({"path": "/etc/passwd", "contents": "root::0:0"}),
    )
}

fn etc_policy(name: &str, args: &Value) -> Decision<Value, Value> {
    let path = args["path"].as_str().unwrap_or_default();
    if name == "writeFile" && path.starts_with("/etc/") {
        Decision::deny("system paths are off-limits")
    } else {
        Decision::Proceed
    }
}

fn tool_message(model: &ScriptedModel, request: usize) -> Message {
    let requests = model.requests();
    let last = requests[request]
        .messages
        .last()
        .cloned()
        .expect("a message");
    assert_eq!(last.role, Role::Tool);
    last
}

#[tokio::test]
async fn seed_policy_denial_skips_the_tool_tells_the_model_and_is_audited() {
    for path in PATHS {
        let model = ScriptedModel::new([write_etc(), Reply::text("I cannot write there.")]);
        let write_file = WriteFile::default();
        let seen = Seen::default();
        let agent: Agent<String, String> = seen
            .watch(Agent::builder("files"))
            .model(model.clone())
            .tool(write_file.clone())
            .on_before_tool_call(etc_policy)
            .build()
            .unwrap();
        let mut pipeline = agent.observe();
        let (output, events) = drive(&agent, "save it", path).await;
        assert_eq!(output.unwrap(), "I cannot write there.");
        assert!(write_file.ran.is_empty(), "the executor must not run");
        let answer = tool_message(&model, 1);
        assert_eq!(
            answer.content,
            "ERROR: Tool 'writeFile' denied by policy: system paths are off-limits"
        );
        assert!(answer.is_error);
        assert_eq!(
            seen.lines("tool_denied"),
            vec![
                r#"tool_denied writeFile {"contents":"root::0:0","path":"/etc/passwd"} system paths are off-limits"#
            ]
        );
        assert!(seen.lines("tool_use").is_empty(), "{path:?}");
        assert!(seen.lines("tool_error").is_empty(), "{path:?}");
        let denied: Vec<_> = drain(&mut pipeline)
            .into_iter()
            .filter(|e| matches!(e, PipelineEvent::ToolDenied { .. }))
            .collect();
        assert_eq!(denied.len(), 1);
        let PipelineEvent::ToolDenied {
            tool, reason, args, ..
        } = &denied[0]
        else {
            unreachable!()
        };
        assert_eq!(
            (tool.as_str(), reason.as_str()),
            ("writeFile", "system paths are off-limits")
        );
        assert_eq!(args["path"], "/etc/passwd");
        if path == Path::Session {
            assert!(events.iter().any(|e| matches!(
                e,
                AgentEvent::ToolCallFinished { tool, is_error: true, .. } if tool == "writeFile"
            )));
            assert!(
                !events
                    .iter()
                    .any(|e| matches!(e, AgentEvent::ToolCallStarted { .. })),
                "a denied tool never starts"
            );
        }
    }
}

#[tokio::test]
async fn seed_args_mutation_trace_id_is_seen_by_the_tool_and_on_tool_use() {
    for path in PATHS {
        let model = ScriptedModel::new([
            Reply::tool_call("writeFile", json!({"path": "/tmp/a", "contents": "x"})),
            Reply::text("done"),
        ]);
        let write_file = WriteFile::default();
        let seen = Seen::default();
        let agent: Agent<String, String> = seen
            .watch(Agent::builder("files"))
            .model(model.clone())
            .tool(write_file.clone())
            .on_before_tool_call(|_name: &str, args: &Value| {
                let mut args = args.clone();
                args["traceId"] = json!("trace-123");
                Decision::ProceedWith(args)
            })
            .build()
            .unwrap();
        let (output, events) = drive(&agent, "save", path).await;
        output.unwrap();
        assert_eq!(
            write_file.ran.entries(),
            vec![WriteFileArgs {
                path: "/tmp/a".into(),
                contents: "x".into(),
                trace_id: Some("trace-123".into()),
            }]
        );
        let used = seen.lines("tool_use");
        assert_eq!(used.len(), 1);
        assert!(used[0].contains(r#""traceId":"trace-123""#), "{used:?}");
        if path == Path::Session {
            let started = events.iter().find_map(|e| match e {
                AgentEvent::ToolCallStarted { args, .. } => Some(args.clone()),
                _ => None,
            });
            assert_eq!(started.unwrap()["traceId"], "trace-123");
        }
    }
}

#[tokio::test]
async fn seed_synthetic_result_substitutes_fetch_account_without_running_it() {
    for path in PATHS {
        let model = ScriptedModel::new([
            Reply::tool_call("fetchAccount", json!({"id": "acc-1"})),
            Reply::text("Balance: 100.00 USD"),
        ]);
        let fetch = FetchAccount::default();
        let seen = Seen::default();
        let agent: Agent<String, String> = seen
            .watch(Agent::builder("bank"))
            .model(model.clone())
            .tool(fetch.clone())
            .on_before_tool_call(|name: &str, _args: &Value| match name {
                "fetchAccount" => {
                    Decision::Substitute(json!({"balance": 10000, "currency": "USD"}))
                }
                _ => Decision::Proceed,
            })
            .build()
            .unwrap();
        let (output, events) = drive(&agent, "balance?", path).await;
        assert_eq!(output.unwrap(), "Balance: 100.00 USD");
        assert!(fetch.ran.is_empty(), "the tool body must not run");
        let answer = tool_message(&model, 1);
        assert_eq!(
            serde_json::from_str::<Value>(&answer.content).unwrap(),
            json!({"balance": 10000, "currency": "USD"})
        );
        assert!(!answer.is_error);
        assert_eq!(
            seen.lines("tool_use"),
            vec![r#"tool_use fetchAccount {"id":"acc-1"} {"balance":10000,"currency":"USD"}"#]
        );
        if path == Path::Session {
            let finished = events.iter().find_map(|e| match e {
                AgentEvent::ToolCallFinished {
                    result, is_error, ..
                } => Some((result.clone(), *is_error)),
                _ => None,
            });
            assert_eq!(
                finished,
                Some((json!({"balance": 10000, "currency": "USD"}), false))
            );
        }
    }
}

#[tokio::test]
async fn proceed_runs_the_tool_with_the_models_arguments() {
    for path in PATHS {
        let model = ScriptedModel::new([
            Reply::tool_call("get_weather", json!({"city": "Oslo"})),
            Reply::text("cold"),
        ]);
        let weather = GetWeather::default();
        let agent: Agent<String, String> = Agent::builder("w")
            .model(model.clone())
            .tool(weather.clone())
            .on_before_tool_call(|_: &str, _: &Value| Decision::Proceed)
            .build()
            .unwrap();
        drive(&agent, "weather?", path).await.0.unwrap();
        assert_eq!(
            weather.ran.entries(),
            vec![GetWeatherArgs {
                city: "Oslo".into()
            }]
        );
        assert_eq!(
            serde_json::from_str::<Value>(&last_message(&model, 1)).unwrap(),
            json!({"city": "Oslo", "celsius": 18})
        );
    }
}

#[tokio::test]
async fn first_deny_beats_a_later_substitute() {
    let model = ScriptedModel::new([write_etc(), Reply::text("ok")]);
    let write_file = WriteFile::default();
    let agent: Agent<String, String> = Agent::builder("files")
        .model(model.clone())
        .tool(write_file.clone())
        .on_before_tool_call(etc_policy)
        .on_before_tool_call(|_: &str, _: &Value| Decision::Substitute(json!("cached")))
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert!(last_message(&model, 1).starts_with("ERROR: Tool 'writeFile' denied by policy"));
    assert!(write_file.ran.is_empty());
}

#[tokio::test]
async fn an_earlier_proceed_with_beats_a_later_deny() {
    let model = ScriptedModel::new([write_etc(), Reply::text("ok")]);
    let write_file = WriteFile::default();
    let agent: Agent<String, String> = Agent::builder("files")
        .model(model.clone())
        .tool(write_file.clone())
        .before_tool_call(ToolInterceptor::<WriteFile>::new(|args: &WriteFileArgs| {
            Decision::ProceedWith(WriteFileArgs {
                path: args.path.replace("/etc/", "/tmp/"),
                ..args.clone()
            })
        }))
        .on_before_tool_call(|_: &str, _: &Value| Decision::deny("too late to matter"))
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert_eq!(write_file.ran.entries()[0].path, "/tmp/passwd");
    assert_eq!(last_message(&model, 1), "wrote 9 bytes to /tmp/passwd");
}

#[tokio::test]
async fn proceed_with_reaches_the_session_executor_and_tool_call_finished_carries_it() {
    let model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "paris"})),
        Reply::text("sunny"),
    ]);
    let weather = GetWeather::default();
    let agent: Agent<String, String> = Agent::builder("w")
        .model(model.clone())
        .tool(weather.clone())
        .before_tool_call(ToolInterceptor::<GetWeather>::new(
            |args: &GetWeatherArgs| {
                Decision::ProceedWith(GetWeatherArgs {
                    city: args.city.to_uppercase(),
                })
            },
        ))
        .build()
        .unwrap();
    let (output, events) = drive(&agent, "weather", Path::Session).await;
    output.unwrap();
    assert_eq!(weather.ran.entries()[0].city, "PARIS");
    let call_id = model.requests()[1].messages[1].tool_calls[0].id.clone();
    let finished: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallFinished {
                call_id,
                tool,
                args,
                result,
                is_error,
                ..
            } => Some((
                call_id.clone(),
                tool.clone(),
                args.clone(),
                result.clone(),
                *is_error,
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        finished,
        vec![(
            call_id,
            "get_weather".to_string(),
            json!({"city": "PARIS"}),
            json!({"city": "PARIS", "celsius": 18}),
            false
        )]
    );
}

#[tokio::test]
async fn typed_substitute_is_the_tool_result_and_the_tool_does_not_run() {
    let model = ScriptedModel::new([
        Reply::tool_call("fetchAccount", json!({"id": "a"})),
        Reply::text("ok"),
    ]);
    let fetch = FetchAccount::default();
    let agent: Agent<String, String> = Agent::builder("bank")
        .model(model.clone())
        .tool(fetch.clone())
        .before_tool_call(ToolInterceptor::<FetchAccount>::new(
            |_: &FetchAccountArgs| {
                Decision::Substitute(agents_kt_tests::Account {
                    balance: 7,
                    currency: "CHF".into(),
                })
            },
        ))
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert!(fetch.ran.is_empty());
    assert_eq!(last_message(&model, 1), r#"{"balance":7,"currency":"CHF"}"#);
}

#[tokio::test]
async fn a_typed_interceptor_is_in_its_own_tools_chain_only() {
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("get_weather", json!({"city": "Oslo"})),
            ("fetchAccount", json!({"id": "a"})),
        ]),
        Reply::text("ok"),
    ]);
    let (weather, fetch) = (GetWeather::default(), FetchAccount::default());
    let agent: Agent<String, String> = Agent::builder("two")
        .model(model.clone())
        .tool(weather.clone())
        .tool(fetch.clone())
        .before_tool_call(ToolInterceptor::<FetchAccount>::new(
            |_: &FetchAccountArgs| Decision::deny("accounts are closed"),
        ))
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert_eq!(
        weather.ran.len(),
        1,
        "get_weather is not in fetchAccount's chain"
    );
    assert!(fetch.ran.is_empty());
}

#[tokio::test]
async fn typed_and_dynamic_interceptors_share_registration_order() {
    let model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "oslo"})),
        Reply::text("ok"),
    ]);
    let observed = agents_kt_tests::Log::new();
    let (before, after) = (observed.clone(), observed.clone());
    let agent: Agent<String, String> = Agent::builder("order")
        .model(model.clone())
        .tool(GetWeather::default())
        .on_before_tool_call(move |_: &str, args: &Value| {
            before.push(format!("dynamic-1 saw {}", args["city"]));
            Decision::Proceed
        })
        .before_tool_call(ToolInterceptor::<GetWeather>::new(|_: &GetWeatherArgs| {
            Decision::ProceedWith(GetWeatherArgs {
                city: "Oslo".into(),
            })
        }))
        .on_before_tool_call(move |_: &str, args: &Value| {
            after.push(format!("dynamic-2 saw {}", args["city"]));
            Decision::Proceed
        })
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert_eq!(
        observed.entries(),
        vec![r#"dynamic-1 saw "oslo""#, r#"dynamic-2 saw "Oslo""#]
    );
}

#[tokio::test]
async fn a_dynamic_replacement_that_does_not_fit_the_args_denies_the_call() {
    let model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Oslo"})),
        Reply::text("ok"),
    ]);
    let weather = GetWeather::default();
    let agent: Agent<String, String> = Agent::builder("w")
        .model(model.clone())
        .tool(weather.clone())
        .on_before_tool_call(|_: &str, _: &Value| Decision::ProceedWith(json!({"town": 3})))
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert!(weather.ran.is_empty());
    let text = last_message(&model, 1);
    assert!(
        text.starts_with("ERROR: Tool 'get_weather' denied by policy: interceptor's replacement arguments do not fit tool 'get_weather'"),
        "{text}"
    );
}

#[tokio::test]
async fn a_dynamic_substitute_that_does_not_fit_the_output_denies_the_call() {
    let model = ScriptedModel::new([
        Reply::tool_call("fetchAccount", json!({"id": "a"})),
        Reply::text("ok"),
    ]);
    let fetch = FetchAccount::default();
    let agent: Agent<String, String> = Agent::builder("bank")
        .model(model.clone())
        .tool(fetch.clone())
        .on_before_tool_call(|_: &str, _: &Value| Decision::Substitute(json!("not an account")))
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert!(fetch.ran.is_empty());
    assert!(
        last_message(&model, 1)
            .contains("substitute result does not fit the output of tool 'fetchAccount'")
    );
}

#[tokio::test]
async fn an_async_interceptor_can_deny_after_awaiting() {
    let model = ScriptedModel::new([write_etc(), Reply::text("ok")]);
    let write_file = WriteFile::default();
    let agent: Agent<String, String> = Agent::builder("files")
        .model(model.clone())
        .tool(write_file.clone())
        .on_before_tool_call(|name: &str, _: &Value| {
            let name = name.to_string();
            async move {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                if name == "writeFile" {
                    Decision::deny("a human said no")
                } else {
                    Decision::Proceed
                }
            }
        })
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert!(write_file.ran.is_empty());
    assert_eq!(
        last_message(&model, 1),
        "ERROR: Tool 'writeFile' denied by policy: a human said no"
    );
}

#[tokio::test]
async fn a_panicking_or_failing_interceptor_fails_closed() {
    let model = ScriptedModel::new([write_etc(), write_etc(), Reply::text("ok")]);
    let write_file = WriteFile::default();
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let agent: Agent<String, String> = Agent::builder("files")
        .model(model.clone())
        .tool(write_file.clone())
        .before_tool_call(ToolInterceptor::<WriteFile>::new(
            move |_: &WriteFileArgs| {
                if calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                    panic!("policy engine crashed");
                }
                Err::<Decision<WriteFileArgs, String>, _>("policy backend unreachable")
            },
        ))
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert!(write_file.ran.is_empty());
    assert_eq!(
        last_message(&model, 1),
        "ERROR: Tool 'writeFile' denied by policy: policy engine crashed"
    );
    assert_eq!(
        last_message(&model, 2),
        "ERROR: Tool 'writeFile' denied by policy: policy backend unreachable"
    );
}

#[tokio::test]
async fn every_non_proceed_decision_is_reported_once_with_its_effectiveness() {
    let model = ScriptedModel::new([write_etc(), Reply::text("ok")]);
    let seen = Seen::default();
    let agent: Agent<String, String> = seen
        .watch(Agent::builder("files"))
        .model(model.clone())
        .tool(WriteFile::default())
        .on_before_tool_call(|_: &str, _: &Value| Decision::Proceed)
        .on_before_tool_call(etc_policy)
        .on_before_tool_call(|_: &str, _: &Value| Decision::Substitute(json!("x")))
        .build()
        .unwrap();
    let mut pipeline = agent.observe();
    agent.run("x".into()).await.unwrap();
    assert_eq!(
        seen.lines("decision"),
        vec![
            "decision tool call writeFile #1 Deny effective=true",
            "decision tool call writeFile #2 Substitute effective=false",
        ]
    );
    let reported = drain(&mut pipeline)
        .into_iter()
        .filter(|e| matches!(e, PipelineEvent::InterceptorDecision { .. }))
        .count();
    assert_eq!(reported, 2);
}

#[tokio::test]
async fn denied_calls_count_toward_max_tool_calls() {
    let model = ScriptedModel::new([write_etc(), write_etc(), Reply::text("never")]);
    let agent: Agent<String, String> = Agent::builder("files")
        .model(model.clone())
        .tool(WriteFile::default())
        .on_before_tool_call(etc_policy)
        .budget(Budget::default().max_tool_calls(1))
        .build()
        .unwrap();
    let error = agent.run("x".into()).await.unwrap_err();
    assert!(matches!(
        error,
        agents_kt::AgentError::BudgetExceeded {
            limit: agents_kt::BudgetLimit::MaxToolCalls,
            ..
        }
    ));
}
