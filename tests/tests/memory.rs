//! Conversations in a real store: history the turn chain sees, turns stored after the after-tool
//! chain, a conversation continued by another process, writers that never interleave, corrupt
//! rows.

use std::path::{Path, PathBuf};

use agents_kt::{
    Agent, AgentError, ConversationStore, Decision, InMemoryStore, Message, Reply, Role,
    ScriptedModel, SqliteStore, StoreError,
};
use agents_kt_tests::{PATHS, Sleep};
use serde_json::{Value, json};

/// A fresh directory for one test's database.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agents-kt-memory-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn contents(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|m| format!("{:?}: {}", m.role, m.content))
        .collect()
}

#[tokio::test]
async fn a_second_run_reads_the_conversation_and_before_turn_may_redact_it_on_both_paths() {
    for path in PATHS {
        let store = InMemoryStore::new();
        let first = Agent::<String, String>::builder("desk")
            .model(ScriptedModel::new([Reply::text("Noted.")]))
            .system_prompt("Be brief.")
            .build()
            .unwrap();
        first
            .run_in(
                &store,
                "conv-1",
                "My password is hunter2 and my name is Ada.".into(),
            )
            .await
            .unwrap();
        let model = ScriptedModel::new([Reply::text("You are Ada.")]);
        let second = Agent::<String, String>::builder("desk")
            .model(model.clone())
            .system_prompt("Be brief.")
            .on_before_turn(|messages: &[Message]| {
                let redacted = messages
                    .iter()
                    .map(|m| {
                        m.clone()
                            .with_content(m.content.replace("hunter2", "[redacted]"))
                    })
                    .collect();
                Decision::ProceedWith(redacted)
            })
            .build()
            .unwrap();
        let output = match path {
            agents_kt_tests::Path::Run => second.run_in(&store, "conv-1", "Who am I?".into()).await,
            agents_kt_tests::Path::Session => {
                second
                    .session_in(&store, "conv-1", "Who am I?".into())
                    .await
            }
        };
        assert_eq!(output.unwrap(), "You are Ada.");
        assert_eq!(
            contents(&model.requests()[0].messages),
            [
                "System: Be brief.",
                "User: My password is [redacted] and my name is Ada.",
                "Assistant: Noted.",
                "User: Who am I?"
            ],
            "{path:?}"
        );
        // The store holds what was said, system prompts aside; a turn interceptor's rewrite is
        // what the model saw, not what the conversation was.
        let stored = store.load("conv-1").await.unwrap();
        assert_eq!(
            contents(stored.messages()),
            [
                "User: My password is hunter2 and my name is Ada.",
                "Assistant: Noted.",
                "User: Who am I?",
                "Assistant: You are Ada."
            ]
        );
    }
}

/// The environment variable naming the database of the two-process test's child runs.
const TWO_PROCESS_DB: &str = "AGENTS_KT_MEMORY_DB";

#[test]
fn a_conversation_is_continued_by_a_second_process() {
    let db = scratch("two-processes").join("memory.db");
    for step in ["first", "second"] {
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--ignored",
                "--exact",
                "one_process_of_the_conversation",
                "--nocapture",
            ])
            .env(TWO_PROCESS_DB, &db)
            .env("AGENTS_KT_MEMORY_STEP", step)
            .status()
            .expect("the test binary runs again");
        assert!(status.success(), "the {step} process failed");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stored = runtime
        .block_on(SqliteStore::open(&db).unwrap().load("conv-42"))
        .unwrap();
    assert_eq!(
        contents(stored.messages()),
        [
            "User: My name is Ada.",
            "Assistant: Hello Ada.",
            "User: What is my name?",
            "Assistant: Your name is Ada."
        ]
    );
}

/// One process of [`a_conversation_is_continued_by_a_second_process`]: run only by it.
#[tokio::test]
#[ignore = "run by a_conversation_is_continued_by_a_second_process in a process of its own"]
async fn one_process_of_the_conversation() {
    let db = std::env::var_os(TWO_PROCESS_DB).expect("the database path");
    let store = SqliteStore::open(&db).unwrap();
    let step = std::env::var("AGENTS_KT_MEMORY_STEP").unwrap_or_default();
    let (input, answer) = match step.as_str() {
        "first" => ("My name is Ada.", "Hello Ada."),
        _ => ("What is my name?", "Your name is Ada."),
    };
    let model = ScriptedModel::new([Reply::text(answer)]);
    let agent = Agent::<String, String>::builder("desk")
        .model(model.clone())
        .build()
        .unwrap();
    assert_eq!(
        agent.run_in(&store, "conv-42", input.into()).await.unwrap(),
        answer
    );
    if step == "second" {
        // This process's model read what the first process stored.
        assert_eq!(
            contents(&model.requests()[0].messages),
            [
                "User: My name is Ada.",
                "Assistant: Hello Ada.",
                "User: What is my name?"
            ]
        );
    }
}

/// Every byte SQLite wrote for `db`: the file, its write-ahead log and shared memory.
fn database_bytes(db: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        let mut path = db.as_os_str().to_owned();
        path.push(suffix);
        bytes.extend(std::fs::read(PathBuf::from(path)).unwrap_or_default());
    }
    bytes
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

/// `lookup_key` returns a secret; with `redact`, an after-tool interceptor removes it.
async fn store_a_turn_with_a_secret(db: &Path, redact: bool) -> ScriptedModel {
    #[agents_kt::tool]
    /// Looks up the API key.
    fn lookup_key() -> String {
        "key sk-live-4242 for the account".to_string()
    }
    let store = SqliteStore::open(db).unwrap();
    let model = ScriptedModel::new([
        Reply::tool_call("lookup_key", json!({})),
        Reply::text("I looked it up."),
    ]);
    let mut builder = Agent::<String, String>::builder("desk")
        .model(model.clone())
        .tool(LookupKey);
    if redact {
        builder = builder.on_after_tool_call(|_: &str, _: &Value, result: &Value| {
            match result.as_str() {
                Some(text) if text.contains("sk-live") => {
                    Decision::ProceedWith(json!(text.replace("sk-live-4242", "[key]")))
                }
                _ => Decision::Proceed,
            }
        });
    }
    let agent = builder.build().unwrap();
    agent
        .run_in(&store, "conv-secret", "What is my key?".into())
        .await
        .unwrap();
    model
}

#[tokio::test]
async fn a_secret_the_after_tool_chain_removed_never_reaches_the_database_file() {
    let db = scratch("redaction").join("memory.db");
    let model = store_a_turn_with_a_secret(&db, true).await;
    assert_eq!(
        model.requests()[1].messages.last().unwrap().content,
        "key [key] for the account"
    );
    let bytes = database_bytes(&db);
    assert!(
        contains(&bytes, "key [key] for the account"),
        "the turn was not stored"
    );
    assert!(
        !contains(&bytes, "sk-live"),
        "the secret reached the database file"
    );

    // Without the after-tool interceptor the same run stores the secret: the check above can fail.
    let db = scratch("no-redaction").join("memory.db");
    store_a_turn_with_a_secret(&db, false).await;
    assert!(contains(&database_bytes(&db), "sk-live-4242"));
}

/// A store without leases (the trait's defaults): only the version check of `append` keeps
/// writers apart.
#[derive(Clone, Default)]
struct NoLeases(InMemoryStore);

impl ConversationStore for NoLeases {
    fn load<'a>(
        &'a self,
        conversation: &'a str,
    ) -> futures::future::BoxFuture<'a, Result<agents_kt::Conversation, StoreError>> {
        self.0.load(conversation)
    }

    fn append<'a>(
        &'a self,
        conversation: &'a str,
        version: u64,
        messages: Vec<Message>,
    ) -> futures::future::BoxFuture<'a, Result<u64, StoreError>> {
        self.0.append(conversation, version, messages)
    }
}

/// An agent whose model calls `sleep` for `millis`, then answers `answer`; and its model.
fn sleeper(millis: u64, answer: &'static str) -> (Agent<String, String>, ScriptedModel) {
    let model = ScriptedModel::new([
        Reply::tool_call("sleep", json!({"millis": millis})),
        Reply::text(answer),
    ]);
    let agent = Agent::<String, String>::builder("desk")
        .model(model.clone())
        .tool(Sleep)
        .build()
        .unwrap();
    (agent, model)
}

/// Two runs of one conversation at once on a store without leases: the one whose tool sleeps
/// longer finds the conversation moved on and is refused; the store holds the other's messages
/// alone, in order.
#[tokio::test]
async fn without_leases_concurrent_writers_are_refused_never_interleaved() {
    let store = NoLeases::default();
    let ((fast_agent, _), (slow_agent, _)) = (sleeper(10, "fast done"), sleeper(300, "slow done"));
    let (fast, slow) = tokio::join!(
        fast_agent.run_in(&store, "conv-race", "wait 10".into()),
        slow_agent.run_in(&store, "conv-race", "wait 300".into())
    );
    assert_eq!(fast.unwrap(), "fast done");
    match slow {
        Err(AgentError::Memory(StoreError::Conflict {
            expected, found, ..
        })) => assert_eq!((expected, found), (0, 4)),
        other => panic!("the second writer was not refused: {other:?}"),
    }
    let stored = store.load("conv-race").await.unwrap();
    let roles: Vec<Role> = stored.messages().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    assert_eq!(stored.messages()[3].content, "fast done");
}

/// Two runs of one conversation at once: the second waits for the first's lease, then
/// continues the conversation the first left — its model reads the first's turn.
async fn one_run_at_a_time(store: impl ConversationStore + Clone) {
    let ((first_agent, _), (second_agent, second_model)) =
        (sleeper(300, "first done"), sleeper(10, "second done"));
    let second = async {
        // Started while the first holds the conversation.
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        second_agent
            .run_in(&store, "conv-turns", "wait 10".into())
            .await
    };
    let (first, second) = tokio::join!(
        first_agent.run_in(&store, "conv-turns", "wait 300".into()),
        second
    );
    assert_eq!(first.unwrap(), "first done");
    assert_eq!(second.unwrap(), "second done");
    let seen = contents(&second_model.requests()[0].messages);
    assert_eq!(
        seen[..4],
        [
            "User: wait 300",
            "Assistant: ",
            "Tool: slept",
            "Assistant: first done"
        ]
    );
    assert_eq!(store.load("conv-turns").await.unwrap().messages().len(), 8);
}

#[tokio::test]
async fn a_second_run_on_a_conversation_waits_for_the_first_and_continues_it() {
    one_run_at_a_time(InMemoryStore::new()).await;
    one_run_at_a_time(SqliteStore::open(scratch("lease").join("memory.db")).unwrap()).await;
}

#[tokio::test]
async fn past_its_wait_a_run_fails_busy_having_called_no_model() {
    let store = SqliteStore::open(scratch("busy").join("memory.db")).unwrap();
    // Another process holds the conversation.
    assert!(
        store
            .lease("conv-busy", "elsewhere", std::time::Duration::from_secs(60))
            .await
            .unwrap()
    );
    let model = ScriptedModel::new([Reply::text("never")]);
    let agent = Agent::<String, String>::builder("desk")
        .model(model.clone())
        .conversation_wait(std::time::Duration::from_millis(200))
        .build()
        .unwrap();
    let refused = agent.run_in(&store, "conv-busy", "hello".into()).await;
    match refused {
        Err(AgentError::Memory(StoreError::Busy { waited_ms, .. })) => assert!(waited_ms >= 200),
        other => panic!("the run was not refused: {other:?}"),
    }
    assert!(model.requests().is_empty(), "no model was called");
    assert!(store.load("conv-busy").await.unwrap().messages().is_empty());
}

#[tokio::test]
async fn a_crashed_holders_lease_runs_out() {
    let store = SqliteStore::open(scratch("expired").join("memory.db")).unwrap();
    let ttl = std::time::Duration::from_millis(300);
    assert!(store.lease("conv-crash", "crashed", ttl).await.unwrap());
    assert!(!store.lease("conv-crash", "another", ttl).await.unwrap());
    let agent = Agent::<String, String>::builder("desk")
        .model(ScriptedModel::new([Reply::text("hello again")]))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    assert_eq!(
        agent
            .run_in(&store, "conv-crash", "hi".into())
            .await
            .unwrap(),
        "hello again"
    );
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(200),
        "it waited for the lease to run out"
    );
    // And gave it back at its end.
    assert!(store.lease("conv-crash", "next", ttl).await.unwrap());
}

#[tokio::test]
async fn a_corrupt_row_is_a_clear_error_not_a_panic() {
    let db = scratch("corrupt").join("memory.db");
    let store = SqliteStore::open(&db).unwrap();
    store
        .append("conv-7", 0, vec![Message::user("hello")])
        .await
        .unwrap();
    let connection = rusqlite::Connection::open(&db).unwrap();
    connection
        .execute(
            "INSERT INTO agents_kt_messages (conversation, position, message) VALUES ('conv-7', 1, '{not json')",
            [],
        )
        .unwrap();
    drop(connection);
    let agent = Agent::<String, String>::builder("desk")
        .model(ScriptedModel::new([Reply::text("unreachable")]))
        .build()
        .unwrap();
    let error = agent
        .run_in(&store, "conv-7", "hi".into())
        .await
        .unwrap_err();
    match &error {
        AgentError::Memory(StoreError::Corrupt {
            conversation,
            position,
            ..
        }) => assert_eq!((conversation.as_str(), *position), ("conv-7", 1)),
        other => panic!("expected a corrupt row, got {other:?}"),
    }
    assert!(
        error
            .to_string()
            .starts_with("conversation 'conv-7' has an unreadable message at position 1:")
    );
}

#[tokio::test]
async fn a_handoffs_answer_is_remembered_as_the_assistants_last_word() {
    let refunds = Agent::<String, String>::builder("refunds")
        .model(ScriptedModel::new([Reply::text("Refunded order 42.")]))
        .build()
        .unwrap();
    let triage = Agent::<String, String>::builder("triage")
        .model(ScriptedModel::new([Reply::tool_call(
            "transfer_to_refunds",
            json!({"input": "refund order 42"}),
        )]))
        .handoff(refunds)
        .build()
        .unwrap();
    let store = InMemoryStore::new();
    let output = triage.run_in(&store, "conv-h", "refund 42".into()).await;
    assert_eq!(output.unwrap(), "Refunded order 42.");
    let stored = store.load("conv-h").await.unwrap();
    let roles: Vec<Role> = stored.messages().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    assert_eq!(stored.messages()[3].content, "Refunded order 42.");
}
