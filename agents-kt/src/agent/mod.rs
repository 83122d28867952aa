//! The agent: skills over a model and tools, every step guarded by interceptor chains.

mod builder;
pub(crate) mod dispatch;
mod output;
pub(crate) mod run;
mod session;

pub use builder::AgentBuilder;
pub use session::{AgentSession, EventStream};

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tracing::Instrument;

use crate::budget::duration_exceeded;
use crate::chain::{Effect, run_chain};
use crate::observers::{Observers, PipelineHub, notify};
use crate::skill::{SkillContext, SkillKind};
use crate::tool::runtime::ErasedTool;
use crate::{
    AgentError, AgentEvent, Budget, InterceptionPoint, Interceptor, Message, ModelClient,
    PipelineEvent, RunIds, Skill,
};
use output::OutputFormat;
use run::Run;

/// What an agent's input must be: serializable (an agentic skill shows it to the model, as text
/// for a `String`, as JSON otherwise) and movable to the run's task.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an agent's input",
    note = "derive `serde::Serialize` for it; it must also be `Send + 'static`"
)]
pub trait AgentInput: Serialize + Send + 'static {}
impl<T: Serialize + Send + 'static> AgentInput for T {}

/// What an agent's output must be: parsed from the model's answer (a `String` takes the text; any
/// other type is JSON whose schema is sent as the response format), and cloneable so a session
/// can both stream and return it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an agent's output",
    note = "derive `serde::Deserialize`, `schemars::JsonSchema` and `Clone` for it; it must also be `Send + 'static`"
)]
pub trait AgentOutput: DeserializeOwned + JsonSchema + Clone + Send + 'static {}
impl<T: DeserializeOwned + JsonSchema + Clone + Send + 'static> AgentOutput for T {}

/// What every run of an agent shares: the model, the tools with their chains, the turn chain, the
/// observers, the budget.
pub(crate) struct Core<OUT> {
    name: String,
    model: Option<Arc<dyn ModelClient>>,
    system_prompt: Option<String>,
    tools: Vec<Arc<dyn ErasedTool>>,
    tools_by_name: HashMap<&'static str, usize>,
    turn_chain: Vec<Arc<dyn Interceptor<Vec<Message>, OUT>>>,
    observers: Observers,
    hub: PipelineHub,
    budget: Budget,
    output: OutputFormat,
    runs: AtomicU64,
    calls: AtomicU64,
}

impl<OUT> Core<OUT> {
    pub(crate) fn tool(&self, name: &str) -> Option<&Arc<dyn ErasedTool>> {
        self.tools_by_name
            .get(name)
            .map(|index| &self.tools[*index])
    }

    /// An id for a tool call that did not come from the model (a code skill's).
    pub(crate) fn next_call_id(&self) -> String {
        format!(
            "{}/call-{}",
            self.name,
            self.calls.fetch_add(1, Ordering::Relaxed) + 1
        )
    }
}

/// Chooses the skill for an input when an agent has several.
type Selector<IN> = Arc<dyn Fn(&IN) -> String + Send + Sync>;

struct AgentInner<IN, OUT> {
    core: Arc<Core<OUT>>,
    skills: Vec<Skill<IN, OUT>>,
    selector: Option<Selector<IN>>,
    skill_chain: Vec<Arc<dyn Interceptor<String, OUT>>>,
}

/// A typed agent: `IN` goes in, `OUT` comes out, and every skill, model turn and tool call on the
/// way can be inspected, rewritten, denied or short-circuited by interceptors.
///
/// Cloning an `Agent` is cheap and shares everything.
///
/// ```
/// use agents_kt::{Agent, Decision, Reply, ScriptedModel};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let model = ScriptedModel::new([Reply::text("Bonjour !")]);
/// let agent: Agent<String, String> = Agent::builder("greeter")
///     .model(model.clone())
///     .system_prompt("Greet the user in French.")
///     .on_before_turn(|messages: &[agents_kt::Message]| {
///         if messages.iter().any(|m| m.content.contains("ignore previous")) {
///             Decision::deny("possible prompt injection")
///         } else {
///             Decision::Proceed
///         }
///     })
///     .build()?;
/// assert_eq!(agent.run("Hello".to_string()).await?, "Bonjour !");
/// assert_eq!(model.requests()[0].messages[0].content, "Greet the user in French.");
/// # Ok(()) }
/// ```
pub struct Agent<IN, OUT> {
    inner: Arc<AgentInner<IN, OUT>>,
}

impl<IN, OUT> Clone for Agent<IN, OUT> {
    fn clone(&self) -> Self {
        Agent {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<IN: AgentInput, OUT: AgentOutput> Agent<IN, OUT> {
    /// Start configuring an agent called `name`.
    pub fn builder(name: impl Into<String>) -> AgentBuilder<IN, OUT> {
        AgentBuilder::new(name.into())
    }

    /// The agent's name.
    pub fn name(&self) -> &str {
        &self.inner.core.name
    }

    /// Run the agent on `input` (the chat path: the model is called whole through `chat`).
    pub async fn run(&self, input: IN) -> Result<OUT, AgentError> {
        let ids = self.next_ids("run");
        let run = Arc::new(Run::new(Arc::clone(&self.inner.core), ids, None));
        self.execute(input, run, None).await
    }

    /// Run the skill named `skill` on `input` (the chat path), skipping the selector; the skill
    /// chain still runs. This is how an MCP client calls an exposed skill.
    pub async fn run_skill_named(&self, skill: &str, input: IN) -> Result<OUT, AgentError> {
        let ids = self.next_ids("run");
        let run = Arc::new(Run::new(Arc::clone(&self.inner.core), ids, None));
        self.execute(input, run, Some(skill.to_string())).await
    }

    /// Start a session on `input` (the stream path: the model is called through `chat_stream`,
    /// and [`AgentSession::events`] streams what happens). Must be called inside a Tokio runtime;
    /// dropping the session stops the run.
    pub fn session(&self, input: IN) -> AgentSession<OUT> {
        let ids = self.next_ids("session");
        let (sender, receiver) = futures::channel::mpsc::unbounded();
        let run = Arc::new(Run::new(
            Arc::clone(&self.inner.core),
            ids.clone(),
            Some(sender),
        ));
        let agent = self.clone();
        let task = tokio::spawn(async move { agent.execute(input, run, None).await });
        AgentSession::new(ids, receiver, task)
    }

    /// A stream of every [`PipelineEvent`] of every run that starts after this call.
    pub fn observe(&self) -> EventStream<PipelineEvent> {
        EventStream::new(self.inner.core.hub.subscribe())
    }

    /// The names of the agent's skills.
    pub fn skill_names(&self) -> Vec<&str> {
        self.inner.skills.iter().map(|skill| skill.name()).collect()
    }

    /// Call tool `name` as an MCP client `client` asked: a run of its own (the client is its
    /// session), through the tool's chain, reported like any other tool call.
    #[cfg(feature = "mcp")]
    pub(crate) async fn call_tool_for(
        &self,
        client: &str,
        name: &str,
        arguments: String,
    ) -> Result<dispatch::Answer, AgentError> {
        let core = &self.inner.core;
        let tool = core.tool(name).ok_or_else(|| AgentError::UnknownTool {
            tool: name.to_string(),
        })?;
        let mut ids = self.next_ids("mcp");
        ids.session_id = format!("{}/mcp-client/{client}", core.name);
        let call = crate::ToolCall::new(core.next_call_id(), name, arguments);
        let run = Arc::new(Run::new(Arc::clone(core), ids, None));
        let span = tracing::info_span!(
            "tool_call",
            tool = %name, call_id = %call.id, client = %client, decision = tracing::field::Empty
        );
        run.call_tool(tool, &call, true).instrument(span).await
    }

    /// The agent's tool named `name`, for MCP listing.
    #[cfg(feature = "mcp")]
    pub(crate) fn tool_spec(&self, name: &str) -> Option<crate::ToolSpec> {
        self.inner.core.tool(name).map(|tool| tool.spec().clone())
    }

    /// Record that `client`'s call of `tool` was refused by the MCP client policy.
    #[cfg(feature = "mcp")]
    pub(crate) fn audit_refusal(&self, client: &str, tool: &str, reason: &str) {
        let mut ids = self.next_ids("mcp");
        ids.session_id = format!("{}/mcp-client/{client}", self.inner.core.name);
        self.inner.core.hub.publish(|| PipelineEvent::ToolRejected {
            ids,
            call_id: String::new(),
            tool: tool.to_string(),
            reason: reason.to_string(),
        });
    }

    fn next_ids(&self, kind: &str) -> RunIds {
        let core = &self.inner.core;
        let number = core.runs.fetch_add(1, Ordering::Relaxed) + 1;
        let run_id = format!("{}/{kind}-{number}", core.name);
        RunIds {
            session_id: run_id.clone(),
            run_id,
        }
    }

    /// Both paths: the run within its time budget, then the final report.
    async fn execute(
        &self,
        input: IN,
        run: Arc<Run<OUT>>,
        skill: Option<String>,
    ) -> Result<OUT, AgentError> {
        let core = &self.inner.core;
        let span = tracing::info_span!(
            "agent_run",
            agent = %core.name, run_id = %run.ids().run_id, session_id = %run.ids().session_id
        );
        async {
            run.publish(|ids| PipelineEvent::RunStarted {
                ids,
                agent: core.name.clone(),
            });
            let result =
                tokio::time::timeout(core.budget.max_duration, self.run_skill(input, &run, skill))
                    .await
                    .unwrap_or_else(|_| Err(duration_exceeded(core.budget.max_duration)));
            match &result {
                Ok(output) => {
                    run.publish(|ids| PipelineEvent::RunCompleted { ids });
                    run.emit(|| AgentEvent::Completed {
                        output: output.clone(),
                    });
                }
                Err(error) => {
                    tracing::info!(%error, "run failed");
                    for observer in &core.observers.error {
                        notify("on_error", || observer(error));
                    }
                    run.publish(|ids| PipelineEvent::RunFailed {
                        ids,
                        error: error.clone(),
                    });
                    run.emit(|| AgentEvent::Failed {
                        error: error.clone(),
                    });
                }
            }
            run.close_events();
            result
        }
        .instrument(span)
        .await
    }

    /// Resolve the skill, pass the skill chain, and run the chosen skill.
    async fn run_skill(
        &self,
        input: IN,
        run: &Arc<Run<OUT>>,
        skill: Option<String>,
    ) -> Result<OUT, AgentError> {
        let inner = &self.inner;
        let requested = match (skill, &inner.selector) {
            (Some(skill), _) => skill,
            (None, Some(select)) => select(&input),
            (None, None) => inner.skills[0].name.clone(),
        };
        self.skill(&requested)?;
        let outcome = run_chain(&inner.skill_chain, requested).await;
        run.report_decisions(InterceptionPoint::Skill, &outcome.value, &outcome.decisions);
        match outcome.effect {
            Effect::Deny(reason) => {
                return Err(AgentError::InterceptorDenied {
                    point: InterceptionPoint::Skill,
                    target: outcome.value,
                    reason,
                });
            }
            Effect::Substitute(output) => return Ok(output),
            Effect::Proceed | Effect::ProceedWith => {}
        }
        let skill = self.skill(&outcome.value)?;
        for observer in &inner.core.observers.skill_chosen {
            notify("on_skill_chosen", || observer(&skill.name));
        }
        run.publish(|ids| PipelineEvent::SkillChosen {
            ids,
            skill: skill.name.clone(),
        });
        run.emit(|| AgentEvent::SkillStarted {
            skill: skill.name.clone(),
        });
        let span = tracing::info_span!("skill", skill = %skill.name);
        let output = async {
            match &skill.kind {
                SkillKind::Code(body) => {
                    let context = SkillContext {
                        run: Arc::clone(run),
                    };
                    let result = body(input, context).await;
                    match run.take_substitute() {
                        Some(substitute) => Ok(substitute),
                        None => result.map_err(|error| error.into_agent_error(&skill.name)),
                    }
                }
                SkillKind::Agentic {
                    tools,
                    instructions,
                } => {
                    let text = input_text(&input);
                    run.agentic(&skill.name, tools, instructions.as_deref(), text)
                        .await
                }
            }
        }
        .instrument(span)
        .await?;
        run.emit(|| AgentEvent::SkillCompleted {
            skill: skill.name.clone(),
        });
        Ok(output)
    }

    fn skill(&self, name: &str) -> Result<&Skill<IN, OUT>, AgentError> {
        let skills = &self.inner.skills;
        skills
            .iter()
            .find(|skill| skill.name == name)
            .ok_or_else(|| AgentError::UnknownSkill {
                name: name.to_string(),
                available: skills
                    .iter()
                    .map(|skill| skill.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// The input as the model reads it: a string as it is, anything else as JSON.
fn input_text(input: &impl Serialize) -> String {
    match serde_json::to_value(input) {
        Ok(Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(error) => format!("<input not serializable: {error}>"),
    }
}
