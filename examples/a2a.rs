//! Agents across processes over A2A v1.0, offline on scripted models, both sides guarded:
//!
//! - **The triage team** serves its agent with `A2aServer`: callers authenticate with a bearer
//!   token, and a skill gate refuses any caller but the planning team.
//! - **The planning team** connects to it with `A2aAgent<Ticket, Routing>` (the card's schemas
//!   are checked against those types) and gives it to its planner as a typed tool
//!   (`a2a_tool!`): a typed interceptor masks card numbers before a ticket leaves the process,
//!   and a typed gate refuses empty tickets — a refused call sends nothing.
//!
//! Both run here on loopback; in production they are two processes (or two companies). Exits
//! non-zero when an outcome is not reached.
//!
//! `cargo run --example a2a`

use agents_kt::prelude::*;
use agents_kt::{A2aAgent, A2aServer, InterceptContext};
use serde::{Deserialize, Serialize};

/// A support ticket.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Ticket {
    /// What the customer wrote.
    pub text: String,
}

/// Where the triage team sends it.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Routing {
    /// The queue.
    pub queue: String,
    /// `low`, `normal` or `high`.
    pub priority: String,
}

agents_kt::a2a_tool! {
    /// Sends a ticket to the triage team's agent, which says where it goes.
    pub struct Triage("triage"): Ticket => Routing;
}

/// Card numbers never leave the planning team's process.
#[before_tool_call(Triage)]
fn mask_card_numbers(ticket: &Ticket) -> Decision<Ticket, Routing> {
    let masked: String = ticket
        .text
        .split(' ')
        .map(
            |word| match word.len() >= 12 && word.chars().all(|c| c.is_ascii_digit()) {
                true => "****",
                false => word,
            },
        )
        .collect::<Vec<_>>()
        .join(" ");
    match masked == ticket.text {
        true => Decision::Proceed,
        false => Decision::ProceedWith(Ticket { text: masked }),
    }
}

/// An empty ticket is not worth a trip to another team.
#[gate(Triage)]
fn no_empty_tickets(ticket: &Ticket) -> Verdict {
    match ticket.text.trim().is_empty() {
        true => Verdict::deny("an empty ticket is not sent"),
        false => Verdict::Allow,
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The triage team's side.
    let triage_model =
        ScriptedModel::new([Reply::text(r#"{"queue": "hardware", "priority": "high"}"#)]);
    let triage = Agent::<Ticket, Routing>::builder("triage")
        .model(triage_model.clone())
        .gate_skill(|_: &str, ctx: &InterceptContext| match ctx.client() {
            Some("planning-team") => Verdict::Allow,
            _ => Verdict::deny("only the planning team may file tickets"),
        })
        .build()?;
    let server = A2aServer::builder(triage)
        .description("Routes support tickets to the right queue.")
        .authenticator(|header| match header {
            "Bearer planning-secret" => Some("planning-team".to_string()),
            _ => None,
        })
        .build()?
        .bind("127.0.0.1:0".parse()?)
        .await?;
    println!("triage agent served over A2A at {}", server.url());

    // The planning team's side.
    let remote = A2aAgent::<Ticket, Routing>::builder(server.url())
        .bearer_token("planning-secret")
        .connect()
        .await?;
    println!("connected to '{}': {}", remote.name(), remote.description());
    let planner_model = ScriptedModel::new([
        Reply::tool_call(
            "triage",
            serde_json::json!({"text": "printer on fire, charge card 4111111111111111"}),
        ),
        Reply::text("Filed with hardware, high priority."),
        Reply::tool_call("triage", serde_json::json!({"text": "  "})),
        Reply::text("Nothing to file."),
    ]);
    let planner = Agent::<String, String>::builder("planner")
        .model(planner_model.clone())
        .tool(Triage::new(remote))
        .before_tool_call(mask_card_numbers)
        .gate_tool_call(no_empty_tickets)
        .build()?;

    let answer = planner.run("The printer is on fire".into()).await?;
    println!("planner: {answer}");
    let seen = triage_model.requests()[0]
        .messages
        .last()
        .map(|m| m.content.clone());
    let seen = seen.unwrap_or_default();
    println!("the triage agent read: {seen}");
    check(
        seen.contains("****") && !seen.contains("4111"),
        "the card number was masked before the ticket left",
    )?;
    check(
        answer == "Filed with hardware, high priority.",
        "the planner filed the ticket where the triage agent said",
    )?;

    let answer = planner.run("(an empty ticket)".into()).await?;
    let told = planner_model.requests()[3]
        .messages
        .last()
        .map(|m| m.content.clone());
    println!(
        "planner: {answer} (its model read: {})",
        told.unwrap_or_default()
    );
    check(
        triage_model.requests().len() == 1,
        "the gate refused the empty ticket before anything was sent",
    )?;

    server.shutdown().await?;
    Ok(())
}

fn check(ok: bool, what: &str) -> Result<(), Box<dyn std::error::Error>> {
    match ok {
        true => {
            println!("ok: {what}");
            Ok(())
        }
        false => Err(format!("not reached: {what}").into()),
    }
}
