//! Faults are contained on both paths: a panic in a code skill, the model client (calling, or
//! while its stream is polled), the skill selector or a tool output's serialization ends the run
//! with the same `AgentError::Panicked`, the session ends with `Failed`, and `on_error` and
//! `RunFailed` fire once. Nothing unwinds into the caller.

use agents_kt::{
    Agent, AgentError, AgentEvent, ChatRequest, ChatResponse, ChatStream, ModelClient, ModelError,
    PipelineEvent, Reply, ScriptedModel, Skill, SkillContext, SkillError, Tool, ToolContext,
    ToolError,
};
use agents_kt_tests::{PATHS, Path, Seen, drain, drive, quiet_scripted_panics};
use futures::future::BoxFuture;
use serde_json::json;

/// A model client that panics where it is told to.
#[derive(Clone, Copy)]
enum Panics {
    /// In `chat` / `chat_stream` themselves, before any future or stream exists.
    WhenCalled,
    /// While its future or stream is polled.
    WhenPolled,
}

struct PanickingModel(Panics);

impl ModelClient for PanickingModel {
    fn chat<'a>(&'a self, _: &'a ChatRequest) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        match self.0 {
            Panics::WhenCalled => panic!("scripted model panic"),
            Panics::WhenPolled => Box::pin(async { panic!("scripted model panic") }),
        }
    }

    fn chat_stream<'a>(&'a self, _: &'a ChatRequest) -> ChatStream<'a> {
        match self.0 {
            Panics::WhenCalled => panic!("scripted model panic"),
            Panics::WhenPolled => Box::pin(futures::stream::poll_fn(
                |_| -> std::task::Poll<Option<_>> { panic!("scripted model panic") },
            )),
        }
    }
}

/// Runs `agent` on both paths and checks the one outcome every panic site must have.
async fn assert_contained(agent: &Agent<String, String>, seen: &Seen, during: &str, message: &str) {
    for path in PATHS {
        let mut pipeline = agent.observe();
        let before = seen.lines("error").len();
        let (output, events) = drive(agent, "go", path).await;
        let error = output.unwrap_err();
        assert!(
            matches!(&error, AgentError::Panicked { during: d, message: m, .. }
                if d == during && m == message),
            "{path:?}: {error:?}"
        );
        assert_eq!(
            seen.lines("error").len(),
            before + 1,
            "{path:?}: on_error once"
        );
        let failed = drain(&mut pipeline)
            .into_iter()
            .filter(|e| matches!(e, PipelineEvent::RunFailed { error: e, .. } if *e == error))
            .count();
        assert_eq!(failed, 1, "{path:?}: RunFailed once");
        if path == Path::Session {
            assert!(
                matches!(events.last(), Some(AgentEvent::Failed { error: e, .. }) if *e == error),
                "{events:?}"
            );
        }
    }
}

#[tokio::test]
async fn a_panicking_code_skill_ends_the_run_with_panicked() {
    quiet_scripted_panics();
    let seen = Seen::default();
    let agent = seen
        .watch(Agent::builder("a"))
        .skill(Skill::code(
            "boom",
            |_: String, _: SkillContext<String>| async {
                if true {
                    panic!("scripted skill panic");
                }
                Ok::<_, SkillError>(String::new())
            },
        ))
        .build()
        .unwrap();
    assert_contained(
        &agent,
        &seen,
        "running skill 'boom'",
        "scripted skill panic",
    )
    .await;
}

#[tokio::test]
async fn a_model_client_panicking_when_called_or_polled_ends_the_run_with_panicked() {
    quiet_scripted_panics();
    for (panics, during) in [
        (Panics::WhenCalled, "calling the model"),
        (Panics::WhenPolled, "calling the model"),
    ] {
        let seen = Seen::default();
        let agent: Agent<String, String> = seen
            .watch(Agent::builder("a"))
            .model(PanickingModel(panics))
            .build()
            .unwrap();
        // The session path polls a stream: its panic happens while reading it.
        for path in PATHS {
            let (output, _) = drive(&agent, "go", path).await;
            let during = match (panics, path) {
                (Panics::WhenPolled, Path::Session) => "reading the model's stream",
                _ => during,
            };
            let error = output.unwrap_err();
            assert!(
                matches!(&error, AgentError::Panicked { during: d, message, .. }
                    if d == during && message == "scripted model panic"),
                "{error:?}"
            );
        }
        assert_eq!(seen.lines("error").len(), 2);
    }
}

#[tokio::test]
async fn a_panicking_selector_ends_the_run_with_panicked() {
    quiet_scripted_panics();
    let seen = Seen::default();
    let agent = seen
        .watch(Agent::builder("a"))
        .model(ScriptedModel::default())
        .skill(Skill::agentic("one"))
        .skill(Skill::agentic("two"))
        .skill_selector(|_| panic!("scripted selector panic"))
        .build()
        .unwrap();
    assert_contained(&agent, &seen, "choosing a skill", "scripted selector panic").await;
}

/// An output whose `Serialize` panics.
#[derive(serde::Deserialize)]
struct Exploding;

impl serde::Serialize for Exploding {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        std::panic::panic_any(7u32)
    }
}

#[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct NoArgs {}

struct Explode;

impl Tool for Explode {
    const NAME: &'static str = "explode";
    type Args = NoArgs;
    type Output = Exploding;
    fn description(&self) -> std::borrow::Cow<'static, str> {
        "Explodes when serialized.".into()
    }
    async fn call(&self, _: NoArgs, _: &ToolContext) -> Result<Exploding, ToolError> {
        Ok(Exploding)
    }
}

#[tokio::test]
async fn a_tool_output_that_panics_while_serialized_ends_the_run_and_says_the_payload_type() {
    quiet_scripted_panics();
    let seen = Seen::default();
    let agent = seen
        .watch(Agent::builder("a"))
        .model(ScriptedModel::new([
            Reply::tool_call("explode", json!({})),
            Reply::tool_call("explode", json!({})),
        ]))
        .tool(Explode)
        .build()
        .unwrap();
    assert_contained(
        &agent,
        &seen,
        "serializing the output of tool 'explode'",
        "panicked with a u32 payload: 7",
    )
    .await;
}
