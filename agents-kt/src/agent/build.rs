//! Building an agent: every registration checked (each problem reported), each tool's runtime
//! assembled with its links, and the agent's core put together.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::manifest;
use super::output::OutputFormat;
use super::tool_names::ToolNames;
use super::{Agent, AgentBuilder, AgentInner, AgentInput, AgentOutput, Core, SkillKind};
use crate::observers::PipelineHub;
use crate::policy::{ConstraintsGate, GrantsGate};
use crate::tool::register::Registration;
use crate::tool::registry::{self, ToolEntry};
use crate::tool::runtime::ErasedTool;
use crate::{BuildError, Grant, Skill};

impl<IN, OUT> AgentBuilder<IN, OUT> {
    /// Check the configuration and build the agent. Every problem found is reported: one as
    /// itself, several as [`BuildError::Several`].
    // The agent's types are checked here, once, and nowhere before: an output type without its
    // derives is then one error in `AgentOutput`'s words, not one per builder method.
    pub fn build(mut self) -> Result<Agent<IN, OUT>, BuildError>
    where
        IN: AgentInput,
        OUT: AgentOutput,
    {
        if !self.grants.is_empty() {
            // The grants judge every call as one gate, this agent's and every one under it.
            let entry = GrantsGate::entry(&self.name, &self.grants);
            self.tool_links.push(entry);
        }
        if !self.constraints.is_empty() {
            let gate = ConstraintsGate::new(&self.name, &self.constraints);
            let name = Some(Arc::from("constraints"));
            self.tool_links.push(ToolEntry::call_gate(gate, name));
        }
        let mut errors = self.errors;
        let mut tools = Vec::with_capacity(self.tools.len());
        let mut tools_by_name = ToolNames::default();
        let mut sources: HashMap<Arc<str>, String> = HashMap::new();
        for Registration {
            name,
            source,
            pending,
        } in self.tools
        {
            if let Some(first) = sources.get(&name) {
                errors.push(BuildError::DuplicateTool {
                    name: name.to_string(),
                    first: first.clone(),
                    second: source,
                });
                continue;
            }
            sources.insert(Arc::clone(&name), source);
            match pending(&self.tool_links) {
                Ok(tool) => {
                    tools_by_name.insert(name, tools.len());
                    tools.push(tool);
                }
                Err(error) => errors.push(error),
            }
        }
        // A typed interceptor for a tool the agent lacks is a mistake; a typed gate is not: it
        // flows down to the agents this one runs, whose tools it judges (as an interceptor does
        // when the agent lets its interceptors apply to its children).
        let for_children =
            |entry: &registry::ToolEntry| entry.is_gate() || self.interceptors_apply_to_children;
        for entry in &self.tool_links {
            if let Some(tool) = entry.typed_for()
                && !tools_by_name.contains_key(tool)
                && !for_children(entry)
                && !errors
                    .iter()
                    .any(|e| matches!(e, BuildError::ArgsNotObject { tool: t, .. } if t == tool))
            {
                errors.push(BuildError::InterceptorForUnknownTool {
                    tool: tool.to_string(),
                });
            }
        }
        let mut skills = self.skills;
        if skills.is_empty() {
            let every_tool: Vec<&str> = tools.iter().map(|tool| tool.name()).collect();
            skills.push(Skill::agentic("default").tool_names(every_tool));
        }
        check_skills(&skills, &tools_by_name, self.model.is_some(), &mut errors);
        check_grants(&self.name, &skills, &tools, &self.grants, &mut errors);
        if self.model_chooses && self.model.is_none() {
            errors.push(BuildError::NoModel {
                skill: "<the model's choice of skill>".to_string(),
            });
        }
        if skills.len() > 1 && self.selector.is_none() && !self.model_chooses {
            errors.push(BuildError::NoSelector {
                skills: skills
                    .iter()
                    .map(|skill| skill.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        if let Some(error) = BuildError::all(errors) {
            return Err(error);
        }
        let (any_tool_chain, any_tool_gates) = registry::any_tool_links(&self.tool_links);
        let mut tree_links = self.tree;
        let inherits_all = self.interceptors_apply_to_children;
        tree_links.tools = (self.tool_links.iter())
            .filter(|entry| inherits_all || entry.is_gate())
            .cloned()
            .collect();
        tree_links.counts_calls = !self.constraints.is_empty();
        let model_info = self.model.as_ref().map(|model| model.info());
        // The tree's permissions, described and hashed once, here: never per call.
        let manifest = manifest::Parts {
            name: &self.name,
            model: model_info.as_ref(),
            skills: skills.iter().map(skill_manifest).collect(),
            tools: &tools,
            handoffs: &self.handoffs,
            skill_chain: &self.links.skill_chain,
            skill_gates: &tree_links.skill_gates,
            turn_chain: &self.links.turn_chain,
            turn_gates: &tree_links.turn_gates,
            grants: &self.grants,
            constraints: &self.constraints,
            policies: &self.policies,
            budget: &self.budget,
            interceptors_apply_to_children: self.interceptors_apply_to_children,
            approvals: self.approval_desk.is_some(),
        }
        .manifest();
        #[cfg(feature = "otel")]
        let metrics = crate::telemetry::GenAiMetrics::new(
            &self.meter.unwrap_or_else(crate::telemetry::global_meter),
            model_info.as_ref(),
        );
        let core = Core {
            name: self.name,
            model: self.model,
            model_info,
            capture_content: self
                .capture_content
                .unwrap_or_else(super::trace::capture_content_from_env),
            hide_interceptor_panics: self.hide_interceptor_panics,
            #[cfg(feature = "otel")]
            metrics,
            system_prompt: self.system_prompt,
            tools,
            tools_by_name,
            links: self.links,
            any_tool_chain,
            any_tool_gates,
            observers: self.observers,
            hub: PipelineHub::default(),
            budget: self.budget,
            tool_concurrency: self.tool_concurrency,
            output: OutputFormat::of::<OUT>(),
            runs: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            approval_desk: self.approval_desk,
            conversation_wait: self.conversation_wait,
            handoffs: self.handoffs,
            tree_links: Arc::new(tree_links),
            manifest,
        };
        Ok(Agent {
            inner: Arc::new(AgentInner {
                core: Arc::new(core),
                skills,
                selector: self.selector,
                model_chooses: self.model_chooses,
            }),
        })
    }
}

/// A skill as the manifest lists it: its name, kind, and (agentic) the tools it may call.
fn skill_manifest<IN, OUT>(skill: &Skill<IN, OUT>) -> serde_json::Value {
    match &skill.kind {
        SkillKind::Agentic { tools, .. } => {
            let mut tools = tools.clone();
            tools.sort();
            serde_json::json!({"name": skill.name, "kind": "agentic", "tools": tools})
        }
        SkillKind::Code(_) => serde_json::json!({"name": skill.name, "kind": "code"}),
    }
}

/// With any grant declared, every tool a skill can call is granted: an agentic skill's
/// allow-listed tools, and — for a code skill, which can call any — every tool the agent holds.
fn check_grants<IN, OUT>(
    agent: &str,
    skills: &[Skill<IN, OUT>],
    tools: &[Arc<dyn ErasedTool>],
    grants: &[Grant],
    errors: &mut Vec<BuildError>,
) {
    if grants.is_empty() {
        return;
    }
    let granted: Vec<&str> = grants.iter().map(Grant::tool).collect();
    let has_code_skill = skills
        .iter()
        .any(|skill| !matches!(skill.kind, SkillKind::Agentic { .. }));
    for tool in tools.iter().map(|tool| tool.name()) {
        if granted.contains(&tool) {
            continue;
        }
        let skill = skills.iter().find_map(|skill| match &skill.kind {
            SkillKind::Agentic { tools: allowed, .. } if allowed.iter().any(|t| t == tool) => {
                Some(format!("skill '{}'", skill.name))
            }
            _ => None,
        });
        let skill = match (skill, has_code_skill) {
            (Some(skill), _) => skill,
            (None, true) => "a code skill".to_string(),
            // Held, but no skill can call it.
            (None, false) => continue,
        };
        errors.push(BuildError::ToolNotGranted {
            agent: agent.to_string(),
            skill,
            tool: tool.to_string(),
            granted: granted.join(", "),
        });
    }
}

/// Skill names are unique, allow-lists name registered tools, and agentic skills have a model.
fn check_skills<IN, OUT>(
    skills: &[Skill<IN, OUT>],
    tools: &ToolNames,
    has_model: bool,
    errors: &mut Vec<BuildError>,
) {
    for (position, skill) in skills.iter().enumerate() {
        if skills[..position]
            .iter()
            .any(|earlier| earlier.name == skill.name)
        {
            errors.push(BuildError::DuplicateSkill {
                name: skill.name.clone(),
            });
        }
        if let SkillKind::Agentic { tools: allowed, .. } = &skill.kind {
            if !has_model {
                errors.push(BuildError::NoModel {
                    skill: skill.name.clone(),
                });
            }
            for missing in allowed
                .iter()
                .filter(|name| !tools.contains_key(name.as_str()))
            {
                errors.push(BuildError::UnknownAllowedTool {
                    skill: skill.name.clone(),
                    tool: missing.clone(),
                });
            }
        }
    }
}
