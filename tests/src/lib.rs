//! Shared fixtures for the end-to-end tests in `tests/tests/`: small tools whose every execution is
//! recorded (so a test can prove a tool did or did not run), and a recorder for observers.

pub mod a2a;
pub mod a2a_remote;
pub mod chain_model;
pub mod counting;
pub mod ledger;
pub mod llama;
pub mod npm;
pub mod phoenix;
pub mod restate;
pub mod scratch;

use std::borrow::Cow;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agents_kt::{Tool, ToolContext, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A thread-safe list of things that happened, in order.
#[derive(Clone, Debug)]
pub struct Log<T>(Arc<Mutex<Vec<T>>>);

impl<T: Clone> Default for Log<T> {
    fn default() -> Self {
        Log::new()
    }
}

impl<T: Clone> Log<T> {
    /// A new, empty log.
    pub fn new() -> Self {
        Log(Arc::new(Mutex::new(Vec::new())))
    }

    /// Append an entry.
    pub fn push(&self, entry: T) {
        self.0.lock().expect("log lock").push(entry);
    }

    /// Everything logged so far.
    pub fn entries(&self) -> Vec<T> {
        self.0.lock().expect("log lock").clone()
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.0.lock().expect("log lock").len()
    }

    /// Whether nothing was logged.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Arguments of [`WriteFile`].
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct WriteFileArgs {
    /// Where to write.
    pub path: String,
    /// What to write.
    pub contents: String,
    /// A trace id an interceptor may add.
    #[serde(default, rename = "traceId", skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
}

/// `writeFile`: records the arguments it ran with and answers with a summary.
#[derive(Clone, Default)]
pub struct WriteFile {
    /// Arguments of every execution.
    pub ran: Log<WriteFileArgs>,
}

impl Tool for WriteFile {
    const NAME: &'static str = "writeFile";
    type Args = WriteFileArgs;
    type Output = String;

    fn description(&self) -> Cow<'static, str> {
        "Write text to a file.".into()
    }

    async fn call(&self, args: WriteFileArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
        let summary = format!("wrote {} bytes to {}", args.contents.len(), args.path);
        self.ran.push(args);
        Ok(summary)
    }
}

impl agents_kt::ToolArguments for WriteFileArgs {
    type Tool = WriteFile;
}

/// Arguments of [`FetchAccount`].
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct FetchAccountArgs {
    /// The account id.
    pub id: String,
}

/// An account.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct Account {
    /// Balance in cents.
    pub balance: i64,
    /// ISO currency code.
    pub currency: String,
}

/// `fetchAccount`: records every execution and answers with a fixed account.
#[derive(Clone, Default)]
pub struct FetchAccount {
    /// Arguments of every execution.
    pub ran: Log<FetchAccountArgs>,
}

impl Tool for FetchAccount {
    const NAME: &'static str = "fetchAccount";
    type Args = FetchAccountArgs;
    type Output = Account;

    fn description(&self) -> Cow<'static, str> {
        "Fetch an account.".into()
    }

    async fn call(&self, args: FetchAccountArgs, _ctx: &ToolContext) -> Result<Account, ToolError> {
        self.ran.push(args);
        Ok(Account {
            balance: 1,
            currency: "EUR".into(),
        })
    }
}

/// Arguments of [`GetWeather`].
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct GetWeatherArgs {
    /// The city.
    pub city: String,
}

/// `get_weather`: records every execution, fails for unknown cities.
#[derive(Clone, Default)]
pub struct GetWeather {
    /// Arguments of every execution.
    pub ran: Log<GetWeatherArgs>,
}

impl Tool for GetWeather {
    const NAME: &'static str = "get_weather";
    type Args = GetWeatherArgs;
    type Output = Value;

    fn description(&self) -> Cow<'static, str> {
        "Current weather for a city.".into()
    }

    async fn call(&self, args: GetWeatherArgs, ctx: &ToolContext) -> Result<Value, ToolError> {
        ctx.emit(json!({"looking_up": args.city}));
        self.ran.push(args.clone());
        match args.city.as_str() {
            "Atlantis" => Err(ToolError::new("no station in Atlantis")),
            "Panic City" => panic!("weather station exploded"),
            city => Ok(json!({"city": city, "celsius": 18})),
        }
    }
}

impl agents_kt::ToolArguments for GetWeatherArgs {
    type Tool = GetWeather;
}

/// Arguments of [`Sleep`].
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct SleepArgs {
    /// How long, in milliseconds.
    pub millis: u64,
}

/// `sleep`: waits, then answers "slept".
#[derive(Clone, Default)]
pub struct Sleep;

impl Tool for Sleep {
    const NAME: &'static str = "sleep";
    type Args = SleepArgs;
    type Output = String;

    fn description(&self) -> Cow<'static, str> {
        "Sleep for a while.".into()
    }

    async fn call(&self, args: SleepArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_millis(args.millis)).await;
        Ok("slept".into())
    }
}

/// Silence the panic reports tests provoke on purpose — text starting with "scripted", or a `u32`
/// payload — and keep every other panic's report.
pub fn quiet_scripted_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let text = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            let scripted = text.is_some_and(|t| t.starts_with("scripted")) || payload.is::<u32>();
            if !scripted {
                default(info);
            }
        }));
    });
}

/// The content of the last message of the model's `n`th request (0-based).
pub fn last_message(model: &agents_kt::ScriptedModel, n: usize) -> String {
    let requests = model.requests();
    requests[n]
        .messages
        .last()
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

/// Which path a test drives an agent through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// `agent.run(input)`: the model is called through `chat`.
    Run,
    /// `agent.session(input)`: the model is called through `chat_stream`, events are streamed.
    Session,
}

/// Both paths, for tests that must hold on each.
pub const PATHS: [Path; 2] = [Path::Run, Path::Session];

/// Run `agent` on `input` through `path`; the session's events (none on the run path) come too.
pub async fn drive<OUT: agents_kt::AgentOutput>(
    agent: &agents_kt::Agent<String, OUT>,
    input: &str,
    path: Path,
) -> (
    Result<OUT, agents_kt::AgentError>,
    Vec<agents_kt::AgentEvent<OUT>>,
) {
    use futures::StreamExt;
    match path {
        Path::Run => (agent.run(input.to_string()).await, Vec::new()),
        Path::Session => {
            let mut session = agent.session(input.to_string());
            let events: Vec<_> = session.events().collect().await;
            (session.await, events)
        }
    }
}

/// Everything the agent's observers and `observe()` stream saw, as readable lines.
#[derive(Clone, Default)]
pub struct Seen {
    /// One line per observer call, e.g. `tool_denied writeFile {..} reason`.
    pub observers: Log<String>,
}

impl Seen {
    /// Register every observer on `builder`, each logging one line.
    pub fn watch<IN: agents_kt::AgentInput, OUT: agents_kt::AgentOutput>(
        &self,
        builder: agents_kt::AgentBuilder<IN, OUT>,
    ) -> agents_kt::AgentBuilder<IN, OUT> {
        let (a, b, c, d, e, f) = (
            self.observers.clone(),
            self.observers.clone(),
            self.observers.clone(),
            self.observers.clone(),
            self.observers.clone(),
            self.observers.clone(),
        );
        builder
            .on_skill_chosen(move |skill| a.push(format!("skill_chosen {skill}")))
            .on_tool_use(move |tool, args, result| {
                b.push(format!("tool_use {tool} {args} {result}"))
            })
            .on_tool_error(move |tool, args, error| {
                c.push(format!("tool_error {tool} {args} {error}"))
            })
            .on_tool_denied(move |tool, args, reason| {
                d.push(format!("tool_denied {tool} {args} {reason}"))
            })
            .on_error(move |error| e.push(format!("error {error}")))
            .on_interceptor_decision(move |decision| {
                f.push(format!(
                    "decision {} {} #{} {} effective={}",
                    decision.point,
                    decision.target,
                    decision.index,
                    decision.decision,
                    decision.effective
                ))
            })
    }

    /// The lines starting with `prefix`.
    pub fn lines(&self, prefix: &str) -> Vec<String> {
        self.observers
            .entries()
            .into_iter()
            .filter(|line| line.starts_with(prefix))
            .collect()
    }
}

/// Every pipeline event received so far on `events`, without waiting.
pub fn drain(
    events: &mut agents_kt::EventStream<agents_kt::PipelineEvent>,
) -> Vec<agents_kt::PipelineEvent> {
    use futures::{FutureExt, StreamExt};
    let mut drained = Vec::new();
    while let Some(Some(event)) = events.next().now_or_never() {
        drained.push(event);
    }
    drained
}

/// Mount `replies` on `server` for POSTs to `path`, each answering one request, in order.
pub async fn mount_in_order(
    server: &wiremock::MockServer,
    path: &str,
    replies: Vec<wiremock::ResponseTemplate>,
) {
    use wiremock::Mock;
    use wiremock::matchers::{method, path as on_path};
    for (priority, reply) in replies.into_iter().enumerate() {
        Mock::given(method("POST"))
            .and(on_path(path))
            .respond_with(reply)
            .up_to_n_times(1)
            .with_priority(u8::try_from(priority + 1).expect("at most 255 replies"))
            .mount(server)
            .await;
    }
}

/// The JSON bodies of every request `server` received, in order.
pub async fn bodies(server: &wiremock::MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).expect("a JSON request body"))
        .collect()
}

/// `model`'s streamed answer to `request`, assembled as the agent loop does (an error in the
/// stream panics: for tests whose stream must succeed).
pub async fn streamed(
    model: &impl agents_kt::ModelClient,
    request: &agents_kt::ChatRequest,
) -> agents_kt::ChatResponse {
    use futures::StreamExt;
    let mut answer = agents_kt::ResponseAssembler::default();
    let mut chunks = model.chat_stream(request);
    while let Some(chunk) = chunks.next().await {
        answer.push(chunk.expect("the stream delivers"));
    }
    answer.finish().expect("the streamed answer is whole")
}

/// What `tracing` logged while `work` ran on a fresh current-thread runtime (given to it), as
/// text: for tests that a warning is logged.
pub fn logged(work: impl FnOnce(&tokio::runtime::Runtime)) -> String {
    // A global subscriber that wants every event (and discards it): a callsite another test
    // thread reaches first, with no subscriber of its own, is then never cached as "nobody
    // listens" — which would hide it from this thread's capture (a race between parallel tests).
    static LISTENING: std::sync::Once = std::sync::Once::new();
    LISTENING.call_once(|| {
        let everything = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(std::io::sink)
            .finish();
        // Another global subscriber already there listens too; either way is fine.
        let _ = tracing::subscriber::set_global_default(everything);
    });
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    tracing::subscriber::with_default(subscriber, || {
        // Another test may have registered these callsites while no subscriber listened.
        tracing::callsite::rebuild_interest_cache();
        work(&runtime);
    });
    let text = captured.0.lock().expect("log lock");
    String::from_utf8_lossy(&text).into_owned()
}

/// A log buffer for a `tracing` subscriber's writer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log lock").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A tool that waits forever, telling when it started and when its future was dropped.
#[derive(Clone, Default)]
pub struct Forever {
    /// Told when a call starts.
    pub started: std::sync::Arc<tokio::sync::Notify>,
    /// Told when a call's future is dropped (cancelled).
    pub dropped: std::sync::Arc<tokio::sync::Notify>,
}

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema, Clone, Debug)]
pub struct ForeverArgs {}

/// Tells `dropped` when the tool's future goes away.
struct Dropped(std::sync::Arc<tokio::sync::Notify>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

impl agents_kt::Tool for Forever {
    const NAME: &'static str = "forever";
    type Args = ForeverArgs;
    type Output = String;
    fn description(&self) -> std::borrow::Cow<'static, str> {
        "Never answers.".into()
    }
    async fn call(
        &self,
        _: ForeverArgs,
        _: &agents_kt::ToolContext,
    ) -> Result<String, agents_kt::ToolError> {
        let _dropped = Dropped(self.dropped.clone());
        self.started.notify_one();
        std::future::pending::<()>().await;
        Ok("unreachable".into())
    }
}
