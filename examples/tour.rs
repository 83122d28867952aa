//! The program a newcomer writes on day one, offline on the scripted model: two tools (one with
//! a struct argument), a typed `ProceedWith`, a gate, an after-tool redaction, a sub-agent and a
//! remembered conversation. It asserts what happened and exits non-zero if not.
//! `cargo run --example tour`

use agents_kt::Role;
use agents_kt::prelude::*;
use serde_json::json;

/// Where a note goes: a parameter of your own type needs these four derives.
#[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Note {
    pub folder: String,
    pub text: String,
}

/// Saves a note in a folder. (`#[tool] fn save_note` → `SaveNote`, `SaveNoteArgs`.)
#[tool]
fn save_note(note: Note) -> String {
    format!("saved {} bytes in {}", note.text.len(), note.folder)
}

/// Reads the user's profile, API key included.
#[tool]
fn read_profile(user: String) -> String {
    format!("name={user}; api_key=sk-12345")
}

/// Typed rewrite: notes without a folder go to `inbox` (a `ProceedWith` must be `SaveNoteArgs`).
#[before_tool_call(save_note)]
fn default_folder(args: &SaveNoteArgs) -> Decision<SaveNoteArgs, String> {
    match args.note.folder.is_empty() {
        true => Decision::ProceedWith(SaveNoteArgs {
            note: Note {
                folder: "inbox".into(),
                ..args.note.clone()
            },
        }),
        false => Decision::Proceed,
    }
}

/// A gate sees the final arguments, after every rewrite, and its `deny` always wins.
#[gate(save_note)]
fn not_in_system(args: &SaveNoteArgs) -> Verdict {
    match args.note.folder.starts_with("system") {
        true => Verdict::deny("the system folder is read-only"),
        false => Verdict::Allow,
    }
}

/// The model never sees the key.
#[after_tool_call(read_profile)]
fn redact_key(out: &String) -> Decision<String, String> {
    match out.split_once("; api_key=") {
        Some((kept, _)) => Decision::ProceedWith(kept.to_string()),
        None => Decision::Proceed,
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let helper_model = ScriptedModel::new([Reply::text("try the inbox")]);
    let helper = Agent::<String, String>::builder("helper")
        .model(helper_model)
        .build()?;
    let model = ScriptedModel::new([
        Reply::tool_calls([
            (
                "save_note",
                json!({"note": {"folder": "", "text": "buy milk"}}),
            ),
            (
                "save_note",
                json!({"note": {"folder": "system", "text": "x"}}),
            ),
            ("read_profile", json!({"user": "ada"})),
            // A sub-agent whose input is a `String` takes `{"input": "…"}`.
            ("ask_helper", json!({"input": "where do notes go?"})),
        ]),
        Reply::text("Saved your note in the inbox."),
        Reply::text("You asked me to save a note."),
    ]);
    let agent = Agent::<String, String>::builder("notes")
        .model(model.clone())
        .tool(SaveNote)
        .tool(ReadProfile)
        .before_tool_call(default_folder)
        .gate_tool_call(not_in_system)
        .after_tool_call::<ReadProfile, _>(redact_key)
        .sub_agent(helper.as_tool("ask_helper", "Answers questions about notes."))
        .build()?;

    let store = InMemoryStore::new(); // or SqliteStore::open("notes.db")? (feature `sqlite`)
    let answer = agent
        .run_in(&store, "ada", "Save 'buy milk'".into())
        .await?;
    let told: Vec<String> = model.requests()[1]
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.clone())
        .collect();
    println!(
        "answer: {answer}\nthe model was told:\n  {}",
        told.join("\n  ")
    );
    assert_eq!(told[0], "saved 8 bytes in inbox");
    assert_eq!(
        told[1],
        "ERROR: Tool 'save_note' denied by policy: the system folder is read-only"
    );
    assert_eq!(told[2], "name=ada");
    assert_eq!(told[3], "try the inbox");

    // The second turn of the conversation starts from the first (memory).
    let again = agent
        .run_in(&store, "ada", "What did I ask?".into())
        .await?;
    println!("later: {again}");
    assert!(
        model.requests()[2].messages.len() > 2,
        "the history was read"
    );
    Ok(())
}
