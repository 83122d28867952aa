//! A conversation that outlives the process: run this twice against one SQLite file, and the
//! second process's model reads what the first one said. Offline, on scripted models (the
//! second run's model is shown the stored history; `tests/tests/memory.rs` also holds that a
//! result an after-tool interceptor redacted never reaches the file).
//!
//! ```text
//! cargo run --example memory -- /tmp/agents-kt-memory.db   # first: "My name is Ada."
//! cargo run --example memory -- /tmp/agents-kt-memory.db   # second: "What is my name?"
//! ```

use agents_kt::prelude::*;
use agents_kt::{ConversationStore, SqliteStore};

const CONVERSATION: &str = "demo";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        std::env::temp_dir()
            .join("agents-kt-memory.db")
            .display()
            .to_string()
    });
    let store = SqliteStore::open(&path)?;
    let stored = store.load(CONVERSATION).await?;
    println!(
        "{path}: conversation '{CONVERSATION}' holds {} messages",
        stored.version()
    );
    let (input, reply) = if stored.version() == 0 {
        ("My name is Ada.", "Nice to meet you, Ada.")
    } else {
        ("What is my name?", "Your name is Ada.")
    };
    let model = ScriptedModel::new([Reply::text(reply)]);
    let agent = Agent::<String, String>::builder("desk")
        .model(model.clone())
        .system_prompt("You are a helpful desk.")
        .build()?;
    println!("user: {input}");
    let answer = agent
        .run_in(&store, CONVERSATION, input.to_string())
        .await?;
    println!("desk: {answer}");
    println!("the model read:");
    for message in &model.requests()[0].messages {
        println!("  {:?}: {}", message.role, message.content);
    }
    if stored.version() > 0 {
        let remembered = model.requests()[0]
            .messages
            .iter()
            .any(|message| message.content == "My name is Ada.");
        if !remembered {
            return Err("the second run did not read the first run's conversation".into());
        }
        println!("ok: the second process continued the first one's conversation");
    }
    Ok(())
}
