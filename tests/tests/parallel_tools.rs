//! Several tool calls in one turn, run up to `tool_concurrency` at once: each through its own
//! guard, answered in the model's order, counted exactly against the budget, one call's fault
//! not touching the others.

use std::sync::Arc;
use std::time::Duration;

use agents_kt::BudgetLimit;
use agents_kt::prelude::*;
use agents_kt_tests::{
    GetWeather, PATHS, Seen, WriteFile, WriteFileArgs, drive, quiet_scripted_panics,
};
use serde_json::json;

/// Waits until every call of the turn has started (a barrier): it can only finish if the calls
/// really run at once. Then the earlier calls finish later, so order is not luck.
#[derive(Clone)]
struct Meet {
    barrier: Arc<tokio::sync::Barrier>,
}

#[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct MeetArgs {
    who: String,
    position: u64,
}

impl Tool for Meet {
    const NAME: &'static str = "meet";
    type Args = MeetArgs;
    type Output = String;
    fn description(&self) -> std::borrow::Cow<'static, str> {
        "Meets the others.".into()
    }
    async fn call(&self, args: MeetArgs, _: &ToolContext) -> Result<String, ToolError> {
        self.barrier.wait().await;
        tokio::time::sleep(Duration::from_millis(30 * (3 - args.position))).await;
        Ok(format!("met {}", args.who))
    }
}

fn tool_messages(model: &ScriptedModel, request: usize) -> Vec<String> {
    model.requests()[request]
        .messages
        .iter()
        .filter(|m| m.tool_call_id.is_some())
        .map(|m| m.content.clone())
        .collect()
}

#[tokio::test]
async fn calls_of_one_turn_run_at_once_and_answer_in_the_models_order() {
    for path in PATHS {
        let model = ScriptedModel::new([
            Reply::tool_calls([
                ("meet", json!({"who": "a", "position": 0})),
                ("meet", json!({"who": "b", "position": 1})),
                ("meet", json!({"who": "c", "position": 2})),
            ]),
            Reply::text("all met"),
        ]);
        let agent: Agent<String, String> = Agent::builder("party")
            .model(model.clone())
            .tool(Meet {
                barrier: Arc::new(tokio::sync::Barrier::new(3)),
            })
            .tool_concurrency(3)
            .build()
            .unwrap();
        let (output, _) = tokio::time::timeout(Duration::from_secs(10), drive(&agent, "go", path))
            .await
            .expect("one after another, the first call would wait at the barrier forever");
        assert_eq!(output.unwrap(), "all met");
        assert_eq!(
            tool_messages(&model, 1),
            ["met a", "met b", "met c"],
            "{path:?}"
        );
        let ids: Vec<_> = model.requests()[1]
            .messages
            .iter()
            .filter_map(|m| m.tool_call_id.clone())
            .collect();
        assert_eq!(
            ids,
            ["call-1", "call-2", "call-3"],
            "each answer linked to its call"
        );
    }
}

#[tokio::test]
async fn each_parallel_call_passes_its_own_guard_and_one_fault_touches_no_other() {
    quiet_scripted_panics();
    for path in PATHS {
        let model = ScriptedModel::new([
            Reply::tool_calls([
                ("get_weather", json!({"city": "Oslo"})),
                ("get_weather", json!({"city": "Panic City"})),
                ("writeFile", json!({"path": "/etc/passwd", "contents": "x"})),
                ("get_weather", json!({"city": "Bergen"})),
            ]),
            Reply::text("done"),
        ]);
        let (weather, files) = (GetWeather::default(), WriteFile::default());
        let seen = Seen::default();
        let agent: Agent<String, String> = seen
            .watch(Agent::builder("mixed"))
            .model(model.clone())
            .tool(weather.clone())
            .tool(files.clone())
            .gate_tool_call(|args: &WriteFileArgs| {
                if args.path.starts_with("/etc/") {
                    Verdict::deny("system paths are off-limits")
                } else {
                    Verdict::Allow
                }
            })
            .tool_concurrency(4)
            .build()
            .unwrap();
        let (output, _) = drive(&agent, "go", path).await;
        assert_eq!(output.unwrap(), "done", "{path:?}");
        let messages = tool_messages(&model, 1);
        assert_eq!(messages[0], r#"{"celsius":18,"city":"Oslo"}"#);
        assert!(
            messages[1].starts_with("ERROR: Tool 'get_weather' failed: tool panicked:"),
            "{}",
            messages[1]
        );
        assert_eq!(
            messages[2],
            "ERROR: Tool 'writeFile' denied by policy: system paths are off-limits"
        );
        assert_eq!(messages[3], r#"{"celsius":18,"city":"Bergen"}"#);
        assert!(files.ran.is_empty());
        assert_eq!(weather.ran.len(), 3);
        assert_eq!(seen.lines("tool_denied").len(), 1, "{path:?}");
        assert_eq!(seen.lines("tool_error").len(), 1, "{path:?}");
    }
}

#[tokio::test]
async fn max_tool_calls_counts_parallel_calls_exactly() {
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("get_weather", json!({"city": "A"})),
            ("get_weather", json!({"city": "B"})),
            ("get_weather", json!({"city": "C"})),
        ]),
        Reply::text("never"),
    ]);
    let weather = GetWeather::default();
    let agent: Agent<String, String> = Agent::builder("budgeted")
        .model(model.clone())
        .tool(weather.clone())
        .tool_concurrency(3)
        .budget(Budget::default().max_tool_calls(2))
        .build()
        .unwrap();
    let error = agent.run("go".into()).await.unwrap_err();
    assert!(
        matches!(
            error,
            AgentError::BudgetExceeded {
                limit: BudgetLimit::MaxToolCalls,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        weather.ran.len(),
        2,
        "two calls fit the budget, the third never ran"
    );
    assert_eq!(model.requests().len(), 1);
}
