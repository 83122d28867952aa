//! Before-skill interceptors, skill resolution and build-time checks of the configuration.

use std::borrow::Cow;

use agents_kt::{
    Agent, AgentError, AgentEvent, BuildError, Decision, InterceptionPoint, Reply, ScriptedModel,
    Skill, SkillContext, SkillError, Tool, ToolContext, ToolError, ToolInterceptor,
};
use agents_kt_tests::{GetWeather, PATHS, Path, Seen, WriteFile, drive};

fn code(name: &'static str) -> Skill<String, String> {
    Skill::code(
        name,
        move |input: String, _ctx: SkillContext<String>| async move {
            Ok::<_, SkillError>(format!("{name}: {input}"))
        },
    )
}

fn two_skills(seen: &Seen) -> agents_kt::AgentBuilder<String, String> {
    seen.watch(Agent::builder("router"))
        .skill(code("alpha"))
        .skill(code("beta"))
        .skill_selector(|input: &String| {
            if input.starts_with('b') {
                "beta".into()
            } else {
                "alpha".into()
            }
        })
}

#[tokio::test]
async fn proceed_runs_the_selected_skill_and_on_skill_chosen_sees_it() {
    let seen = Seen::default();
    let agent = two_skills(&seen)
        .on_before_skill(|_: &str| Decision::Proceed)
        .build()
        .unwrap();
    assert_eq!(agent.run("bonjour".into()).await.unwrap(), "beta: bonjour");
    assert_eq!(seen.lines("skill_chosen"), vec!["skill_chosen beta"]);
}

#[tokio::test]
async fn proceed_with_reroutes_to_the_named_skill() {
    for path in PATHS {
        let seen = Seen::default();
        let agent = two_skills(&seen)
            .on_before_skill(|name: &str| {
                if name == "alpha" {
                    Decision::ProceedWith("beta".to_string())
                } else {
                    Decision::Proceed
                }
            })
            .build()
            .unwrap();
        let (output, events) = drive(&agent, "hello", path).await;
        assert_eq!(output.unwrap(), "beta: hello");
        assert_eq!(seen.lines("skill_chosen"), vec!["skill_chosen beta"]);
        if path == Path::Session {
            assert!(events.contains(&AgentEvent::skill_started("beta")));
        }
    }
}

#[tokio::test]
async fn rerouting_to_an_unknown_skill_is_an_error() {
    let seen = Seen::default();
    let agent = two_skills(&seen)
        .on_before_skill(|_: &str| Decision::ProceedWith("gamma".to_string()))
        .build()
        .unwrap();
    let error = agent.run("x".into()).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::UnknownSkill { name, available, .. }
            if name == "gamma" && available == "alpha, beta"),
        "{error:?}"
    );
    assert!(seen.lines("skill_chosen").is_empty());
}

#[tokio::test]
async fn deny_fails_the_run_with_the_skill_name_and_on_error_sees_the_same_error() {
    for path in PATHS {
        let seen = Seen::default();
        let model = ScriptedModel::new([Reply::text("never")]);
        let agent: Agent<String, String> = seen
            .watch(Agent::builder("a"))
            .model(model.clone())
            .skill(Skill::agentic("refund"))
            .on_before_skill(|_: &str| Decision::deny("after hours"))
            .build()
            .unwrap();
        let (output, events) = drive(&agent, "refund me", path).await;
        let error = output.unwrap_err();
        assert_eq!(
            error.to_string(),
            "Skill 'refund' denied by interceptor: after hours"
        );
        assert!(matches!(
            error,
            AgentError::InterceptorDenied {
                point: InterceptionPoint::Skill,
                ..
            }
        ));
        assert_eq!(seen.lines("error"), vec![format!("error {error}")]);
        assert!(seen.lines("skill_chosen").is_empty());
        assert_eq!(model.request_count(), 0);
        if path == Path::Session {
            assert_eq!(events, vec![AgentEvent::failed(error)]);
        }
    }
}

#[tokio::test]
async fn substitute_skips_the_skill_and_on_skill_chosen() {
    for path in PATHS {
        let seen = Seen::default();
        let model = ScriptedModel::new([Reply::text("never")]);
        let agent: Agent<String, String> = seen
            .watch(Agent::builder("a"))
            .model(model.clone())
            .on_before_skill(|_: &str| Decision::Substitute("from cache".to_string()))
            .build()
            .unwrap();
        let (output, events) = drive(&agent, "x", path).await;
        assert_eq!(output.unwrap(), "from cache");
        assert!(seen.lines("skill_chosen").is_empty());
        assert_eq!(model.request_count(), 0);
        if path == Path::Session {
            assert_eq!(events, vec![AgentEvent::completed("from cache".into())]);
        }
    }
}

#[tokio::test]
async fn a_selector_naming_no_skill_is_an_unknown_skill_error() {
    let agent: Agent<String, String> = Agent::builder("a")
        .skill(code("alpha"))
        .skill(code("beta"))
        .skill_selector(|_: &String| "delta".into())
        .build()
        .unwrap();
    let error = agent.run("x".into()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown skill 'delta': this agent's skills are alpha, beta"
    );
}

#[test]
fn several_skills_without_a_selector_do_not_build() {
    let error = Agent::<String, String>::builder("a")
        .skill(code("alpha"))
        .skill(code("beta"))
        .build()
        .err()
        .unwrap();
    assert!(
        matches!(&error, BuildError::NoSelector { skills, .. } if skills == "alpha, beta"),
        "{error:?}"
    );
}

#[test]
fn invalid_configurations_are_refused_at_build() {
    let duplicate = Agent::<String, String>::builder("a")
        .model(ScriptedModel::default())
        .tool(WriteFile::default())
        .tool(WriteFile::default())
        .build()
        .err();
    let rust_tool = "the Rust tool `agents_kt_tests::WriteFile`";
    assert!(
        matches!(&duplicate, Some(BuildError::DuplicateTool { name, first, second, .. })
            if name == "writeFile" && first == rust_tool && second == rust_tool),
        "{duplicate:?}"
    );

    let orphan_interceptor = Agent::<String, String>::builder("a")
        .model(ScriptedModel::default())
        .before_tool_call(ToolInterceptor::<GetWeather>::new(
            |_: &agents_kt_tests::GetWeatherArgs| Decision::Proceed,
        ))
        .build()
        .err();
    assert!(
        matches!(&orphan_interceptor, Some(BuildError::InterceptorForUnknownTool { tool, .. })
            if tool == "get_weather"),
        "{orphan_interceptor:?}"
    );

    let unknown_allowed = Agent::<String, String>::builder("a")
        .model(ScriptedModel::default())
        .skill(Skill::agentic("s").tool_names(["nope"]))
        .build()
        .err();
    assert!(
        matches!(&unknown_allowed, Some(BuildError::UnknownAllowedTool { skill, tool, .. })
            if skill == "s" && tool == "nope"),
        "{unknown_allowed:?}"
    );

    let no_model = Agent::<String, String>::builder("a").build().err();
    assert!(
        matches!(&no_model, Some(BuildError::NoModel { skill, .. }) if skill == "default"),
        "{no_model:?}"
    );

    let bad_threshold = Agent::<String, String>::builder("a")
        .model(ScriptedModel::default())
        .on_budget_threshold(1.5, |_| {})
        .build()
        .err();
    assert!(
        matches!(bad_threshold, Some(BuildError::InvalidThreshold { fraction, .. }) if fraction == 1.5),
        "{bad_threshold:?}"
    );
}

/// A hand-written tool whose arguments are a bare number, not an object.
struct Square;
impl Tool for Square {
    const NAME: &'static str = "square";
    type Args = i64;
    type Output = i64;
    fn description(&self) -> Cow<'static, str> {
        "Square a number.".into()
    }
    async fn call(&self, n: i64, _: &ToolContext) -> Result<i64, ToolError> {
        Ok(n * n)
    }
}

#[test]
fn tool_arguments_must_be_an_object() {
    let error = Agent::<String, String>::builder("a")
        .model(ScriptedModel::default())
        .tool(Square)
        .build()
        .err();
    assert!(
        matches!(&error, Some(BuildError::ArgsNotObject { tool, found, .. })
            if tool == "square" && found == "integer"),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_agent_without_skills_gets_a_default_agentic_skill_allowed_every_tool() {
    let model = ScriptedModel::new([Reply::text("ok")]);
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model.clone())
        .tool(GetWeather::default())
        .tool(WriteFile::default())
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert_eq!(agent.skill_names(), vec!["default"]);
    let tools: Vec<_> = model.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(tools, vec!["get_weather", "writeFile"]);
    let schema = &model.requests()[0].tools[0].parameters;
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], serde_json::json!(["city"]));
}

#[tokio::test]
async fn a_typed_allow_list_names_each_tool_of_the_tuple_and_only_those() {
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("get_weather", serde_json::json!({"city": "Oslo"})),
            (
                "writeFile",
                serde_json::json!({"path": "/tmp/a", "contents": "b"}),
            ),
        ]),
        Reply::text("done"),
    ]);
    let (weather, write) = (GetWeather::default(), WriteFile::default());
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model.clone())
        .tool(weather.clone())
        .tool(write.clone())
        .skill(Skill::agentic("both").tools::<(GetWeather, WriteFile)>())
        .build()
        .unwrap();
    assert_eq!(agent.run("x".into()).await.unwrap(), "done");
    assert_eq!((weather.ran.len(), write.ran.len()), (1, 1));
    let offered: Vec<String> = model.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(offered, ["get_weather", "writeFile"]);

    // One tool by type: the other is refused.
    let model = ScriptedModel::new([
        Reply::tool_call(
            "writeFile",
            serde_json::json!({"path": "/tmp/a", "contents": "b"}),
        ),
        Reply::text("done"),
    ]);
    let write = WriteFile::default();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model)
        .tool(GetWeather::default())
        .tool(write.clone())
        .skill(Skill::agentic("weather").tool::<GetWeather>())
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert!(write.ran.is_empty(), "writeFile is not on the list");
}
