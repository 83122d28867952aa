//! The tool calls of a remembered conversation's earlier runs, carried into the tree's call
//! ledger when a run continues it: call constraints then count per conversation, not per run —
//! `max_calls(3)` allows three calls across every run of the conversation, and a `never_after`
//! stays shut once the forbidding tool ran in any of them.

use super::step::ToolOutcome;
use crate::Message;
use crate::ledger::CallLedger;

/// Carry the calls in `history` (the stored messages of the conversation a run continues) into
/// `ledger`. A call whose result was not stored counts as let through (the closed side).
pub(super) fn carry(ledger: &CallLedger, history: &[Message]) {
    for (position, message) in history.iter().enumerate() {
        for call in &message.tool_calls {
            let result = history[position + 1..]
                .iter()
                .find(|later| later.tool_call_id.as_deref() == Some(call.id.as_str()));
            let (passed, succeeded) = match result {
                Some(result) => (
                    ToolOutcome::passed_guard(&call.name, result),
                    !result.is_error,
                ),
                None => (true, false),
            };
            if passed {
                ledger.carry(&call.name, succeeded);
            }
        }
    }
}
