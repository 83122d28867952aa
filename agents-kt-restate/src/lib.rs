//! Durable agents-kt runs on [Restate](https://restate.dev): a run is a Restate workflow keyed by
//! its id, every model turn, tool execution and approval wait is a journaled step, so
//!
//! - an approval waits on a durable promise with nothing held open — the service process may
//!   die, restart, or be replaced by another worker while a human decides;
//! - a resumed run replays the recorded model replies and tool results (the model is not asked
//!   again, a tool's effect does not happen again) and re-runs the interceptors and gates;
//! - a replay whose steps no longer match the journal fails clearly
//!   ([`agents_kt::JournalError::Diverged`]).
//!
//! ```no_run
//! use agents_kt::{Agent, Reply, ScriptedModel};
//! use agents_kt_restate::AgentWorkflow;
//!
//! # #[tokio::main] async fn main() {
//! let agent: Agent<String, String> = Agent::builder("desk")
//!     .model(ScriptedModel::new([Reply::text("hi")]))
//!     .build()
//!     .unwrap();
//! // Register http://127.0.0.1:9080 with the Restate server's admin API, then start a run:
//! //   curl -X POST http://127.0.0.1:8080/AgentRun/run-1/run --json '"hello"'
//! AgentWorkflow::new(agent).serve("127.0.0.1:9080".parse().unwrap()).await;
//! # }
//! ```
//!
//! The workflow `AgentRun` has four handlers: `run` (the input as JSON; answers the output as
//! JSON), `approve` (an [`agents_kt::ApprovalAnswer`]; refused unless it answers the approval
//! pending, by fingerprint), `status` (the pending approval, if any, and the steps recorded) and
//! `events` (each recorded step with its value: model replies, tool results, approval answers).
//!
//! Whoever can reach the server's ingress can answer approvals: put the ingress behind your
//! authentication (Restate's own request identity covers the server-to-service leg only).
//!
//! The Restate server is licensed under the BSL 1.1 (self-hosting is allowed); this crate talks to
//! it through the MIT-licensed `restate-sdk`.

mod journal;
mod workflow;

pub use workflow::{AgentWorkflow, RunStatus};
