//! Observers: callbacks that watch a run without changing it, and the hub feeding
//! [`crate::Agent::observe`] streams. A panicking observer is isolated and logged.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::channel::mpsc::{UnboundedReceiver, UnboundedSender, unbounded};
use serde_json::Value;

use crate::chain::panic_message;
use crate::{AgentError, BudgetUsage, InterceptorDecision, PipelineEvent};

/// Observes a skill choice: the skill's name.
pub(crate) type SkillObserver = Arc<dyn Fn(&str) + Send + Sync>;
/// Observes a tool call that produced a result: name, arguments, result.
pub(crate) type ToolUseObserver = Arc<dyn Fn(&str, &Value, &Value) + Send + Sync>;
/// Observes a failed or denied tool call: name, arguments, error or reason.
pub(crate) type ToolProblemObserver = Arc<dyn Fn(&str, &Value, &str) + Send + Sync>;
/// Observes a failed run.
pub(crate) type ErrorObserver = Arc<dyn Fn(&AgentError) + Send + Sync>;
/// Observes a budget threshold crossing.
pub(crate) type BudgetObserver = Arc<dyn Fn(&BudgetUsage) + Send + Sync>;
/// Observes the token usage of a model call.
pub(crate) type UsageObserver = Arc<dyn Fn(&crate::Usage) + Send + Sync>;
/// Observes an interceptor decision.
pub(crate) type DecisionObserver = Arc<dyn Fn(&InterceptorDecision) + Send + Sync>;

/// Every observer registered on an agent.
#[derive(Default, Clone)]
pub(crate) struct Observers {
    pub skill_chosen: Vec<SkillObserver>,
    pub tool_use: Vec<ToolUseObserver>,
    pub tool_error: Vec<ToolProblemObserver>,
    pub tool_denied: Vec<ToolProblemObserver>,
    pub error: Vec<ErrorObserver>,
    /// Threshold fractions, paired by index with `budget`.
    pub budget_thresholds: Vec<f64>,
    pub budget: Vec<BudgetObserver>,
    pub decision: Vec<DecisionObserver>,
    pub token_usage: Vec<UsageObserver>,
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
    /// Whether `subscribers` is non-empty, readable without the lock: most agents are never
    /// observed, and every step of a run asks.
    observed: AtomicBool,
}

impl PipelineHub {
    pub(crate) fn subscribe(&self) -> UnboundedReceiver<PipelineEvent> {
        let (sender, receiver) = unbounded();
        let mut subscribers = self.lock();
        subscribers.push(sender);
        self.observed.store(true, Ordering::Release);
        receiver
    }

    /// Whether any `observe()` stream may still be listening.
    pub(crate) fn is_observed(&self) -> bool {
        self.observed.load(Ordering::Acquire)
    }

    /// Send `event` to every subscriber, forgetting those that hung up.
    pub(crate) fn publish(&self, event: impl FnOnce() -> PipelineEvent) {
        if !self.is_observed() {
            return;
        }
        let mut subscribers = self.lock();
        if subscribers.is_empty() {
            return;
        }
        let event = event();
        subscribers.retain(|subscriber| subscriber.unbounded_send(event.clone()).is_ok());
        self.observed
            .store(!subscribers.is_empty(), Ordering::Release);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<UnboundedSender<PipelineEvent>>> {
        // A Vec of senders stays consistent whatever a panicking holder was doing.
        self.subscribers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
