//! A typed approval flow: an async interceptor asks a human before money moves, and answers
//! Proceed, Deny, or ProceedWith edited (typed) arguments.
//!
//! `cargo run --example approval_flow` asks on stdin (`y`, `n`, or a new amount);
//! `-- --auto-approve` and `-- --auto-deny` run unattended.

use agents_kt::prelude::*;
use serde_json::json;
use std::io::{BufRead, Write};

/// How the human answers.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    AutoApprove,
    AutoDeny,
    Ask,
}

/// A payments desk whose transfers need a human's approval.
pub struct Payments {
    mode: Mode,
}

#[agent]
impl Payments {
    /// Transfers an amount (in cents) to an account.
    #[tool(params(to = "Destination account id", cents = "Amount in cents"))]
    fn transfer(&self, to: String, cents: u64) -> String {
        format!("transferred {cents} cents to {to}")
    }

    /// Asks a human, without blocking the runtime, whether the transfer may go ahead — naming the
    /// session it approves, from the interceptor's context.
    #[before_tool_call(transfer)]
    async fn ask_a_human(
        &self,
        args: &TransferArgs,
        ctx: &InterceptContext,
    ) -> Result<Decision<TransferArgs, String>, String> {
        let question = format!(
            "[{}] approve transfer of {} cents to {}? [y / n / new amount] ",
            ctx.ids().session_id,
            args.cents,
            args.to
        );
        let answer = match self.mode {
            Mode::AutoApprove => "y".to_string(),
            Mode::AutoDeny => "n".to_string(),
            Mode::Ask => tokio::task::spawn_blocking(move || read_answer(&question))
                .await
                .map_err(|e| format!("the approval prompt failed: {e}"))??,
        };
        Ok(match answer.trim() {
            "y" | "yes" => Decision::Proceed,
            "n" | "no" | "" => Decision::deny("rejected by a human"),
            amount => match amount.parse::<u64>() {
                Ok(cents) => Decision::ProceedWith(TransferArgs {
                    cents,
                    ..args.clone()
                }),
                Err(_) => Decision::deny(format!("unclear answer '{amount}'")),
            },
        })
    }
}

/// Ask on stdout and read one line; end of input means no.
fn read_answer(question: &str) -> Result<String, String> {
    print!("{question}");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    Ok(line)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mode = match std::env::args().nth(1).as_deref() {
        Some("--auto-approve") => Mode::AutoApprove,
        Some("--auto-deny") => Mode::AutoDeny,
        None => Mode::Ask,
        Some(other) => {
            return Err(format!("unknown flag {other}: use --auto-approve or --auto-deny").into());
        }
    };
    let model = ScriptedModel::new([
        Reply::tool_call("transfer", json!({"to": "acc-7", "cents": 25_000})),
        Reply::text("Done."),
    ]);
    let agent = Payments { mode }
        .agent_builder("payments")
        .model(model.clone())
        .build()?;
    let output = agent.run("Pay 250 dollars to acc-7".into()).await?;
    let result = model.requests()[1]
        .messages
        .last()
        .map(|m| m.content.clone())
        .unwrap_or_default();
    println!("tool result: {result}");
    println!("final output: {output}");
    let expected_ok = match mode {
        Mode::AutoApprove => result == "transferred 25000 cents to acc-7",
        Mode::AutoDeny => result == "ERROR: Tool 'transfer' denied by policy: rejected by a human",
        Mode::Ask => result.starts_with("transferred") || result.contains("denied by policy"),
    };
    if !expected_ok {
        return Err(format!("example outcome not reached in {mode:?} mode: {result}").into());
    }
    println!("outcome ({mode:?}): {result}");
    Ok(())
}
