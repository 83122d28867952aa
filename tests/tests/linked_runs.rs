//! No unlinked runs: a tool or a code skill runs an agent through its context
//! (`ctx.run_agent`), so depth, budget and the caller's gates follow it; an agent can run itself
//! through an `AgentRef` and stops at `max_agent_depth`; an `agent.run(..)` inside a tool body
//! is logged, naming both agents.

use std::borrow::Cow;

use agents_kt::{
    Agent, AgentError, AgentRef, Budget, BudgetLimit, Reply, ScriptedModel, Skill, SkillContext,
    SkillError, Tool, ToolContext, ToolError, Verdict,
};
use agents_kt_tests::{GetWeather, GetWeatherArgs, PATHS, drive, last_message};
use serde_json::json;

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct AskArgs {
    pub question: String,
}

/// A hand-written tool that asks an expert agent: linked (`ctx.run_agent`) or not (`run`).
struct AskExpert {
    expert: Agent<String, String>,
    linked: bool,
}

impl Tool for AskExpert {
    const NAME: &'static str = "ask_expert";
    type Args = AskArgs;
    type Output = String;

    fn description(&self) -> Cow<'static, str> {
        "Asks the expert.".into()
    }

    async fn call(&self, args: AskArgs, ctx: &ToolContext) -> Result<String, ToolError> {
        match self.linked {
            true => ctx.run_agent(&self.expert, args.question).await,
            false => self
                .expert
                .run(args.question)
                .await
                .map_err(|e| ToolError::new(e.to_string())),
        }
    }
}

/// An expert whose model looks up Oslo's weather, then answers.
fn expert(weather: &GetWeather, model: &ScriptedModel) -> Agent<String, String> {
    Agent::<String, String>::builder("expert")
        .model(model.clone())
        .tool(weather.clone())
        .build()
        .unwrap()
}

fn oslo_then(answer: &str) -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Oslo"})),
        Reply::text(answer),
    ])
}

fn desk(expert: Agent<String, String>, linked: bool, budget: Budget) -> Agent<String, String> {
    Agent::<String, String>::builder("desk")
        .model(ScriptedModel::new([
            Reply::tool_call("ask_expert", json!({"question": "weather?"})),
            Reply::text("the desk answers"),
        ]))
        .tool(AskExpert { expert, linked })
        .budget(budget)
        .gate_tool_call(|args: &GetWeatherArgs| match args.city.as_str() {
            "Oslo" => Verdict::deny("no weather for Oslo"),
            _ => Verdict::Allow,
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_tool_running_an_agent_with_ctx_run_agent_is_judged_by_the_callers_gate() {
    for path in PATHS {
        let (weather, model) = (GetWeather::default(), oslo_then("no weather"));
        let desk = desk(expert(&weather, &model), true, Budget::default());
        let (output, _) = drive(&desk, "hi", path).await;
        assert_eq!(output.unwrap(), "the desk answers", "{path:?}");
        assert!(
            weather.ran.is_empty(),
            "{path:?}: the desk's gate was bypassed"
        );
        assert_eq!(
            last_message(&model, 1),
            "ERROR: Tool 'get_weather' denied by policy: no weather for Oslo"
        );
    }
}

#[tokio::test]
async fn a_tool_running_an_agent_with_ctx_run_agent_spends_the_callers_budget() {
    let (weather, model) = (GetWeather::default(), oslo_then("no weather"));
    // The desk's one turn, then the expert's two: three turns in all, over a limit of two.
    let desk = desk(
        expert(&weather, &model),
        true,
        Budget::default().max_turns(2),
    );
    let error = desk.run("hi".into()).await.unwrap_err();
    assert!(
        matches!(
            error,
            AgentError::BudgetExceeded {
                limit: BudgetLimit::MaxTurns,
                ..
            }
        ),
        "{error}"
    );
}

#[tokio::test]
async fn without_the_linked_call_the_same_tool_escapes_the_gate_and_the_budget() {
    // What `ctx.run_agent` is for: the unlinked run is the caller's in nothing.
    let (weather, model) = (GetWeather::default(), oslo_then("sunny in Oslo"));
    let desk = desk(
        expert(&weather, &model),
        false,
        Budget::default().max_turns(2),
    );
    assert_eq!(desk.run("hi".into()).await.unwrap(), "the desk answers");
    assert_eq!(weather.ran.len(), 1);
}

#[tokio::test]
async fn a_code_skill_runs_an_agent_linked_and_the_callers_gate_judges_its_tool() {
    let (weather, model) = (GetWeather::default(), oslo_then("no weather"));
    let expert = expert(&weather, &model);
    let desk = Agent::<String, String>::builder("desk")
        .skill(Skill::code(
            "ask",
            move |question: String, ctx: SkillContext<String>| {
                let expert = expert.clone();
                async move { Ok::<_, SkillError>(ctx.run_agent(&expert, question).await?) }
            },
        ))
        .gate_tool_call(|args: &GetWeatherArgs| match args.city.as_str() {
            "Oslo" => Verdict::deny("no weather for Oslo"),
            _ => Verdict::Allow,
        })
        .build()
        .unwrap();
    assert_eq!(desk.run("weather?".into()).await.unwrap(), "no weather");
    assert!(weather.ran.is_empty());
}

/// An agent whose model always asks it to run itself again, through an `AgentRef`.
fn fractal(max_depth: u32) -> (Agent<String, String>, ScriptedModel) {
    let model = ScriptedModel::new(
        (0..20).map(|_| Reply::tool_call("recurse", json!({"input": "deeper"}))),
    );
    let me = AgentRef::<String, String>::new();
    let agent = Agent::<String, String>::builder("fractal")
        .model(model.clone())
        .budget(Budget::default().max_agent_depth(max_depth).max_turns(50))
        .sub_agent(me.as_tool("recurse", "Runs this agent again."))
        .build()
        .unwrap();
    assert!(me.bind(&agent));
    assert!(!me.bind(&agent), "a handle binds once");
    (agent, model)
}

#[tokio::test]
async fn a_self_recursive_agent_stops_at_max_agent_depth_on_run_and_session() {
    for path in PATHS {
        let (agent, model) = fractal(3);
        let (output, _) = drive(&agent, "go", path).await;
        let error = output.unwrap_err();
        assert!(
            matches!(
                &error,
                AgentError::BudgetExceeded {
                    limit: BudgetLimit::MaxAgentDepth,
                    ..
                }
            ),
            "{path:?}: {error}"
        );
        assert!(
            error
                .to_string()
                .contains("agent 'fractal' calling 'recurse' would run a sub-agent at depth 4"),
            "{error}"
        );
        // Depths 0 to 3 each asked the model once.
        assert_eq!(model.request_count(), 4, "{path:?}");
    }
}

#[tokio::test]
async fn an_unbound_agent_ref_fails_the_call_with_a_clear_error() {
    let never = AgentRef::<String, String>::new();
    let model = ScriptedModel::new([
        Reply::tool_call("later", json!({"input": "x"})),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("caller")
        .model(model.clone())
        .sub_agent(never.as_tool("later", "Not bound."))
        .build()
        .unwrap();
    assert_eq!(agent.run("go".into()).await.unwrap(), "done");
    assert_eq!(
        last_message(&model, 1),
        "ERROR: Tool 'later' failed: the agent this tool runs was never bound (call `AgentRef::bind` after `build`)"
    );
}

/// The warnings logged while `desk` runs.
fn warnings_of(linked: bool) -> Vec<String> {
    let log = agents_kt_tests::logged(|runtime| {
        let (weather, model) = (GetWeather::default(), oslo_then("no weather"));
        let desk = desk(expert(&weather, &model), linked, Budget::default());
        runtime.block_on(desk.run("hi".into())).unwrap();
    });
    log.lines()
        .filter(|line| line.contains("WARN"))
        .map(str::to_string)
        .collect()
}

#[test]
fn an_agent_run_inside_a_tool_without_the_linked_call_is_logged_naming_both_agents() {
    let warnings = warnings_of(false);
    let unlinked: Vec<&String> = warnings
        .iter()
        .filter(|line| line.contains("without a link"))
        .collect();
    assert_eq!(unlinked.len(), 1, "{warnings:?}");
    assert!(
        unlinked[0].contains("agent 'expert' was run inside a run of agent 'desk'"),
        "{}",
        unlinked[0]
    );
    assert!(unlinked[0].contains("ctx.run_agent"), "{}", unlinked[0]);
    // The linked call is not warned about.
    assert!(
        !warnings_of(true)
            .iter()
            .any(|line| line.contains("without a link"))
    );
}
