//! Observers: callbacks that watch a run without changing it, and the hub feeding
//! [`crate::Agent::observe`] streams. A panicking observer is isolated and logged.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};

use futures::channel::mpsc::{UnboundedReceiver, UnboundedSender, unbounded};
use serde_json::Value;

use crate::chain::panic_message;
use crate::{AgentError, BudgetUsage, InterceptorDecision, PipelineEvent};

type Callback<A> = Arc<A>;

/// Every observer registered on an agent.
#[derive(Default, Clone)]
pub(crate) struct Observers {
    pub skill_chosen: Vec<Callback<dyn Fn(&str) + Send + Sync>>,
    pub tool_use: Vec<Callback<dyn Fn(&str, &Value, &Value) + Send + Sync>>,
    pub tool_error: Vec<Callback<dyn Fn(&str, &Value, &str) + Send + Sync>>,
    pub tool_denied: Vec<Callback<dyn Fn(&str, &Value, &str) + Send + Sync>>,
    pub error: Vec<Callback<dyn Fn(&AgentError) + Send + Sync>>,
    pub budget_thresholds: Vec<f64>,
    pub budget: Vec<Callback<dyn Fn(&BudgetUsage) + Send + Sync>>,
    pub decision: Vec<Callback<dyn Fn(&InterceptorDecision) + Send + Sync>>,
}

/// Call `observer`, isolating a panic: the run goes on and the panic is logged.
pub(crate) fn notify(kind: &'static str, observer: impl FnOnce()) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(observer)) {
        tracing::error!(
            observer = kind,
            panic = %panic_message(payload.as_ref()),
            "an observer panicked; the run continues"
        );
    }
}

/// Fans [`PipelineEvent`]s out to every live `observe()` stream.
#[derive(Default)]
pub(crate) struct PipelineHub {
    subscribers: Mutex<Vec<UnboundedSender<PipelineEvent>>>,
}

impl PipelineHub {
    pub(crate) fn subscribe(&self) -> UnboundedReceiver<PipelineEvent> {
        let (sender, receiver) = unbounded();
        self.lock().push(sender);
        receiver
    }

    /// Send `event` to every subscriber, forgetting those that hung up.
    pub(crate) fn publish(&self, event: impl FnOnce() -> PipelineEvent) {
        let mut subscribers = self.lock();
        if subscribers.is_empty() {
            return;
        }
        let event = event();
        subscribers.retain(|subscriber| subscriber.unbounded_send(event.clone()).is_ok());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<UnboundedSender<PipelineEvent>>> {
        // A Vec of senders stays consistent whatever a panicking holder was doing.
        self.subscribers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
