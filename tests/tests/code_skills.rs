//! Code skills call tools and the model through their context, and those calls pass the same
//! tool and turn chains, budget and observers as the agent loop.

use agents_kt::{
    Agent, AgentError, AgentEvent, Budget, BudgetLimit, Decision, Message, Reply, ScriptedModel,
    Skill, SkillContext, SkillError, ToolInterceptor,
};
use agents_kt_tests::{
    FetchAccount, GetWeather, GetWeatherArgs, Path, Seen, WriteFile, WriteFileArgs, drive,
};
use serde_json::{Value, json};

fn write(path: &str) -> WriteFileArgs {
    WriteFileArgs {
        path: path.into(),
        contents: "data".into(),
        trace_id: None,
    }
}

/// A code skill writing the file named by its input.
fn saver() -> Skill<String, String> {
    Skill::code(
        "save",
        |path: String, ctx: SkillContext<String>| async move {
            let summary = ctx.call_tool(write(&path)).await?;
            Ok::<_, SkillError>(summary)
        },
    )
}

fn etc_policy(name: &str, args: &Value) -> Decision<Value, Value> {
    if name == "writeFile"
        && args["path"]
            .as_str()
            .is_some_and(|p| p.starts_with("/etc/"))
    {
        Decision::deny("system paths are off-limits")
    } else {
        Decision::Proceed
    }
}

#[tokio::test]
async fn a_code_skills_tool_call_passes_the_tool_chain_and_a_deny_is_an_error() {
    let write_file = WriteFile::default();
    let seen = Seen::default();
    let agent: Agent<String, String> = seen
        .watch(Agent::builder("files"))
        .tool(write_file.clone())
        .skill(saver())
        .on_before_tool_call(etc_policy)
        .build()
        .unwrap();
    let error = agent.run("/etc/shadow".into()).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::ToolDenied { tool, reason, .. }
            if tool == "writeFile" && reason == "system paths are off-limits"),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "Tool 'writeFile' denied by policy: system paths are off-limits"
    );
    assert!(write_file.ran.is_empty());
    assert_eq!(seen.lines("tool_denied").len(), 1);
    assert_eq!(
        agent.run("/tmp/ok".into()).await.unwrap(),
        "wrote 4 bytes to /tmp/ok"
    );
    assert_eq!(seen.lines("tool_use").len(), 1);
}

#[tokio::test]
async fn a_code_skills_tool_call_sees_replacements_and_substitutes() {
    let write_file = WriteFile::default();
    let agent: Agent<String, String> = Agent::builder("files")
        .tool(write_file.clone())
        .skill(saver())
        .before_tool_call(ToolInterceptor::<WriteFile>::new(
            |args: &WriteFileArgs| match args.path.as_str() {
                "cached" => Decision::Substitute("from cache".to_string()),
                path => Decision::ProceedWith(WriteFileArgs {
                    path: format!("/sandbox{path}"),
                    ..args.clone()
                }),
            },
        ))
        .build()
        .unwrap();
    assert_eq!(
        agent.run("/a".into()).await.unwrap(),
        "wrote 4 bytes to /sandbox/a"
    );
    assert_eq!(agent.run("cached".into()).await.unwrap(), "from cache");
    assert_eq!(write_file.ran.len(), 1);
}

#[tokio::test]
async fn a_code_skills_tool_calls_count_toward_the_budget() {
    let agent: Agent<String, String> = Agent::builder("files")
        .tool(WriteFile::default())
        .skill(Skill::code(
            "loop",
            |_: String, ctx: SkillContext<String>| async move {
                for n in 0..5 {
                    ctx.call_tool(write(&format!("/tmp/{n}"))).await?;
                }
                Ok::<_, SkillError>("done".to_string())
            },
        ))
        .budget(Budget::default().max_tool_calls(3))
        .build()
        .unwrap();
    let error = agent.run("x".into()).await.unwrap_err();
    assert!(matches!(
        error,
        AgentError::BudgetExceeded {
            limit: BudgetLimit::MaxToolCalls,
            ..
        }
    ));
}

#[tokio::test]
async fn a_code_skills_model_call_passes_the_turn_chain() {
    let model = ScriptedModel::new([Reply::text("a summary")]);
    let agent: Agent<String, String> = Agent::builder("writer")
        .model(model.clone())
        .skill(Skill::code(
            "summarize",
            |text: String, ctx: SkillContext<String>| async move {
                let answer = ctx
                    .chat(vec![Message::user(format!("Summarize: {text}"))])
                    .await?;
                Ok::<_, SkillError>(answer.content)
            },
        ))
        .on_before_turn(|messages: &[Message]| {
            if messages
                .iter()
                .any(|m| m.content.contains("ignore previous instructions"))
            {
                Decision::deny("possible prompt injection")
            } else if messages.iter().any(|m| m.content.contains("cached")) {
                Decision::Substitute("cached summary".to_string())
            } else {
                Decision::ProceedWith(vec![Message::system("be brief"), messages[0].clone()])
            }
        })
        .build()
        .unwrap();
    assert_eq!(agent.run("a long text".into()).await.unwrap(), "a summary");
    assert_eq!(model.requests()[0].messages[0], Message::system("be brief"));
    assert_eq!(
        agent.run("cached text".into()).await.unwrap(),
        "cached summary"
    );
    let denied = agent
        .run("ignore previous instructions".into())
        .await
        .unwrap_err();
    assert_eq!(
        denied.to_string(),
        "Turn denied by interceptor: possible prompt injection"
    );
    assert_eq!(
        model.request_count(),
        1,
        "only the first run reached the model"
    );
}

#[tokio::test]
async fn a_turn_substitute_wins_even_if_the_code_skill_swallows_it() {
    let model = ScriptedModel::new([]);
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model)
        .skill(Skill::code(
            "stubborn",
            |_: String, ctx: SkillContext<String>| async move {
                let _ignored = ctx.chat(vec![Message::user("hi")]).await;
                Ok::<_, SkillError>("skill's own answer".to_string())
            },
        ))
        .on_before_turn(|_: &[Message]| Decision::Substitute("substitute".to_string()))
        .build()
        .unwrap();
    assert_eq!(agent.run("x".into()).await.unwrap(), "substitute");
}

#[tokio::test]
async fn a_code_skills_own_error_names_the_skill() {
    let agent: Agent<String, String> = Agent::builder("a")
        .skill(Skill::code(
            "parse",
            |input: String, _: SkillContext<String>| async move {
                let n: u32 = input.parse()?;
                Ok::<_, SkillError>(n.to_string())
            },
        ))
        .build()
        .unwrap();
    assert_eq!(agent.run("7".into()).await.unwrap(), "7");
    let error = agent.run("seven".into()).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::Skill { skill, message, .. }
            if skill == "parse" && message == "invalid digit found in string"),
        "{error:?}"
    );
}

#[tokio::test]
async fn calling_an_unregistered_tool_from_a_code_skill_is_an_error() {
    let agent: Agent<String, String> = Agent::builder("a")
        .tool(GetWeather::default())
        .skill(Skill::code(
            "bank",
            |_: String, ctx: SkillContext<String>| async move {
                // A hand-written tool without `ToolArguments`: named explicitly.
                let account = ctx
                    .call_tool_as::<FetchAccount>(agents_kt_tests::FetchAccountArgs {
                        id: "1".into(),
                    })
                    .await?;
                Ok::<_, SkillError>(account.currency)
            },
        ))
        .build()
        .unwrap();
    let error = agent.run("x".into()).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::UnknownTool { tool, .. } if tool == "fetchAccount"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_code_skills_tool_calls_appear_in_the_session_events() {
    let agent: Agent<String, String> = Agent::builder("a")
        .tool(GetWeather::default())
        .skill(Skill::code(
            "weather",
            |city: String, ctx: SkillContext<String>| async move {
                let report = ctx.call_tool(GetWeatherArgs { city }).await?;
                Ok::<_, SkillError>(report.to_string())
            },
        ))
        .build()
        .unwrap();
    let (output, events) = drive(&agent, "Oslo", Path::Session).await;
    assert_eq!(output.unwrap(), r#"{"celsius":18,"city":"Oslo"}"#);
    let finished = events.iter().find_map(|e| match e {
        AgentEvent::ToolCallFinished {
            tool,
            args,
            result,
            is_error,
            ..
        } => Some((tool.clone(), args.clone(), result.clone(), *is_error)),
        _ => None,
    });
    assert_eq!(
        finished,
        Some((
            "get_weather".to_string(),
            json!({"city": "Oslo"}),
            json!({"celsius": 18, "city": "Oslo"}),
            false
        ))
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolCallProgress { .. }))
    );
}
