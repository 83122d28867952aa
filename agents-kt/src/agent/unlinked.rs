//! Runs started inside another run without a link: an `agent.run(..)` in a tool body or a code
//! skill starts a run with no depth limit, no shared budget and none of the caller's gates. The
//! linked way is `ctx.run_agent(..)`; this marks the task a run is polled on, so an unlinked run
//! started there is at least seen and logged, naming both agents.

use std::future::Future;
use std::sync::Arc;

tokio::task_local! {
    /// The agent whose run the current task is polling.
    static RUNNING: Arc<str>;
}

/// Poll `run`, of `agent`, with the task marked as running it.
pub(crate) async fn marked<F: Future>(agent: &str, run: F) -> F::Output {
    RUNNING.scope(Arc::from(agent), run).await
}

/// Warn when a run of `agent` that is not linked to a parent starts inside another agent's run.
pub(crate) fn warn_if_unlinked(agent: &str, linked: bool) {
    if linked {
        return;
    }
    if let Ok(outer) = RUNNING.try_with(Arc::clone) {
        tracing::warn!(
            agent = %agent,
            inside = %outer,
            "agent '{agent}' was run inside a run of agent '{outer}' without a link: it has no depth limit, no shared budget and none of '{outer}''s gates; run it with `ctx.run_agent(&agent, input)` (ToolContext or SkillContext)"
        );
    }
}
