//! Progress of a `tools/call` whose request carries a `progressToken`: what the tool reports with
//! [`ToolContext::emit`](crate::ToolContext::emit) reaches the client as `notifications/progress`,
//! in order, while the call runs.

use futures::FutureExt;
use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::Peer;
use serde_json::Value;

use super::outbox::Outbox;
use crate::tool::context::ToolEvents;

/// Sends a call's progress to its client under the request's token.
pub(crate) struct McpProgress {
    token: ProgressToken,
    sent: std::sync::atomic::AtomicU64,
    outbox: Outbox<ProgressNotificationParam>,
}

impl McpProgress {
    /// Progress for the request with `token`, sent to `peer` in order; flush `outbox` before
    /// answering the call.
    pub(crate) fn new(token: ProgressToken, outbox: Outbox<ProgressNotificationParam>) -> Self {
        McpProgress {
            token,
            sent: std::sync::atomic::AtomicU64::new(0),
            outbox,
        }
    }

    /// The queue of progress notifications to `peer`.
    pub(crate) fn outbox(peer: &Peer<RoleServer>) -> Outbox<ProgressNotificationParam> {
        let peer = peer.clone();
        Outbox::new(move |progress| {
            let peer = peer.clone();
            async move { peer.notify_progress(progress).await.is_ok() }.boxed()
        })
    }

    /// What the tool emitted as MCP progress: `{"progress": n, "total": m, "message": "…"}` as
    /// given (each field optional); anything else as the next step of a count, with the value as
    /// the message. MCP wants progress to increase: a count never repeats.
    fn notification(&self, emitted: &Value) -> ProgressNotificationParam {
        let step = self.sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let number = |key: &str| emitted.get(key).and_then(Value::as_f64);
        let progress = number("progress").unwrap_or(step as f64);
        let mut notification = ProgressNotificationParam::new(self.token.clone(), progress);
        if let Some(total) = number("total") {
            notification = notification.with_total(total);
        }
        let message = match emitted {
            Value::String(text) => Some(text.clone()),
            Value::Object(fields) if fields.contains_key("progress") => fields
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string),
            other => Some(other.to_string()),
        };
        if let Some(message) = message {
            notification = notification.with_message(message);
        }
        notification
    }
}

impl ToolEvents for McpProgress {
    fn started(&self, _call_id: &str, _tool: &str, _args: Value) {}

    fn progress(&self, _call_id: &str, progress: Value) {
        self.outbox.push(self.notification(&progress));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn structured_progress_is_sent_as_given_and_anything_else_counts_up() {
        let outbox = Outbox::new(|_| async { true }.boxed());
        let sink = McpProgress::new(
            ProgressToken(rmcp::model::NumberOrString::Number(7)),
            outbox,
        );
        let given = sink.notification(&json!({"progress": 40, "total": 100, "message": "copying"}));
        assert_eq!(
            (given.progress, given.total, given.message.as_deref()),
            (40.0, Some(100.0), Some("copying"))
        );
        let text = sink.notification(&json!("half way"));
        assert_eq!(
            (text.progress, text.message.as_deref()),
            (2.0, Some("half way"))
        );
        let other = sink.notification(&json!({"rows": 3}));
        assert_eq!(
            (other.progress, other.message.as_deref()),
            (3.0, Some("{\"rows\":3}"))
        );
    }
}
