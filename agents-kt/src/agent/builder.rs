//! Configuring an agent: model, tools, skills, interceptors, observers, budget.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use serde_json::Value;

use super::output::OutputFormat;
use super::{Agent, AgentInner, AgentInput, AgentOutput, Core, Selector};
use crate::observers::{Observers, PipelineHub};
use crate::skill::SkillKind;
use crate::tool::runtime::{ErasedTool, ToolRuntime};
use crate::tool::{DynToolInterceptor, DynamicInToolChain, FnDynToolInterceptor};
use crate::{
    AgentError, Budget, BudgetUsage, BuildError, FnInterceptor, Interceptor, InterceptorDecision,
    InterceptorReturn, IntoSkill, IntoToolInterceptor, Message, ModelClient, Skill, Tool,
    ToolInterceptor, ToolSpec,
};

/// Builds a tool's runtime once every interceptor is known.
type PendingTool =
    Box<dyn FnOnce(&[ToolInterceptorEntry]) -> Result<Arc<dyn ErasedTool>, BuildError> + Send>;

/// A tool interceptor as registered: for every tool, or for one tool by name.
enum ToolInterceptorEntry {
    Dynamic(Arc<dyn DynToolInterceptor>),
    /// Holds a [`ToolInterceptor<T>`] for the tool named `tool`.
    Typed {
        tool: &'static str,
        interceptor: Box<dyn Any + Send + Sync>,
    },
}

/// Configures an [`Agent`]; finish with [`AgentBuilder::build`].
///
/// Interceptors run in registration order; typed tool interceptors and dynamic ones share one
/// order. An agent with no skill gets an agentic skill named `default` allowed every tool.
///
/// ```
/// use agents_kt::{Agent, Budget, Decision, Reply, ScriptedModel};
/// let agent: Agent<String, String> = Agent::builder("assistant")
///     .model(ScriptedModel::new([Reply::text("done")]))
///     .budget(Budget::default().max_turns(4))
///     .on_before_tool_call(|name: &str, args: &serde_json::Value| {
///         if name == "writeFile" && args["path"].as_str().is_some_and(|p| p.starts_with("/etc/")) {
///             Decision::deny("system paths are off-limits")
///         } else {
///             Decision::Proceed
///         }
///     })
///     .on_tool_denied(|name, _args, reason| eprintln!("denied {name}: {reason}"))
///     .build()
///     .unwrap();
/// assert_eq!(agent.name(), "assistant");
/// ```
pub struct AgentBuilder<IN, OUT> {
    name: String,
    model: Option<Arc<dyn ModelClient>>,
    system_prompt: Option<String>,
    budget: Budget,
    tools: Vec<(&'static str, PendingTool)>,
    tool_interceptors: Vec<ToolInterceptorEntry>,
    skills: Vec<Skill<IN, OUT>>,
    selector: Option<Selector<IN>>,
    skill_chain: Vec<Arc<dyn Interceptor<String, OUT>>>,
    turn_chain: Vec<Arc<dyn Interceptor<Vec<Message>, OUT>>>,
    observers: Observers,
    errors: Vec<BuildError>,
}

impl<IN: AgentInput, OUT: AgentOutput> AgentBuilder<IN, OUT> {
    pub(crate) fn new(name: String) -> Self {
        AgentBuilder {
            name,
            model: None,
            system_prompt: None,
            budget: Budget::default(),
            tools: Vec::new(),
            tool_interceptors: Vec::new(),
            skills: Vec::new(),
            selector: None,
            skill_chain: Vec::new(),
            turn_chain: Vec::new(),
            observers: Observers::default(),
            errors: Vec::new(),
        }
    }

    /// The model agentic skills (and code skills' `chat`) call.
    pub fn model(mut self, model: impl ModelClient) -> Self {
        self.model = Some(Arc::new(model));
        self
    }

    /// A model shared with other agents.
    pub fn shared_model(mut self, model: Arc<dyn ModelClient>) -> Self {
        self.model = Some(model);
        self
    }

    /// The system prompt, first message of every agentic skill's conversation.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The run's limits.
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Register a tool.
    pub fn tool<T: Tool>(mut self, tool: T) -> Self {
        let pending: PendingTool = Box::new(move |interceptors: &[ToolInterceptorEntry]| {
            let spec = spec_of(&tool)?;
            let mut chain: Vec<Arc<dyn Interceptor<T::Args, T::Output>>> = Vec::new();
            for entry in interceptors {
                match entry {
                    ToolInterceptorEntry::Dynamic(dynamic) => {
                        chain.push(Arc::new(DynamicInToolChain::<T>::new(Arc::clone(dynamic))));
                    }
                    ToolInterceptorEntry::Typed { tool, interceptor } if *tool == T::NAME => {
                        let typed = interceptor
                            .downcast_ref::<ToolInterceptor<T>>()
                            .ok_or_else(|| BuildError::InterceptorToolMismatch {
                                tool: T::NAME.to_string(),
                            })?;
                        chain.push(Arc::clone(&typed.inner));
                    }
                    ToolInterceptorEntry::Typed { .. } => {}
                }
            }
            Ok(Arc::new(ToolRuntime::new(tool, spec, chain)) as Arc<dyn ErasedTool>)
        });
        self.tools.push((T::NAME, pending));
        self
    }

    /// Register a skill (a [`Skill`], or the type `#[skill]` generates). With several skills, add
    /// [`AgentBuilder::skill_selector`].
    pub fn skill(mut self, skill: impl IntoSkill<IN, OUT>) -> Self {
        self.skills.push(skill.into_skill());
        self
    }

    /// Choose the skill for each input by name (needed when the agent has several skills).
    pub fn skill_selector(
        mut self,
        select: impl Fn(&IN) -> String + Send + Sync + 'static,
    ) -> Self {
        self.selector = Some(Arc::new(select));
        self
    }

    /// Intercept skill selection: the closure sees the chosen skill's name. `ProceedWith(name)`
    /// reroutes, `Deny` fails the run, `Substitute(out)` skips the skill with `out` as output.
    pub fn on_before_skill<F, D, M>(mut self, interceptor: F) -> Self
    where
        F: Fn(&str) -> D + Send + Sync + 'static,
        D: InterceptorReturn<String, OUT, M> + 'static,
        M: 'static,
    {
        self.skill_chain
            .push(Arc::new(FnInterceptor::<F, str, M>::new(interceptor)));
        self
    }

    /// Intercept every model call: the closure sees the outbound messages. `ProceedWith(msgs)`
    /// replaces them (for later turns too), `Deny` fails the run without calling the model,
    /// `Substitute(out)` ends the run with `out` without calling the model.
    pub fn on_before_turn<F, D, M>(mut self, interceptor: F) -> Self
    where
        F: Fn(&[Message]) -> D + Send + Sync + 'static,
        D: InterceptorReturn<Vec<Message>, OUT, M> + 'static,
        M: 'static,
    {
        self.turn_chain
            .push(Arc::new(FnInterceptor::<F, [Message], M>::new(interceptor)));
        self
    }

    /// Intercept every tool's calls, seen as `(name, JSON arguments)`. A `ProceedWith` or
    /// `Substitute` value that does not fit the tool's types denies the call, saying why.
    pub fn on_before_tool_call<F, D, M>(mut self, interceptor: F) -> Self
    where
        F: Fn(&str, &Value) -> D + Send + Sync + 'static,
        D: InterceptorReturn<Value, Value, M> + 'static,
        M: 'static,
    {
        self.tool_interceptors
            .push(ToolInterceptorEntry::Dynamic(Arc::new(
                FnDynToolInterceptor::<F, M>::new(interceptor),
            )));
        self
    }

    /// Intercept one tool's calls with its typed arguments and output: a [`ToolInterceptor`], or
    /// a function over the tool's `&Args` (such as one marked `#[before_tool_call(tool)]`).
    pub fn before_tool_call<T: Tool, M>(
        mut self,
        interceptor: impl IntoToolInterceptor<T, M>,
    ) -> Self {
        self.tool_interceptors.push(ToolInterceptorEntry::Typed {
            tool: T::NAME,
            interceptor: Box::new(interceptor.into_tool_interceptor()),
        });
        self
    }

    /// Observe the skill chosen for each run (after `on_before_skill` accepted or rerouted).
    pub fn on_skill_chosen(mut self, observer: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.observers.skill_chosen.push(Arc::new(observer));
        self
    }

    /// Observe tool calls that produced a result (ran or were substituted): name, effective
    /// arguments, result.
    pub fn on_tool_use(
        mut self,
        observer: impl Fn(&str, &Value, &Value) + Send + Sync + 'static,
    ) -> Self {
        self.observers.tool_use.push(Arc::new(observer));
        self
    }

    /// Observe tool bodies that failed: name, arguments, error.
    pub fn on_tool_error(
        mut self,
        observer: impl Fn(&str, &Value, &str) + Send + Sync + 'static,
    ) -> Self {
        self.observers.tool_error.push(Arc::new(observer));
        self
    }

    /// Observe tool calls an interceptor denied: name, arguments, reason.
    pub fn on_tool_denied(
        mut self,
        observer: impl Fn(&str, &Value, &str) + Send + Sync + 'static,
    ) -> Self {
        self.observers.tool_denied.push(Arc::new(observer));
        self
    }

    /// Observe runs that fail, with the error the caller receives.
    pub fn on_error(mut self, observer: impl Fn(&AgentError) + Send + Sync + 'static) -> Self {
        self.observers.error.push(Arc::new(observer));
        self
    }

    /// Observe a run crossing `fraction` (in (0, 1]) of a budget limit; fires once per limit and
    /// run.
    pub fn on_budget_threshold(
        mut self,
        fraction: f64,
        observer: impl Fn(&BudgetUsage) + Send + Sync + 'static,
    ) -> Self {
        if !(fraction > 0.0 && fraction <= 1.0) {
            self.errors.push(BuildError::InvalidThreshold { fraction });
        }
        self.observers.budget_thresholds.push(fraction);
        self.observers.budget.push(Arc::new(observer));
        self
    }

    /// Observe the tokens each model call used, as the provider reports them.
    pub fn on_token_usage(
        mut self,
        observer: impl Fn(&crate::Usage) + Send + Sync + 'static,
    ) -> Self {
        self.observers.token_usage.push(Arc::new(observer));
        self
    }

    /// Observe every non-`Proceed` interceptor decision, effective or not.
    pub fn on_interceptor_decision(
        mut self,
        observer: impl Fn(&InterceptorDecision) + Send + Sync + 'static,
    ) -> Self {
        self.observers.decision.push(Arc::new(observer));
        self
    }

    /// Check the configuration and build the agent.
    pub fn build(self) -> Result<Agent<IN, OUT>, BuildError> {
        if let Some(error) = self.errors.into_iter().next() {
            return Err(error);
        }
        let mut tools = Vec::with_capacity(self.tools.len());
        let mut tools_by_name = HashMap::new();
        for (name, pending) in self.tools {
            if tools_by_name.insert(name, tools.len()).is_some() {
                return Err(BuildError::DuplicateTool {
                    name: name.to_string(),
                });
            }
            tools.push(pending(&self.tool_interceptors)?);
        }
        for entry in &self.tool_interceptors {
            if let ToolInterceptorEntry::Typed { tool, .. } = entry
                && !tools_by_name.contains_key(tool)
            {
                return Err(BuildError::InterceptorForUnknownTool {
                    tool: tool.to_string(),
                });
            }
        }
        let mut skills = self.skills;
        if skills.is_empty() {
            let every_tool: Vec<&str> = tools.iter().map(|tool| tool.name()).collect();
            skills.push(Skill::agentic("default").tools(every_tool));
        }
        check_skills(&skills, &tools_by_name, self.model.is_some())?;
        if skills.len() > 1 && self.selector.is_none() {
            return Err(BuildError::NoSelector {
                skills: skills
                    .iter()
                    .map(|skill| skill.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let core = Core {
            name: self.name,
            model: self.model,
            system_prompt: self.system_prompt,
            tools,
            tools_by_name,
            turn_chain: self.turn_chain,
            observers: self.observers,
            hub: PipelineHub::default(),
            budget: self.budget,
            output: OutputFormat::of::<OUT>(),
            runs: AtomicU64::new(0),
            calls: AtomicU64::new(0),
        };
        Ok(Agent {
            inner: Arc::new(AgentInner {
                core: Arc::new(core),
                skills,
                selector: self.selector,
                skill_chain: self.skill_chain,
            }),
        })
    }
}

/// Skill names are unique, allow-lists name registered tools, and agentic skills have a model.
fn check_skills<IN, OUT>(
    skills: &[Skill<IN, OUT>],
    tools: &HashMap<&'static str, usize>,
    has_model: bool,
) -> Result<(), BuildError> {
    for (position, skill) in skills.iter().enumerate() {
        if skills[..position]
            .iter()
            .any(|earlier| earlier.name == skill.name)
        {
            return Err(BuildError::DuplicateSkill {
                name: skill.name.clone(),
            });
        }
        if let SkillKind::Agentic { tools: allowed, .. } = &skill.kind {
            if !has_model {
                return Err(BuildError::NoModel {
                    skill: skill.name.clone(),
                });
            }
            if let Some(missing) = allowed
                .iter()
                .find(|name| !tools.contains_key(name.as_str()))
            {
                return Err(BuildError::UnknownAllowedTool {
                    skill: skill.name.clone(),
                    tool: missing.clone(),
                });
            }
        }
    }
    Ok(())
}

/// What the model is told about tool `T`: its name, description and argument schema, which must
/// be an object.
fn spec_of<T: Tool>(tool: &T) -> Result<ToolSpec, BuildError> {
    let parameters = serde_json::to_value(schemars::schema_for!(T::Args))
        .unwrap_or_else(|_| Value::Object(Default::default()));
    spec(
        T::NAME,
        tool.description().into_owned(),
        parameters,
        tool.output_schema(),
    )
}

/// The non-generic rest of [`spec_of`], compiled once rather than once per tool.
fn spec(
    name: &str,
    description: String,
    mut parameters: Value,
    output_schema: Option<Value>,
) -> Result<ToolSpec, BuildError> {
    if let Value::Object(schema) = &mut parameters {
        schema.remove("$schema");
    }
    let kind = parameters
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("none");
    if kind != "object" {
        return Err(BuildError::ArgsNotObject {
            tool: name.to_string(),
            found: kind.to_string(),
        });
    }
    let output_schema = output_schema.map(|mut schema| {
        if let Value::Object(map) = &mut schema {
            map.remove("$schema");
        }
        schema
    });
    Ok(ToolSpec {
        name: name.to_string(),
        description,
        parameters,
        output_schema: output_schema
            .filter(|schema| schema.get("type") == Some(&Value::from("object"))),
    })
}
