//! Limits on what one run may spend, and the tracking that enforces them.

use std::time::{Duration, Instant};

use crate::AgentError;

/// Limits on one run. Exceeding `max_turns`, `max_tool_calls`, `max_duration` or
/// `per_tool_timeout` ends the run with [`AgentError::BudgetExceeded`]; tool arguments over
/// `max_tool_args_bytes` are refused and the model is told, so it can retry smaller.
///
/// ```
/// use std::time::Duration;
/// use agents_kt::Budget;
/// let budget = Budget::default().max_turns(3).per_tool_timeout(Duration::from_secs(2));
/// assert_eq!(budget.max_turns, 3);
/// assert_eq!(budget.max_tool_calls, 32);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Budget {
    /// Model calls per run (default 8).
    pub max_turns: u32,
    /// Tool calls the model (or a code skill) may request per run, denied ones included (default 32).
    pub max_tool_calls: u32,
    /// Wall-clock time per run (default 5 minutes).
    pub max_duration: Duration,
    /// Wall time one tool body may take from its start (default 60 seconds), work before its
    /// first `.await` included.
    pub per_tool_timeout: Duration,
    /// Time one interceptor or gate may take to decide (default 60 seconds); one that has not
    /// decided by then denies: `interceptor '<name>' timed out after <duration>`.
    pub interceptor_timeout: Duration,
    /// Size of one tool call's argument text (default 64 KiB).
    pub max_tool_args_bytes: usize,
    /// Size of one tool result's text as the model (or an MCP client) would read it (default
    /// 1 MiB); for a content result ([`ToolContent`](crate::ToolContent): images, resources),
    /// the size of its blocks as JSON, though the model reads only their summary — they are
    /// kept and forwarded whole. A larger result is withheld: the model reads `ERROR: Tool '<name>' result
    /// withheld by policy: the result is <n> bytes, the limit is <m> bytes
    /// (max_tool_result_bytes)`, and `PipelineEvent::ToolResultWithheld` is published. A code
    /// skill's typed call still gets its value.
    pub max_tool_result_bytes: usize,
    /// Tokens (prompt plus completion, as the provider reports them) per run (default: no limit).
    pub max_tokens: Option<u64>,
    /// Times one agentic skill asks the model again when its final answer does not fit the
    /// agent's output type (default 1; 0 fails at once with [`AgentError::Output`]). The model
    /// is told the parse error; the repair is a turn like any other: it passes the turn's
    /// interceptors and gates and counts toward `max_turns`.
    pub max_output_repairs: u32,
    /// How deep sub-agents may nest (default 4): a run a caller started is at depth 0, an agent
    /// it calls as a tool (or hands off to) at 1, and so on. A call that would go deeper ends the
    /// run with [`AgentError::BudgetExceeded`] (`max_agent_depth`); the strictest limit on the
    /// way down applies.
    pub max_agent_depth: u32,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_turns: 8,
            max_tool_calls: 32,
            max_duration: Duration::from_secs(300),
            per_tool_timeout: Duration::from_secs(60),
            interceptor_timeout: Duration::from_secs(60),
            max_tool_args_bytes: 64 * 1024,
            max_tool_result_bytes: 1024 * 1024,
            max_tokens: None,
            max_output_repairs: 1,
            max_agent_depth: 4,
        }
    }
}

impl Budget {
    /// Set [`Budget::max_turns`].
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.max_turns = turns;
        self
    }
    /// Set [`Budget::max_tool_calls`].
    pub fn max_tool_calls(mut self, calls: u32) -> Self {
        self.max_tool_calls = calls;
        self
    }
    /// Set [`Budget::max_duration`].
    pub fn max_duration(mut self, duration: Duration) -> Self {
        self.max_duration = duration;
        self
    }
    /// Set [`Budget::per_tool_timeout`].
    pub fn per_tool_timeout(mut self, timeout: Duration) -> Self {
        self.per_tool_timeout = timeout;
        self
    }
    /// Set [`Budget::interceptor_timeout`].
    pub fn interceptor_timeout(mut self, timeout: Duration) -> Self {
        self.interceptor_timeout = timeout;
        self
    }
    /// Set [`Budget::max_tokens`].
    pub fn max_tokens(mut self, tokens: u64) -> Self {
        self.max_tokens = Some(tokens);
        self
    }
    /// Set [`Budget::max_output_repairs`].
    pub fn max_output_repairs(mut self, repairs: u32) -> Self {
        self.max_output_repairs = repairs;
        self
    }
    /// Set [`Budget::max_tool_result_bytes`].
    pub fn max_tool_result_bytes(mut self, bytes: usize) -> Self {
        self.max_tool_result_bytes = bytes;
        self
    }
    /// Set [`Budget::max_agent_depth`].
    pub fn max_agent_depth(mut self, depth: u32) -> Self {
        self.max_agent_depth = depth;
        self
    }
    /// Set [`Budget::max_tool_args_bytes`].
    pub fn max_tool_args_bytes(mut self, bytes: usize) -> Self {
        self.max_tool_args_bytes = bytes;
        self
    }
}

/// One of the limits of a [`Budget`].
///
/// ```
/// assert_eq!(agents_kt::BudgetLimit::MaxToolCalls.to_string(), "max_tool_calls");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BudgetLimit {
    /// [`Budget::max_turns`].
    MaxTurns,
    /// [`Budget::max_tool_calls`].
    MaxToolCalls,
    /// [`Budget::max_duration`].
    MaxDuration,
    /// [`Budget::per_tool_timeout`].
    PerToolTimeout,
    /// [`Budget::max_tool_args_bytes`].
    MaxToolArgsBytes,
    /// [`Budget::max_tool_result_bytes`].
    MaxToolResultBytes,
    /// [`Budget::max_tokens`].
    MaxTokens,
    /// [`Budget::max_agent_depth`].
    MaxAgentDepth,
}

impl std::fmt::Display for BudgetLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BudgetLimit::MaxTurns => "max_turns",
            BudgetLimit::MaxToolCalls => "max_tool_calls",
            BudgetLimit::MaxDuration => "max_duration",
            BudgetLimit::PerToolTimeout => "per_tool_timeout",
            BudgetLimit::MaxToolArgsBytes => "max_tool_args_bytes",
            BudgetLimit::MaxToolResultBytes => "max_tool_result_bytes",
            BudgetLimit::MaxTokens => "max_tokens",
            BudgetLimit::MaxAgentDepth => "max_agent_depth",
        })
    }
}

/// How much of one limit a run has used, as `on_budget_threshold` observers see it.
///
/// ```
/// let u = agents_kt::BudgetUsage::new(agents_kt::BudgetLimit::MaxTurns, 4.0, 5.0);
/// assert_eq!(u.fraction(), 0.8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct BudgetUsage {
    /// Which limit.
    pub limit: BudgetLimit,
    /// How much is used (turns, calls, or seconds).
    pub used: f64,
    /// The limit, in the same unit.
    pub max: f64,
}

impl BudgetUsage {
    /// `used` of `max` (turns, calls, tokens or seconds) of one limit.
    ///
    /// ```
    /// use agents_kt::{BudgetLimit, BudgetUsage};
    /// assert_eq!(BudgetUsage::new(BudgetLimit::MaxToolCalls, 8.0, 32.0).fraction(), 0.25);
    /// ```
    pub fn new(limit: BudgetLimit, used: f64, max: f64) -> Self {
        BudgetUsage { limit, used, max }
    }

    /// `used / max`.
    pub fn fraction(&self) -> f64 {
        if self.max <= 0.0 {
            1.0
        } else {
            self.used / self.max
        }
    }
}

/// A run's spending so far, and which thresholds have already fired.
#[derive(Debug)]
pub(crate) struct BudgetTracker {
    budget: Budget,
    started: Instant,
    /// The same start on the coarse clock, for the check at every step (`coarse_clock.rs`).
    started_coarse: coarsetime::Instant,
    turns: u32,
    tool_calls: u32,
    tokens: u64,
    /// (threshold index, limit) pairs that have fired: each fires once per run.
    fired: Vec<(usize, BudgetLimit)>,
}

impl BudgetTracker {
    pub(crate) fn new(budget: Budget) -> Self {
        BudgetTracker {
            budget,
            started: Instant::now(),
            started_coarse: crate::coarse_clock::now(),
            turns: 0,
            tool_calls: 0,
            tokens: 0,
            fired: Vec::new(),
        }
    }

    /// Count a model turn; an error if it is one too many.
    pub(crate) fn begin_turn(&mut self) -> Result<u32, AgentError> {
        self.check_duration()?;
        if self.turns >= self.budget.max_turns {
            return Err(exceeded(
                BudgetLimit::MaxTurns,
                format!("the run has used all {} turns", self.budget.max_turns),
            ));
        }
        self.turns += 1;
        Ok(self.turns)
    }

    /// Count a requested tool call (denied ones too); an error if it is one too many.
    pub(crate) fn begin_tool_call(&mut self) -> Result<(), AgentError> {
        self.check_duration()?;
        if self.tool_calls >= self.budget.max_tool_calls {
            return Err(exceeded(
                BudgetLimit::MaxToolCalls,
                format!(
                    "the model requested more than {} tool calls",
                    self.budget.max_tool_calls
                ),
            ));
        }
        self.tool_calls += 1;
        Ok(())
    }

    /// Count the tokens one model call used; an error once the run has used more than allowed.
    pub(crate) fn add_tokens(&mut self, usage: crate::Usage) -> Result<(), AgentError> {
        self.tokens = self.tokens.saturating_add(usage.total());
        match self.budget.max_tokens {
            Some(max) if self.tokens > max => Err(exceeded(
                BudgetLimit::MaxTokens,
                format!("the run used {} tokens, more than {max}", self.tokens),
            )),
            _ => Ok(()),
        }
    }

    /// An error once the run has taken longer than `max_duration`. The run's timer ends it
    /// at the limit whenever it waits; this check, at every turn and tool call, catches a run
    /// that never waited — to within the coarse clock's tick.
    pub(crate) fn check_duration(&self) -> Result<(), AgentError> {
        if crate::coarse_clock::since(self.started_coarse) > self.budget.max_duration {
            return Err(duration_exceeded(self.budget.max_duration));
        }
        Ok(())
    }

    /// Current usage of every counted limit.
    pub(crate) fn usage(&self) -> Vec<BudgetUsage> {
        let mut usage = vec![
            BudgetUsage {
                limit: BudgetLimit::MaxTurns,
                used: f64::from(self.turns),
                max: f64::from(self.budget.max_turns),
            },
            BudgetUsage {
                limit: BudgetLimit::MaxToolCalls,
                used: f64::from(self.tool_calls),
                max: f64::from(self.budget.max_tool_calls),
            },
            BudgetUsage {
                limit: BudgetLimit::MaxDuration,
                used: self.started.elapsed().as_secs_f64(),
                max: self.budget.max_duration.as_secs_f64(),
            },
        ];
        if let Some(max) = self.budget.max_tokens {
            usage.push(BudgetUsage {
                limit: BudgetLimit::MaxTokens,
                used: self.tokens as f64,
                max: max as f64,
            });
        }
        usage
    }

    /// The thresholds (by index into `fractions`) newly crossed, each reported once per run.
    pub(crate) fn crossed(&mut self, fractions: &[f64]) -> Vec<(usize, BudgetUsage)> {
        let mut crossed = Vec::new();
        // Without threshold observers there is nothing to compute (nor a clock to read).
        if fractions.is_empty() {
            return crossed;
        }
        for usage in self.usage() {
            for (index, fraction) in fractions.iter().enumerate() {
                let key = (index, usage.limit);
                if usage.fraction() >= *fraction && !self.fired.contains(&key) {
                    self.fired.push(key);
                    crossed.push((index, usage));
                }
            }
        }
        crossed
    }
}

pub(crate) fn exceeded(limit: BudgetLimit, detail: String) -> AgentError {
    AgentError::BudgetExceeded { limit, detail }
}

pub(crate) fn duration_exceeded(max: Duration) -> AgentError {
    exceeded(
        BudgetLimit::MaxDuration,
        format!("the run took longer than {max:?}"),
    )
}
