//! The permission manifest: the same tree gives the same hash in every build and process, a
//! change of a gate, a tool's schema or a grant changes it, the hash is stamped on the run's ids
//! and journal entries, and an approval given under another manifest is stale and refused.

use std::sync::Arc;

use agents_kt::{
    Agent, AgentBuilder, ApprovalDesk, Constraint, Extensions, Grant, MemoryJournal, PipelineEvent,
    Reply, ScriptedModel, Verdict,
};
use agents_kt_tests::{GetWeather, GetWeatherArgs, WriteFile, last_message};
use futures::StreamExt;
use serde_json::{Value, json};

/// A small tree: a planner with a gate, a grant set and a constraint, over a researcher with a
/// tool.
fn planner(
    extra: impl FnOnce(AgentBuilder<String, String>) -> AgentBuilder<String, String>,
) -> Agent<String, String> {
    let researcher = Agent::<String, String>::builder("researcher")
        .model(ScriptedModel::new([Reply::text("sources")]))
        .tool(GetWeather::default())
        .build()
        .unwrap();
    let builder = Agent::<String, String>::builder("planner")
        .model(ScriptedModel::new([Reply::text("plan")]))
        .sub_agent(researcher.as_tool("research", "Finds sources."))
        .on_gate_tool_call(|_: &str, _: &Value| Verdict::Allow)
        .named("audit")
        .grant(Grant::allow_named("research"))
        .grant(Grant::confirm::<GetWeather>())
        .constraint(Constraint::max_calls::<GetWeather>(3));
    extra(builder).build().unwrap()
}

#[test]
fn the_same_tree_has_the_same_hash_in_every_build() {
    let (a, b) = (planner(|b| b).manifest(), planner(|b| b).manifest());
    assert_eq!(a, b);
    assert_eq!(a.hash().len(), 64);
    let json = a.json();
    assert_eq!(json["tools"][0]["name"], "research");
    assert_eq!(json["tools"][0]["runs"]["agent"]["agent"], "researcher");
    assert_eq!(
        json["tools"][0]["runs"]["agent"]["tools"][0]["name"],
        "get_weather"
    );
    assert_eq!(
        json["tools"][0]["gates"],
        json!(["audit", "grants", "constraints"])
    );
    assert_eq!(json["constraints"], json!(["max_calls(get_weather, 3)"]));
    assert_eq!(
        json["grants"],
        json!([{"confirm": true, "tool": "get_weather"}, {"confirm": false, "tool": "research"}])
    );
    // Its printed form is sorted: keys in order at the top level.
    let text = a.to_pretty_string();
    let keys: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("  \""))
        .filter_map(|line| line.trim().split('"').nth(1))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn the_same_tree_has_the_same_hash_in_another_process() {
    if std::env::var("AGENTS_KT_PRINT_MANIFEST_HASH").is_ok() {
        println!("hash={}", planner(|b| b).manifest().hash());
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "the_same_tree_has_the_same_hash_in_another_process",
            "--nocapture",
        ])
        .env("AGENTS_KT_PRINT_MANIFEST_HASH", "1")
        .output()
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let theirs = stdout
        .lines()
        .find_map(|line| line.strip_prefix("hash="))
        .unwrap_or_else(|| panic!("no hash in:\n{stdout}"));
    assert_eq!(theirs, planner(|b| b).manifest().hash());
}

#[test]
fn a_changed_gate_tool_schema_or_grant_changes_the_hash() {
    let base = planner(|b| b).manifest();
    let another_gate = planner(|b| b.gate_turn(|_: &[agents_kt::Message]| Verdict::Allow));
    let another_grant = planner(|b| b.grant(Grant::allow_named("look_up")));
    let another_constraint = planner(|b| b.constraint(Constraint::max_calls::<GetWeather>(4)));
    // A tool whose arguments' schema differs: a `writeFile` on the planner (granted, so it builds).
    let another_tool = planner(|b| {
        b.tool(WriteFile::default())
            .grant(Grant::allow_named("writeFile"))
    });
    let hashes = [
        base.hash().to_string(),
        another_gate.manifest().hash().to_string(),
        another_grant.manifest().hash().to_string(),
        another_constraint.manifest().hash().to_string(),
        another_tool.manifest().hash().to_string(),
    ];
    for (i, a) in hashes.iter().enumerate() {
        for b in &hashes[i + 1..] {
            assert_ne!(a, b, "two different trees share a hash");
        }
    }
}

#[tokio::test]
async fn the_hash_is_stamped_on_every_event_and_journal_entry() {
    let agent = Agent::<String, String>::builder("stamped")
        .model(ScriptedModel::new([
            Reply::text("hi"),
            Reply::text("hi again"),
        ]))
        .build()
        .unwrap();
    let hash = agent.manifest().hash().to_string();
    let mut events = agent.observe();
    agent.run("hello".into()).await.unwrap();
    let drained = agents_kt_tests::drain(&mut events);
    assert!(!drained.is_empty());
    for event in &drained {
        assert_eq!(
            event.ids().manifest.as_deref(),
            Some(hash.as_str()),
            "{event:?}"
        );
    }
    assert!(
        drained
            .iter()
            .any(|e| matches!(e, PipelineEvent::RunStarted { .. }))
    );

    let journal = Arc::new(MemoryJournal::new("stamped-1"));
    agent
        .run_journaled("hello".into(), Extensions::new(), journal.clone())
        .await
        .unwrap();
    let entries = journal.entries();
    assert!(!entries.is_empty());
    for entry in entries {
        assert_eq!(entry["manifest"], hash.as_str(), "{entry}");
    }
}

/// An agent whose `get_weather` calls need a human's approval, journaled through `desk`.
fn confirming(
    model: &ScriptedModel,
    weather: &GetWeather,
    extra_gate: bool,
) -> Agent<String, String> {
    let builder = Agent::<String, String>::builder("forecaster")
        .model(model.clone())
        .tool(weather.clone())
        .grant(Grant::confirm::<GetWeather>());
    match extra_gate {
        true => builder
            .gate_tool_call(|_: &GetWeatherArgs| Verdict::Allow)
            .named("added_later"),
        false => builder,
    }
    .build()
    .unwrap()
}

#[tokio::test]
async fn an_approval_given_under_another_manifest_is_stale_and_refused() {
    // First run: the human approves; the process "dies" right after the answer was recorded.
    let (desk, mut inbox) = ApprovalDesk::new();
    let human = tokio::spawn(async move {
        let question = inbox.next().await.expect("asked");
        assert!(question.request().manifest.is_some());
        question.approve();
    });
    let weather = GetWeather::default();
    let first_model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Oslo"})),
        Reply::text("done"),
    ]);
    let journal = Arc::new(MemoryJournal::new("weather-1").with_approvals(desk));
    confirming(&first_model, &weather, false)
        .run_journaled("weather?".into(), Extensions::new(), journal.clone())
        .await
        .unwrap();
    human.await.unwrap();
    let steps: Vec<String> = journal
        .entries()
        .iter()
        .map(|e| e["step"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(steps[..2], ["turn#1", "approval#1:get_weather"]);
    let until_the_answer: Vec<Value> = journal.entries()[..2].to_vec();

    // Resumed under the same permissions: the recorded approval holds, the tool runs.
    let (same_weather, same_model) = (
        GetWeather::default(),
        ScriptedModel::new([Reply::text("done")]),
    );
    let replay = Arc::new(MemoryJournal::replaying(
        "weather-1",
        until_the_answer.clone(),
    ));
    confirming(&same_model, &same_weather, false)
        .run_journaled("weather?".into(), Extensions::new(), replay)
        .await
        .unwrap();
    assert_eq!(
        same_weather.ran.len(),
        1,
        "the approved call ran after the resume"
    );

    // Resumed after a gate was added: the approval was given under another manifest.
    let (changed_weather, changed_model) = (
        GetWeather::default(),
        ScriptedModel::new([Reply::text("done")]),
    );
    let replay = Arc::new(MemoryJournal::replaying("weather-1", until_the_answer));
    confirming(&changed_model, &changed_weather, true)
        .run_journaled("weather?".into(), Extensions::new(), replay)
        .await
        .unwrap();
    assert!(
        changed_weather.ran.is_empty(),
        "a stale approval let the call run"
    );
    let told = last_message(&changed_model, 0);
    assert!(
        told.contains("permissions that have changed since"),
        "{told}"
    );
}
