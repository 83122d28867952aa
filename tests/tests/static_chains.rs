//! Compile-time chains: `#[agent]` puts a tool's typed interceptors, gates and after-interceptors
//! into the tool's `ToolChain` (held as themselves, not boxed), and anything added to the builder
//! runs after them — in registration order, numbered on, through the same guard on every path.

use agents_kt::prelude::*;
use agents_kt::{AgentError, SkillContext, ToolChain};
use agents_kt_tests::{Log, WriteFile, WriteFileArgs};
use serde_json::{Value, json};

pub struct Desk {
    log: Log<String>,
}

#[agent]
impl Desk {
    /// Stores a note.
    #[tool]
    fn note(&self, text: String) -> String {
        self.log.push(format!("noted {text}"));
        format!("noted {text}")
    }

    #[before_tool_call(note)]
    fn first(&self, _args: &NoteArgs) -> Decision<NoteArgs, String> {
        self.log.push("first".into());
        Decision::Proceed
    }

    #[before_tool_call]
    fn every(&self, _name: &str, _args: &Value) -> Decision<Value, Value> {
        self.log.push("every".into());
        Decision::Proceed
    }

    /// After an every-tool interceptor in the source, so it runs after it too.
    #[before_tool_call(note)]
    fn third(&self, args: &NoteArgs) -> Decision<NoteArgs, String> {
        self.log.push(format!("third sees {}", args.text));
        Decision::Proceed
    }

    #[gate(note)]
    fn not_secret(&self, args: &NoteArgs) -> Verdict {
        self.log.push("gate".into());
        if args.text.contains("secret") {
            Verdict::deny("no secrets")
        } else {
            Verdict::Allow
        }
    }

    #[after_tool_call(note)]
    fn shout(&self, out: &String) -> Decision<String, String> {
        Decision::ProceedWith(out.to_uppercase())
    }
}

fn one_note(text: &str) -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_calls([("note", json!({ "text": text }))]),
        Reply::text("done"),
    ])
}

fn tool_message(model: &ScriptedModel) -> String {
    model.requests()[1]
        .messages
        .iter()
        .find(|m| m.tool_call_id.is_some())
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

#[tokio::test]
async fn builder_links_run_after_the_agent_blocks_in_registration_order_and_are_numbered_on() {
    let log = Log::new();
    let (typed, dynamic) = (log.clone(), log.clone());
    let decisions = Log::<String>::new();
    let names = decisions.clone();
    let model = one_note("hello");
    let agent: Agent<String, String> = Desk { log: log.clone() }
        .agent_builder("desk")
        .model(model.clone())
        .before_tool_call(move |args: &NoteArgs| -> Decision<NoteArgs, String> {
            typed.push("builder typed".into());
            Decision::ProceedWith(NoteArgs {
                text: format!("{}!", args.text),
            })
        })
        .on_before_tool_call(move |_name: &str, args: &Value| -> Decision<Value, Value> {
            dynamic.push(format!("builder dynamic sees {}", args["text"]));
            Decision::Proceed
        })
        .on_interceptor_decision(move |d| {
            names.push(format!(
                "{} {} #{} {}",
                d.stage, d.name, d.index, d.decision
            ))
        })
        .build()
        .unwrap();
    assert_eq!(agent.run("go".into()).await.unwrap(), "done");
    assert_eq!(
        log.entries(),
        [
            "first",
            "every",
            "third sees hello",
            "builder typed",
            "builder dynamic sees \"hello!\"",
            "gate",
            "noted hello!",
        ]
    );
    assert_eq!(tool_message(&model), "NOTED HELLO!");
    assert_eq!(
        decisions.entries(),
        [
            "interceptor #3 #3 ProceedWith",
            "interceptor shout #0 ProceedWith"
        ]
    );
}

#[tokio::test]
async fn a_compile_time_gate_denies_whatever_a_builder_interceptor_rewrote() {
    let log = Log::new();
    let model = one_note("plain");
    let agent: Agent<String, String> = Desk { log: log.clone() }
        .agent_builder("desk")
        .model(model.clone())
        .before_tool_call(|_: &NoteArgs| -> Decision<NoteArgs, String> {
            Decision::ProceedWith(NoteArgs {
                text: "a secret".into(),
            })
        })
        .build()
        .unwrap();
    assert_eq!(agent.run("go".into()).await.unwrap(), "done");
    assert!(!log.entries().iter().any(|e| e.starts_with("noted")));
    assert_eq!(
        tool_message(&model),
        "ERROR: Tool 'note' denied by policy: no secrets"
    );
}

fn under_tmp(args: &WriteFileArgs) -> Verdict {
    if args.path.starts_with("/tmp/") {
        Verdict::Allow
    } else {
        Verdict::deny("outside /tmp")
    }
}

fn trace(args: &WriteFileArgs) -> Decision<WriteFileArgs, String> {
    Decision::ProceedWith(WriteFileArgs {
        trace_id: Some("t-1".into()),
        ..args.clone()
    })
}

/// A code skill writing where its input says.
fn saver() -> Skill<String, String> {
    Skill::code(
        "save",
        |path: String, ctx: SkillContext<String>| async move {
            let summary = ctx
                .call_tool(WriteFileArgs {
                    path,
                    contents: "data".into(),
                    trace_id: None,
                })
                .await?;
            Ok::<_, SkillError>(summary)
        },
    )
}

#[tokio::test]
async fn a_code_skills_typed_call_passes_a_builder_given_tool_chain() {
    let write_file = WriteFile::default();
    let chain = ToolChain::<WriteFile>::new()
        .before(trace)
        .gate(under_tmp)
        .named("tmp_only");
    let decisions = Log::<String>::new();
    let names = decisions.clone();
    let agent: Agent<String, String> = Agent::builder("files")
        .tool_with_chain(write_file.clone(), chain)
        .skill(saver())
        .on_interceptor_decision(move |d| names.push(format!("{} {}", d.stage, d.name)))
        .build()
        .unwrap();
    let error = agent.run("/etc/passwd".into()).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::ToolDenied { tool, reason, .. }
            if tool == "writeFile" && reason == "outside /tmp"),
        "{error:?}"
    );
    assert!(write_file.ran.is_empty());
    agent.run("/tmp/a".into()).await.unwrap();
    let ran: Vec<_> = write_file
        .ran
        .entries()
        .into_iter()
        .map(|args| (args.path, args.trace_id))
        .collect();
    assert_eq!(ran, [("/tmp/a".to_string(), Some("t-1".to_string()))]);
    assert_eq!(
        decisions.entries(),
        ["interceptor trace", "gate tmp_only", "interceptor trace"]
    );
}
