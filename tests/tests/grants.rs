//! Grants: with any grant declared, an agent and every agent under it may call only granted
//! tools — an ungranted tool of its own fails `build`, a descendant's call of one is denied — and
//! a `confirm` grant asks a human before each call, denying when nobody can be asked.

use agents_kt::{
    Agent, ApprovalDesk, BuildError, Grant, Policy, Reply, ScriptedModel, Skill, SkillContext,
    SkillError,
};
use agents_kt_tests::{GetWeather, GetWeatherArgs, WriteFile, last_message};
use futures::StreamExt;
use serde_json::json;

#[test]
fn an_ungranted_tool_fails_build_naming_it_and_the_skill_that_can_call_it() {
    let built = Agent::<String, String>::builder("writer")
        .model(ScriptedModel::default())
        .tool(WriteFile::default())
        .tool(GetWeather::default())
        .grant(Grant::allow::<GetWeather>())
        .build();
    let Err(BuildError::ToolNotGranted {
        agent,
        skill,
        tool,
        granted,
        ..
    }) = &built
    else {
        panic!("{built:?}")
    };
    assert_eq!(
        (
            agent.as_str(),
            skill.as_str(),
            tool.as_str(),
            granted.as_str()
        ),
        ("writer", "skill 'default'", "writeFile", "get_weather")
    );
    let text = built.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(text.contains("Grant::allow_named(\"writeFile\")"), "{text}");

    // A code skill can call any tool the agent holds: each must be granted.
    let built = Agent::<String, String>::builder("coder")
        .tool(WriteFile::default())
        .skill(Skill::code(
            "run",
            |_: String, _: SkillContext<String>| async { Ok::<_, SkillError>(String::new()) },
        ))
        .grant(Grant::allow_named("get_weather"))
        .build();
    assert!(
        matches!(&built, Err(BuildError::ToolNotGranted { skill, tool, .. })
            if skill == "a code skill" && tool == "writeFile"),
        "{built:?}"
    );

    // Granted (here by a policy), it builds.
    let policy = Policy::builder("org")
        .grant(Grant::allow_named("writeFile"))
        .build();
    Agent::<String, String>::builder("writer")
        .model(ScriptedModel::default())
        .tool(WriteFile::default())
        .policy(&policy)
        .build()
        .unwrap();
}

fn weather_then(answer: &str) -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Oslo"})),
        Reply::text(answer),
    ])
}

#[tokio::test]
async fn a_parents_grants_bound_the_tools_a_grandchild_may_call() {
    let weather = GetWeather::default();
    let looker_model = weather_then("could not");
    let looker = Agent::<String, String>::builder("looker")
        .model(looker_model.clone())
        .tool(weather.clone())
        .build()
        .unwrap();
    let researcher = Agent::<String, String>::builder("researcher")
        .model(ScriptedModel::new([
            Reply::tool_call("look_up", json!({"input": "Oslo"})),
            Reply::text("researched"),
        ]))
        .sub_agent(looker.as_tool("look_up", "Looks up."))
        .build()
        .unwrap();
    let planner = Agent::<String, String>::builder("planner")
        .model(ScriptedModel::new([
            Reply::tool_call("research", json!({"input": "Oslo"})),
            Reply::text("planned"),
        ]))
        .sub_agent(researcher.as_tool("research", "Researches."))
        .grant(Grant::allow_named("research"))
        .grant(Grant::allow_named("look_up"))
        .build()
        .unwrap();
    assert_eq!(planner.run("plan".into()).await.unwrap(), "planned");
    assert!(weather.ran.is_empty(), "an ungranted tool ran");
    assert_eq!(
        last_message(&looker_model, 1),
        "ERROR: Tool 'get_weather' denied by policy: tool 'get_weather' is not granted by 'planner' (granted: look_up, research)"
    );
}

#[tokio::test]
async fn a_confirm_grant_with_no_approver_denies_and_says_why() {
    let weather = GetWeather::default();
    let model = weather_then("no weather");
    let agent = Agent::<String, String>::builder("desk")
        .model(model.clone())
        .tool(weather.clone())
        .grant(Grant::confirm::<GetWeather>())
        .build()
        .unwrap();
    assert_eq!(agent.run("weather?".into()).await.unwrap(), "no weather");
    assert!(weather.ran.is_empty());
    let told = last_message(&model, 1);
    assert!(
        told.starts_with("ERROR: Tool 'get_weather' denied by policy: 'desk' grants this tool only with a human's approval, which was not given: no approver"),
        "{told}"
    );
}

#[tokio::test]
async fn a_confirm_grant_asks_the_approver_once_and_runs_on_approve_also_for_a_sub_agent() {
    let (desk, mut inbox) = ApprovalDesk::new();
    let weather = GetWeather::default();
    let child = Agent::<String, String>::builder("looker")
        .model(weather_then("sunny"))
        .tool(weather.clone())
        .build()
        .unwrap();
    // The parent's desk serves the child, which has none of its own.
    let parent = Agent::<String, String>::builder("planner")
        .model(ScriptedModel::new([
            Reply::tool_call("look_up", json!({"input": "Oslo"})),
            Reply::text("planned"),
        ]))
        .sub_agent(child.as_tool("look_up", "Looks up."))
        .approvals(desk)
        .grant(Grant::allow_named("look_up"))
        .grant(Grant::confirm::<GetWeather>())
        .build()
        .unwrap();
    let human = tokio::spawn(async move {
        let mut asked = Vec::new();
        while let Some(question) = inbox.next().await {
            asked.push(question.request().tool.clone());
            assert_eq!(question.args::<GetWeatherArgs>().unwrap().city, "Oslo");
            question.approve();
        }
        asked
    });
    assert_eq!(parent.run("plan".into()).await.unwrap(), "planned");
    drop(parent);
    assert_eq!(weather.ran.len(), 1, "the approved call ran once");
    let asked = tokio::time::timeout(std::time::Duration::from_secs(5), human)
        .await
        .expect("the inbox closes with the agent")
        .unwrap();
    assert_eq!(asked, ["get_weather"], "asked once, about the child's call");
}

/// An agent block whose grants the macro registers: reading is allowed, writing needs a human.
pub struct Notes {
    written: agents_kt_tests::Log<String>,
}

#[agents_kt::agent(grants(allow(read_notes), confirm(write_notes)))]
impl Notes {
    /// Reads the notes.
    #[tool]
    fn read_notes(&self) -> String {
        "buy milk".to_string()
    }

    /// Writes the notes.
    #[tool]
    fn write_notes(&self, text: String) -> String {
        self.written.push(text.clone());
        text
    }
}

#[tokio::test]
async fn the_agent_macros_grants_allow_one_tool_and_confirm_the_other() {
    let written = agents_kt_tests::Log::new();
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("read_notes", json!({})),
            ("write_notes", json!({"text": "sell milk"})),
        ]),
        Reply::text("done"),
    ]);
    let agent = Notes {
        written: written.clone(),
    }
    .agent_builder("notes")
    .model(model.clone())
    .build()
    .unwrap();
    assert_eq!(agent.run("update".into()).await.unwrap(), "done");
    assert!(
        written.is_empty(),
        "a confirm-granted tool ran with no approver"
    );
    let told: Vec<String> = model.requests()[1]
        .messages
        .iter()
        .filter(|m| m.role == agents_kt::Role::Tool)
        .map(|m| m.content.clone())
        .collect();
    assert_eq!(told[0], "buy milk");
    assert!(
        told[1].contains("'notes' grants this tool only with a human's approval"),
        "{}",
        told[1]
    );
    let grants = agent.manifest().json()["grants"].clone();
    assert_eq!(
        grants,
        json!([{"confirm": false, "tool": "read_notes"}, {"confirm": true, "tool": "write_notes"}])
    );
}
