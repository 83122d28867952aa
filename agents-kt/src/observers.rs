//! Observers: callbacks that watch a run without changing it, and the hub feeding
//! [`crate::Agent::observe`] streams. A panicking observer is isolated and logged.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::channel::mpsc::{Receiver, Sender, channel};
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

/// How many events an `observe()` stream holds for a reader that has not caught up; beyond
/// them, events are dropped for that stream alone and it is told how many with
/// [`PipelineEvent::Lagged`]. A slow observer never slows a run, and never grows memory without
/// bound (an audit log that must see everything keeps up, or uses the observer callbacks, which
/// are called in the run).
///
/// ```
/// assert_eq!(agents_kt::OBSERVE_BUFFER, 4096);
/// ```
pub const OBSERVE_BUFFER: usize = 4096;

/// Fans [`PipelineEvent`]s out to every live `observe()` stream.
#[derive(Default)]
pub(crate) struct PipelineHub {
    subscribers: Mutex<Vec<Subscriber>>,
    /// Whether `subscribers` is non-empty, readable without the lock: most agents are never
    /// observed, and every step of a run asks.
    observed: AtomicBool,
}

/// One `observe()` stream's end: its bounded queue, and how many events it missed since it
/// last had room.
struct Subscriber {
    sender: Sender<PipelineEvent>,
    missed: u64,
}

impl Subscriber {
    /// Queue `event`, first telling of any missed ones; `false` when the stream is gone.
    fn offer(&mut self, event: &PipelineEvent) -> bool {
        if self.missed > 0 {
            match self.sender.try_send(PipelineEvent::Lagged {
                missed: self.missed,
            }) {
                Ok(()) => self.missed = 0,
                Err(error) if error.is_full() => {
                    self.missed += 1;
                    return true;
                }
                Err(_) => return false,
            }
        }
        match self.sender.try_send(event.clone()) {
            Ok(()) => true,
            Err(error) if error.is_full() => {
                self.missed += 1;
                true
            }
            Err(_) => false,
        }
    }
}

impl PipelineHub {
    pub(crate) fn subscribe(&self) -> Receiver<PipelineEvent> {
        // A bounded channel holds its buffer plus one slot per sender.
        let (sender, receiver) = channel(OBSERVE_BUFFER - 1);
        let mut subscribers = self.lock();
        subscribers.push(Subscriber { sender, missed: 0 });
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
        subscribers.retain_mut(|subscriber| subscriber.offer(&event));
        self.observed
            .store(!subscribers.is_empty(), Ordering::Release);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Subscriber>> {
        // A Vec of senders stays consistent whatever a panicking holder was doing.
        self.subscribers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
