//! Budget limits end the run with `BudgetExceeded` naming the limit; thresholds fire once.

use std::time::Duration;

use agents_kt::{Agent, AgentError, Budget, BudgetLimit, PipelineEvent, Reply, ScriptedModel};
use agents_kt_tests::{GetWeather, Log, PATHS, Seen, Sleep, drain, drive};
use serde_json::json;

fn weather_call() -> Reply {
    Reply::tool_call("get_weather", json!({"city": "Oslo"}))
}

fn limit_of(error: &AgentError) -> BudgetLimit {
    match error {
        AgentError::BudgetExceeded { limit, .. } => *limit,
        other => panic!("expected a budget error, got {other}"),
    }
}

#[tokio::test]
async fn max_turns_ends_the_run_after_that_many_model_calls() {
    for path in PATHS {
        let model = ScriptedModel::new([weather_call(), weather_call(), weather_call()]);
        let agent: Agent<String, String> = Agent::builder("a")
            .model(model.clone())
            .tool(GetWeather::default())
            .budget(Budget::default().max_turns(2))
            .build()
            .unwrap();
        let error = drive(&agent, "x", path).await.0.unwrap_err();
        assert_eq!(limit_of(&error), BudgetLimit::MaxTurns);
        assert!(
            error.to_string().starts_with("budget exceeded: max_turns"),
            "{error}"
        );
        assert_eq!(model.request_count(), 2);
    }
}

#[tokio::test]
async fn max_tool_calls_ends_the_run_at_the_first_call_over_the_limit() {
    let model = ScriptedModel::new([Reply::tool_calls([
        ("get_weather", json!({"city": "A"})),
        ("get_weather", json!({"city": "B"})),
        ("get_weather", json!({"city": "C"})),
    ])]);
    let weather = GetWeather::default();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model)
        .tool(weather.clone())
        .budget(Budget::default().max_tool_calls(2))
        .build()
        .unwrap();
    let error = agent.run("x".into()).await.unwrap_err();
    assert_eq!(limit_of(&error), BudgetLimit::MaxToolCalls);
    assert_eq!(weather.ran.len(), 2);
}

#[tokio::test]
async fn max_duration_ends_a_run_that_takes_too_long() {
    for path in PATHS {
        let model = ScriptedModel::new([Reply::tool_call("sleep", json!({"millis": 10_000}))]);
        let agent: Agent<String, String> = Agent::builder("a")
            .model(model)
            .tool(Sleep)
            .budget(Budget::default().max_duration(Duration::from_millis(50)))
            .build()
            .unwrap();
        let error = drive(&agent, "x", path).await.0.unwrap_err();
        assert_eq!(limit_of(&error), BudgetLimit::MaxDuration);
    }
}

/// `block`: holds the thread for the given time without ever yielding, so no timer can fire
/// while it runs.
#[derive(Clone, Default)]
struct Block;

impl agents_kt::Tool for Block {
    const NAME: &'static str = "block";
    type Args = agents_kt_tests::SleepArgs;
    type Output = String;

    fn description(&self) -> std::borrow::Cow<'static, str> {
        "Block the thread for a while.".into()
    }

    async fn call(
        &self,
        args: agents_kt_tests::SleepArgs,
        _ctx: &agents_kt::ToolContext,
    ) -> Result<String, agents_kt::ToolError> {
        std::thread::sleep(Duration::from_millis(args.millis));
        Ok("blocked".into())
    }
}

#[tokio::test]
async fn a_run_that_never_waits_is_stopped_at_its_next_step_once_past_max_duration() {
    for path in PATHS {
        // Nothing here yields: the run's timer cannot fire, only the check at the next turn.
        let model = ScriptedModel::new([
            Reply::tool_call("block", json!({"millis": 120})),
            Reply::text("too late"),
        ]);
        let agent: Agent<String, String> = Agent::builder("a")
            .model(model)
            .tool(Block)
            .budget(Budget::default().max_duration(Duration::from_millis(40)))
            .build()
            .unwrap();
        let error = drive(&agent, "x", path).await.0.unwrap_err();
        assert_eq!(limit_of(&error), BudgetLimit::MaxDuration, "{path:?}");
    }
}

#[tokio::test]
async fn per_tool_timeout_ends_the_run_and_fires_on_tool_error() {
    for path in PATHS {
        let model = ScriptedModel::new([Reply::tool_call("sleep", json!({"millis": 10_000}))]);
        let seen = Seen::default();
        let agent: Agent<String, String> = seen
            .watch(Agent::builder("a"))
            .model(model)
            .tool(Sleep)
            .budget(Budget::default().per_tool_timeout(Duration::from_millis(20)))
            .build()
            .unwrap();
        let error = drive(&agent, "x", path).await.0.unwrap_err();
        assert_eq!(limit_of(&error), BudgetLimit::PerToolTimeout);
        assert!(
            error
                .to_string()
                .contains("tool 'sleep' ran longer than 20ms"),
            "{error}"
        );
        assert_eq!(seen.lines("tool_error").len(), 1);
    }
}

#[tokio::test]
async fn a_budget_threshold_fires_once_when_crossed() {
    let model = ScriptedModel::new([
        weather_call(),
        weather_call(),
        weather_call(),
        weather_call(),
        Reply::text("done"),
    ]);
    let crossed = Log::new();
    let record = crossed.clone();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model)
        .tool(GetWeather::default())
        .budget(Budget::default().max_turns(5))
        .on_budget_threshold(0.8, move |usage| record.push((usage.limit, usage.used)))
        .build()
        .unwrap();
    let mut pipeline = agent.observe();
    assert_eq!(agent.run("x".into()).await.unwrap(), "done");
    assert_eq!(crossed.entries(), vec![(BudgetLimit::MaxTurns, 4.0)]);
    let published: Vec<_> = drain(&mut pipeline)
        .into_iter()
        .filter(|e| matches!(e, PipelineEvent::BudgetThreshold { .. }))
        .collect();
    assert_eq!(published.len(), 1);
}

#[tokio::test]
async fn a_result_over_max_tool_result_bytes_is_withheld_from_the_model() {
    for path in agents_kt_tests::PATHS {
        let model = ScriptedModel::new([
            Reply::tool_call("get_weather", serde_json::json!({"city": "Oslo"})),
            Reply::text("ok"),
        ]);
        let weather = agents_kt_tests::GetWeather::default();
        let withheld = agents_kt_tests::Log::<String>::new();
        let agent = Agent::<String, String>::builder("a")
            .model(model.clone())
            .tool(weather.clone())
            .budget(Budget::default().max_tool_result_bytes(10))
            .build()
            .unwrap();
        let mut pipeline = agent.observe();
        let log = withheld.clone();
        let watcher = tokio::spawn(async move {
            use futures::StreamExt;
            while let Some(event) = pipeline.next().await {
                if let agents_kt::PipelineEvent::ToolResultWithheld { reason, .. } = event {
                    log.push(reason);
                }
            }
        });
        let (output, _) = agents_kt_tests::drive(&agent, "x", path).await;
        assert_eq!(output.unwrap(), "ok");
        assert_eq!(weather.ran.len(), 1, "the tool ran");
        let requests = model.requests();
        let told = &requests[1].messages.last().unwrap().content;
        assert!(
            told.starts_with("ERROR: Tool 'get_weather' result withheld by policy: the result is ")
                && told.ends_with("bytes, the limit is 10 bytes (max_tool_result_bytes)"),
            "{path:?}: {told}"
        );
        drop(agent);
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), watcher).await;
        assert_eq!(withheld.len(), 1, "{path:?}: the withholding is published");
    }
}
