//! Agents as tools of other agents. A call passes the parent's tool chain and gates like any tool
//! call; then the child runs — with its own chains, followed by every ancestor's gates — as a
//! run linked to the parent: it inherits the MCP principal and the extensions, the gates of every
//! run above it (`tool/inherited.rs`), spends from the parent's budget, is one level deeper,
//! records its steps inside the parent's journal and streams its events into the parent's session.

use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use futures::future::BoxFuture;

use super::agent_ref::AgentRef;
use super::lineage::Lineage;
use super::run::{Caller, Run};
use super::{Agent, AgentInput, AgentOutput};
use crate::tool::{ChildOf, LinkedAgent, ToolTarget};
use crate::{AgentError, Message, RunIds, ToolContext, ToolError};

/// An agent offered to other agents as a tool: what [`Agent::as_tool`] returns, registered with
/// [`AgentBuilder::sub_agent`](crate::AgentBuilder::sub_agent). For interceptors typed by the
/// sub-agent's input and output, declare the tool with [`agent_tool!`](crate::agent_tool).
///
/// ```
/// use agents_kt::{Agent, Reply, ScriptedModel};
/// use serde_json::json;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let researcher = Agent::<String, String>::builder("researcher")
///     .model(ScriptedModel::new([Reply::text("Three sources on tides.")]))
///     .build()?;
/// let planner_model = ScriptedModel::new([
///     Reply::tool_call("research", json!({"input": "tides"})),
///     Reply::text("Plan: read the three sources."),
/// ]);
/// let planner = Agent::<String, String>::builder("planner")
///     .model(planner_model.clone())
///     .sub_agent(researcher.as_tool("research", "Finds sources for a question."))
///     .build()?;
/// assert_eq!(planner.run("Plan a lesson on tides".into()).await?, "Plan: read the three sources.");
/// // The researcher's answer is the tool's result the planner's model read.
/// assert_eq!(planner_model.requests()[1].messages.last().unwrap().content, "Three sources on tides.");
/// # Ok(()) }
/// ```
pub struct AgentTool<IN, OUT> {
    agent: Target<IN, OUT>,
    name: String,
    description: String,
}

/// The agent a tool runs: known, or bound later ([`AgentRef`]).
enum Target<IN, OUT> {
    Agent(Agent<IN, OUT>),
    Ref(AgentRef<IN, OUT>),
}

impl<IN, OUT> Clone for Target<IN, OUT> {
    fn clone(&self) -> Self {
        match self {
            Target::Agent(agent) => Target::Agent(agent.clone()),
            Target::Ref(slot) => Target::Ref(slot.clone()),
        }
    }
}

impl<IN, OUT> Clone for AgentTool<IN, OUT> {
    fn clone(&self) -> Self {
        AgentTool {
            agent: self.agent.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
        }
    }
}

impl<IN, OUT> std::fmt::Debug for AgentTool<IN, OUT> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let agent = match &self.agent {
            Target::Agent(agent) => agent.inner.core.name.clone(),
            Target::Ref(slot) => match slot.get() {
                Some(agent) => agent.inner.core.name.clone(),
                None => "<not bound yet>".to_string(),
            },
        };
        f.debug_struct("AgentTool")
            .field("name", &self.name)
            .field("agent", &agent)
            .finish_non_exhaustive()
    }
}

impl<IN: AgentInput, OUT: AgentOutput> AgentTool<IN, OUT> {
    /// A tool running the agent `slot` is bound to when it is called.
    pub(super) fn late(slot: AgentRef<IN, OUT>, name: String, description: String) -> Self {
        AgentTool {
            agent: Target::Ref(slot),
            name,
            description,
        }
    }

    /// What the manifest says the tool runs: the agent's own manifest, or — an [`AgentRef`],
    /// bound after this is described — that it runs an agent by reference.
    pub(super) fn manifest_of_target(&self, handoff: bool) -> serde_json::Value {
        match &self.agent {
            Target::Agent(agent) => {
                serde_json::json!({"agent": agent.manifest().json(), "handoff": handoff})
            }
            Target::Ref(_) => serde_json::json!({"agent_ref": true, "handoff": handoff}),
        }
    }

    /// The agent the tool runs; an error when it is an [`AgentRef`] not bound (or whose agent
    /// is gone).
    pub(super) fn agent(&self) -> Result<Agent<IN, OUT>, ToolError> {
        match &self.agent {
            Target::Agent(agent) => Ok(agent.clone()),
            Target::Ref(slot) => slot.resolve(),
        }
    }
}

impl<IN: AgentInput, OUT: AgentOutput> Agent<IN, OUT> {
    /// This agent as a tool named `name` for another agent's model, described by
    /// `description`. The model sends the agent's input as the tool's arguments (an input whose
    /// JSON is not an object — a `String` — is sent as `{"input": …}`), and reads its output as
    /// the result. See [`AgentTool`].
    pub fn as_tool(
        &self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> AgentTool<IN, OUT> {
        AgentTool {
            agent: Target::Agent(self.clone()),
            name: name.into(),
            description: description.into(),
        }
    }

    /// Run as the sub-agent of the run that made the tool call `ctx` describes (a plain run when
    /// the call came from no run). A failure is the call's failure, worded for the parent's
    /// model; a budget the child exhausted (depth included) ends the parent's run too.
    pub(crate) async fn run_nested(
        &self,
        input: IN,
        tool: &str,
        history: Vec<Message>,
        ctx: &ToolContext,
    ) -> Result<OUT, ToolError>
    where
        OUT: Serialize,
    {
        let Some(parent) = ctx.parent() else {
            return self.run(input).await.map_err(|error| self.failure(error));
        };
        let core = &self.inner.core;
        let lineage = Lineage::new(
            Arc::clone(parent),
            tool,
            ctx.call_id(),
            core.budget.max_agent_depth,
        );
        let lineage = match lineage {
            Ok(lineage) => lineage,
            Err(error) => {
                parent.end_with(error.clone());
                return Err(self.failure(error));
            }
        };
        let journal = ctx
            .journal_scope()
            .map(|(journal, step)| Arc::new(journal.scoped(step)));
        let run_id = match &journal {
            Some(journal) => journal.run_id().to_string(),
            None => self.next_run_id("run"),
        };
        let ids = RunIds::new(run_id, parent.ids().session_id.clone());
        let caller = Caller {
            extensions: parent.extensions().clone(),
            client: parent.client().map(str::to_string),
            journal,
            lineage: Some(lineage),
            history,
            ..Caller::default()
        };
        let child = ChildOf {
            agent: core.name.clone(),
            ids: ids.clone(),
            call_id: ctx.call_id().to_string(),
        };
        let result = if parent.is_session() {
            // The child streams too; its events reach the parent's stream in order, all before
            // the call's own `ToolCallFinished`.
            let (sender, receiver) = futures::channel::mpsc::unbounded();
            let run = Arc::new(Run::new(Arc::clone(core), ids, caller, Some(sender)));
            let forward =
                futures::StreamExt::for_each(receiver, |event: crate::AgentEvent<OUT>| {
                    parent.emit_nested(&child, event.into_json());
                    std::future::ready(())
                });
            let (result, ()) = futures::join!(self.execute(input, run, None), forward);
            result
        } else {
            let run = Arc::new(Run::new(Arc::clone(core), ids, caller, None));
            self.execute(input, run, None).await
        };
        result.map_err(|error| {
            if matches!(error, AgentError::BudgetExceeded { .. }) {
                parent.end_with(error.clone());
            }
            self.failure(error)
        })
    }

    /// A sub-agent's failure as its caller's model reads it.
    fn failure(&self, error: AgentError) -> ToolError {
        ToolError::new(format!("agent '{}' failed: {error}", self.inner.core.name))
    }
}

impl<IN, OUT> AgentTool<IN, OUT> {
    /// The name the calling model uses.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the calling model is told the tool does.
    pub fn description(&self) -> &str {
        &self.description
    }
}

/// A tool declared with [`agent_tool!`](crate::agent_tool) runs its agent for each call.
impl<IN: AgentInput, OUT: AgentOutput + Serialize> ToolTarget<IN, OUT> for AgentTool<IN, OUT> {
    fn description(&self) -> &str {
        &self.description
    }

    fn manifest_source(&self) -> Option<serde_json::Value> {
        Some(self.manifest_of_target(false))
    }

    async fn call(
        &self,
        tool: &'static str,
        input: IN,
        ctx: &ToolContext,
    ) -> Result<OUT, ToolError> {
        let agent = self.agent()?;
        agent.run_nested(input, tool, Vec::new(), ctx).await
    }
}

/// `ctx.run_agent(&agent, input)`: a run linked to the caller's.
impl<IN: AgentInput, OUT: AgentOutput + Serialize> LinkedAgent<IN, OUT> for Agent<IN, OUT> {
    fn agent_name(&self) -> String {
        self.name().to_string()
    }

    fn run_linked<'a>(
        &'a self,
        input: IN,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<OUT, ToolError>> {
        Box::pin(self.run_nested(input, self.name(), Vec::new(), ctx))
    }
}

/// `ctx.run_agent(&me, input)`: the bound agent, linked to the caller's run.
impl<IN: AgentInput, OUT: AgentOutput + Serialize> LinkedAgent<IN, OUT> for AgentRef<IN, OUT> {
    fn agent_name(&self) -> String {
        self.get()
            .map_or_else(|| "<unbound>".to_string(), |agent| agent.name().to_string())
    }

    fn run_linked<'a>(
        &'a self,
        input: IN,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<OUT, ToolError>> {
        Box::pin(async move {
            let agent = self.resolve()?;
            agent.run_nested(input, agent.name(), Vec::new(), ctx).await
        })
    }
}

/// The tool `agent_tool!` declares over `agent`: named `name`, described by its doc comment
/// (`doc`, one line per `///`, each trimmed). Generated code only.
#[doc(hidden)]
pub fn agent_tool_of<IN: AgentInput, OUT: AgentOutput>(
    agent: Agent<IN, OUT>,
    name: &str,
    doc: &str,
) -> AgentTool<IN, OUT> {
    let description = doc.lines().map(str::trim).collect::<Vec<_>>().join("\n");
    agent.as_tool(name, description.trim())
}

/// An agent's input as a tool's arguments: as it is when its JSON is an object, else wrapped as
/// `{"input": …}` (a model's tool arguments are always an object).
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct AgentArgs<IN>(pub IN);

/// Whether `IN`'s JSON is something other than an object, and so travels as `{"input": …}`:
/// read off its schema once per type. (Generating the schema on every call cost more than the
/// rest of a sub-agent call's linkage.)
fn wrapped<IN: JsonSchema + 'static>() -> bool {
    static WRAPPED: OnceLock<RwLock<HashMap<TypeId, bool>>> = OnceLock::new();
    let known = WRAPPED.get_or_init(Default::default);
    let id = TypeId::of::<IN>();
    let found = known
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&id)
        .copied();
    if let Some(wrapped) = found {
        return wrapped;
    }
    let schema = schemars::schema_for!(IN);
    let wrapped = schema.get("type").and_then(Value::as_str) != Some("object");
    let mut known = known.write().unwrap_or_else(PoisonError::into_inner);
    known.insert(id, wrapped);
    wrapped
}

impl<IN: Serialize + JsonSchema + 'static> Serialize for AgentArgs<IN> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if wrapped::<IN>() {
            use serde::ser::SerializeMap;
            let mut map = serializer.serialize_map(Some(1))?;
            map.serialize_entry("input", &self.0)?;
            map.end()
        } else {
            self.0.serialize(serializer)
        }
    }
}

/// `{"input": …}`, read straight from the arguments (other fields ignored).
#[derive(Deserialize)]
#[serde(bound = "IN: DeserializeOwned")]
struct Wrapped<IN> {
    input: IN,
}

impl<'de, IN: DeserializeOwned + JsonSchema + 'static> Deserialize<'de> for AgentArgs<IN> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Read in one pass, not through a `Value` first.
        if wrapped::<IN>() {
            Wrapped::<IN>::deserialize(deserializer).map(|wrapped| AgentArgs(wrapped.input))
        } else {
            IN::deserialize(deserializer).map(AgentArgs)
        }
    }
}

impl<IN: JsonSchema> JsonSchema for AgentArgs<IN> {
    fn schema_name() -> Cow<'static, str> {
        IN::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let inner = IN::json_schema(generator);
        if inner.get("type").and_then(Value::as_str) == Some("object") {
            return inner;
        }
        schemars::json_schema!({
            "type": "object",
            "properties": { "input": inner },
            "required": ["input"],
        })
    }
}

/// Declare a tool that runs an agent, typed by the agent's input and output: a type
/// implementing [`Tool`](crate::Tool) with `Args` = the agent's `IN` and `Output` = its `OUT`, so typed
/// interceptors (`#[before_tool_call(Name)]`, `#[gate(Name)]`, `#[after_tool_call(Name)]`,
/// `.before_tool_call(f)`) guard the call with the compiler checking that a `ProceedWith` is an
/// `IN` and a `Substitute` an `OUT`. The doc comment is the tool's description for the model;
/// the string is its name. Build it with `Name::new(agent)` and register it with
/// [`AgentBuilder::tool`](crate::AgentBuilder::tool); it runs as
/// [`AgentBuilder::sub_agent`](crate::AgentBuilder::sub_agent) describes. `IN` must be a type
/// of yours whose JSON is an object (the model's arguments are one).
///
/// ```
/// use agents_kt::prelude::*;
///
/// #[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
/// pub struct Question { pub topic: String }
///
/// agents_kt::agent_tool! {
///     /// Finds sources for a question.
///     pub struct Research("research"): Question => String;
/// }
///
/// /// Typed: a `ProceedWith` must be a `Question`, a `Substitute` a `String`.
/// #[before_tool_call(Research)]
/// fn on_topic(question: &Question) -> Decision<Question, String> {
///     if question.topic.is_empty() {
///         Decision::Substitute("no topic, no sources".to_string())
///     } else {
///         Decision::Proceed
///     }
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let researcher = Agent::<Question, String>::builder("researcher")
///     .model(ScriptedModel::new([Reply::text("three sources")]))
///     .build()?;
/// let planner = Agent::<String, String>::builder("planner")
///     .model(ScriptedModel::new([Reply::text("done")]))
///     .tool(Research::new(researcher))
///     .before_tool_call(on_topic)
///     .build()?;
/// # let _ = planner;
/// # Ok(()) }
/// ```
///
/// A substitute of another type does not compile:
///
/// ```compile_fail,E0277
/// # #[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
/// # pub struct Question { pub topic: String }
/// # agents_kt::agent_tool! { pub struct Research("research"): Question => String; }
/// use agents_kt::prelude::*;
///
/// #[before_tool_call(Research)]
/// fn cached(question: &Question) -> Decision<Question, u32> {
///     Decision::Substitute(42)
/// }
/// ```
#[macro_export]
macro_rules! agent_tool {
    // An input whose JSON is not an object travels as `{"input": …}`: its arguments are a
    // `SubAgentInput`, linked to the tool here (`String` itself cannot be, by the orphan rule).
    (
        $(#[doc = $doc:expr])*
        $vis:vis struct $name:ident($registered:literal): String => $output:ty;
    ) => {
        $crate::agent_tool! {
            $(#[doc = $doc])*
            $vis struct $name($registered): input(::std::string::String) => $output;
        }
    };
    (
        $(#[doc = $doc:expr])*
        $vis:vis struct $name:ident($registered:literal): input($input:ty) => $output:ty;
    ) => {
        $(#[doc = $doc])*
        $vis struct $name($crate::AgentTool<$input, $output>);

        impl $name {
            /// The tool over `agent`.
            $vis fn new(agent: $crate::Agent<$input, $output>) -> Self {
                $name($crate::__private::agent_tool_of(
                    agent,
                    $registered,
                    ::core::concat!("" $(, $doc, "\n")*),
                ))
            }
        }

        $crate::__forwarding_tool!(
            @wrapped $name,
            $registered,
            $crate::SubAgentInput<$name, $input>,
            $output,
            runs_agent: true
        );
    };
    (
        $(#[doc = $doc:expr])*
        $vis:vis struct $name:ident($registered:literal): $args:ty => $output:ty;
    ) => {
        $(#[doc = $doc])*
        $vis struct $name($crate::AgentTool<$args, $output>);

        impl $name {
            /// The tool over `agent`.
            $vis fn new(agent: $crate::Agent<$args, $output>) -> Self {
                $name($crate::__private::agent_tool_of(
                    agent,
                    $registered,
                    ::core::concat!("" $(, $doc, "\n")*),
                ))
            }
        }

        $crate::__forwarding_tool!($name, $registered, $args, $output, runs_agent: true);
    };
}

/// What ties a declared tool's `Args` and `Output` to it, for typed interceptors to name the tool
/// by its types: shared by [`agent_tool!`](crate::agent_tool) and `remote_tool!`.
#[doc(hidden)]
#[macro_export]
macro_rules! __typed_tool_links {
    ($name:ident, $args:ty, $output:ty) => {
        impl $crate::ToolArguments for $args {
            type Tool = $name;
        }

        $crate::__typed_tool_links!(@wrapped $name, $args, $output);
    };
    // Arguments that are linked to their tool already (`SubAgentInput`).
    (@wrapped $name:ident, $args:ty, $output:ty) => {
        impl $crate::__private::ArgumentsOf<$name> for $args {
            fn cast(args: &$args) -> &Self {
                args
            }
        }

        impl $crate::__private::OutputOf<$name> for $output {
            fn cast(output: &$output) -> &Self {
                output
            }
        }
    };
}
