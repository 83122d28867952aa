//! The permission manifest: what an agent tree may do, as stable JSON a reviewer can read and
//! diff — each agent, its model, its tools (with their arguments' schemas by hash), the agents it
//! runs (their manifests, nested), its grants, gates and interceptors by name, its constraints and
//! budget — with a SHA-256 hash over its canonical form. Built once, when the agent is built; the
//! hash is stamped on the run's ids (so on every event), its `invoke_agent` span, its journal
//! entries and its approval fingerprints, so an approval given under another manifest is stale.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::chain::Link;
use crate::tool::inherited::NamedGate;
use crate::tool::runtime::ErasedTool;
use crate::{Budget, Constraint, Grant, ModelInfo};

/// An agent tree's permissions as stable JSON, and its hash (see [`Agent::manifest`]).
///
/// [`Agent::manifest`]: crate::Agent::manifest
///
/// ```
/// use agents_kt::{Agent, Reply, ScriptedModel, Verdict};
/// let build = || {
///     Agent::<String, String>::builder("desk")
///         .model(ScriptedModel::new([Reply::text("hi")]))
///         .gate_turn(|_: &[agents_kt::Message]| Verdict::Allow)
///         .named("no_secrets")
///         .build()
///         .unwrap()
/// };
/// let (a, b) = (build().manifest(), build().manifest());
/// assert_eq!(a.hash(), b.hash());
/// assert_eq!(a.json()["turn_gates"][0], "no_secrets");
/// assert_eq!(a.hash().len(), 64);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    json: Arc<Value>,
    hash: Arc<str>,
}

impl Manifest {
    /// The manifest: an object whose keys are sorted at every level.
    pub fn json(&self) -> &Value {
        &self.json
    }

    /// SHA-256 of its canonical JSON, in hex: equal for equal permissions, across builds and
    /// processes.
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// The hash, shared (stamped on a run's ids).
    pub(crate) fn shared_hash(&self) -> Arc<str> {
        Arc::clone(&self.hash)
    }

    /// The manifest as indented JSON, keys sorted, ending in a newline: the form to commit and
    /// diff in review.
    pub fn to_pretty_string(&self) -> String {
        let mut text = serde_json::to_string_pretty(&*self.json).unwrap_or_default();
        text.push('\n');
        text
    }

    pub(crate) fn new(json: Value) -> Self {
        let json = sorted(json);
        let hash = crate::approval::canonical_sha256(&json);
        Manifest {
            json: Arc::new(json),
            hash: Arc::from(hash),
        }
    }
}

/// What one agent's manifest is made of.
pub(crate) struct Parts<'a, OUT> {
    pub name: &'a str,
    pub model: Option<&'a ModelInfo>,
    pub skills: Vec<Value>,
    pub tools: &'a [Arc<dyn ErasedTool>],
    pub handoffs: &'a [Arc<str>],
    pub skill_chain: &'a [Link<String, OUT>],
    pub skill_gates: &'a [NamedGate<String>],
    pub turn_chain: &'a [Link<Vec<crate::Message>, OUT>],
    pub turn_gates: &'a [NamedGate<Vec<crate::Message>>],
    pub grants: &'a [Grant],
    pub constraints: &'a [Constraint],
    pub policies: &'a [String],
    pub budget: &'a Budget,
    pub interceptors_apply_to_children: bool,
    pub approvals: bool,
}

impl<OUT> Parts<'_, OUT> {
    /// The manifest of these parts.
    pub(crate) fn manifest(&self) -> Manifest {
        let mut grants: Vec<&Grant> = self.grants.iter().collect();
        grants.sort();
        grants.dedup();
        let grants: Vec<Value> = (grants.into_iter())
            .map(|grant| json!({"tool": grant.tool(), "confirm": grant.confirms()}))
            .collect();
        let mut constraints: Vec<String> =
            self.constraints.iter().map(Constraint::describe).collect();
        constraints.sort();
        let mut tools: Vec<Value> = self.tools.iter().map(|tool| tool.manifest()).collect();
        tools.sort_by(|a, b| a["name"].to_string().cmp(&b["name"].to_string()));
        let budget = self.budget;
        Manifest::new(json!({
            "agent": self.name,
            "model": self.model.map(|model| json!({"provider": model.provider, "model": model.model})),
            "skills": self.skills,
            "tools": tools,
            "handoffs": self.handoffs.iter().map(|name| &**name).collect::<Vec<_>>(),
            "skill_interceptors": link_names(self.skill_chain),
            "skill_gates": gate_names(self.skill_gates),
            "turn_interceptors": link_names(self.turn_chain),
            "turn_gates": gate_names(self.turn_gates),
            "grants": grants,
            "constraints": constraints,
            "policies": self.policies,
            "interceptors_apply_to_children": self.interceptors_apply_to_children,
            "approvals": self.approvals,
            "budget": {
                "max_turns": budget.max_turns,
                "max_tool_calls": budget.max_tool_calls,
                "max_duration_ms": millis(budget.max_duration),
                "per_tool_timeout_ms": millis(budget.per_tool_timeout),
                "interceptor_timeout_ms": millis(budget.interceptor_timeout),
                "max_tool_args_bytes": budget.max_tool_args_bytes,
                "max_tool_result_bytes": budget.max_tool_result_bytes,
                "max_tokens": budget.max_tokens,
                "max_output_repairs": budget.max_output_repairs,
                "max_agent_depth": budget.max_agent_depth,
            },
        }))
    }
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn link_names<T, R>(links: &[Link<T, R>]) -> Vec<String> {
    (links.iter().enumerate())
        .map(|(index, link)| {
            link.name()
                .map_or_else(|| format!("#{index}"), str::to_string)
        })
        .collect()
}

fn gate_names<T>(gates: &[NamedGate<T>]) -> Vec<String> {
    (gates.iter().enumerate())
        .map(|(index, gate)| {
            gate.name
                .as_deref()
                .map_or_else(|| format!("#{index}"), str::to_string)
        })
        .collect()
}

/// `value` with every object's keys in sorted order (whatever map the JSON library keeps), so
/// its printed form is stable too.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let map: Map<String, Value> = entries
                .into_iter()
                .map(|(key, value)| (key, sorted(value)))
                .collect();
            Value::Object(map)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        scalar => scalar,
    }
}
