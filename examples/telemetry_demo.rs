//! The agent `examples/otel.rs` traces (and the OpenTelemetry tests read back from a real trace
//! backend): a payments desk whose one run shows each kind of decision — a tool that runs, a
//! cached result substituted for a call, a payee denied by an interceptor, and a gate that
//! allows one payment and denies another.

use agents_kt::prelude::*;
use agents_kt::{AgentBuilder, BuildError, ChatChunk, Usage};
use serde_json::json;

/// Today's exchange rate of a currency to USD.
#[tool]
pub fn exchange_rate(currency: String) -> f64 {
    if currency == "EUR" { 1.08 } else { 1.0 }
}

/// Pays `amount` (in USD) to `payee`.
#[tool]
pub fn pay(payee: String, amount: u32) -> String {
    format!("paid {amount} USD to {payee}")
}

/// The rate service is slow: a cached rate answers instead.
#[before_tool_call(exchange_rate)]
pub fn cached_rates(args: &ExchangeRateArgs) -> Decision<ExchangeRateArgs, f64> {
    match args.currency.as_str() {
        "EUR" => Decision::Substitute(1.09),
        _ => Decision::Proceed,
    }
}

/// Blocked payees are never paid.
#[before_tool_call(pay)]
pub fn blocked_payees(args: &PayArgs) -> Decision<PayArgs, String> {
    if args.payee == "mallory" {
        Decision::deny("mallory is on the blocked list")
    } else {
        Decision::Proceed
    }
}

/// Payments above 1000 USD need a person; this desk has none. A gate: it always wins.
#[gate(pay)]
pub fn within_limit(args: &PayArgs) -> Verdict {
    if args.amount > 1000 {
        Verdict::deny("over the 1000 USD limit")
    } else {
        Verdict::Allow
    }
}

/// The scripted model's two answers: four tool calls, then a summary (with token counts and a
/// finish reason, as a real provider reports them).
pub fn script() -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_calls([
            ("exchange_rate", json!({"currency": "EUR"})),
            ("pay", json!({"payee": "mallory", "amount": 50})),
            ("pay", json!({"payee": "acme", "amount": 120})),
            ("pay", json!({"payee": "globex", "amount": 5000})),
        ]),
        Reply::chunks(vec![
            ChatChunk::Text("Paid ACME 120 USD; mallory is blocked; Globex needs approval.".into()),
            ChatChunk::Usage(Usage::new(182, 17)),
            ChatChunk::finished(Some("scripted-2026-12".into()), Some("stop".into())),
        ]),
    ])
}

/// The desk, named `payments-desk`: both tools, the cache, the blocked list and the limit gate.
pub fn payments_desk(model: ScriptedModel) -> Result<Agent<String, String>, BuildError> {
    desk("payments-desk", model).build()
}

/// The desk's builder under another name (to tell its runs apart, or to add to it).
pub fn desk(name: &str, model: ScriptedModel) -> AgentBuilder<String, String> {
    Agent::<String, String>::builder(name)
        .model(model)
        .system_prompt("You pay this week's invoices.")
        .tool(ExchangeRate)
        .tool(Pay)
        .before_tool_call(cached_rates)
        .before_tool_call(blocked_payees)
        .gate_tool_call(within_limit)
}

/// What the desk is asked.
pub const REQUEST: &str = "Pay this week's invoices: mallory 50, ACME 120, Globex 5000.";
