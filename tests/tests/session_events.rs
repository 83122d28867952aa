//! The session path: what `events()` streams and in which order, streamed tool calls reassembled,
//! ids on every pipeline event, and which model method each path uses.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agents_kt::{
    Agent, AgentError, AgentEvent, ChatRequest, ChatResponse, ChatStream, ModelClient, ModelError,
    Reply, ScriptedModel,
};
use agents_kt_tests::{GetWeather, GetWeatherArgs, Path, Sleep, drain, drive};
use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::json;

fn kind(event: &AgentEvent<String>) -> String {
    match event {
        AgentEvent::SkillStarted { skill, .. } => format!("skill-started {skill}"),
        AgentEvent::SkillCompleted { skill, .. } => format!("skill-completed {skill}"),
        AgentEvent::TurnStarted { turn, .. } => format!("turn-started {turn}"),
        AgentEvent::Token { .. } => "token".into(),
        AgentEvent::TurnCompleted {
            turn, tool_calls, ..
        } => {
            format!("turn-completed {turn} calls={}", tool_calls.len())
        }
        AgentEvent::ToolCallStarted { tool, .. } => format!("tool-started {tool}"),
        AgentEvent::ToolCallProgress { .. } => "tool-progress".into(),
        AgentEvent::ToolCallFinished { tool, is_error, .. } => {
            format!("tool-finished {tool} error={is_error}")
        }
        AgentEvent::Completed { output, .. } => format!("completed {output}"),
        AgentEvent::Failed { error, .. } => format!("failed {error}"),
        other => format!("{other:?}"),
    }
}

#[tokio::test]
async fn a_session_streams_its_events_in_order() {
    let model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Oslo"})),
        Reply::text("Cold in Oslo today."),
    ]);
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model)
        .tool(GetWeather::default())
        .build()
        .unwrap();
    let (output, events) = drive(&agent, "weather?", Path::Session).await;
    assert_eq!(output.unwrap(), "Cold in Oslo today.");
    let mut kinds: Vec<String> = events.iter().map(kind).collect();
    kinds.dedup();
    assert_eq!(
        kinds,
        vec![
            "skill-started default",
            "turn-started 1",
            "turn-completed 1 calls=1",
            "tool-started get_weather",
            "tool-progress",
            "tool-finished get_weather error=false",
            "turn-started 2",
            "token",
            "turn-completed 2 calls=0",
            "skill-completed default",
            "completed Cold in Oslo today.",
        ]
    );
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Token { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Cold in Oslo today.");
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, AgentEvent::Token { .. }))
            .count()
            > 1
    );
}

#[tokio::test]
async fn tool_progress_carries_the_call_id_of_its_call() {
    let model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "Oslo"})),
        Reply::text("ok"),
    ]);
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model)
        .tool(GetWeather::default())
        .build()
        .unwrap();
    let (_, events) = drive(&agent, "x", Path::Session).await;
    let started = events.iter().find_map(|e| match e {
        AgentEvent::ToolCallStarted { call_id, .. } => Some(call_id.clone()),
        _ => None,
    });
    let progress = events.iter().find_map(|e| match e {
        AgentEvent::ToolCallProgress {
            call_id, progress, ..
        } => Some((call_id.clone(), progress.clone())),
        _ => None,
    });
    let started = started.expect("a started event");
    assert!(!started.is_empty());
    assert_eq!(progress, Some((started, json!({"looking_up": "Oslo"}))));
}

#[tokio::test]
async fn streamed_tool_arguments_split_over_chunks_are_reassembled() {
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("get_weather", json!({"city": "Reykjavík"})),
            ("get_weather", json!({"city": "Ouagadougou"})),
        ]),
        Reply::text("ok"),
    ]);
    let weather = GetWeather::default();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model)
        .tool(weather.clone())
        .build()
        .unwrap();
    drive(&agent, "x", Path::Session).await.0.unwrap();
    assert_eq!(
        weather.ran.entries(),
        vec![
            GetWeatherArgs {
                city: "Reykjavík".into()
            },
            GetWeatherArgs {
                city: "Ouagadougou".into()
            },
        ]
    );
}

#[tokio::test]
async fn every_pipeline_event_carries_its_runs_ids() {
    let model = ScriptedModel::new([Reply::text("one"), Reply::text("two")]);
    let agent: Agent<String, String> = Agent::builder("ids").model(model).build().unwrap();
    let mut pipeline = agent.observe();
    agent.run("x".into()).await.unwrap();
    let session = agent.session("y".into());
    let session_ids = session.ids().clone();
    session.await.unwrap();
    let events = drain(&mut pipeline);
    let mut ids: Vec<_> = events.iter().map(|e| e.ids().clone()).collect();
    ids.dedup();
    assert_eq!(
        ids.len(),
        2,
        "two runs, each event tagged with its own: {ids:?}"
    );
    assert_eq!(ids[0].run_id, "ids/run-1");
    assert_eq!(ids[1], session_ids);
    assert_ne!(ids[0].run_id, ids[1].run_id);
}

#[tokio::test]
async fn dropping_a_session_stops_its_run() {
    let model = ScriptedModel::new([
        Reply::tool_call("sleep", json!({"millis": 60_000})),
        Reply::text("too late"),
    ]);
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model.clone())
        .tool(Sleep)
        .build()
        .unwrap();
    let mut session = agent.session("x".into());
    let mut events = session.events();
    while let Some(event) = events.next().await {
        if matches!(event, AgentEvent::ToolCallStarted { .. }) {
            break;
        }
    }
    drop(session);
    // A reader still holding the stream is told the run was stopped, then the stream ends.
    assert!(
        matches!(
            events.next().await,
            Some(AgentEvent::Failed {
                error: AgentError::Aborted(_),
                ..
            })
        ),
        "the run is reported as aborted"
    );
    assert_eq!(
        events.next().await,
        None,
        "the stream ends when the run is stopped"
    );
    assert_eq!(
        model.request_count(),
        1,
        "the run never reached its second turn"
    );
}

/// Counts which model method each path uses.
#[derive(Clone)]
struct Counting {
    inner: ScriptedModel,
    chat: Arc<AtomicUsize>,
    stream: Arc<AtomicUsize>,
}

impl ModelClient for Counting {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        self.chat.fetch_add(1, Ordering::SeqCst);
        self.inner.chat(request)
    }
    fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a> {
        self.stream.fetch_add(1, Ordering::SeqCst);
        self.inner.chat_stream(request)
    }
}

#[tokio::test]
async fn run_calls_chat_and_session_calls_chat_stream() {
    let model = Counting {
        inner: ScriptedModel::new([Reply::text("a"), Reply::text("b")]),
        chat: Arc::default(),
        stream: Arc::default(),
    };
    let agent: Agent<String, String> = Agent::builder("a").model(model.clone()).build().unwrap();
    drive(&agent, "x", Path::Run).await.0.unwrap();
    assert_eq!(
        (
            model.chat.load(Ordering::SeqCst),
            model.stream.load(Ordering::SeqCst)
        ),
        (1, 0)
    );
    drive(&agent, "x", Path::Session).await.0.unwrap();
    assert_eq!(
        (
            model.chat.load(Ordering::SeqCst),
            model.stream.load(Ordering::SeqCst)
        ),
        (1, 1)
    );
}
