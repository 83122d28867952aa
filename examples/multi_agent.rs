//! Agents that call agents, offline on scripted models, every step through the one guard:
//!
//! 1. A triage agent hands the conversation off to a refunds agent (`transfer_to_refunds`); the
//!    refunds agent's `issue_refund` tool is behind a gate, which refuses refunds over 100 — the
//!    refunds model tries 250, is refused, and refunds 100.
//! 2. A planner calls a researcher as a typed tool (`agent_tool!`); a typed interceptor rewrites
//!    the researcher's input before it runs.
//!
//! Each run streams (`session`) and prints the nested transcript. Exits non-zero when an outcome
//! is not reached.
//!
//! `cargo run --example multi_agent`

use agents_kt::prelude::*;
use agents_kt::{AgentEvent, InterceptContext};
use futures::StreamExt;
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

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
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
        .build()?;
    println!("== triage hands off to refunds ==");
    let answer =
        transcript(triage.session("Order 42 arrived broken; I want my 250 back.".into())).await?;
    check(
        answer == "Refunded 100 on order 42; a manager will review the rest.",
        "the refunds desk answers after the gate refused 250",
    )?;

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
    println!("\n== planner calls researcher as a tool ==");
    let plan = transcript(planner.session("Plan a lesson on tides".into())).await?;
    check(
        plan.starts_with("Plan: read the tide table"),
        "the planner plans from the researcher's sources",
    )?;
    Ok(())
}

/// Print a session's events, a sub-agent's indented under the call that started it; the output.
async fn transcript(mut session: agents_kt::AgentSession<String>) -> Result<String, AgentError> {
    let mut events = session.events();
    while let Some(event) = events.next().await {
        print_event(&event, 0);
    }
    drop(events);
    let output = session.await?;
    println!("=> {output}");
    Ok(output)
}

fn print_event<OUT: std::fmt::Debug>(event: &AgentEvent<OUT>, depth: usize) {
    let pad = "    ".repeat(depth + 1);
    match event {
        AgentEvent::SkillStarted { skill, .. } => println!("{pad}skill {skill}"),
        AgentEvent::ToolCallStarted { tool, args, .. } => println!("{pad}-> {tool} {args}"),
        AgentEvent::ToolCallFinished {
            tool,
            result,
            is_error,
            ..
        } => {
            let mark = if *is_error { "!!" } else { "<-" };
            println!("{pad}{mark} {tool}: {result}")
        }
        AgentEvent::TurnCompleted { content, .. } if !content.is_empty() => {
            println!("{pad}model: {content}")
        }
        AgentEvent::SubAgent { agent, event, .. } => {
            if let AgentEvent::SkillStarted { .. } = event.as_ref() {
                println!("{pad}[{agent}]");
            }
            print_event(event, depth + 1)
        }
        _ => {}
    }
}

fn check(reached: bool, what: &str) -> Result<(), Box<dyn std::error::Error>> {
    if reached {
        println!("ok: {what}");
        Ok(())
    } else {
        Err(format!("not reached: {what}").into())
    }
}
