//! Observers never change a run: a panicking one is isolated and the others still run.

use agents_kt::{Agent, Reply, ScriptedModel};
use agents_kt_tests::{GetWeather, Log};
use futures::FutureExt;
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

/// A slow `observe()` reader cannot grow memory without bound or slow the runs: beyond
/// `OBSERVE_BUFFER` unread events, its stream skips events and says how many it missed; a
/// second stream that keeps up misses nothing.
#[tokio::test]
async fn a_lagging_observe_stream_is_bounded_and_told_how_many_events_it_missed() {
    use agents_kt::{OBSERVE_BUFFER, PipelineEvent};
    use futures::StreamExt;
    let runs = 1000;
    let agent = Agent::<String, String>::builder("busy")
        .model(ScriptedModel::new((0..runs).map(|_| Reply::text("ok"))))
        .build()
        .unwrap();
    let mut slow = agent.observe();
    let mut keeping_up = agent.observe();
    let mut seen_live = 0u64;
    for _ in 0..runs {
        agent.run("hi".into()).await.unwrap();
        while let Some(Some(_)) = keeping_up.next().now_or_never() {
            seen_live += 1;
        }
    }
    let per_run = seen_live / runs as u64;
    assert!(per_run >= 4, "{seen_live} events over {runs} runs");
    let mut delivered = 0u64;
    while let Some(Some(event)) = slow.next().now_or_never() {
        assert!(!matches!(event, PipelineEvent::Lagged { .. }));
        delivered += 1;
    }
    assert_eq!(
        delivered, OBSERVE_BUFFER as u64,
        "the stream held its buffer"
    );
    // Read now, the stream is live again: the next run arrives whole, after the Lagged notice.
    agent
        .run("hi".into())
        .await
        .expect_err("the script is used up");
    let next: Vec<_> = std::iter::from_fn(|| slow.next().now_or_never().flatten()).collect();
    let PipelineEvent::Lagged { missed, .. } = next[0] else {
        panic!("{:?}", next[0]);
    };
    assert_eq!(
        delivered + missed,
        seen_live,
        "every event was delivered or counted as missed"
    );
    assert!(matches!(next[1], PipelineEvent::RunStarted { .. }));
    assert!(matches!(next.last(), Some(PipelineEvent::RunFailed { .. })));
}
