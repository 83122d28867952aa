//! End to end over real HTTP against a real OpenAI-compatible server: llama.cpp's `llama-server`
//! serving SmolLM2-135M on 127.0.0.1 (built by `scripts/llama-server.sh`, which `.ci/run` runs and
//! whose paths it exports as `LLAMA_SERVER` and `LLAMA_MODEL`).
//!
//! Without those variables the test says so and does nothing, unless `AGENTS_KT_REQUIRE_LLAMA=1`
//! (set by CI), which makes their absence a failure.

use std::time::Duration;

use agents_kt::prelude::*;
use agents_kt::{HttpSettings, OpenAiCompatible, Usage};
use agents_kt_tests::llama::{LlamaServer, locate};
use agents_kt_tests::{Log, Path, drive};
use futures::StreamExt;

/// What these tests need of the server.
trait Serves {
    fn model(&self) -> OpenAiCompatible;
    async fn prompt_tokens_total(&self) -> f64;
}

impl Serves for LlamaServer {
    fn model(&self) -> OpenAiCompatible {
        OpenAiCompatible::new(format!("{}/v1", self.base), "smollm2")
            .max_tokens(24)
            .settings(HttpSettings::default().request_timeout(Duration::from_secs(180)))
    }

    /// The server's count of prompt tokens processed so far, from its Prometheus metrics.
    async fn prompt_tokens_total(&self) -> f64 {
        let metrics = reqwest::get(format!("{}/metrics", self.base))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        metrics
            .lines()
            .find(|line| line.starts_with("llamacpp:prompt_tokens_total"))
            .and_then(|line| line.split_whitespace().last())
            .and_then(|value| value.parse().ok())
            .expect("llama-server reports llamacpp:prompt_tokens_total")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_llama_server_serves_run_and_session_and_interceptors_change_what_it_receives() {
    let Some((binary, model)) = locate() else {
        return;
    };
    let server = LlamaServer::start(&binary, &model, &[]).await;

    // 1. The chat path completes over real HTTP.
    let agent: Agent<String, String> = Agent::builder("real")
        .model(server.model())
        .system_prompt("Answer briefly.")
        .build()
        .unwrap();
    let answer = agent
        .run("What is the capital of France?".into())
        .await
        .expect("run completes");
    assert!(!answer.trim().is_empty(), "the server answered something");

    // 2. The stream path completes, with tokens streamed as they come.
    let (output, events) = drive(&agent, "Name a color.", Path::Session).await;
    let output = output.expect("session completes");
    let tokens: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Token { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, AgentEvent::Token { .. }))
            .count()
            > 1,
        "several tokens streamed"
    );
    assert_eq!(tokens, output, "the streamed tokens make up the output");

    // 3. A ProceedWith from on_before_turn changes what the server receives: its prompt grows.
    let prompt_tokens = |padding: bool| {
        let seen = Log::<Usage>::new();
        let record = seen.clone();
        let agent: Agent<String, String> = Agent::builder("real")
            .model(server.model())
            .on_before_turn(move |messages: &[Message]| {
                if padding {
                    let mut padded = vec![Message::system(
                        "You are a meticulous assistant. ".repeat(20),
                    )];
                    padded.extend_from_slice(messages);
                    Decision::ProceedWith(padded)
                } else {
                    Decision::Proceed
                }
            })
            .on_token_usage(move |usage| record.push(*usage))
            .build()
            .unwrap();
        async move {
            agent.run("Say hi.".into()).await.expect("run completes");
            seen.entries()[0].prompt_tokens
        }
    };
    let plain = prompt_tokens(false).await;
    let padded = prompt_tokens(true).await;
    assert!(
        padded > plain + 50,
        "the replacement reached the server: {plain} → {padded} prompt tokens"
    );

    // 4. A Substitute from on_before_turn means the server receives no request at all.
    let before = server.prompt_tokens_total().await;
    let substituted: Agent<String, String> = Agent::builder("real")
        .model(server.model())
        .on_before_turn(|_: &[Message]| Decision::Substitute("from cache".to_string()))
        .build()
        .unwrap();
    assert_eq!(
        substituted.run("Say hi.".into()).await.unwrap(),
        "from cache"
    );
    let mut session = substituted.session("Say hi.".into());
    let _ = session.events().collect::<Vec<_>>().await;
    assert_eq!(session.await.unwrap(), "from cache");
    assert_eq!(
        server.prompt_tokens_total().await,
        before,
        "no prompt reached the server"
    );
    agent.run("Say hi.".into()).await.expect("run completes");
    assert!(
        server.prompt_tokens_total().await > before,
        "the metric does count real requests"
    );
}
