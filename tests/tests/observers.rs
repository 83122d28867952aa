//! Observers never change a run: a panicking one is isolated and the others still run.

use agents_kt::{Agent, Reply, ScriptedModel};
use agents_kt_tests::{GetWeather, Log};
use serde_json::json;

#[tokio::test]
async fn a_panicking_observer_is_isolated_and_the_others_still_run() {
    let model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Oslo"})),
        Reply::text("done"),
    ]);
    let after = Log::new();
    let record = after.clone();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model)
        .tool(GetWeather::default())
        .on_tool_use(|_, _, _| panic!("observer bug"))
        .on_skill_chosen(|_| panic!("another observer bug"))
        .on_tool_use(move |tool, _, _| record.push(tool.to_string()))
        .build()
        .unwrap();
    assert_eq!(agent.run("x".into()).await.unwrap(), "done");
    assert_eq!(after.entries(), vec!["get_weather"]);
}
