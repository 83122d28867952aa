//! What a newcomer reads when something is wrong: the error a `main` returning
//! `Result<(), Box<dyn Error>>` prints is the sentence saying what to do, and an agent run outside
//! a Tokio runtime says it needs one and how to get one.

use agents_kt::prelude::*;
use agents_kt::{BuildError, McpToolset};

#[test]
fn an_error_returned_from_main_prints_its_sentence_not_its_fields() {
    let Err(error) = Agent::<String, String>::builder("a").build() else {
        panic!("an agent without a model is refused");
    };
    let error: Box<dyn std::error::Error> = error.into();
    // What `fn main() -> Result<(), Box<dyn Error>>` prints after "Error: ".
    let printed = format!("{error:?}");
    assert_eq!(
        printed,
        "skill 'default' calls the model, but the agent has none: add `.model(..)`"
    );
    assert!(!printed.contains("NoModel {"), "{printed}");
}

#[tokio::test]
async fn an_mcp_error_from_main_says_what_happened_with_its_causes() {
    let error = McpToolset::http("http://127.0.0.1:9/mcp")
        .connect()
        .await
        .expect_err("nothing listens on port 9");
    let printed = format!("{error:?}");
    assert!(
        printed.contains("connection refused at http://127.0.0.1:9/mcp"),
        "{printed}"
    );
    assert_eq!(
        printed.matches("connection refused").count(),
        1,
        "{printed}"
    );
    assert!(!printed.contains("WorkerTransport"), "{printed}");
}

#[test]
fn a_build_error_matches_on_its_variant_as_before() {
    let error = Agent::<String, String>::builder("a").build().err();
    assert!(matches!(error, Some(BuildError::NoModel { .. })));
}

#[test]
fn a_run_outside_a_tokio_runtime_says_agents_kt_needs_one_and_how_to_get_one() {
    let agent = Agent::<String, String>::builder("outside")
        .model(ScriptedModel::new([Reply::text("hi")]))
        .build()
        .unwrap();
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        futures::executor::block_on(agent.run("hello".into()))
    }))
    .expect_err("no runtime");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.starts_with(
            "agents-kt needs a Tokio runtime, and `Agent::run` was called outside one"
        ),
        "{message}"
    );
    assert!(message.contains("#[tokio::main]"), "{message}");
}
