//! The seed's synthetic test result: `fetchAccount` is substituted, the tool body never runs, and
//! the model, `on_tool_use` and the session events see the substitute.
//!
//! `cargo run --example synthetic_result`

use agents_kt::prelude::*;
use agents_kt_examples::ensure;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};

static BANK_CALLS: AtomicUsize = AtomicUsize::new(0);

/// An account balance.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Account {
    /// Balance in cents.
    pub balance: i64,
    /// ISO currency code.
    pub currency: String,
}

/// Fetches an account from the bank.
#[tool(name = "fetchAccount")]
async fn fetch_account(id: String) -> Result<Account, String> {
    BANK_CALLS.fetch_add(1, Ordering::SeqCst);
    Err(format!("the bank is unreachable (account {id})"))
}

#[before_tool_call(fetch_account)]
fn cached_account(_args: &FetchAccountArgs) -> Decision<FetchAccountArgs, Account> {
    Decision::Substitute(Account {
        balance: 10_000,
        currency: "USD".into(),
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = ScriptedModel::new([
        Reply::tool_call("fetchAccount", json!({"id": "acc-42"})),
        Reply::text("Your balance is 100.00 USD."),
    ]);
    let agent = Agent::<String, String>::builder("bank")
        .model(model.clone())
        .tool(FetchAccount)
        .before_tool_call(cached_account)
        .build()?;

    let mut session = agent.session("What is my balance?".into());
    let mut substituted = None;
    let mut events = session.events();
    while let Some(event) = events.next().await {
        if let AgentEvent::ToolCallFinished {
            tool,
            result,
            is_error,
            ..
        } = event
        {
            println!("session event: {tool} finished with {result} (error: {is_error})");
            substituted = Some(result);
        }
    }
    let output = session.await?;
    println!("final output: {output}");
    ensure(
        substituted == Some(json!({"balance": 10000, "currency": "USD"})),
        "the session must see the substitute",
    )?;
    ensure(
        BANK_CALLS.load(Ordering::SeqCst) == 0,
        "the tool body must not run",
    )?;
    println!("outcome: substituted without calling the bank");
    Ok(())
}
