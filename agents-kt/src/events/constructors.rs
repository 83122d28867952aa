//! Constructors of the events' variants. The variants are `#[non_exhaustive]` (a field added
//! later breaks no `match` written with `..`), which also stops a struct expression outside this
//! crate: a test that feeds events to its own consumer builds them here.

use serde_json::Value;

use super::{AgentEvent, InterceptorDecision, PipelineEvent, RunIds};
use crate::{AgentError, BudgetLimit, ToolCall, Usage};

impl<OUT> AgentEvent<OUT> {
    /// [`AgentEvent::SkillStarted`].
    ///
    /// ```
    /// let e = agents_kt::AgentEvent::<String>::skill_started("forecast");
    /// assert!(matches!(e, agents_kt::AgentEvent::SkillStarted { ref skill, .. } if skill == "forecast"));
    /// ```
    pub fn skill_started(skill: impl Into<String>) -> Self {
        AgentEvent::SkillStarted {
            skill: skill.into(),
        }
    }

    /// [`AgentEvent::SkillCompleted`].
    ///
    /// ```
    /// let e = agents_kt::AgentEvent::<String>::skill_completed("forecast");
    /// assert!(matches!(e, agents_kt::AgentEvent::SkillCompleted { .. }));
    /// ```
    pub fn skill_completed(skill: impl Into<String>) -> Self {
        AgentEvent::SkillCompleted {
            skill: skill.into(),
        }
    }

    /// [`AgentEvent::TurnStarted`] (turns are numbered from 1).
    ///
    /// ```
    /// let e = agents_kt::AgentEvent::<String>::turn_started(1);
    /// assert!(matches!(e, agents_kt::AgentEvent::TurnStarted { turn: 1, .. }));
    /// ```
    pub fn turn_started(turn: u32) -> Self {
        AgentEvent::TurnStarted { turn }
    }

    /// [`AgentEvent::Token`]: a piece of streamed text.
    ///
    /// ```
    /// let e = agents_kt::AgentEvent::<String>::token("Hel");
    /// assert!(matches!(e, agents_kt::AgentEvent::Token { ref text, .. } if text == "Hel"));
    /// ```
    pub fn token(text: impl Into<String>) -> Self {
        AgentEvent::Token { text: text.into() }
    }

    /// [`AgentEvent::TurnCompleted`]: the turn's answer text and the tool calls it asked for.
    ///
    /// ```
    /// use agents_kt::{AgentEvent, ToolCall};
    /// let e = AgentEvent::<String>::turn_completed(1, "", vec![ToolCall::new("c1", "t", "{}")]);
    /// assert!(matches!(e, AgentEvent::TurnCompleted { ref tool_calls, .. } if tool_calls.len() == 1));
    /// ```
    pub fn turn_completed(
        turn: u32,
        content: impl Into<String>,
        tool_calls: Vec<ToolCall>,
    ) -> Self {
        AgentEvent::TurnCompleted {
            turn,
            content: content.into(),
            tool_calls,
        }
    }

    /// [`AgentEvent::ToolCallStarted`], with the arguments the tool will see.
    ///
    /// ```
    /// let e = agents_kt::AgentEvent::<String>::tool_call_started("c1", "get_weather", serde_json::json!({"city": "Oslo"}));
    /// assert!(matches!(e, agents_kt::AgentEvent::ToolCallStarted { .. }));
    /// ```
    pub fn tool_call_started(
        call_id: impl Into<String>,
        tool: impl Into<String>,
        args: Value,
    ) -> Self {
        AgentEvent::ToolCallStarted {
            call_id: call_id.into(),
            tool: tool.into(),
            args,
        }
    }

    /// [`AgentEvent::ToolCallProgress`]: what a running tool reported.
    ///
    /// ```
    /// let e = agents_kt::AgentEvent::<String>::tool_call_progress("c1", serde_json::json!({"done": 0.5}));
    /// assert!(matches!(e, agents_kt::AgentEvent::ToolCallProgress { .. }));
    /// ```
    pub fn tool_call_progress(call_id: impl Into<String>, progress: Value) -> Self {
        AgentEvent::ToolCallProgress {
            call_id: call_id.into(),
            progress,
        }
    }

    /// [`AgentEvent::ToolCallFinished`]: the result (or the error text the model read).
    ///
    /// ```
    /// use serde_json::json;
    /// let e = agents_kt::AgentEvent::<String>::tool_call_finished("c1", "get_weather", json!({"city": "Oslo"}), json!("21C"), false);
    /// assert!(matches!(e, agents_kt::AgentEvent::ToolCallFinished { is_error: false, .. }));
    /// ```
    pub fn tool_call_finished(
        call_id: impl Into<String>,
        tool: impl Into<String>,
        args: Value,
        result: Value,
        is_error: bool,
    ) -> Self {
        AgentEvent::ToolCallFinished {
            call_id: call_id.into(),
            tool: tool.into(),
            args,
            result,
            is_error,
        }
    }

    /// [`AgentEvent::SubAgent`]: an event of the sub-agent `agent` (run `ids`) that this run's
    /// call `call_id` started.
    ///
    /// ```
    /// use agents_kt::{AgentEvent, RunIds};
    /// let inner = AgentEvent::token("Hel");
    /// let e = AgentEvent::<String>::sub_agent("researcher", RunIds::new("r2", "s1"), "c1", inner);
    /// assert!(matches!(e, AgentEvent::SubAgent { ref agent, .. } if agent == "researcher"));
    /// ```
    pub fn sub_agent(
        agent: impl Into<String>,
        ids: RunIds,
        call_id: impl Into<String>,
        event: AgentEvent<Value>,
    ) -> Self {
        AgentEvent::SubAgent {
            agent: agent.into(),
            ids,
            call_id: call_id.into(),
            event: Box::new(event),
        }
    }

    /// [`AgentEvent::Completed`]: the run's output.
    ///
    /// ```
    /// let e = agents_kt::AgentEvent::completed("Sunny.".to_string());
    /// assert!(matches!(e, agents_kt::AgentEvent::Completed { ref output, .. } if output == "Sunny."));
    /// ```
    pub fn completed(output: OUT) -> Self {
        AgentEvent::Completed { output }
    }

    /// [`AgentEvent::Failed`]: why the run failed.
    ///
    /// ```
    /// let e = agents_kt::AgentEvent::<String>::failed(agents_kt::AgentError::Aborted("the caller went away".into()));
    /// assert!(matches!(e, agents_kt::AgentEvent::Failed { .. }));
    /// ```
    pub fn failed(error: AgentError) -> Self {
        AgentEvent::Failed { error }
    }
}

impl PipelineEvent {
    /// [`PipelineEvent::RunStarted`].
    ///
    /// ```
    /// let e = agents_kt::PipelineEvent::run_started(agents_kt::RunIds::new("r1", "s1"), "weather");
    /// assert_eq!(e.ids().run_id, "r1");
    /// ```
    pub fn run_started(ids: RunIds, agent: impl Into<String>) -> Self {
        PipelineEvent::RunStarted {
            ids,
            agent: agent.into(),
        }
    }

    /// [`PipelineEvent::SkillChosen`].
    ///
    /// ```
    /// let e = agents_kt::PipelineEvent::skill_chosen(agents_kt::RunIds::new("r1", "s1"), "forecast");
    /// assert!(matches!(e, agents_kt::PipelineEvent::SkillChosen { .. }));
    /// ```
    pub fn skill_chosen(ids: RunIds, skill: impl Into<String>) -> Self {
        PipelineEvent::SkillChosen {
            ids,
            skill: skill.into(),
        }
    }

    /// [`PipelineEvent::InterceptorDecision`].
    ///
    /// ```
    /// use agents_kt::{DecisionKind, InterceptionPoint, InterceptorDecision, PipelineEvent, RunIds};
    /// use agents_kt::chain::ChainDecision;
    /// let taken = ChainDecision::new(0, DecisionKind::Deny);
    /// let d = InterceptorDecision::new(InterceptionPoint::Turn, "turn 1", taken);
    /// let e = PipelineEvent::interceptor_decision(RunIds::new("r1", "s1"), d);
    /// assert!(matches!(e, PipelineEvent::InterceptorDecision { .. }));
    /// ```
    pub fn interceptor_decision(ids: RunIds, decision: InterceptorDecision) -> Self {
        PipelineEvent::InterceptorDecision { ids, decision }
    }

    /// [`PipelineEvent::TurnStarted`] (turns are numbered from 1).
    ///
    /// ```
    /// let e = agents_kt::PipelineEvent::turn_started(agents_kt::RunIds::new("r1", "s1"), 1);
    /// assert!(matches!(e, agents_kt::PipelineEvent::TurnStarted { turn: 1, .. }));
    /// ```
    pub fn turn_started(ids: RunIds, turn: u32) -> Self {
        PipelineEvent::TurnStarted { ids, turn }
    }

    /// [`PipelineEvent::TurnCompleted`]: the tool calls the answer asked for and its token
    /// counts.
    ///
    /// ```
    /// use agents_kt::{PipelineEvent, RunIds, Usage};
    /// let e = PipelineEvent::turn_completed(RunIds::new("r1", "s1"), 1, vec![], Some(Usage::new(9, 2)));
    /// assert!(matches!(e, PipelineEvent::TurnCompleted { usage: Some(_), .. }));
    /// ```
    pub fn turn_completed(
        ids: RunIds,
        turn: u32,
        tool_calls: Vec<ToolCall>,
        usage: Option<Usage>,
    ) -> Self {
        PipelineEvent::TurnCompleted {
            ids,
            turn,
            tool_calls,
            usage,
        }
    }

    /// [`PipelineEvent::ToolUsed`]: a tool ran (or `substituted`: a `Substitute` stood in).
    ///
    /// ```
    /// use serde_json::json;
    /// let ids = agents_kt::RunIds::new("r1", "s1");
    /// let e = agents_kt::PipelineEvent::tool_used(ids, "c1", "get_weather", json!({}), json!("21C"), false);
    /// assert!(matches!(e, agents_kt::PipelineEvent::ToolUsed { substituted: false, .. }));
    /// ```
    pub fn tool_used(
        ids: RunIds,
        call_id: impl Into<String>,
        tool: impl Into<String>,
        args: Value,
        result: Value,
        substituted: bool,
    ) -> Self {
        PipelineEvent::ToolUsed {
            ids,
            call_id: call_id.into(),
            tool: tool.into(),
            args,
            result,
            substituted,
        }
    }

    /// [`PipelineEvent::ToolDenied`].
    ///
    /// ```
    /// let ids = agents_kt::RunIds::new("r1", "s1");
    /// let e = agents_kt::PipelineEvent::tool_denied(ids, "c1", "pay", serde_json::json!({}), "blocked payee");
    /// assert!(matches!(e, agents_kt::PipelineEvent::ToolDenied { ref reason, .. } if reason == "blocked payee"));
    /// ```
    pub fn tool_denied(
        ids: RunIds,
        call_id: impl Into<String>,
        tool: impl Into<String>,
        args: Value,
        reason: impl Into<String>,
    ) -> Self {
        PipelineEvent::ToolDenied {
            ids,
            call_id: call_id.into(),
            tool: tool.into(),
            args,
            reason: reason.into(),
        }
    }

    /// [`PipelineEvent::ToolResultWithheld`].
    ///
    /// ```
    /// let ids = agents_kt::RunIds::new("r1", "s1");
    /// let e = agents_kt::PipelineEvent::tool_result_withheld(ids, "c1", "read", serde_json::json!({}), "secret");
    /// assert!(matches!(e, agents_kt::PipelineEvent::ToolResultWithheld { .. }));
    /// ```
    pub fn tool_result_withheld(
        ids: RunIds,
        call_id: impl Into<String>,
        tool: impl Into<String>,
        args: Value,
        reason: impl Into<String>,
    ) -> Self {
        PipelineEvent::ToolResultWithheld {
            ids,
            call_id: call_id.into(),
            tool: tool.into(),
            args,
            reason: reason.into(),
        }
    }

    /// [`PipelineEvent::ToolFailed`].
    ///
    /// ```
    /// let ids = agents_kt::RunIds::new("r1", "s1");
    /// let e = agents_kt::PipelineEvent::tool_failed(ids, "c1", "read", serde_json::json!({}), "no such file");
    /// assert!(matches!(e, agents_kt::PipelineEvent::ToolFailed { .. }));
    /// ```
    pub fn tool_failed(
        ids: RunIds,
        call_id: impl Into<String>,
        tool: impl Into<String>,
        args: Value,
        error: impl Into<String>,
    ) -> Self {
        PipelineEvent::ToolFailed {
            ids,
            call_id: call_id.into(),
            tool: tool.into(),
            args,
            error: error.into(),
        }
    }

    /// [`PipelineEvent::ToolRejected`].
    ///
    /// ```
    /// let ids = agents_kt::RunIds::new("r1", "s1");
    /// let e = agents_kt::PipelineEvent::tool_rejected(ids, "c1", "nope", "unknown tool");
    /// assert!(matches!(e, agents_kt::PipelineEvent::ToolRejected { .. }));
    /// ```
    pub fn tool_rejected(
        ids: RunIds,
        call_id: impl Into<String>,
        tool: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        PipelineEvent::ToolRejected {
            ids,
            call_id: call_id.into(),
            tool: tool.into(),
            reason: reason.into(),
        }
    }

    /// [`PipelineEvent::BudgetThreshold`]: `fraction` of `limit` was crossed.
    ///
    /// ```
    /// use agents_kt::{BudgetLimit, PipelineEvent, RunIds};
    /// let e = PipelineEvent::budget_threshold(RunIds::new("r1", "s1"), BudgetLimit::MaxTurns, 0.8);
    /// assert!(matches!(e, PipelineEvent::BudgetThreshold { .. }));
    /// ```
    pub fn budget_threshold(ids: RunIds, limit: BudgetLimit, fraction: f64) -> Self {
        PipelineEvent::BudgetThreshold {
            ids,
            limit,
            fraction,
        }
    }

    /// [`PipelineEvent::RunCompleted`].
    ///
    /// ```
    /// let e = agents_kt::PipelineEvent::run_completed(agents_kt::RunIds::new("r1", "s1"));
    /// assert!(matches!(e, agents_kt::PipelineEvent::RunCompleted { .. }));
    /// ```
    pub fn run_completed(ids: RunIds) -> Self {
        PipelineEvent::RunCompleted { ids }
    }

    /// [`PipelineEvent::RunFailed`].
    ///
    /// ```
    /// use agents_kt::{AgentError, PipelineEvent, RunIds};
    /// let e = PipelineEvent::run_failed(RunIds::new("r1", "s1"), AgentError::Aborted("the caller went away".into()));
    /// assert!(matches!(e, PipelineEvent::RunFailed { .. }));
    /// ```
    pub fn run_failed(ids: RunIds, error: AgentError) -> Self {
        PipelineEvent::RunFailed { ids, error }
    }

    /// [`PipelineEvent::Lagged`]: this stream missed `missed` events.
    ///
    /// ```
    /// let e = agents_kt::PipelineEvent::lagged(3);
    /// assert!(matches!(e, agents_kt::PipelineEvent::Lagged { missed: 3, .. }));
    /// ```
    pub fn lagged(missed: u64) -> Self {
        PipelineEvent::Lagged { missed }
    }
}
