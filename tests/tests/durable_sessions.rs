//! Journaled sessions (`Agent::session_journaled`, `MemoryJournal`): the stream path recorded
//! step by step like `run_journaled` — a replay re-derives the session's events (tool calls from
//! their recorded results, each turn's text as one token) without calling the model or running
//! the tool again, and a session whose process died while it waited for an approval resumes from
//! its journal and waits for that same approval.

use std::borrow::Cow;
use std::sync::Arc;

use agents_kt::{
    Agent, AgentEvent, Approval, ApprovalDesk, Extensions, InterceptContext, MemoryJournal, Reply,
    ScriptedModel, Tool, ToolContext, ToolError, Verdict,
};
use agents_kt_tests::Log;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PayArgs {
    pub amount: u32,
}

impl agents_kt::ToolArguments for PayArgs {
    type Tool = Pay;
}

/// Pays: the side effect that must happen once.
#[derive(Clone, Default)]
pub struct Pay {
    paid: Log<u32>,
}

impl Tool for Pay {
    const NAME: &'static str = "pay";
    type Args = PayArgs;
    type Output = String;

    fn description(&self) -> Cow<'static, str> {
        "Pay an amount.".into()
    }

    async fn call(&self, args: PayArgs, _: &ToolContext) -> Result<String, ToolError> {
        self.paid.push(args.amount);
        Ok(format!("paid {}", args.amount))
    }
}

fn pays_then_answers() -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_call("pay", json!({ "amount": 250 })),
        Reply::text("Paid 250."),
    ])
}

/// A gate asking a human about every payment.
fn ask_a_human(
    args: &PayArgs,
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

fn agent(model: &ScriptedModel, pay: &Pay, careful: bool) -> Agent<String, String> {
    let builder = Agent::builder("payments")
        .model(model.clone())
        .tool(pay.clone());
    match careful {
        true => builder.gate_tool_call(ask_a_human),
        false => builder,
    }
    .build()
    .unwrap()
}

/// What a session said, one line per event that matters here.
async fn told(mut session: agents_kt::AgentSession<String>) -> (Vec<String>, String) {
    let mut lines = Vec::new();
    let mut events = session.events();
    while let Some(event) = events.next().await {
        match event {
            AgentEvent::ToolCallStarted { tool, args, .. } => {
                lines.push(format!("start {tool} {args}"))
            }
            AgentEvent::ToolCallFinished { tool, result, .. } => {
                lines.push(format!("finish {tool} {result}"))
            }
            AgentEvent::Token { text, .. } => lines.push(format!("token {text}")),
            AgentEvent::Completed { output, .. } => lines.push(format!("completed {output}")),
            _ => {}
        }
    }
    drop(events);
    let output = session.await.unwrap();
    (lines, output)
}

#[tokio::test]
async fn a_replayed_session_tells_the_same_events_without_the_model_or_the_tool() {
    let pay = Pay::default();
    let journal = Arc::new(MemoryJournal::new("session-a"));
    let live = agent(&pays_then_answers(), &pay, false).session_journaled(
        "pay ACME".into(),
        Extensions::new(),
        journal.clone(),
    );
    let (live, output) = told(live).await;
    assert_eq!(output, "Paid 250.");
    assert_eq!(
        live,
        [
            r#"start pay {"amount":250}"#,
            r#"finish pay "paid 250""#,
            "token Paid 250.",
            "completed Paid 250."
        ]
    );
    let steps: Vec<String> = journal
        .entries()
        .iter()
        .map(|e| e["step"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(steps, ["turn#1", "tool#1:pay", "turn#2"]);

    // Replayed with a model that has nothing to say: a call of it would fail the session.
    let silent = ScriptedModel::new([]);
    let replay = Arc::new(MemoryJournal::replaying("session-a", journal.entries()));
    let again =
        agent(&silent, &pay, false).session_journaled("pay ACME".into(), Extensions::new(), replay);
    let (replayed, output) = told(again).await;
    assert_eq!(output, "Paid 250.");
    assert_eq!(
        replayed, live,
        "the replay tells what the live session told"
    );
    assert!(silent.requests().is_empty());
    assert_eq!(pay.paid.entries(), [250], "paid once");
}

#[tokio::test]
async fn a_session_that_died_waiting_for_approval_resumes_from_its_journal() {
    let pay = Pay::default();
    // The first process: the session asks, and dies before anyone answers.
    let (desk, mut inbox) = ApprovalDesk::new();
    let first_model = pays_then_answers();
    let journal = Arc::new(MemoryJournal::new("session-b").with_approvals(desk));
    let session = agent(&first_model, &pay, true).session_journaled(
        "pay ACME".into(),
        Extensions::new(),
        journal.clone(),
    );
    let asked = inbox.next().await.expect("a question");
    assert_eq!(asked.request().step, "approval#1:pay");
    let fingerprint = asked.request().fingerprint.clone();
    drop(session);
    drop(asked);
    assert_eq!(first_model.requests().len(), 1);
    assert!(pay.paid.is_empty());

    // The second process: the same steps, the same question, answered now.
    let (desk, mut inbox) = ApprovalDesk::new();
    let second_model = ScriptedModel::new([Reply::text("Paid 250.")]);
    let replay =
        Arc::new(MemoryJournal::replaying("session-b", journal.entries()).with_approvals(desk));
    let session = agent(&second_model, &pay, true).session_journaled(
        "pay ACME".into(),
        Extensions::new(),
        replay.clone(),
    );
    let human = tokio::spawn(async move {
        let asked = inbox.next().await.expect("the same question again");
        let same =
            asked.request().step == "approval#1:pay" && asked.request().fingerprint == fingerprint;
        asked.approve();
        same
    });
    let (events, output) = told(session).await;
    assert!(
        human.await.unwrap(),
        "the resumed session asked the same question"
    );
    assert_eq!(output, "Paid 250.");
    assert_eq!(pay.paid.entries(), [250], "paid once, after the approval");
    assert_eq!(
        second_model.requests().len(),
        1,
        "the first turn was replayed, only the second asked the model"
    );
    assert!(
        events.contains(&r#"finish pay "paid 250""#.to_string()),
        "{events:?}"
    );
    let steps: Vec<String> = replay
        .entries()
        .iter()
        .map(|e| e["step"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(steps, ["turn#1", "approval#1:pay", "tool#1:pay", "turn#2"]);
}
