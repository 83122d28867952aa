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

use agents_kt::AgentEvent;
use agents_kt::prelude::*;
use agents_kt_examples::multi_agent_tree::{planner, triage};
use futures::StreamExt;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let triage = triage()?;
    println!("== triage hands off to refunds ==");
    let answer =
        transcript(triage.session("Order 42 arrived broken; I want my 250 back.".into())).await?;
    check(
        answer == "Refunded 100 on order 42; a manager will review the rest.",
        "the refunds desk answers after the gate refused 250",
    )?;

    let planner = planner()?;
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
