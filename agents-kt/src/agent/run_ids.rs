//! A run's id, `agent/kind-N`: written out rather than `format!`ted, since every run and every
//! MCP call takes one and the formatting machinery cost more than the rest of it.

use std::sync::atomic::Ordering;

use super::{Agent, AgentInput, AgentOutput};
use crate::RunIds;

impl<IN: AgentInput, OUT: AgentOutput> Agent<IN, OUT> {
    /// The ids of a run an MCP client started: its session is the client's.
    #[cfg(feature = "mcp")]
    pub(super) fn mcp_ids(&self, client: &str) -> RunIds {
        let name = &self.inner.core.name;
        RunIds::new(
            self.next_run_id("mcp"),
            [name.as_str(), "/mcp-client/", client].concat(),
        )
    }

    /// A new run's ids: its run id, which is also its session's.
    pub(super) fn next_ids(&self, kind: &str) -> RunIds {
        let run_id = self.next_run_id(kind);
        RunIds::new(run_id.clone(), run_id)
    }

    /// `agent/kind-N`, N counting this agent's runs.
    pub(super) fn next_run_id(&self, kind: &str) -> String {
        let core = &self.inner.core;
        let number = core.runs.fetch_add(1, Ordering::Relaxed) + 1;
        run_id(&core.name, kind, number)
    }
}

/// `name/kind-number`.
pub(super) fn run_id(name: &str, kind: &str, number: u64) -> String {
    let digits = crate::decimal::Decimal::of(number);
    let mut id = String::with_capacity(name.len() + kind.len() + 2 + digits.len());
    id.push_str(name);
    id.push('/');
    id.push_str(kind);
    id.push('-');
    digits.push_onto(&mut id);
    id
}

#[cfg(test)]
mod tests {
    use super::run_id;

    #[test]
    fn a_run_id_is_the_agent_the_kind_and_the_number_in_decimal() {
        for number in [0, 1, 9, 10, 99, 100, 1_234_567_890, u64::MAX] {
            assert_eq!(run_id("desk", "run", number), format!("desk/run-{number}"));
        }
        assert_eq!(run_id("", "mcp", 7), "/mcp-7");
    }
}
