//! Every interceptor, gate and after-interceptor can tell whose call it judges, on every path; and
//! the audit sees what the model actually sent.

use agents_kt::{
    Agent, Decision, Extensions, InterceptContext, Message, PipelineEvent, Reply, ScriptedModel,
    Skill, SkillContext, SkillError, Verdict,
};
use agents_kt_tests::{GetWeather, GetWeatherArgs, Log, PATHS, Path, Seen, drain};
use futures::StreamExt;
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq)]
struct EndUser(&'static str);

/// One line per context seen: `point agent skill turn tool call_id user session`.
fn line(point: &str, ctx: &InterceptContext) -> String {
    format!(
        "{point} {} {} {} {} {} {} {}",
        ctx.agent(),
        ctx.skill().unwrap_or("-"),
        ctx.turn(),
        ctx.tool().unwrap_or("-"),
        ctx.tool_call_id().unwrap_or("-"),
        ctx.extensions().get::<EndUser>().map_or("-", |u| u.0),
        ctx.ids().session_id,
    )
}

#[tokio::test]
async fn every_point_sees_the_run_the_skill_the_turn_the_call_and_the_callers_extensions() {
    for path in PATHS {
        let seen = Log::<String>::new();
        let (a, b, c, d, e, f) = (
            seen.clone(),
            seen.clone(),
            seen.clone(),
            seen.clone(),
            seen.clone(),
            seen.clone(),
        );
        let agent: Agent<String, String> = Agent::builder("desk")
            .model(ScriptedModel::new([
                Reply::tool_call("get_weather", json!({"city": "Oslo"})),
                Reply::text("done"),
            ]))
            .tool(GetWeather::default())
            .skill(Skill::agentic("forecast").tool::<GetWeather>())
            .on_before_skill(move |_: &str, ctx: &InterceptContext| {
                a.push(line("skill", ctx));
                Decision::Proceed
            })
            .gate_turn(move |_: &[Message], ctx: &InterceptContext| {
                b.push(line("turn-gate", ctx));
                Verdict::Allow
            })
            .before_tool_call(move |_: &GetWeatherArgs, ctx: &InterceptContext| {
                c.push(line("tool", ctx));
                Decision::Proceed
            })
            .on_gate_tool_call(move |_: &str, _: &Value, ctx: &InterceptContext| {
                d.push(line("tool-gate", ctx));
                Verdict::Allow
            })
            .on_after_tool_call(
                move |_: &str, _: &Value, _: &Value, ctx: &InterceptContext| {
                    e.push(line("after", ctx));
                    Decision::Proceed
                },
            )
            .on_before_turn(move |_: &[Message], ctx: &InterceptContext| {
                let session = ctx.ids().session_id.clone();
                let log = f.clone();
                // An async interceptor keeps what it needs from the context.
                async move {
                    log.push(format!("async-turn {session}"));
                    Decision::Proceed
                }
            })
            .build()
            .unwrap();
        let extensions = Extensions::new().with(EndUser("ada"));
        let session = match path {
            Path::Run => {
                agent.run_with("weather".into(), extensions).await.unwrap();
                "desk/run-1"
            }
            Path::Session => {
                let mut session = agent.session_with("weather".into(), extensions);
                let _ = session.events().collect::<Vec<_>>().await;
                session.await.unwrap();
                "desk/session-1"
            }
        };
        let call = "call-1";
        assert_eq!(
            seen.entries(),
            [
                format!("skill desk forecast 0 - - ada {session}"),
                format!("async-turn {session}"),
                format!("turn-gate desk forecast 1 - - ada {session}"),
                format!("tool desk forecast 1 get_weather {call} ada {session}"),
                format!("tool-gate desk forecast 1 get_weather {call} ada {session}"),
                format!("after desk forecast 1 get_weather {call} ada {session}"),
                format!("async-turn {session}"),
                format!("turn-gate desk forecast 2 - - ada {session}"),
            ],
            "{path:?}"
        );
    }
}

#[tokio::test]
async fn a_code_skills_tool_call_names_the_skill_and_its_own_call_id() {
    let seen = Log::<String>::new();
    let log = seen.clone();
    let agent: Agent<String, String> = Agent::builder("desk")
        .tool(GetWeather::default())
        .before_tool_call(move |_: &GetWeatherArgs, ctx: &InterceptContext| {
            log.push(line("tool", ctx));
            Decision::Proceed
        })
        .skill(Skill::code(
            "look",
            |city: String, ctx: SkillContext<String>| async move {
                ctx.call_tool(GetWeatherArgs { city }).await?;
                Ok::<_, SkillError>("ok".to_string())
            },
        ))
        .build()
        .unwrap();
    agent.run("Oslo".into()).await.unwrap();
    assert_eq!(
        seen.entries(),
        ["tool desk look 0 get_weather desk/call-1 - desk/run-1"]
    );
}

#[tokio::test]
async fn dynamic_interceptors_and_the_audit_see_the_models_raw_arguments() {
    let raw = Log::<Value>::new();
    let log = raw.clone();
    let seen = Seen::default();
    let agent: Agent<String, String> = seen
        .watch(Agent::builder("weather"))
        .model(ScriptedModel::new([
            Reply::tool_call(
                "get_weather",
                json!({"city": "Oslo", "injected": "rm -rf /"}),
            ),
            Reply::text("done"),
        ]))
        .tool(GetWeather::default())
        .on_before_tool_call(move |_: &str, args: &Value| {
            log.push(args.clone());
            Decision::deny("suspicious")
        })
        .build()
        .unwrap();
    let mut pipeline = agent.observe();
    agent.run("x".into()).await.unwrap();
    let sent = json!({"city": "Oslo", "injected": "rm -rf /"});
    assert_eq!(
        raw.entries(),
        std::slice::from_ref(&sent),
        "unknown fields are kept"
    );
    assert_eq!(
        seen.lines("tool_denied"),
        [format!("tool_denied get_weather {sent} suspicious")]
    );
    let audited: Vec<_> = drain(&mut pipeline)
        .into_iter()
        .filter_map(|e| match e {
            PipelineEvent::ToolDenied { args, .. } => Some(args),
            _ => None,
        })
        .collect();
    assert_eq!(audited, [sent]);
}

#[tokio::test]
async fn a_failed_tool_is_told_with_one_prefix() {
    let agent: Agent<String, String> = Agent::builder("weather")
        .tool(GetWeather::default())
        .skill(Skill::code(
            "look",
            |_: String, ctx: SkillContext<String>| async move {
                ctx.call_tool(GetWeatherArgs {
                    city: "Atlantis".into(),
                })
                .await?;
                Ok::<_, SkillError>("unreachable".to_string())
            },
        ))
        .build()
        .unwrap();
    let error = agent.run("x".into()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "Tool 'get_weather' failed: no station in Atlantis"
    );
}

/// A hand-written interceptor with state of its own: it counts what it sees.
#[derive(Clone, Default)]
struct Counter {
    seen: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl agents_kt::Interceptor<Vec<Message>, String> for Counter {
    fn intercept<'a>(
        &'a self,
        _messages: &Vec<Message>,
        _ctx: &InterceptContext<'_>,
    ) -> agents_kt::Intercepted<'a, Vec<Message>, String> {
        let n = self.seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        agents_kt::Intercepted::Ready(if n == 0 {
            Decision::Proceed
        } else {
            Decision::Substitute("second turn cached".into())
        })
    }
}

impl agents_kt::Interceptor<Value, Value> for Counter {
    fn intercept<'a>(
        &'a self,
        args: &Value,
        ctx: &InterceptContext<'_>,
    ) -> agents_kt::Intercepted<'a, Value, Value> {
        self.seen
            .fetch_add(100, std::sync::atomic::Ordering::SeqCst);
        let decision = match (ctx.tool(), args.get("city")) {
            (Some("get_weather"), Some(city)) if city == "Oslo" => Decision::Proceed,
            _ => Decision::deny("unexpected call"),
        };
        agents_kt::Intercepted::Ready(decision)
    }
}

#[tokio::test]
async fn hand_written_stateful_interceptors_register_at_the_turn_and_tool_points() {
    let counter = Counter::default();
    let tool = GetWeather::default();
    let agent: Agent<String, String> = Agent::builder("desk")
        .model(ScriptedModel::new([
            Reply::tool_call("get_weather", json!({"city": "Oslo"})),
            Reply::text("never asked"),
        ]))
        .tool(tool.clone())
        .on_before_turn(counter.clone())
        .on_before_tool_call(counter.clone())
        .build()
        .unwrap();
    assert_eq!(agent.run("x".into()).await.unwrap(), "second turn cached");
    assert_eq!(tool.ran.len(), 1);
    assert_eq!(counter.seen.load(std::sync::atomic::Ordering::SeqCst), 102);
}
