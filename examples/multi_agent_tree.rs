//! The agents of the `multi_agent` example, built here so the example runs them and the
//! `manifest` example prints (and CI checks) the permissions of the same trees.

use agents_kt::InterceptContext;
use agents_kt::prelude::*;
use serde_json::json;

/// Arguments of the refunds desk's one tool.
#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct RefundArgs {
    /// The order.
    pub order: u32,
    /// How much to refund.
    pub amount: u32,
}

/// Issues a refund.
#[tool]
fn issue_refund(order: u32, amount: u32) -> String {
    format!("refunded {amount} on order {order}")
}

/// Refunds over 100 need a manager, whatever any interceptor decided.
#[gate(issue_refund)]
fn at_most_100(args: &IssueRefundArgs) -> Verdict {
    if args.amount > 100 {
        Verdict::deny("refunds over 100 need a manager")
    } else {
        Verdict::Allow
    }
}

/// What the planner asks the researcher.
#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Question {
    /// The topic to research.
    pub topic: String,
}

agents_kt::agent_tool! {
    /// Finds sources for a question.
    pub struct Research("research"): Question => String;
}

/// Typed: a replacement must be a `Question`, a substitute a `String`.
#[before_tool_call(Research)]
fn lower_case_topics(question: &Question) -> Decision<Question, String> {
    Decision::ProceedWith(Question {
        topic: question.topic.to_lowercase(),
    })
}

/// Triage, which hands the conversation off to the refunds desk (whose refunds over 100 a gate
/// refuses).
pub fn triage() -> Result<Agent<String, String>, agents_kt::BuildError> {
    let refunds = Agent::<String, String>::builder("refunds")
        .model(ScriptedModel::new([
            Reply::tool_call("issue_refund", json!({"order": 42, "amount": 250})),
            Reply::tool_call("issue_refund", json!({"order": 42, "amount": 100})),
            Reply::text("Refunded 100 on order 42; a manager will review the rest."),
        ]))
        .system_prompt("You are the refunds desk.")
        .tool(IssueRefund)
        .gate_tool_call(at_most_100)
        .on_before_turn(|_: &[Message], ctx: &InterceptContext| {
            // The receiving agent knows who handed the conversation over.
            if let (Some(parent), 1) = (ctx.parent(), ctx.turn()) {
                println!("  [refunds] taking over from '{}'", parent.agent());
            }
            Decision::Proceed
        })
        .build()?;
    let triage = Agent::<String, String>::builder("triage")
        .model(ScriptedModel::new([Reply::tool_call(
            "transfer_to_refunds",
            json!({"input": "Refund 250 on order 42"}),
        )]))
        .system_prompt("Route the customer to the right desk.")
        .handoff(refunds)
        // The tree's permissions: triage may hand off, the desk may refund — nothing else, and
        // no more than three refunds in one conversation, wherever in the tree they happen.
        .grant(agents_kt::Grant::allow_named("transfer_to_refunds"))
        .grant(agents_kt::Grant::allow::<IssueRefund>())
        .constraint(agents_kt::Constraint::max_calls::<IssueRefund>(3))
        .build()?;
    Ok(triage)
}

/// The planner, which calls the researcher as a typed tool.
pub fn planner() -> Result<Agent<String, String>, agents_kt::BuildError> {
    let researcher = Agent::<Question, String>::builder("researcher")
        .model(ScriptedModel::new([Reply::text(
            "Three sources on tides: a tide table, a textbook chapter, a NOAA primer.",
        )]))
        .build()?;
    let planner = Agent::<String, String>::builder("planner")
        .model(ScriptedModel::new([
            Reply::tool_call("research", json!({"topic": "TIDES"})),
            Reply::text("Plan: read the tide table, then the textbook, then the primer."),
        ]))
        .tool(Research::new(researcher))
        .before_tool_call(lower_case_topics)
        .build()?;
    Ok(planner)
}
