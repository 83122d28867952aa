//! The MCP `logging` capability: a client that sends `logging/setLevel` receives the `tracing`
//! events of its own `tools/call`s — the runtime's and the tool's — at or above that level, as
//! `notifications/message`. Only that call's events, and only while it runs: a client never sees
//! another client's. Nothing is captured until a client sets a level (no cost otherwise).
//!
//! No global subscriber is installed: the call's future runs under a scoped dispatcher that hands
//! every span and event to the dispatcher that was current (the application's own logging is
//! untouched) and also queues the client's events, sent in order by one task per call.
#![allow(deprecated)] // rmcp marks server-to-client logging deprecated (SEP-2577); clients still use it.

use std::sync::Mutex;

use futures::FutureExt;
use rmcp::RoleServer;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::Peer;
use serde_json::{Map, Value};

use super::outbox::Outbox;
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Level, Metadata, Subscriber};

/// One session's logging level, as its client last set it (`None`: it never asked).
#[derive(Default)]
pub(crate) struct ClientLog {
    level: Mutex<Option<LoggingLevel>>,
}

impl ClientLog {
    pub(crate) fn set(&self, level: LoggingLevel) {
        *self
            .level
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(level);
    }

    /// The dispatcher to run one call of this session under, and the queue to flush before
    /// answering it, if its client asked for logs.
    pub(crate) fn dispatch_for(
        &self,
        peer: &Peer<RoleServer>,
    ) -> Option<(Dispatch, Outbox<LoggingMessageNotificationParam>)> {
        let level = (*self
            .level
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()))?;
        let peer = peer.clone();
        let outbox = Outbox::new(move |message| {
            let peer = peer.clone();
            async move { peer.notify_logging_message(message).await.is_ok() }.boxed()
        });
        let inner = tracing::dispatcher::get_default(Dispatch::clone);
        let forward = Forward::new(inner, tracing_level(level), outbox.clone());
        Some((Dispatch::new(forward), outbox))
    }
}

/// The most verbose `tracing` level a client at `level` receives.
fn tracing_level(level: LoggingLevel) -> Level {
    match level {
        LoggingLevel::Debug => Level::DEBUG,
        LoggingLevel::Info | LoggingLevel::Notice => Level::INFO,
        LoggingLevel::Warning => Level::WARN,
        _ => Level::ERROR,
    }
}

/// An event's level as MCP names it.
fn mcp_level(level: Level) -> LoggingLevel {
    match level {
        Level::ERROR => LoggingLevel::Error,
        Level::WARN => LoggingLevel::Warning,
        Level::INFO => LoggingLevel::Info,
        _ => LoggingLevel::Debug,
    }
}

/// Everything to `inner`; the events at or above `threshold` to the client too.
struct Forward {
    inner: Dispatch,
    threshold: Level,
    /// The most verbose level anyone listening wants: the client's, or what was enabled before.
    hint: LevelFilter,
    client: Outbox<LoggingMessageNotificationParam>,
}

impl Forward {
    fn new(
        inner: Dispatch,
        threshold: Level,
        client: Outbox<LoggingMessageNotificationParam>,
    ) -> Self {
        let hint = LevelFilter::current().max(LevelFilter::from_level(threshold));
        Forward {
            inner,
            threshold,
            hint,
            client,
        }
    }
}

impl Forward {
    fn for_client(&self, metadata: &Metadata<'_>) -> bool {
        metadata.is_event() && *metadata.level() <= self.threshold
    }
}

impl Subscriber for Forward {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        // Asked per event: this dispatcher lives for one call, the callsite's cache for ever.
        let _ = self.inner.register_callsite(metadata);
        Interest::sometimes()
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.for_client(metadata) || self.inner.enabled(metadata)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.hint)
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        self.inner.new_span(span)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        self.inner.record(span, values);
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        self.inner.record_follows_from(span, follows);
    }

    fn event(&self, event: &Event<'_>) {
        let metadata = event.metadata();
        if self.for_client(metadata) {
            let mut fields = Fields::default();
            event.record(&mut fields);
            let message = LoggingMessageNotificationParam::new(
                mcp_level(*metadata.level()),
                fields.into_data(),
            )
            .with_logger(metadata.target());
            self.client.push(message);
        }
        if self.inner.enabled(metadata) {
            // `Dispatch::event` asks the subscriber's own per-event filter first.
            self.inner.event(event);
        }
    }

    fn enter(&self, span: &Id) {
        self.inner.enter(span);
    }

    fn exit(&self, span: &Id) {
        self.inner.exit(span);
    }

    fn clone_span(&self, id: &Id) -> Id {
        self.inner.clone_span(id)
    }

    fn try_close(&self, id: Id) -> bool {
        self.inner.try_close(id)
    }

    fn current_span(&self) -> tracing_core::span::Current {
        self.inner.current_span()
    }
}

/// An event's fields as the message's data: `{"message": …, "<field>": …}`.
#[derive(Default)]
struct Fields(Map<String, Value>);

impl Fields {
    fn into_data(self) -> Value {
        Value::Object(self.0)
    }
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(
            field.name().to_string(),
            Value::String(format!("{value:?}")),
        );
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0
            .insert(field.name().to_string(), Value::String(value.to_string()));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_string(), value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_string(), value.into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_string(), value.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_client_level_admits_its_events_and_more_severe_ones_only() {
        let sent = std::sync::Arc::new(Mutex::new(Vec::new()));
        let log = std::sync::Arc::clone(&sent);
        let client = Outbox::new(move |message| {
            log.lock().unwrap().push(message);
            async { true }.boxed()
        });
        let forward = Forward::new(
            Dispatch::none(),
            tracing_level(LoggingLevel::Warning),
            client.clone(),
        );
        tracing::dispatcher::with_default(&Dispatch::new(forward), || {
            tracing::info!("not for a warning-level client");
            tracing::warn!(tool = "write_file", "denied");
            tracing::error!(code = 7, "failed");
        });
        client.flush().await;
        let sent = sent.lock().unwrap();
        assert_eq!(sent.len(), 2, "{sent:?}");
        assert_eq!(sent[0].level, LoggingLevel::Warning);
        assert_eq!(sent[0].data["message"], "denied");
        assert_eq!(sent[0].data["tool"], "write_file");
        assert_eq!(sent[1].level, LoggingLevel::Error);
        assert_eq!(sent[1].data["code"], 7);
    }
}
