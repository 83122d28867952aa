//! A remote's `input-required`, put to the local approver. An agents-kt remote asks to approve
//! one of its tool calls (its question carries an [`ApprovalRequest`](crate::ApprovalRequest)): the local approver sees
//! the remote tool and arguments, and the answer goes back bound to the remote's fingerprint —
//! approve, deny with a reason, or edit (the edit's `args` replace the remote tool's). Any other
//! remote asks a free question: approving answers `approve`, an edit's `reply` (or the edit
//! itself) is sent as the answer, a denial ends the call and cancels the remote task. With no
//! approver, the question is not answered: the call fails (an approval never defaults to yes).

use a2a::{Message, Part, PartContent};
use serde_json::{Value, json};

use super::A2aClientError;
use super::parts::text_of;
use std::sync::Arc;

use crate::ApprovalAnswer;
use crate::approval::RunApprovals;

/// Who answers the remote's questions, and for whom they are asked.
pub(super) struct Asker<'a> {
    /// The approvals the questions are asked through (a desk), or none: nobody can answer.
    pub approvals: Option<Arc<RunApprovals>>,
    /// The local tool (or agent) name the question is asked under.
    pub tool: &'a str,
    /// The remote agent's name, shown to the approver.
    pub remote: &'a str,
}

impl Asker<'_> {
    /// The parts of the reply to `question`, or why none is given.
    pub(super) async fn answer(&self, question: &Message) -> Result<Vec<Part>, A2aClientError> {
        let Some(approvals) = &self.approvals else {
            return Err(A2aClientError::InputNotGiven {
                reason: format!(
                    "the remote asked \"{}\" and nobody can answer here: give the agent (or the A2aAgent) an ApprovalDesk",
                    text_of(question)
                ),
            });
        };
        let data = question.parts.iter().find_map(|part| match &part.content {
            PartContent::Data(value) => Some(value.clone()),
            _ => None,
        });
        let remote_request = data
            .clone()
            .and_then(|data| serde_json::from_value::<RemoteApproval>(data).ok());
        let args = match &remote_request {
            Some(asked) => json!({
                "remote_agent": self.remote,
                "tool": asked.tool,
                "args": asked.args,
            }),
            None => json!({
                "remote_agent": self.remote,
                "question": text_of(question),
                "data": data,
            }),
        };
        let (answer, _) = approvals
            .ask_about(self.tool, args)
            .await
            .map_err(|reason| A2aClientError::InputNotGiven { reason })?;
        match (remote_request, answer) {
            (_, ApprovalAnswer::Deny { reason, .. }) => {
                Err(A2aClientError::InputNotGiven { reason })
            }
            (Some(asked), ApprovalAnswer::Approve { .. }) => Ok(vec![answer_part(
                &ApprovalAnswer::approve(asked.fingerprint),
            )]),
            (Some(asked), ApprovalAnswer::Edit { args, .. }) => {
                let edited = args.get("args").cloned().unwrap_or(args);
                Ok(vec![answer_part(&ApprovalAnswer::edit(
                    asked.fingerprint,
                    edited,
                ))])
            }
            (None, ApprovalAnswer::Approve { .. }) => Ok(vec![Part::text("approve")]),
            (None, ApprovalAnswer::Edit { args, .. }) => {
                let reply = args.get("reply").cloned().unwrap_or(args);
                Ok(vec![match reply {
                    Value::String(text) => Part::text(text),
                    other => Part::data(other),
                }])
            }
        }
    }
}

/// What an agents-kt remote's approval question carries (the fields of its [`ApprovalRequest`](crate::ApprovalRequest)
/// this side needs; the rest may have been rewritten on the way — protobuf JSON makes every
/// number a float).
#[derive(serde::Deserialize)]
struct RemoteApproval {
    tool: String,
    args: Value,
    fingerprint: String,
}

/// An approval answer as the data part an agents-kt remote reads.
fn answer_part(answer: &ApprovalAnswer) -> Part {
    Part::data(serde_json::to_value(answer).unwrap_or(Value::Null))
}
