//! An agent on whatever OpenAI-compatible server the environment names: OpenAI, Ollama,
//! llama.cpp's llama-server, vLLM, DeepSeek, OpenRouter, Gemini's compatible endpoint.
//!
//! ```sh
//! OPENAI_BASE_URL=http://127.0.0.1:11434/v1 AGENTS_KT_MODEL=llama3.2 cargo run --example openai_compatible
//! ```

use agents_kt::OpenAiCompatible;
use agents_kt::prelude::*;
use futures::StreamExt;

/// Says what to set when no server is configured.
const HOW_TO: &str = "No model configured. Set:
  AGENTS_KT_MODEL   the model's name (e.g. llama3.2, gpt-4o-mini)
  OPENAI_BASE_URL   the server's /v1 URL (default: OpenAI's); e.g. http://127.0.0.1:11434/v1 for Ollama,
                    http://127.0.0.1:8080/v1 for llama-server
  OPENAI_API_KEY    if the server needs one";

#[before_turn]
fn no_injection(messages: &[Message]) -> Decision<Vec<Message>, String> {
    if messages.iter().any(|m| {
        m.content
            .to_lowercase()
            .contains("ignore previous instructions")
    }) {
        Decision::deny("possible prompt injection")
    } else {
        Decision::Proceed
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = match OpenAiCompatible::from_env() {
        Ok(model) => model,
        Err(_) => {
            println!("{HOW_TO}");
            return Ok(());
        }
    };
    println!("model: {}", model.model_name());
    let agent = Agent::<String, String>::builder("assistant")
        .model(model)
        .system_prompt("Answer in one short sentence.")
        .on_before_turn(no_injection)
        .on_token_usage(|usage| {
            eprintln!(
                "[{} prompt + {} completion tokens]",
                usage.prompt_tokens, usage.completion_tokens
            )
        })
        .build()?;

    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is the capital of France?".into());
    let mut session = agent.session(question);
    let mut events = session.events();
    while let Some(event) = events.next().await {
        if let AgentEvent::Token { text, .. } = event {
            print!("{text}");
        }
    }
    println!();
    session.await?;
    Ok(())
}
