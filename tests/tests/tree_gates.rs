//! Gates flow down the agent tree: every gate of an agent also judges the skill choice, turns and
//! tool calls of every agent it runs — sub-agents, handoff targets, and theirs, at any depth — on
//! `run` and `session`, in code skills and under a journal. A child adds gates; it can never
//! weaken an ancestor's. Interceptors stay with their agent unless it opts in.

use std::sync::Arc;

use agents_kt::{
    Agent, AgentBuilder, Decision, Extensions, InterceptContext, InterceptorDecision,
    MemoryJournal, Message, Reply, Role, ScriptedModel, Skill, SkillContext, SkillError, Verdict,
};
use agents_kt_tests::{GetWeather, GetWeatherArgs, Log, PATHS, drive, last_message};
use serde_json::{Value, json};

const DENIED_OSLO: &str = "ERROR: Tool 'get_weather' denied by policy: no weather for Oslo";

/// The typed gate a planner registers: no weather for Oslo.
fn no_oslo(args: &GetWeatherArgs) -> Verdict {
    if args.city == "Oslo" {
        Verdict::deny("no weather for Oslo")
    } else {
        Verdict::Allow
    }
}

/// The same rule over any tool's JSON arguments.
fn no_oslo_json(name: &str, args: &Value) -> Verdict {
    if name == "get_weather" && args["city"] == "Oslo" {
        Verdict::deny("no weather for Oslo")
    } else {
        Verdict::Allow
    }
}

fn weather_then(answer: &str) -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Oslo"})),
        Reply::text(answer),
    ])
}

fn calling(tool: &str, answer: &str) -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_call(tool, json!({"input": "tides"})),
        Reply::text(answer),
    ])
}

/// planner (depth 0) → research → researcher (depth 1) → look_up → looker (depth 2), whose
/// model asks for Oslo's weather. `gated` adds the planner's gate.
struct Tree {
    planner: Agent<String, String>,
    looker_model: ScriptedModel,
    weather: GetWeather,
    decisions: Log<InterceptorDecision>,
}

fn tree(gated: impl FnOnce(AgentBuilder<String, String>) -> AgentBuilder<String, String>) -> Tree {
    let weather = GetWeather::default();
    let looker_model = weather_then("the looker could not look");
    let decisions = Log::new();
    let seen = decisions.clone();
    let looker = Agent::<String, String>::builder("looker")
        .model(looker_model.clone())
        .tool(weather.clone())
        .on_interceptor_decision(move |d| seen.push(d.clone()))
        .build()
        .unwrap();
    let researcher = Agent::<String, String>::builder("researcher")
        .model(calling("look_up", "researched"))
        .sub_agent(looker.as_tool("look_up", "Looks things up."))
        .build()
        .unwrap();
    let planner = Agent::<String, String>::builder("planner")
        .model(calling("research", "planned"))
        .sub_agent(researcher.as_tool("research", "Finds sources."));
    Tree {
        planner: gated(planner).build().unwrap(),
        looker_model,
        weather,
        decisions,
    }
}

#[tokio::test]
async fn a_parents_typed_gate_denies_a_grandchilds_tool_on_run_and_session() {
    for path in PATHS {
        let tree = tree(|planner| planner.gate_tool_call(no_oslo));
        let (output, _) = drive(&tree.planner, "plan", path).await;
        assert_eq!(output.unwrap(), "planned", "{path:?}");
        assert!(tree.weather.ran.is_empty(), "{path:?}: the denied tool ran");
        assert_eq!(last_message(&tree.looker_model, 1), DENIED_OSLO, "{path:?}");
    }
}

#[tokio::test]
async fn a_parents_json_gate_denies_a_grandchilds_tool_on_run_and_session() {
    for path in PATHS {
        let tree = tree(|planner| planner.on_gate_tool_call(no_oslo_json));
        let (output, _) = drive(&tree.planner, "plan", path).await;
        assert_eq!(output.unwrap(), "planned", "{path:?}");
        assert!(tree.weather.ran.is_empty(), "{path:?}: the denied tool ran");
        assert_eq!(last_message(&tree.looker_model, 1), DENIED_OSLO, "{path:?}");
    }
}

#[tokio::test]
async fn an_inherited_denial_names_its_owner_and_depth_in_the_decision_and_the_context() {
    let asked = Log::new();
    let seen = asked.clone();
    let tree = tree(move |planner| {
        planner
            .on_gate_tool_call(move |name: &str, args: &Value, ctx: &InterceptContext| {
                let owner = ctx.gate_owner().map(|o| format!("{}@{}", o.agent, o.depth));
                seen.push(format!(
                    "{name} for {} at depth {} owned by {owner:?}",
                    ctx.agent(),
                    ctx.depth()
                ));
                no_oslo_json(name, args)
            })
            .named("planner_policy")
    });
    tree.planner.run("plan".into()).await.unwrap();
    let asked = asked.entries();
    // Asked about the planner's own call (no owner: its own link), the researcher's and the
    // looker's (the planner's, inherited).
    assert_eq!(
        asked,
        [
            "research for planner at depth 0 owned by None",
            "look_up for researcher at depth 1 owned by Some(\"planner@0\")",
            "get_weather for looker at depth 2 owned by Some(\"planner@0\")",
        ]
    );
    let decisions = tree.decisions.entries();
    assert_eq!(decisions.len(), 1, "{decisions:?}");
    let owner = decisions[0]
        .owner
        .as_ref()
        .expect("an inherited decision names its owner");
    assert_eq!((owner.agent.as_str(), owner.depth), ("planner", 0));
    assert_eq!(decisions[0].reason.as_deref(), Some("no weather for Oslo"));
    assert_eq!(decisions[0].name, "planner_policy");
}

#[tokio::test]
async fn a_child_cannot_weaken_an_inherited_gate_with_its_own_gate_or_rewrite() {
    let weather = GetWeather::default();
    let child_model = weather_then("could not");
    let child = Agent::<String, String>::builder("researcher")
        .model(child_model.clone())
        .tool(weather.clone())
        // The child allows everything and rewrites Oslo into Oslo again (a `ProceedWith`):
        // neither changes the parent's gate, which judges the final value.
        .on_gate_tool_call(|_: &str, _: &Value| Verdict::Allow)
        .on_before_tool_call(|_: &str, args: &Value| Decision::ProceedWith(args.clone()))
        .build()
        .unwrap();
    let parent = Agent::<String, String>::builder("planner")
        .model(calling("research", "planned"))
        .sub_agent(child.as_tool("research", "Finds sources."))
        .gate_tool_call(no_oslo)
        .build()
        .unwrap();
    parent.run("plan".into()).await.unwrap();
    assert!(weather.ran.is_empty());
    assert_eq!(last_message(&child_model, 1), DENIED_OSLO);
    // The same child run on its own is not the parent's: its tool runs.
    child_model.push(Reply::tool_call("get_weather", json!({"city": "Oslo"})));
    child_model.push(Reply::text("sunny"));
    assert_eq!(child.run("alone".into()).await.unwrap(), "sunny");
    assert_eq!(weather.ran.len(), 1);
}

#[tokio::test]
async fn a_parents_gate_denies_the_tool_call_of_a_childs_code_skill() {
    let weather = GetWeather::default();
    let child = Agent::<String, String>::builder("researcher")
        .tool(weather.clone())
        .skill(Skill::code(
            "look",
            |_: String, ctx: SkillContext<String>| async move {
                let typed = ctx
                    .call_tool(GetWeatherArgs {
                        city: "Oslo".into(),
                    })
                    .await;
                let named = ctx
                    .call_tool_named("get_weather", json!({"city": "Oslo"}))
                    .await;
                Ok::<_, SkillError>(format!("{typed:?} | {named:?}"))
            },
        ))
        .build()
        .unwrap();
    let parent_model = calling("research", "planned");
    let parent = Agent::<String, String>::builder("planner")
        .model(parent_model.clone())
        .sub_agent(child.as_tool("research", "Finds sources."))
        .gate_tool_call(no_oslo)
        .on_gate_tool_call(no_oslo_json)
        .build()
        .unwrap();
    parent.run("plan".into()).await.unwrap();
    assert!(weather.ran.is_empty());
    let answer = last_message(&parent_model, 1);
    assert_eq!(answer.matches("denied by policy").count(), 2, "{answer}");
    assert!(answer.contains("no weather for Oslo"), "{answer}");
}

#[tokio::test]
async fn a_parents_gate_follows_a_handoff_and_the_targets_own_sub_agent() {
    for path in PATHS {
        let weather = GetWeather::default();
        let looker_model = weather_then("could not look");
        let looker = Agent::<String, String>::builder("looker")
            .model(looker_model.clone())
            .tool(weather.clone())
            .build()
            .unwrap();
        let desk_model = ScriptedModel::new([
            Reply::tool_call("get_weather", json!({"city": "Oslo"})),
            Reply::tool_call("look_up", json!({"input": "Oslo"})),
            Reply::text("the desk answers"),
        ]);
        let desk = Agent::<String, String>::builder("desk")
            .model(desk_model.clone())
            .tool(weather.clone())
            .sub_agent(looker.as_tool("look_up", "Looks things up."))
            .build()
            .unwrap();
        let triage = Agent::<String, String>::builder("triage")
            .model(ScriptedModel::new([Reply::tool_call(
                "transfer_to_desk",
                json!({"input": "weather in Oslo?"}),
            )]))
            .handoff(desk)
            .gate_tool_call(no_oslo)
            .build()
            .unwrap();
        let (output, _) = drive(&triage, "hi", path).await;
        assert_eq!(output.unwrap(), "the desk answers", "{path:?}");
        assert!(weather.ran.is_empty(), "{path:?}");
        assert_eq!(last_message(&desk_model, 1), DENIED_OSLO, "{path:?}");
        assert_eq!(last_message(&looker_model, 1), DENIED_OSLO, "{path:?}");
    }
}

#[tokio::test]
async fn a_parents_turn_and_skill_gates_judge_a_childs_turns_and_skill_choice() {
    // A turn gate: no model call that carries a secret, in the child as in the parent.
    let child_model = ScriptedModel::new([Reply::text("leaked")]);
    let child = Agent::<String, String>::builder("researcher")
        .model(child_model.clone())
        .build()
        .unwrap();
    let parent_model = ScriptedModel::new([
        Reply::tool_call("research", json!({"input": "the secret plan"})),
        Reply::text("planned"),
    ]);
    let parent = Agent::<String, String>::builder("planner")
        .model(parent_model.clone())
        .sub_agent(child.as_tool("research", "Finds sources."))
        // Judges what the run was asked (its first user message).
        .gate_turn(|messages: &[Message]| {
            let asked = messages.iter().find(|m| m.role == Role::User);
            match asked.is_some_and(|m| m.content.contains("secret")) {
                true => Verdict::deny("secrets stay out of the model"),
                false => Verdict::Allow,
            }
        })
        .build()
        .unwrap();
    parent.run("plan".into()).await.unwrap();
    assert_eq!(
        child_model.request_count(),
        0,
        "the child's model was called"
    );
    let answer = last_message(&parent_model, 1);
    assert!(
        answer.contains("Turn denied by interceptor: secrets stay out of the model"),
        "{answer}"
    );

    // A skill gate: the child may not run its `export` skill under this parent.
    let child = Agent::<String, String>::builder("exporter")
        .skill(Skill::code(
            "export",
            |input: String, _: SkillContext<String>| async move {
                Ok::<_, SkillError>(format!("exported {input}"))
            },
        ))
        .build()
        .unwrap();
    let parent_model = calling("export", "planned");
    let parent = Agent::<String, String>::builder("planner")
        .model(parent_model.clone())
        .sub_agent(child.as_tool("export", "Exports."))
        .gate_skill(|skill: &str| match skill {
            "export" => Verdict::deny("no exports"),
            _ => Verdict::Allow,
        })
        .build()
        .unwrap();
    parent.run("plan".into()).await.unwrap();
    let answer = last_message(&parent_model, 1);
    assert!(
        answer.contains("Skill 'export' denied by interceptor: no exports"),
        "{answer}"
    );
    // Without the parent, the skill runs.
    assert_eq!(child.run("x".into()).await.unwrap(), "exported x");
}

/// A parent that rewrites every `get_weather` call to Bergen, opted in or not.
fn rewriting_parent(child: &Agent<String, String>, opt_in: bool) -> Agent<String, String> {
    let builder = Agent::<String, String>::builder("planner")
        .model(calling("research", "planned"))
        .sub_agent(child.as_tool("research", "Finds sources."))
        .on_before_tool_call(|name: &str, args: &Value| match name {
            "get_weather" => Decision::ProceedWith(json!({"city": "Bergen"})),
            _ => Decision::ProceedWith(args.clone()),
        });
    match opt_in {
        true => builder.interceptors_apply_to_children().build().unwrap(),
        false => builder.build().unwrap(),
    }
}

#[tokio::test]
async fn a_parents_interceptor_rewrites_a_childs_arguments_only_when_opted_in() {
    for (opt_in, city) in [(false, "Oslo"), (true, "Bergen")] {
        let weather = GetWeather::default();
        let child = Agent::<String, String>::builder("researcher")
            .model(weather_then("looked"))
            .tool(weather.clone())
            .build()
            .unwrap();
        rewriting_parent(&child, opt_in)
            .run("plan".into())
            .await
            .unwrap();
        let ran: Vec<String> = weather.ran.entries().into_iter().map(|a| a.city).collect();
        assert_eq!(ran, [city], "opted in: {opt_in}");
    }
}

#[tokio::test]
async fn a_parents_typed_gate_on_a_tool_of_another_type_with_the_same_name_denies_closed() {
    /// A `get_weather` of the child's own, not the parent's type.
    #[derive(Clone, Default)]
    struct OtherWeather(Log<String>);
    impl agents_kt::Tool for OtherWeather {
        const NAME: &'static str = "get_weather";
        type Args = OtherArgs;
        type Output = String;
        fn description(&self) -> std::borrow::Cow<'static, str> {
            "Another weather.".into()
        }
        async fn call(
            &self,
            args: OtherArgs,
            _: &agents_kt::ToolContext,
        ) -> Result<String, agents_kt::ToolError> {
            self.0.push(args.city.clone());
            Ok("rain".into())
        }
    }
    #[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
    struct OtherArgs {
        city: String,
    }
    let other = OtherWeather::default();
    let child_model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Bergen"})),
        Reply::text("looked"),
    ]);
    let child = Agent::<String, String>::builder("researcher")
        .model(child_model.clone())
        .tool(other.clone())
        .build()
        .unwrap();
    let parent = Agent::<String, String>::builder("planner")
        .model(calling("research", "planned"))
        .tool(GetWeather::default())
        .sub_agent(child.as_tool("research", "Finds sources."))
        .gate_tool_call(no_oslo)
        .build()
        .unwrap();
    parent.run("plan".into()).await.unwrap();
    assert!(
        other.0.is_empty(),
        "a tool the parent's typed gate could not judge ran"
    );
    let answer = last_message(&child_model, 1);
    assert!(
        answer.starts_with("ERROR: Tool 'get_weather' denied by policy: a gate of agent 'planner' is for another tool named 'get_weather'"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_parents_gate_judges_a_childs_tool_under_a_journal_and_again_on_replay() {
    let tree = tree(|planner| planner.gate_tool_call(no_oslo));
    let journal = Arc::new(MemoryJournal::new("tree-1"));
    let output = tree
        .planner
        .run_journaled("plan".into(), Extensions::new(), journal.clone())
        .await;
    assert_eq!(output.unwrap(), "planned");
    assert!(tree.weather.ran.is_empty());
    let replay = Arc::new(MemoryJournal::replaying("tree-1", journal.entries()));
    let output = tree
        .planner
        .run_journaled("plan".into(), Extensions::new(), replay)
        .await;
    assert_eq!(output.unwrap(), "planned");
    assert!(
        tree.weather.ran.is_empty(),
        "the replay ran the denied tool"
    );
    // The replay read the looker's turns back: its model was asked only the first time.
    assert_eq!(tree.looker_model.request_count(), 2);
    assert_eq!(last_message(&tree.looker_model, 1), DENIED_OSLO);
    // Both runs denied it: once live, once on replay.
    assert_eq!(tree.decisions.len(), 2);
}
