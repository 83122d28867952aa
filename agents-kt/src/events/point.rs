//! The interception points, described once: how each is named to a person, in traces and
//! metrics, what it guards, and how its denial reads. Display texts, error texts, span and metric
//! attributes all read this table; a new point is a variant and a row here (see
//! `docs/architecture.md` for the rest of its way).

/// Where an interceptor sits.
///
/// ```
/// assert_eq!(agents_kt::InterceptionPoint::Turn.to_string(), "turn");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InterceptionPoint {
    /// Before a skill runs (`on_before_skill`, `gate_skill`).
    Skill,
    /// Before a model call (`on_before_turn`, `gate_turn`).
    Turn,
    /// Before a tool call (`before_tool_call`, `on_before_tool_call`, `gate_tool_call`,
    /// `on_gate_tool_call`).
    ToolCall,
    /// After a tool call, before its result reaches the model (`after_tool_call`,
    /// `on_after_tool_call`).
    AfterToolCall,
}

impl std::fmt::Display for InterceptionPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.row().label)
    }
}

/// Which kind of check took a decision.
///
/// ```
/// assert_eq!(agents_kt::DecisionStage::Gate.to_string(), "gate");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecisionStage {
    /// An interceptor of the chain.
    Interceptor,
    /// A gate, run after the chain on the final value.
    Gate,
}

impl std::fmt::Display for DecisionStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl DecisionStage {
    /// The stage as an attribute value of spans and metrics (`gen_ai.security.guardrail.type`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            DecisionStage::Interceptor => "interceptor",
            DecisionStage::Gate => "gate",
        }
    }
}

/// One point's row of the table.
pub(crate) struct PointRow {
    /// For a person: `InterceptionPoint`'s `Display`.
    pub label: &'static str,
    /// In traces and metrics (`agents_kt.decision.point`).
    pub attribute: &'static str,
    /// What it guards (`gen_ai.security.target.type`).
    pub target_type: &'static str,
    /// The error text of an effective denial of `target`, from the seed.
    denial: fn(target: &str, reason: &str) -> String,
}

const SKILL: PointRow = PointRow {
    label: "skill",
    attribute: "skill",
    target_type: "agent_invocation",
    denial: |target, reason| format!("Skill '{target}' denied by interceptor: {reason}"),
};
const TURN: PointRow = PointRow {
    label: "turn",
    attribute: "turn",
    target_type: "llm_input",
    denial: |_, reason| format!("Turn denied by interceptor: {reason}"),
};
const TOOL_CALL: PointRow = PointRow {
    label: "tool call",
    attribute: "tool_call",
    target_type: "tool_call",
    denial: |target, reason| format!("Tool '{target}' denied by policy: {reason}"),
};
const AFTER_TOOL_CALL: PointRow = PointRow {
    label: "after tool call",
    attribute: "after_tool_call",
    target_type: "tool_result",
    denial: |target, reason| format!("Tool '{target}' result withheld by policy: {reason}"),
};

impl InterceptionPoint {
    /// This point's row of the table.
    pub(crate) fn row(self) -> &'static PointRow {
        match self {
            InterceptionPoint::Skill => &SKILL,
            InterceptionPoint::Turn => &TURN,
            InterceptionPoint::ToolCall => &TOOL_CALL,
            InterceptionPoint::AfterToolCall => &AFTER_TOOL_CALL,
        }
    }

    /// How an effective denial of `target` at this point reads.
    pub(crate) fn denial(self, target: &str, reason: &str) -> String {
        (self.row().denial)(target, reason)
    }
}
