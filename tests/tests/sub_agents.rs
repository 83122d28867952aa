//! Agents as tools of other agents: the parent's guard first, then the child with its own chains,
//! linked to the parent (principal, extensions, ids, depth, one budget, journal, events).

use std::sync::Arc;
use std::time::Duration;

use agents_kt::{
    Agent, AgentError, AgentEvent, Budget, BudgetLimit, Decision, Extensions, InterceptContext,
    MemoryJournal, Message, Reply, ScriptedModel, Skill, SkillContext, SkillError, Verdict,
};
use agents_kt_tests::{GetWeather, Log, PATHS, Path, drive, last_message};
use serde_json::{Value, json};

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Question {
    pub topic: String,
}

agents_kt::agent_tool! {
    /// Finds sources for a question.
    pub struct Research("research"): Question => String;
}

#[derive(Debug, Clone, PartialEq)]
struct EndUser(&'static str);

/// A researcher that looks up the weather of its topic, then answers.
fn researcher(
    model: &ScriptedModel,
    weather: &GetWeather,
) -> agents_kt::AgentBuilder<String, String> {
    Agent::<String, String>::builder("researcher")
        .model(model.clone())
        .tool(weather.clone())
}

fn weather_then(answer: &str) -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Oslo"})),
        Reply::text(answer),
    ])
}

/// A planner on `model` whose one tool is `research` (a child's `as_tool`).
fn planner_over(
    model: &ScriptedModel,
    research: impl agents_kt::SubAgentTool,
) -> Agent<String, String> {
    Agent::<String, String>::builder("planner")
        .model(model.clone())
        .sub_agent(research)
        .build()
        .unwrap()
}

fn planner_calling(tool: &str, args: Value, answer: &str) -> ScriptedModel {
    ScriptedModel::new([Reply::tool_call(tool, args), Reply::text(answer)])
}

#[tokio::test]
async fn a_parent_gate_denies_a_sub_agent_call_and_the_child_never_runs() {
    for path in PATHS {
        let child_model = ScriptedModel::new([]);
        let weather = GetWeather::default();
        let child = researcher(&child_model, &weather).build().unwrap();
        let parent_model = planner_calling(
            "research",
            json!({"input": "tides"}),
            "I could not research.",
        );
        let parent = Agent::<String, String>::builder("planner")
            .model(parent_model.clone())
            .sub_agent(child.as_tool("research", "Finds sources."))
            .on_gate_tool_call(|name: &str, _: &Value| match name {
                "research" => Verdict::deny("no research today"),
                _ => Verdict::Allow,
            })
            .build()
            .unwrap();
        let (output, _) = drive(&parent, "plan", path).await;
        assert_eq!(output.unwrap(), "I could not research.", "{path:?}");
        assert_eq!(
            child_model.request_count(),
            0,
            "{path:?}: the child's model was called"
        );
        assert!(weather.ran.is_empty());
        assert_eq!(
            last_message(&parent_model, 1),
            "ERROR: Tool 'research' denied by policy: no research today"
        );
    }
}

#[tokio::test]
async fn the_childs_own_interceptor_denies_its_tool_and_the_parent_model_reads_the_childs_answer() {
    for path in PATHS {
        let child_model = weather_then("No weather for you; try the library.");
        let weather = GetWeather::default();
        let child = researcher(&child_model, &weather)
            .on_before_tool_call(|_: &str, _: &Value| {
                Decision::deny("the researcher may not look outside")
            })
            .build()
            .unwrap();
        let parent_model = planner_calling("research", json!({"input": "tides"}), "done");
        let parent = planner_over(&parent_model, child.as_tool("research", "Finds sources."));
        let (output, _) = drive(&parent, "plan", path).await;
        assert_eq!(output.unwrap(), "done");
        assert!(
            weather.ran.is_empty(),
            "{path:?}: the child's denied tool ran"
        );
        assert_eq!(
            last_message(&child_model, 1),
            "ERROR: Tool 'get_weather' denied by policy: the researcher may not look outside"
        );
        assert_eq!(
            last_message(&parent_model, 1),
            "No weather for you; try the library."
        );
        // The child read its input as the user's message.
        assert_eq!(
            child_model.requests()[0].messages.last().unwrap().content,
            "tides"
        );
    }
}

#[tokio::test]
async fn a_typed_proceed_with_replaces_the_sub_agents_input_and_a_typed_substitute_stands_in_for_its_output()
 {
    let child_model = ScriptedModel::new([Reply::text("sources on tides")]);
    let child = Agent::<Question, String>::builder("researcher")
        .model(child_model.clone())
        .build()
        .unwrap();
    let parent_model = ScriptedModel::new([
        Reply::tool_call("research", json!({"topic": "TIDES"})),
        Reply::tool_call("research", json!({"topic": "secret"})),
        Reply::text("done"),
    ]);
    let parent = Agent::<String, String>::builder("planner")
        .model(parent_model.clone())
        .tool(Research::new(child))
        .before_tool_call(|question: &Question| -> Decision<Question, String> {
            match question.topic.as_str() {
                "secret" => Decision::Substitute("classified".to_string()),
                topic => Decision::ProceedWith(Question {
                    topic: topic.to_lowercase(),
                }),
            }
        })
        .build()
        .unwrap();
    assert_eq!(parent.run("plan".into()).await.unwrap(), "done");
    // The child ran once, on the replaced input; the substituted call never reached it.
    assert_eq!(child_model.request_count(), 1);
    assert_eq!(
        child_model.requests()[0].messages.last().unwrap().content,
        r#"{"topic":"tides"}"#
    );
    assert_eq!(last_message(&parent_model, 1), "sources on tides");
    assert_eq!(last_message(&parent_model, 2), "classified");
    // The model is shown the typed input's schema, an object with `topic`.
    let spec = &parent_model.requests()[0].tools[0];
    assert_eq!(spec.name, "research");
    assert_eq!(spec.description, "Finds sources for a question.");
    assert_eq!(spec.parameters["properties"]["topic"]["type"], "string");
}

/// The child's context, as one line: agent, client, end user, parent agent, parent call, depth,
/// and whether the parent run id is the one the parent's own interceptor saw.
fn lineage_line(ctx: &InterceptContext, parent_run: &Log<String>) -> String {
    let parent = ctx.parent();
    format!(
        "{} client={} user={} parent={} call={} depth={} parent_run_matches={}",
        ctx.agent(),
        ctx.client().unwrap_or("-"),
        ctx.extensions().get::<EndUser>().map_or("-", |u| u.0),
        parent.map_or("-", |p| p.agent()),
        parent.map_or("-", |p| p.tool_call_id()),
        ctx.depth(),
        parent.is_some_and(|p| parent_run.entries().contains(&p.ids().run_id)),
    )
}

/// A child that logs its context at its turn, and a parent that logs its run id at its tool
/// call; the parent's model calls the child with call id `call-1` (the scripted model's ids).
fn inheriting_pair(
    seen: &Log<String>,
    parent_runs: &Log<String>,
) -> (
    Agent<String, String>,
    agents_kt::AgentBuilder<String, String>,
) {
    let (seen, runs) = (seen.clone(), parent_runs.clone());
    let child = Agent::<String, String>::builder("researcher")
        .model(ScriptedModel::new([
            Reply::text("found"),
            Reply::text("found"),
        ]))
        .on_before_turn(move |_: &[Message], ctx: &InterceptContext| {
            seen.push(lineage_line(ctx, &runs));
            Decision::Proceed
        })
        .build()
        .unwrap();
    let runs = parent_runs.clone();
    let parent = Agent::<String, String>::builder("planner")
        .sub_agent(child.as_tool("research", "Finds sources."))
        .on_before_tool_call(move |_: &str, _: &Value, ctx: &InterceptContext| {
            runs.push(ctx.ids().run_id.clone());
            Decision::Proceed
        });
    (child, parent)
}

#[tokio::test]
async fn a_sub_agent_inherits_the_principal_and_extensions_and_names_its_parent_on_run_and_session()
{
    for path in PATHS {
        let (seen, runs) = (Log::new(), Log::new());
        let (_, parent) = inheriting_pair(&seen, &runs);
        let model = planner_calling("research", json!({"input": "tides"}), "done");
        let parent = parent.model(model).build().unwrap();
        let ada = Extensions::new().with(EndUser("ada"));
        let output = match path {
            Path::Run => parent.run_with("plan".into(), ada).await,
            Path::Session => parent.session_with("plan".into(), ada).await,
        };
        assert_eq!(output.unwrap(), "done");
        let seen = seen.entries();
        assert_eq!(seen.len(), 1, "{path:?}");
        assert!(
            seen[0].starts_with("researcher client=- user=ada parent=planner call=call-")
                && seen[0].ends_with("depth=1 parent_run_matches=true"),
            "{path:?}: {}",
            seen[0]
        );
    }
}

#[tokio::test]
async fn a_code_skill_calling_a_sub_agent_passes_the_guard_and_links_the_child() {
    let (seen, runs) = (Log::new(), Log::new());
    let (_, parent) = inheriting_pair(&seen, &runs);
    let parent = parent
        .skill(Skill::code(
            "plan",
            |input: String, ctx: SkillContext<String>| async move {
                let found = ctx
                    .call_tool_named("research", json!({"input": input}))
                    .await?;
                Ok::<_, SkillError>(format!("plan from {found}"))
            },
        ))
        .build()
        .unwrap();
    let ada = Extensions::new().with(EndUser("ada"));
    assert_eq!(
        parent.run_with("tides".into(), ada).await.unwrap(),
        r#"plan from "found""#
    );
    let seen = seen.entries();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].contains("user=ada parent=planner"), "{}", seen[0]);
    assert!(
        seen[0].ends_with("depth=1 parent_run_matches=true"),
        "{}",
        seen[0]
    );
}

#[tokio::test]
async fn a_sub_agent_exposed_over_mcp_inherits_the_mcp_principal() {
    use rmcp::ServiceExt;
    use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};

    let (seen, runs) = (Log::new(), Log::new());
    let (_, parent) = inheriting_pair(&seen, &runs);
    let parent = parent.model(ScriptedModel::new([])).build().unwrap();
    let server = agents_kt::McpServer::builder(parent)
        .expose_tool_named("research")
        .build()
        .unwrap();
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(server.serve(tokio::io::split(server_side)));
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("auditor", "1.0"),
    )
    .serve(tokio::io::split(client_side))
    .await
    .expect("the client connects");
    let arguments = json!({"input": "tides"});
    let result = client
        .call_tool(
            CallToolRequestParams::new("research")
                .with_arguments(arguments.as_object().cloned().unwrap_or_default()),
        )
        .await
        .expect("a result");
    assert_eq!(result.is_error, Some(false));
    let seen = seen.entries();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0].starts_with("researcher client=auditor user=- parent=planner"),
        "{}",
        seen[0]
    );
}

#[tokio::test]
async fn the_budget_is_shared_across_depth() {
    // The child takes two turns and one tool call; the parent has four turns in all: its own
    // first, the child's two, and then its second would be the fifth.
    let weather = GetWeather::default();
    let child = researcher(&weather_then("sunny sources"), &weather)
        .build()
        .unwrap();
    let parent_model = ScriptedModel::new([
        Reply::tool_call("research", json!({"input": "tides"})),
        Reply::tool_call("research", json!({"input": "tides"})),
        Reply::text("done"),
    ]);
    let parent = Agent::<String, String>::builder("planner")
        .model(parent_model.clone())
        .sub_agent(child.as_tool("research", "Finds sources."))
        .budget(Budget::default().max_turns(4))
        .build()
        .unwrap();
    let error = parent.run("plan".into()).await.unwrap_err();
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
    // Turn 4 was the parent's second: its third call would be turn 5.
    assert_eq!(parent_model.request_count(), 2);

    // Tool calls too: the child's count against the parent's.
    let weather = GetWeather::default();
    let child = researcher(&weather_then("sunny"), &weather)
        .build()
        .unwrap();
    let parent = Agent::<String, String>::builder("planner")
        .model(planner_calling(
            "research",
            json!({"input": "tides"}),
            "done",
        ))
        .sub_agent(child.as_tool("research", "Finds sources."))
        .budget(Budget::default().max_tool_calls(1))
        .build()
        .unwrap();
    let error = parent.run("plan".into()).await.unwrap_err();
    assert!(
        matches!(
            error,
            AgentError::BudgetExceeded {
                limit: BudgetLimit::MaxToolCalls,
                ..
            }
        ),
        "{error}"
    );
    assert!(
        weather.ran.is_empty(),
        "the child's tool ran past the parent's budget"
    );
}

#[tokio::test]
async fn a_sub_agent_deeper_than_max_agent_depth_ends_the_run_with_a_clear_error() {
    let deepest_model = ScriptedModel::new([Reply::text("deep")]);
    let deepest = Agent::<String, String>::builder("c")
        .model(deepest_model.clone())
        .build()
        .unwrap();
    let middle = Agent::<String, String>::builder("b")
        .model(planner_calling(
            "go_deeper",
            json!({"input": "x"}),
            "b done",
        ))
        .sub_agent(deepest.as_tool("go_deeper", "Deeper."))
        .build()
        .unwrap();
    let top = Agent::<String, String>::builder("a")
        .model(planner_calling("go_down", json!({"input": "x"}), "a done"))
        .sub_agent(middle.as_tool("go_down", "Down."))
        .budget(Budget::default().max_agent_depth(1))
        .build()
        .unwrap();
    let error = top.run("start".into()).await.unwrap_err();
    match &error {
        AgentError::BudgetExceeded {
            limit: BudgetLimit::MaxAgentDepth,
            detail,
            ..
        } => assert!(detail.contains("depth 2, deeper than 1"), "{detail}"),
        other => panic!("expected the depth limit, got {other}"),
    }
    assert_eq!(deepest_model.request_count(), 0);
    // With the default (4) the same tree runs.
    let top = Agent::<String, String>::builder("a")
        .model(planner_calling("go_down", json!({"input": "x"}), "a done"))
        .sub_agent(
            Agent::<String, String>::builder("b")
                .model(planner_calling(
                    "go_deeper",
                    json!({"input": "x"}),
                    "b done",
                ))
                .sub_agent(
                    Agent::<String, String>::builder("c")
                        .model(ScriptedModel::new([Reply::text("deep")]))
                        .build()
                        .unwrap()
                        .as_tool("go_deeper", "Deeper."),
                )
                .build()
                .unwrap()
                .as_tool("go_down", "Down."),
        )
        .build()
        .unwrap();
    assert_eq!(top.run("start".into()).await.unwrap(), "a done");
}

#[tokio::test]
async fn a_panic_in_a_child_is_contained_as_the_calls_failure() {
    agents_kt_tests::quiet_scripted_panics();
    for path in PATHS {
        let child = Agent::<String, String>::builder("researcher")
            .skill(Skill::code(
                "explode",
                |_: String, _: SkillContext<String>| async move {
                    if true {
                        panic!("scripted child panic");
                    }
                    Ok::<String, SkillError>(String::new())
                },
            ))
            .build()
            .unwrap();
        let child_errors = Log::new();
        let parent_model = planner_calling("research", json!({"input": "x"}), "recovered");
        let parent = Agent::<String, String>::builder("planner")
            .model(parent_model.clone())
            .sub_agent(child.as_tool("research", "Finds sources."))
            .on_tool_error({
                let log = child_errors.clone();
                move |name: &str, _: &Value, error: &str| log.push(format!("{name}: {error}"))
            })
            .build()
            .unwrap();
        let (output, _) = drive(&parent, "plan", path).await;
        assert_eq!(output.unwrap(), "recovered", "{path:?}");
        let told = last_message(&parent_model, 1);
        assert_eq!(
            told,
            "ERROR: Tool 'research' failed: agent 'researcher' failed: the agent run panicked while running skill 'explode': scripted child panic"
        );
        assert_eq!(child_errors.len(), 1);
    }
}

#[tokio::test]
async fn the_session_streams_the_childs_events_tagged_with_its_run_before_the_call_finishes() {
    use futures::StreamExt;
    let weather = GetWeather::default();
    let child = researcher(&weather_then("sunny"), &weather)
        .build()
        .unwrap();
    let parent = Agent::<String, String>::builder("planner")
        .model(planner_calling(
            "research",
            json!({"input": "tides"}),
            "done",
        ))
        .sub_agent(child.as_tool("research", "Finds sources."))
        .build()
        .unwrap();
    let mut session = parent.session("plan".into());
    let events: Vec<_> = session.events().collect().await;
    assert_eq!(session.await.unwrap(), "done");
    let nested: Vec<_> = events
        .iter()
        .enumerate()
        .filter_map(|(at, event)| match event {
            AgentEvent::SubAgent {
                agent,
                ids,
                call_id,
                event,
                ..
            } => Some((
                at,
                agent.clone(),
                ids.clone(),
                call_id.clone(),
                (**event).clone(),
            )),
            _ => None,
        })
        .collect();
    assert!(!nested.is_empty());
    assert!(
        nested
            .iter()
            .all(|(_, agent, ids, call_id, _)| agent == "researcher"
                && ids.run_id.starts_with("researcher/run-")
                && ids.session_id.starts_with("planner/session-")
                && call_id.starts_with("call-"))
    );
    // The child's tool call and its completion, in order, all before the parent's call finished.
    let kinds: Vec<String> = nested
        .iter()
        .map(|(_, _, _, _, event)| match event {
            AgentEvent::ToolCallFinished { tool, .. } => format!("finished {tool}"),
            AgentEvent::Completed { output, .. } => format!("completed {output}"),
            AgentEvent::Token { .. } => "token".to_string(),
            other => format!("{other:?}")
                .split([' ', '{'])
                .next()
                .unwrap_or("")
                .to_string(),
        })
        .filter(|kind| kind != "token")
        .collect();
    assert!(
        kinds.contains(&"finished get_weather".to_string()),
        "{kinds:?}"
    );
    assert_eq!(
        kinds.last().map(String::as_str),
        Some(r#"completed "sunny""#)
    );
    let finished = events
        .iter()
        .position(|e| matches!(e, AgentEvent::ToolCallFinished { tool, .. } if tool == "research"))
        .expect("the parent's call finished");
    assert!(nested.iter().all(|(at, ..)| *at < finished));
}

#[tokio::test]
async fn a_journaled_parent_records_the_childs_steps_inside_its_own_and_a_replay_runs_the_childs_tool_once()
 {
    let weather = GetWeather::default();
    let child_model = weather_then("sunny");
    let child = researcher(&child_model, &weather).build().unwrap();
    let parent_model = planner_calling("research", json!({"input": "tides"}), "done");
    let parent = planner_over(&parent_model, child.as_tool("research", "Finds sources."));
    let journal = Arc::new(MemoryJournal::new("durable-1"));
    let output = parent
        .run_journaled("plan".into(), Extensions::new(), journal.clone())
        .await;
    assert_eq!(output.unwrap(), "done");
    let steps: Vec<String> = journal
        .entries()
        .iter()
        .map(|entry| entry["step"].as_str().unwrap_or("?").to_string())
        .collect();
    assert_eq!(
        steps,
        [
            "turn#1",
            "tool#1:research/turn#1",
            "tool#1:research/tool#1:get_weather",
            "tool#1:research/turn#2",
            "turn#2"
        ]
    );
    // Replayed whole: no model is asked again and the child's tool does not run again.
    let replay = Arc::new(MemoryJournal::replaying("durable-1", journal.entries()));
    let output = parent
        .run_journaled("plan".into(), Extensions::new(), replay)
        .await;
    assert_eq!(output.unwrap(), "done");
    assert_eq!(weather.ran.len(), 1);
    assert_eq!(child_model.request_count(), 2);
    assert_eq!(parent_model.request_count(), 2);
}

agents_kt::agent_tool! {
    /// Summarizes a text.
    pub struct Summarize("summarize"): String => String;
}

/// Texts are cut to ten characters before the summarizer reads them; secrets are not sent.
#[agents_kt::before_tool_call(Summarize)]
fn at_most_ten(
    args: &agents_kt::SubAgentInput<Summarize>,
) -> Decision<agents_kt::SubAgentInput<Summarize>, String> {
    match args.input.as_str() {
        "secret" => Decision::Substitute("not summarized".to_string()),
        text if text.len() > 10 => {
            Decision::ProceedWith(agents_kt::SubAgentInput::new(text[..10].to_string()))
        }
        _ => Decision::Proceed,
    }
}

#[tokio::test]
async fn a_string_input_sub_agent_declared_with_agent_tool_takes_typed_interceptors() {
    let child_model = ScriptedModel::new([Reply::text("short")]);
    let child = Agent::<String, String>::builder("summarizer")
        .model(child_model.clone())
        .build()
        .unwrap();
    let parent_model = ScriptedModel::new([
        Reply::tool_calls([
            ("summarize", json!({"input": "a very long text indeed"})),
            ("summarize", json!({"input": "secret"})),
        ]),
        Reply::text("done"),
    ]);
    let parent = Agent::<String, String>::builder("editor")
        .model(parent_model.clone())
        .tool(Summarize::new(child))
        .before_tool_call(at_most_ten)
        .build()
        .unwrap();
    assert_eq!(parent.run("edit".into()).await.unwrap(), "done");
    // The child read the rewritten input; the secret never reached it.
    assert_eq!(child_model.requests().len(), 1);
    let asked = child_model.requests()[0]
        .messages
        .iter()
        .rev()
        .find(|m| m.role == agents_kt::Role::User)
        .map(|m| m.content.clone());
    assert_eq!(asked.as_deref(), Some("a very lon"));
    // The model was offered `{"input": string}` and told both results.
    let offered = &parent_model.requests()[0].tools[0];
    assert_eq!(offered.parameters["required"], json!(["input"]));
    assert_eq!(offered.parameters["properties"]["input"]["type"], "string");
    let told: Vec<String> = parent_model.requests()[1]
        .messages
        .iter()
        .filter(|m| m.role == agents_kt::Role::Tool)
        .map(|m| m.content.clone())
        .collect();
    assert_eq!(told, ["short", "not summarized"]);
}

#[tokio::test]
async fn a_string_sub_agent_reads_its_input_from_the_input_field_and_refuses_other_shapes() {
    for (args, runs) in [
        (json!({"input": "tides"}), true),
        (json!({"input": "tides", "note": "extra"}), true),
        (json!({"topic": "tides"}), false),
        (json!("tides"), false),
    ] {
        let child_model = ScriptedModel::new([Reply::text("three sources")]);
        let child = Agent::<String, String>::builder("researcher")
            .model(child_model.clone())
            .build()
            .unwrap();
        let parent_model = planner_calling("research", args.clone(), "planned");
        let parent = planner_over(&parent_model, child.as_tool("research", "Finds sources."));
        assert_eq!(parent.run("plan".into()).await.unwrap(), "planned");
        let told = last_message(&parent_model, 1);
        if runs {
            assert_eq!(told, "three sources", "{args}");
            assert_eq!(child_model.requests()[0].messages[0].content, "tides");
        } else {
            assert!(
                told.starts_with("ERROR: Invalid arguments for tool 'research'"),
                "{args}: {told}"
            );
            assert!(child_model.requests().is_empty(), "{args}");
        }
    }
}

#[tokio::test]
async fn an_object_sub_agent_reads_its_input_as_the_arguments_themselves() {
    let child_model = ScriptedModel::new([Reply::text("three sources")]);
    let child = Agent::<Question, String>::builder("researcher")
        .model(child_model.clone())
        .build()
        .unwrap();
    let parent_model = planner_calling("research", json!({"topic": "tides"}), "planned");
    let parent = planner_over(&parent_model, child.as_tool("research", "Finds sources."));
    assert_eq!(parent.run("plan".into()).await.unwrap(), "planned");
    assert_eq!(last_message(&parent_model, 1), "three sources");
    assert!(
        child_model.requests()[0].messages[0]
            .content
            .contains("tides")
    );
}

/// A sub-agent declared with `agent_tool!` and registered with `.tool(..)` runs in the shared
/// runtime, and is still timed as an agent: by its own `max_duration`, not the parent's
/// `per_tool_timeout` (which would cut a child that works longer than one tool may).
#[tokio::test]
async fn an_agent_tool_sub_agent_is_not_cut_by_the_parents_per_tool_timeout() {
    let child = Agent::<String, String>::builder("slow_researcher")
        .model(ScriptedModel::new([
            Reply::tool_call("sleep", json!({"millis": 150})),
            Reply::text("found it"),
        ]))
        .tool(agents_kt_tests::Sleep)
        .build()
        .unwrap();
    let parent_model = ScriptedModel::new([
        Reply::tool_call("summarize", json!({"input": "tides"})),
        Reply::text("done"),
    ]);
    let parent = Agent::<String, String>::builder("planner")
        .model(parent_model.clone())
        .tool(Summarize::new(child))
        .budget(Budget::default().per_tool_timeout(Duration::from_millis(50)))
        .build()
        .unwrap();
    assert_eq!(parent.run("plan".into()).await.unwrap(), "done");
    assert_eq!(last_message(&parent_model, 1), "found it");
}
