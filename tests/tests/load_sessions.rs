//! The agent runtime under load: a thousand concurrent sessions on one `Agent` with a streaming
//! model and tool calls — every session's events complete and in order, memory and tasks back
//! where they were once they end — and sessions dropped mid-tool and mid-stream cancelled
//! cleanly: the tool's and the stream's futures dropped, the run reported as failed, no panic.
//!
//! Alone in its binary: it counts the process's live heap bytes and tokio tasks.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agents_kt::{
    Agent, AgentError, AgentEvent, ChatChunk, ChatRequest, ChatResponse, ChatStream, ModelClient,
    ModelError, PipelineEvent, Role, Tool, ToolContext, ToolError,
};
use agents_kt_tests::counting::CountingAllocator;
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use serde_json::{Value, json};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// The heap count is process-wide: this binary's tests take turns.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A model that, for each conversation, asks for the weather in the city it was given, then
/// answers in several streamed pieces — deterministic per session, whatever the interleaving.
struct Forecaster;

impl Forecaster {
    fn answer(request: &ChatRequest) -> Vec<ChatChunk> {
        let last = request.messages.last();
        match last {
            Some(message) if message.role == Role::Tool => {
                let city = request
                    .messages
                    .iter()
                    .find(|m| m.role == Role::User)
                    .map_or("", |m| m.content.as_str());
                ["It is ", "mild in ", city, "."]
                    .into_iter()
                    .map(|piece| ChatChunk::Text(piece.to_string()))
                    .collect()
            }
            _ => {
                let city = last.map_or("", |m| m.content.as_str());
                vec![ChatChunk::tool_call_delta(
                    0,
                    Some("call-1".into()),
                    Some("weather".into()),
                    json!({ "city": city }).to_string(),
                )]
            }
        }
    }
}

impl ModelClient for Forecaster {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let mut answer = agents_kt::ResponseAssembler::default();
        Self::answer(request)
            .into_iter()
            .for_each(|c| answer.push(c));
        futures::future::ready(answer.finish()).boxed()
    }

    fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a> {
        // Each piece after a yield, as a network stream arrives.
        futures::stream::iter(Self::answer(request))
            .then(|chunk| async move {
                tokio::task::yield_now().await;
                Ok(chunk)
            })
            .boxed()
    }
}

/// `weather`: answers after yielding once.
#[derive(Clone, Default)]
struct Weather;

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct WeatherArgs {
    city: String,
}

impl Tool for Weather {
    const NAME: &'static str = "weather";
    type Args = WeatherArgs;
    type Output = Value;

    fn description(&self) -> std::borrow::Cow<'static, str> {
        "The weather in a city.".into()
    }

    async fn call(&self, args: WeatherArgs, _: &ToolContext) -> Result<Value, ToolError> {
        tokio::task::yield_now().await;
        Ok(json!({"city": args.city, "celsius": 12}))
    }
}

fn forecaster() -> Agent<String, String> {
    Agent::<String, String>::builder("forecaster")
        .model(Forecaster)
        .tool(Weather)
        .build()
        .unwrap()
}

/// The events one session must produce, in this order (tokens and tool progress aside).
fn assert_complete_and_in_order(city: &str, events: &[AgentEvent<String>]) {
    let kinds: Vec<String> = events
        .iter()
        .filter(|event| !matches!(event, AgentEvent::Token { .. }))
        .map(|event| match event {
            AgentEvent::SkillStarted { .. } => "skill".to_string(),
            AgentEvent::TurnStarted { turn, .. } => format!("turn{turn}"),
            AgentEvent::TurnCompleted { turn, .. } => format!("done{turn}"),
            AgentEvent::ToolCallStarted { tool, .. } => format!("call:{tool}"),
            AgentEvent::ToolCallFinished { is_error, .. } => format!("result:{is_error}"),
            AgentEvent::SkillCompleted { .. } => "skill-done".to_string(),
            AgentEvent::Completed { output, .. } => format!("completed:{output}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "skill".to_string(),
            "turn1".into(),
            "done1".into(),
            "call:weather".into(),
            "result:false".into(),
            "turn2".into(),
            "done2".into(),
            "skill-done".into(),
            format!("completed:It is mild in {city}."),
        ],
        "{city}"
    );
    let text: String = events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Token { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, format!("It is mild in {city}."));
}

/// A thousand sessions at once, each read to its end.
async fn thousand_sessions(agent: &Agent<String, String>, round: usize) {
    let sessions: Vec<_> = (0..1000)
        .map(|i| {
            let city = format!("city-{round}-{i}");
            let mut session = agent.session(city.clone());
            let events = session.events();
            tokio::spawn(async move {
                let events: Vec<_> = events.collect().await;
                let output = session.await.unwrap();
                (city, events, output)
            })
        })
        .collect();
    for session in sessions {
        let (city, events, output) = session.await.unwrap();
        assert_eq!(output, format!("It is mild in {city}."));
        assert_complete_and_in_order(&city, &events);
    }
}

/// Let every finished task and dropped channel go, then read the live heap and tasks.
async fn settle() -> (usize, usize) {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let tasks = tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks();
    (CountingAllocator::live_bytes(), tasks)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_sessions_complete_in_order_and_leave_nothing_behind() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let agent = forecaster();
    let mut pipeline = agent.observe();
    // Warm-up: lazily built things (tracing callsites, the runtime's pools) are not leaks.
    thousand_sessions(&agent, 0).await;
    while pipeline.next().now_or_never().flatten().is_some() {}
    let (before, tasks_before) = settle().await;
    let started = Instant::now();
    for round in 1..=3 {
        thousand_sessions(&agent, round).await;
        while pipeline.next().now_or_never().flatten().is_some() {}
    }
    let elapsed = started.elapsed();
    let (after, tasks_after) = settle().await;
    eprintln!(
        "3000 sessions in {elapsed:?}; live heap {before} -> {after} bytes; tasks {tasks_before} -> {tasks_after}"
    );
    assert_eq!(
        tasks_after, tasks_before,
        "no session task outlives its session"
    );
    // Three rounds of a thousand sessions each: a leak of even a few bytes per session shows.
    let grown = after.saturating_sub(before);
    assert!(
        grown < 64 * 1024,
        "live heap grew by {grown} bytes over 3000 finished sessions"
    );
}

/// Flags when a future it lives in is dropped.
struct DropFlag(Arc<AtomicUsize>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// `stall`: never finishes on its own; says when its future was dropped.
#[derive(Clone)]
struct Stall {
    started: Arc<AtomicUsize>,
    dropped: Arc<AtomicUsize>,
}

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct StallArgs {}

impl Tool for Stall {
    const NAME: &'static str = "stall";
    type Args = StallArgs;
    type Output = Value;

    fn description(&self) -> std::borrow::Cow<'static, str> {
        "Waits forever.".into()
    }

    async fn call(&self, _: StallArgs, _: &ToolContext) -> Result<Value, ToolError> {
        let _flag = DropFlag(Arc::clone(&self.dropped));
        self.started.fetch_add(1, Ordering::SeqCst);
        futures::future::pending::<()>().await;
        Ok(Value::Null)
    }
}

/// A model whose stream sends one piece and then never another; says when the stream was
/// dropped. Its first answer (non-stream) asks for the `stall` tool.
struct Trickle {
    dropped: Arc<AtomicUsize>,
}

impl ModelClient for Trickle {
    fn chat<'a>(&'a self, _: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        futures::future::pending().boxed()
    }

    fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a> {
        if request
            .messages
            .last()
            .is_some_and(|m| m.content == "stall")
        {
            let call = ChatChunk::tool_call_delta(0, Some("c".into()), Some("stall".into()), "{}");
            return futures::stream::iter([Ok(call)]).boxed();
        }
        let flag = DropFlag(Arc::clone(&self.dropped));
        futures::stream::once(async { Ok(ChatChunk::Text("first piece".into())) })
            .chain(futures::stream::pending())
            .map(move |chunk| {
                let _ = &flag;
                chunk
            })
            .boxed()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_dropped_mid_tool_and_mid_stream_cancel_cleanly_and_are_reported() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let stall = Stall {
        started: Arc::default(),
        dropped: Arc::default(),
    };
    let stream_dropped = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&errors);
    let agent = Agent::<String, String>::builder("droppable")
        .model(Trickle {
            dropped: Arc::clone(&stream_dropped),
        })
        .tool(stall.clone())
        .on_error(move |error: &AgentError| seen.lock().unwrap().push(error.to_string()))
        .build()
        .unwrap();
    let mut pipeline = agent.observe();
    let n = 100;

    // Mid-tool: each session is dropped once its tool has started.
    for _ in 0..n {
        let mut session = agent.session("stall".into());
        let mut events = session.events();
        while let Some(event) = events.next().await {
            if matches!(event, AgentEvent::ToolCallStarted { .. }) {
                break;
            }
        }
        drop(events);
        drop(session);
    }
    // Mid-stream: each session is dropped after the first piece of text.
    for _ in 0..n {
        let mut session = agent.session("talk".into());
        let mut events = session.events();
        while let Some(event) = events.next().await {
            if matches!(event, AgentEvent::Token { .. }) {
                break;
            }
        }
        drop(session);
        drop(events);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while (stall.dropped.load(Ordering::SeqCst) < n || stream_dropped.load(Ordering::SeqCst) < n)
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(stall.started.load(Ordering::SeqCst), n);
    assert_eq!(
        stall.dropped.load(Ordering::SeqCst),
        n,
        "every tool future dropped"
    );
    assert_eq!(
        stream_dropped.load(Ordering::SeqCst),
        n,
        "every model stream dropped"
    );
    let failed = std::iter::from_fn(|| pipeline.next().now_or_never().flatten())
        .filter(|event| {
            matches!(event, PipelineEvent::RunFailed { error: AgentError::Aborted(reason), .. }
            if reason.contains("dropped before it finished"))
        })
        .count();
    assert_eq!(
        failed,
        2 * n,
        "every dropped run is reported as failed, once"
    );
    assert_eq!(errors.lock().unwrap().len(), 2 * n, "on_error once per run");
    // The agent keeps serving.
    let mut session = agent.session("stall".into());
    let mut events = session.events();
    assert!(events.next().await.is_some());
    drop(session);
}
