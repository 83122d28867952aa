//! Journaled runs in one process (`MemoryJournal`): a replay reads model replies and tool results
//! back instead of repeating them, re-runs interceptors and gates, and says clearly when the code
//! no longer takes the recorded steps. Approvals through an `ApprovalDesk`: approve, deny, edit,
//! stale answers, arguments changed after approval, no approver, and waits longer than the
//! interceptor timeout.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use agents_kt::{
    Agent, AgentError, Approval, ApprovalAnswer, ApprovalDesk, Budget, Extensions,
    InterceptContext, JournalError, MemoryJournal, Reply, ScriptedModel, SqliteJournal, Tool,
    ToolContext, ToolError, Verdict,
};
use agents_kt_tests::Log;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AppendArgs {
    pub line: String,
}

impl agents_kt::ToolArguments for AppendArgs {
    type Tool = Append;
}

/// Appends a line to a ledger: the side effect that must happen once.
#[derive(Clone, Default)]
pub struct Append {
    ledger: Log<String>,
    keys: Log<String>,
}

impl Tool for Append {
    const NAME: &'static str = "append";
    type Args = AppendArgs;
    type Output = String;

    fn description(&self) -> Cow<'static, str> {
        "Append a line to the ledger.".into()
    }

    async fn call(&self, args: AppendArgs, ctx: &ToolContext) -> Result<String, ToolError> {
        self.ledger.push(args.line.clone());
        self.keys.push(ctx.idempotency_key());
        Ok(format!("appended {}", args.line))
    }
}

fn calls_then_answers(line: &str) -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_call("append", json!({ "line": line })),
        Reply::text("done"),
    ])
}

fn agent(model: &ScriptedModel, append: &Append) -> Agent<String, String> {
    Agent::builder("ledger")
        .model(model.clone())
        .tool(append.clone())
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_replayed_run_calls_neither_the_model_nor_the_tool_again() {
    let append = Append::default();
    let model = calls_then_answers("pay 10");
    let journal = Arc::new(MemoryJournal::new("run-a"));
    let output = agent(&model, &append)
        .run_journaled("go".into(), Extensions::new(), journal.clone())
        .await
        .unwrap();
    assert_eq!(output, "done");
    let steps: Vec<String> = journal
        .entries()
        .iter()
        .map(|e| e["step"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(steps, ["turn#1", "tool#1:append", "turn#2"]);

    // Replayed with a model that has nothing to say: any call of it would fail the run.
    let silent = ScriptedModel::new([]);
    let replay = Arc::new(MemoryJournal::replaying("run-a", journal.entries()));
    let output = agent(&silent, &append)
        .run_journaled("go".into(), Extensions::new(), replay)
        .await
        .unwrap();
    assert_eq!(output, "done");
    assert_eq!(silent.requests().len(), 0);
    assert_eq!(append.ledger.entries(), ["pay 10"]);
}

#[tokio::test]
async fn a_run_that_failed_after_the_tool_resumes_without_running_the_tool_again() {
    let append = Append::default();
    // The first process dies after the tool ran: its model has no second reply.
    let first = ScriptedModel::new([Reply::tool_call("append", json!({"line": "pay 10"}))]);
    let journal = Arc::new(MemoryJournal::new("run-b"));
    let error = agent(&first, &append)
        .run_journaled("go".into(), Extensions::new(), journal.clone())
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::Model(_)), "{error}");
    assert_eq!(
        journal.entries().len(),
        2,
        "the failed turn is not recorded"
    );

    let second = ScriptedModel::new([Reply::text("done")]);
    let resumed = Arc::new(MemoryJournal::replaying("run-b", journal.entries()));
    let output = agent(&second, &append)
        .run_journaled("go".into(), Extensions::new(), resumed.clone())
        .await
        .unwrap();
    assert_eq!(output, "done");
    assert_eq!(
        append.ledger.entries(),
        ["pay 10"],
        "the effect happened once"
    );
    assert_eq!(
        second.requests().len(),
        1,
        "only the unrecorded turn calls the model"
    );
    let history = &second.requests()[0].messages;
    assert!(
        history.iter().any(|m| m.content == "appended pay 10"),
        "the resumed turn sees the recorded tool result: {history:?}"
    );
    assert_eq!(resumed.entries().len(), 3);
}

#[tokio::test]
async fn the_idempotency_key_names_the_run_and_the_call_the_same_on_every_run() {
    let (one, two) = (Append::default(), Append::default());
    for append in [&one, &two] {
        let model = calls_then_answers("x");
        let journal = Arc::new(MemoryJournal::new("run-c"));
        agent(&model, append)
            .run_journaled("go".into(), Extensions::new(), journal)
            .await
            .unwrap();
    }
    assert_eq!(one.keys.entries(), two.keys.entries());
    assert!(one.keys.entries()[0].starts_with("run-c/"));
}

#[tokio::test]
async fn a_replay_whose_policy_now_denies_a_recorded_call_is_a_clear_journal_error() {
    let append = Append::default();
    let model = calls_then_answers("pay 10");
    let journal = Arc::new(MemoryJournal::new("run-d"));
    agent(&model, &append)
        .run_journaled("go".into(), Extensions::new(), journal.clone())
        .await
        .unwrap();
    // The code changed: a gate now denies the call the journal says ran.
    let changed: Agent<String, String> = Agent::builder("ledger")
        .model(ScriptedModel::new([]))
        .tool(append.clone())
        .gate_tool_call(|_: &AppendArgs| Verdict::deny("frozen"))
        .build()
        .unwrap();
    let replay = Arc::new(MemoryJournal::replaying("run-d", journal.entries()));
    let error = changed
        .run_journaled("go".into(), Extensions::new(), replay)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::Journal(JournalError::Diverged { expected, recorded, .. })
            if expected == "turn#2" && recorded == "tool#1:append"),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("the agent changed since the run was recorded")
    );
    assert_eq!(append.ledger.len(), 1);
}

/// A gate asking a human about every append (an edit is asked about again by the next guard).
fn ask_a_human(
    args: &AppendArgs,
    ctx: &InterceptContext<'_>,
) -> impl std::future::Future<Output = Verdict> + Send + use<> {
    let (approver, args) = (ctx.approver(), args.clone());
    async move {
        match approver.ask(&args).await {
            Approval::Approved => Verdict::Allow,
            Approval::Denied(reason) => Verdict::Deny(reason),
            Approval::Edited(_) => Verdict::deny("edited: asked again"),
        }
    }
}

fn approving_agent(
    model: &ScriptedModel,
    append: &Append,
    desk: Option<ApprovalDesk>,
) -> Agent<String, String> {
    let builder = Agent::builder("ledger")
        .model(model.clone())
        .tool(append.clone())
        .gate_tool_call(ask_a_human);
    match desk {
        Some(desk) => builder.approvals(desk),
        None => builder,
    }
    .build()
    .unwrap()
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
async fn an_approved_call_runs_and_a_denied_one_tells_the_model_why() {
    for (answer, ran, told) in [
        (None, true, "appended pay 10"),
        (
            Some("over budget"),
            false,
            "ERROR: Tool 'append' denied by policy: over budget",
        ),
    ] {
        let append = Append::default();
        let model = calls_then_answers("pay 10");
        let (desk, mut inbox) = ApprovalDesk::new();
        let agent = approving_agent(&model, &append, Some(desk));
        let human = tokio::spawn(async move {
            let question = inbox.next().await.expect("a question");
            assert_eq!(question.request().tool, "append");
            assert_eq!(question.args::<AppendArgs>().unwrap().line, "pay 10");
            match answer {
                None => question.approve(),
                Some(reason) => question.deny(reason),
            }
        });
        assert_eq!(agent.run("go".into()).await.unwrap(), "done");
        human.await.unwrap();
        assert_eq!(append.ledger.entries().len(), usize::from(ran));
        assert_eq!(tool_message(&model), told);
    }
}

#[tokio::test]
async fn an_edit_passes_the_guard_again_and_needs_its_own_approval() {
    let append = Append::default();
    let model = calls_then_answers("pay 1000");
    let (desk, mut inbox) = ApprovalDesk::new();
    let agent = approving_agent(&model, &append, Some(desk));
    let human = tokio::spawn(async move {
        let first = inbox.next().await.expect("the first question");
        first
            .edit(&AppendArgs {
                line: "pay 100".into(),
            })
            .unwrap();
        let second = inbox.next().await.expect("asked again about the edit");
        assert_eq!(second.args::<AppendArgs>().unwrap().line, "pay 100");
        second.approve();
    });
    assert_eq!(agent.run("go".into()).await.unwrap(), "done");
    human.await.unwrap();
    assert_eq!(append.ledger.entries(), ["pay 100"]);
}

#[tokio::test]
async fn an_answer_about_other_arguments_is_refused_and_the_question_stays_open() {
    let append = Append::default();
    let model = calls_then_answers("pay 10");
    let (desk, mut inbox) = ApprovalDesk::new();
    let agent = approving_agent(&model, &append, Some(desk));
    let human = tokio::spawn(async move {
        let question = inbox.next().await.expect("a question");
        let stale = question
            .answer(ApprovalAnswer::approve(agents_kt::approval_fingerprint(
                "append",
                &json!({"line": "pay 1"}),
            )))
            .unwrap_err();
        stale.pending.deny("checked again: no");
    });
    agent.run("go".into()).await.unwrap();
    human.await.unwrap();
    assert!(append.ledger.is_empty());
    assert_eq!(
        tool_message(&model),
        "ERROR: Tool 'append' denied by policy: checked again: no"
    );
}

#[tokio::test]
async fn without_an_approver_an_approval_is_denied() {
    let append = Append::default();
    let model = calls_then_answers("pay 10");
    let agent = approving_agent(&model, &append, None);
    agent.run("go".into()).await.unwrap();
    assert!(append.ledger.is_empty());
    assert!(
        tool_message(&model).contains("no approver"),
        "{}",
        tool_message(&model)
    );
}

#[tokio::test]
async fn arguments_changed_after_their_approval_deny_the_call() {
    let append = Append::default();
    let model = calls_then_answers("pay 10");
    let (desk, mut inbox) = ApprovalDesk::new();
    // An interceptor approves, then a later one rewrites what was approved.
    let agent: Agent<String, String> = Agent::builder("ledger")
        .model(model.clone())
        .tool(append.clone())
        .approvals(desk)
        .before_tool_call(|args: &AppendArgs, ctx: &InterceptContext<'_>| {
            let (approver, args) = (ctx.approver(), args.clone());
            async move {
                match approver.ask(&args).await {
                    Approval::Approved => agents_kt::Decision::<AppendArgs, String>::Proceed,
                    _ => agents_kt::Decision::deny("not approved"),
                }
            }
        })
        .before_tool_call(|_: &AppendArgs| {
            agents_kt::Decision::<AppendArgs, String>::ProceedWith(AppendArgs {
                line: "pay 10000".into(),
            })
        })
        .build()
        .unwrap();
    let human = tokio::spawn(async move { inbox.next().await.expect("a question").approve() });
    agent.run("go".into()).await.unwrap();
    human.await.unwrap();
    assert!(append.ledger.is_empty());
    assert!(
        tool_message(&model).contains("changed after they were approved"),
        "{}",
        tool_message(&model)
    );
}

#[tokio::test]
async fn a_human_may_take_longer_than_the_interceptor_timeout() {
    let append = Append::default();
    let model = calls_then_answers("pay 10");
    let (desk, mut inbox) = ApprovalDesk::new();
    let agent: Agent<String, String> = Agent::builder("ledger")
        .model(model.clone())
        .tool(append.clone())
        .approvals(desk)
        .budget(Budget::default().interceptor_timeout(Duration::from_millis(50)))
        .gate_tool_call(ask_a_human)
        .build()
        .unwrap();
    let human = tokio::spawn(async move {
        let question = inbox.next().await.expect("a question");
        tokio::time::sleep(Duration::from_millis(300)).await;
        question.approve();
    });
    agent.run("go".into()).await.unwrap();
    human.await.unwrap();
    assert_eq!(append.ledger.entries(), ["pay 10"]);
}

#[tokio::test]
async fn a_journaled_approval_is_asked_once_and_replayed() {
    let append = Append::default();
    let model = calls_then_answers("pay 10");
    let (desk, mut inbox) = ApprovalDesk::new();
    let agent = approving_agent(&model, &append, None);
    let journal = Arc::new(MemoryJournal::new("run-e").with_approvals(desk));
    let human = tokio::spawn(async move {
        let question = inbox.next().await.expect("a question");
        assert_eq!(question.request().step, "approval#1:append");
        assert_eq!(question.request().run_id, "run-e");
        question.approve();
        inbox.next().await.is_none()
    });
    agent
        .run_journaled("go".into(), Extensions::new(), journal.clone())
        .await
        .unwrap();
    let replay = Arc::new(MemoryJournal::replaying("run-e", journal.entries()));
    agent
        .run_journaled("go".into(), Extensions::new(), replay)
        .await
        .unwrap();
    drop(agent);
    drop(journal);
    assert!(human.await.unwrap(), "nobody was asked a second time");
    assert_eq!(append.ledger.entries(), ["pay 10"]);
}

/// In a run that can ask a human (journaled, with a desk), a tool with no link of its own and
/// none inherited runs unasked — its guard is empty, so it is judged without running it — while
/// the tool whose gate asks is still asked, once, and runs only once approved.
#[tokio::test]
async fn in_a_journaled_run_with_a_desk_only_the_tool_whose_gate_asks_waits_for_a_human() {
    let append = Append::default();
    let weather = agents_kt_tests::GetWeather::default();
    let model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({ "city": "Oslo" })),
        Reply::tool_call("append", json!({ "line": "pay 10" })),
        Reply::text("done"),
    ]);
    let (desk, mut inbox) = ApprovalDesk::new();
    let agent: Agent<String, String> = Agent::builder("ledger")
        .model(model.clone())
        .tool(weather.clone())
        .tool(append.clone())
        .gate_tool_call(ask_a_human)
        .build()
        .unwrap();
    let journal = Arc::new(MemoryJournal::new("run-only-asked").with_approvals(desk));
    let human = tokio::spawn(async move {
        let question = inbox.next().await.expect("a question");
        let tool = question.request().tool.clone();
        question.approve();
        (tool, inbox.next().await.is_none())
    });
    agent
        .run_journaled("go".into(), Extensions::new(), journal)
        .await
        .unwrap();
    drop(agent);
    let (asked_about, nothing_else) = human.await.unwrap();
    assert_eq!(asked_about, "append");
    assert!(nothing_else, "get_weather was not asked about");
    assert_eq!(weather.ran.entries().len(), 1);
    assert_eq!(append.ledger.entries(), ["pay 10"]);
}

#[tokio::test]
async fn an_edit_that_a_gate_rejects_is_denied_after_its_approval() {
    let append = Append::default();
    let model = calls_then_answers("pay 10");
    let (desk, mut inbox) = ApprovalDesk::new();
    let agent: Agent<String, String> = Agent::builder("ledger")
        .model(model.clone())
        .tool(append.clone())
        .approvals(desk)
        .gate_tool_call(ask_a_human)
        .gate_tool_call(|args: &AppendArgs| {
            if args.line.contains("offshore") {
                Verdict::deny("no offshore payments")
            } else {
                Verdict::Allow
            }
        })
        .build()
        .unwrap();
    let human = tokio::spawn(async move {
        let first = inbox.next().await.expect("a question");
        first
            .edit(&AppendArgs {
                line: "pay 10 offshore".into(),
            })
            .unwrap();
        // The edited arguments are asked about again; the policy still has the last word.
        inbox.next().await.expect("asked again").approve();
    });
    agent.run("go".into()).await.unwrap();
    human.await.unwrap();
    assert!(append.ledger.is_empty());
    assert_eq!(
        tool_message(&model),
        "ERROR: Tool 'append' denied by policy: no offshore payments"
    );
}

#[tokio::test]
async fn an_approver_who_keeps_editing_is_stopped_after_eight_edits() {
    let append = Append::default();
    let model = calls_then_answers("pay 1");
    let (desk, mut inbox) = ApprovalDesk::new();
    let agent = approving_agent(&model, &append, Some(desk));
    let human = tokio::spawn(async move {
        let mut asked = 0;
        while let Some(question) = inbox.next().await {
            asked += 1;
            let line = format!("pay {}", asked + 1);
            question.edit(&AppendArgs { line }).unwrap();
        }
        asked
    });
    agent.run("go".into()).await.unwrap();
    drop(agent);
    assert_eq!(
        human.await.unwrap(),
        9,
        "asked once, then once per edit up to the limit"
    );
    assert!(append.ledger.is_empty());
    assert_eq!(
        tool_message(&model),
        "ERROR: Tool 'append' denied by policy: the approver edited the arguments more than 8 times"
    );
}

/// A run recorded in a SQLite file is replayed by another handle on the file (another process,
/// after a crash) without the model or the tool; a second handle that records the same run at
/// the same time is refused rather than interleaved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_journal_replays_in_a_new_handle_and_refuses_a_second_writer() {
    let scratch = agents_kt_tests::scratch::Scratch::new("sqlite-journal");
    let file = scratch.0.join("runs.db");
    let append = Append::default();
    let model = calls_then_answers("pay 10");
    let journal = SqliteJournal::open(&file, "run-s").unwrap();
    // Opened before anything is recorded: it will try to record at position 0 too.
    let late = SqliteJournal::open(&file, "run-s").unwrap();
    let output = agent(&model, &append)
        .run_journaled("go".into(), Extensions::new(), Arc::new(journal))
        .await
        .unwrap();
    assert_eq!(output, "done");

    let silent = ScriptedModel::new([]);
    let replay = SqliteJournal::open(&file, "run-s").unwrap();
    assert_eq!(replay.entries().len(), 3, "turn, tool, turn");
    let output = agent(&silent, &append)
        .run_journaled("go".into(), Extensions::new(), Arc::new(replay))
        .await
        .unwrap();
    assert_eq!(output, "done");
    assert_eq!(silent.requests().len(), 0);
    assert_eq!(append.ledger.entries(), ["pay 10"], "the tool ran once");

    let error = agent(&calls_then_answers("pay 11"), &append)
        .run_journaled("go".into(), Extensions::new(), Arc::new(late))
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("another process"),
        "the second writer is refused: {error}"
    );
    assert_eq!(append.ledger.entries(), ["pay 10"]);
}
