//! Configuring an agent: model, tools, skills, interceptors, observers, budget.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::{PointLinks, Selector};
use crate::chain::Link;
use crate::chain::interceptor::name_of;
use crate::observers::Observers;
use crate::tool::IntoToolChain;
use crate::tool::inherited::{NamedGate, TreeLinks};
use crate::tool::register::{self, Registration};
use crate::tool::registry::ToolEntry;
use crate::{
    AgentError, Budget, BudgetUsage, BuildError, InterceptorDecision, IntoAfterToolCallInterceptor,
    IntoAfterToolInterceptor, IntoGate, IntoInterceptor, IntoSkill, IntoToolCallGate,
    IntoToolCallInterceptor, IntoToolGate, IntoToolInterceptor, Message, ModelClient, Skill, Tool,
};

/// The chain the last registered interceptor or gate went to, for [`AgentBuilder::named`].
#[derive(Clone, Copy)]
enum Registered {
    Skill,
    SkillGate,
    Turn,
    TurnGate,
    Tool,
}

/// Configures an [`Agent`](crate::Agent); finish with [`AgentBuilder::build`] (in `build.rs`: checking the
/// configuration and assembling the agent).
///
/// Interceptors run in registration order; typed tool interceptors and dynamic ones share one
/// order. Gates run after the interceptors of their point, on the final value, and any gate's
/// `Deny` wins. An agent with no skill gets an agentic skill named `default` allowed every tool.
///
/// ```
/// use agents_kt::{Agent, Budget, Decision, Reply, ScriptedModel};
/// let agent = Agent::<String, String>::builder("assistant")
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
    pub(super) name: String,
    pub(super) model: Option<Arc<dyn ModelClient>>,
    pub(super) system_prompt: Option<String>,
    pub(super) budget: Budget,
    /// Each tool's name, where it came from (for a clash), and how to build it.
    pub(super) tools: Vec<Registration>,
    pub(super) tool_links: Vec<ToolEntry>,
    pub(super) skills: Vec<Skill<IN, OUT>>,
    pub(super) selector: Option<Selector<IN>>,
    pub(super) links: PointLinks<OUT>,
    /// The skill and turn gates again, as the agents this one runs inherit them.
    pub(super) tree: TreeLinks,
    /// Whether this agent's tool interceptors apply to the agents it runs too.
    pub(super) interceptors_apply_to_children: bool,
    /// The names of the policies attached, in order (for the permission manifest).
    pub(super) policies: Vec<String>,
    /// The tools granted (none: nothing restricted by grant).
    pub(super) grants: Vec<crate::Grant>,
    /// Call constraints on this agent and every agent under it.
    pub(super) constraints: Vec<crate::Constraint>,
    last: Option<Registered>,
    pub(super) tool_concurrency: usize,
    pub(super) observers: Observers,
    pub(super) errors: Vec<BuildError>,
    pub(super) approval_desk: Option<crate::ApprovalDesk>,
    pub(super) conversation_wait: std::time::Duration,
    /// The tools that hand the conversation over (`transfer_to_<name>`).
    pub(super) handoffs: Vec<Arc<str>>,
    pub(super) model_chooses: bool,
    pub(super) capture_content: Option<bool>,
    pub(super) hide_interceptor_panics: bool,
    #[cfg(feature = "otel")]
    pub(super) meter: Option<opentelemetry::metrics::Meter>,
}

impl<IN, OUT> fmt::Debug for AgentBuilder<IN, OUT> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("name", &self.name)
            .field(
                "tools",
                &self.tools.iter().map(|tool| &tool.name).collect::<Vec<_>>(),
            )
            .field("skills", &self.skills)
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl<IN, OUT> crate::Agent<IN, OUT> {
    /// Start configuring an agent called `name`.
    // Not bounded: the agent's types are checked once, at `build`, so a type that is not an
    // agent's output is one error in `AgentOutput`'s words, not "the method exists but its trait
    // bounds were not satisfied" at every builder call.
    pub fn builder(name: impl Into<String>) -> AgentBuilder<IN, OUT> {
        AgentBuilder::new(name.into())
    }
}

impl<IN, OUT> AgentBuilder<IN, OUT> {
    pub(crate) fn new(name: String) -> Self {
        AgentBuilder {
            name,
            model: None,
            system_prompt: None,
            budget: Budget::default(),
            tools: Vec::new(),
            tool_links: Vec::new(),
            skills: Vec::new(),
            selector: None,
            links: PointLinks::default(),
            tree: TreeLinks::default(),
            interceptors_apply_to_children: false,
            policies: Vec::new(),
            grants: Vec::new(),
            constraints: Vec::new(),
            last: None,
            approval_desk: None,
            conversation_wait: std::time::Duration::from_secs(10),
            handoffs: Vec::new(),
            model_chooses: false,
            capture_content: None,
            hide_interceptor_panics: false,
            #[cfg(feature = "otel")]
            meter: None,
            tool_concurrency: 1,
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

    /// How many of the tool calls the model asks for in one turn may run at once (default 1: one
    /// after another). Each call still passes its own guard, timeout and budget count; the
    /// answers go back to the model in the order it asked. The calls share the run's task, so a
    /// tool that blocks its thread blocks the others: use `#[tool(blocking)]` for those.
    ///
    /// ```
    /// use agents_kt::{Agent, Reply, ScriptedModel};
    /// let agent = Agent::<String, String>::builder("a")
    ///     .model(ScriptedModel::new([Reply::text("ok")]))
    ///     .tool_concurrency(4)
    ///     .build()
    ///     .unwrap();
    /// # let _ = agent;
    /// ```
    pub fn tool_concurrency(mut self, calls: usize) -> Self {
        self.tool_concurrency = calls.max(1);
        self
    }

    /// The run's limits.
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// `f(self)`: lets `#[agent]`'s generated builder register a tool through an expression.
    #[doc(hidden)]
    pub fn __apply(self, f: impl FnOnce(Self) -> Self) -> Self {
        f(self)
    }

    /// Register a tool.
    pub fn tool<T: Tool>(mut self, tool: T) -> Self {
        self.tools.push(register::tool(tool));
        self
    }

    /// Register a tool with interceptors, gates and after-interceptors fixed at compile time
    /// (a [`ToolChain`](crate::ToolChain)): they are held as themselves, not boxed one by one,
    /// and run first in the tool's chains, before any registered on this builder (which follow
    /// in registration order). `#[agent]` registers its tools this way.
    pub fn tool_with_chain<T: Tool>(mut self, tool: T, chain: impl IntoToolChain<T>) -> Self {
        self.tools
            .push(register::rust_tool(tool, chain.into_guard()));
        self
    }

    /// Register another agent as a tool ([`Agent::as_tool`](crate::Agent::as_tool)). A call passes this agent's tool
    /// chain and gates like any tool call (the dynamic ones: `on_before_tool_call`,
    /// `on_gate_tool_call`, `on_after_tool_call`; for typed ones declare the tool with
    /// [`agent_tool!`](crate::agent_tool)); then the sub-agent runs with its own chains — and
    /// this agent's gates, which judge its skill choice, turns and tool calls too (see
    /// [`InterceptContext::gate_owner`](crate::InterceptContext::gate_owner)) — as a run
    /// linked to this one — see [`InterceptContext::parent`](crate::InterceptContext::parent).
    /// It inherits the MCP principal and the extensions; its turns, tool calls and tokens count
    /// against this run's [`Budget`] too, and a budget it exhausts (or a depth past
    /// [`Budget::max_agent_depth`]) ends this run; any other failure, a panic included, is the
    /// call's failure, told to the model as `ERROR: Tool '<name>' failed: agent '<child>'
    /// failed: …`. The call is bounded by the sub-agent's `max_duration`, not
    /// `per_tool_timeout`.
    ///
    /// An agent in another process registers the same way: an `A2aTool` from
    /// `A2aAgent::as_tool` (feature `a2a`) — its call passes this agent's chains and gates
    /// before anything is sent, and is bounded by `per_tool_timeout` and the remote's timeout.
    pub fn sub_agent(self, tool: impl super::SubAgentTool) -> Self {
        self.delegate(tool.delegation(), false)
    }

    /// Let the model hand the conversation over to `agent`: a tool `transfer_to_<name>` whose
    /// arguments are `agent`'s input. The transfer is a tool call — this agent's before-tool
    /// interceptors and gates judge it (a gate can forbid a handoff) — and then `agent` runs, with
    /// its own skill and turn chains, on the conversation so far (system messages left out) and
    /// the input, as a sub-agent of this run (see [`AgentBuilder::sub_agent`]). Its output is
    /// this run's output, as it passed this agent's after-tool chain: that is why its `OUT` must
    /// be this agent's `OUT` (a compile error otherwise). A substitute for the transfer stands in
    /// for that output. A denied or failed transfer is told to the model like any tool call,
    /// and the conversation goes on here; so does one whose result an after-tool interceptor
    /// withheld.
    ///
    /// ```
    /// use agents_kt::{Agent, Reply, ScriptedModel};
    /// use serde_json::json;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let refunds = Agent::<String, String>::builder("refunds")
    ///     .model(ScriptedModel::new([Reply::text("Refunded order 42.")]))
    ///     .build()?;
    /// let triage = Agent::<String, String>::builder("triage")
    ///     .model(ScriptedModel::new([Reply::tool_call("transfer_to_refunds", json!({"input": "refund order 42"}))]))
    ///     .handoff(refunds)
    ///     .build()?;
    /// assert_eq!(triage.run("I want my money back for order 42".into()).await?, "Refunded order 42.");
    /// # Ok(()) }
    /// ```
    ///
    /// The agent may be in another process: an `A2aAgent<_, OUT>` (feature `a2a`), which
    /// receives the conversation's user and assistant messages with the input.
    pub fn handoff(self, agent: impl super::HandoffTarget<OUT>) -> Self {
        self.delegate(agent.delegation(), true)
    }

    /// Register a tool that runs an agent, under its run-time name.
    fn delegate(mut self, delegation: super::Delegation, handoff: bool) -> Self {
        if handoff {
            self.handoffs.push(Arc::clone(&delegation.name));
        }
        self.tools.push(Registration {
            name: delegation.name,
            source: delegation.source,
            pending: delegation.pending,
        });
        self
    }

    /// Register every tool of an MCP server ([`McpToolset`](crate::McpToolset)), under the
    /// server's names (or `<prefix>_<name>`), with the server's descriptions and input schemas.
    /// Each call passes the same pipeline as a Rust tool's: allow-list, budget, dynamic
    /// interceptors and gates (`on_before_tool_call`, `on_gate_tool_call`), the remote call under
    /// `per_tool_timeout`, then `on_after_tool_call`. A name already taken is
    /// [`BuildError::DuplicateTool`].
    #[cfg(feature = "mcp-client")]
    pub fn toolset(mut self, set: crate::McpToolset) -> Self {
        for registration in set.registrations() {
            match registration {
                Ok(registration) => self.tools.push(registration),
                Err(error) => self.errors.push(error),
            }
        }
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

    /// Let the model choose the skill for each input, from the skills' names and
    /// [descriptions](Skill::description): one short call asking for `{"skill": "<name>"}`
    /// (the names as a JSON Schema enum, as the response format). That call is a model turn: the
    /// turn's interceptors and gates judge it, it counts toward `max_turns`, and a turn
    /// `Substitute` is the run's output. A name that fits no skill is sent back once with the
    /// list; a second miss ends the run with [`AgentError::SkillChoice`]. The chosen name is
    /// what the skill chain sees — it may reroute or deny it — on `run` and `session` alike.
    /// A [`skill_selector`](Self::skill_selector) set as well wins.
    ///
    /// ```
    /// use agents_kt::{Agent, Reply, ScriptedModel, Skill};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let model = ScriptedModel::new([
    ///     Reply::text(r#"{"skill": "refunds"}"#),
    ///     Reply::text("Refund started."),
    /// ]);
    /// let agent = Agent::<String, String>::builder("desk")
    ///     .model(model)
    ///     .skill(Skill::agentic("orders").description("Answers questions about orders."))
    ///     .skill(Skill::agentic("refunds").description("Starts refunds."))
    ///     .model_chooses_skill()
    ///     .build()?;
    /// assert_eq!(agent.run("Refund order 42".into()).await?, "Refund started.");
    /// # Ok(()) }
    /// ```
    pub fn model_chooses_skill(mut self) -> Self {
        self.model_chooses = true;
        self
    }

    /// Intercept skill selection: the interceptor sees the chosen skill's name.
    /// `ProceedWith(name)` reroutes, `Deny` fails the run, `Substitute(out)` skips the skill with
    /// `out` as output. Accepts `|name: &str| …`, `|name: &str, ctx: &InterceptContext| …`, or an
    /// `impl Interceptor<String, OUT>`.
    pub fn on_before_skill<M>(
        mut self,
        interceptor: impl IntoInterceptor<String, OUT, str, M>,
    ) -> Self {
        self.links.skill_chain.push(named_link(interceptor));
        self.registered(Registered::Skill)
    }

    /// Intercept every model call: the interceptor sees the outbound messages.
    /// `ProceedWith(msgs)` replaces them (for later turns too), `Deny` fails the run without
    /// calling the model, `Substitute(out)` ends the run with `out` without calling the model.
    /// Accepts `|messages: &[Message]| …` (optionally with a trailing `&InterceptContext`) or an
    /// `impl Interceptor<Vec<Message>, OUT>`.
    pub fn on_before_turn<M>(
        mut self,
        interceptor: impl IntoInterceptor<Vec<Message>, OUT, [Message], M>,
    ) -> Self {
        self.links.turn_chain.push(named_link(interceptor));
        self.registered(Registered::Turn)
    }

    /// Intercept every tool's calls, seen as `(name, JSON arguments)` exactly as the model (or MCP
    /// client) sent them, unknown fields kept. A `ProceedWith` or `Substitute` value that does not
    /// fit the tool's types denies the call, saying why.
    pub fn on_before_tool_call<M>(mut self, interceptor: impl IntoToolCallInterceptor<M>) -> Self {
        let name = name_of_val(&interceptor);
        self.tool_links.push(ToolEntry::any_before(
            interceptor.into_tool_call_interceptor(),
            name,
        ));
        self.registered(Registered::Tool)
    }

    /// Intercept one tool's calls with its typed arguments and output: a [`ToolInterceptor`](crate::ToolInterceptor), or
    /// a function over the tool's `&Args` (such as one marked `#[before_tool_call(tool)]`).
    pub fn before_tool_call<T: Tool, M>(
        mut self,
        interceptor: impl IntoToolInterceptor<T, M>,
    ) -> Self {
        self.tool_links
            .push(ToolEntry::before::<T>(interceptor.into_tool_interceptor()));
        self.registered(Registered::Tool)
    }

    /// Inspect one tool's result before the model, observers and session see it, returning
    /// `Decision<Output, Output>`: `ProceedWith`/`Substitute` replace the result; `Deny` withholds
    /// it (the model is told it was withheld). Either a function over the call's arguments and
    /// its result, `(&T::Args, &T::Output)` — the arguments it ran with, after every before-tool
    /// rewrite; their type names the tool, so it is inferred — or a function over `&T::Output`
    /// alone (such as one marked `#[after_tool_call(tool)]`), whose output type does not name
    /// its tool: name it, `.after_tool_call::<GetWeather, _>(redact)`. Either may take a trailing
    /// `&InterceptContext`.
    ///
    /// ```
    /// # use std::borrow::Cow;
    /// # use agents_kt::{Tool, ToolContext, ToolError};
    /// # #[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
    /// # pub struct LookUpArgs { pub user: String }
    /// # pub struct LookUp;
    /// # impl Tool for LookUp {
    /// #     const NAME: &'static str = "look_up";
    /// #     type Args = LookUpArgs;
    /// #     type Output = String;
    /// #     fn description(&self) -> Cow<'static, str> { "Look a user up.".into() }
    /// #     async fn call(&self, _: LookUpArgs, _: &ToolContext) -> Result<String, ToolError> { Ok("ok".into()) }
    /// # }
    /// # impl agents_kt::ToolArguments for LookUpArgs { type Tool = LookUp; }
    /// use agents_kt::{Agent, Decision, ScriptedModel};
    /// fn only_own_record(args: &LookUpArgs, record: &String) -> Decision<String, String> {
    ///     if args.user == "me" { Decision::Proceed } else { Decision::ProceedWith("[redacted]".into()) }
    /// }
    /// fn no_secrets(record: &String) -> Decision<String, String> {
    ///     if record.contains("secret") { Decision::deny("withheld") } else { Decision::Proceed }
    /// }
    /// let agent = Agent::<String, String>::builder("desk")
    ///     .model(ScriptedModel::new([]))
    ///     .tool(LookUp)
    ///     .after_tool_call(only_own_record)
    ///     .after_tool_call::<LookUp, _>(no_secrets)
    ///     .build();
    /// assert!(agent.is_ok());
    /// ```
    pub fn after_tool_call<T: Tool, M>(
        mut self,
        interceptor: impl IntoAfterToolInterceptor<T, M>,
    ) -> Self {
        self.tool_links.push(ToolEntry::after::<T>(
            interceptor.into_after_tool_interceptor(),
        ));
        self.registered(Registered::Tool)
    }

    /// Inspect every tool's result as `(name, arguments, result)` JSON before the model,
    /// observers and session see it; the same decisions as [`AgentBuilder::after_tool_call`]. A
    /// replacement that does not fit the tool's output type withholds the result, saying why.
    pub fn on_after_tool_call<M>(
        mut self,
        interceptor: impl IntoAfterToolCallInterceptor<M>,
    ) -> Self {
        let name = name_of_val(&interceptor);
        self.tool_links.push(ToolEntry::any_after(
            interceptor.into_after_tool_call_interceptor(),
            name,
        ));
        self.registered(Registered::Tool)
    }

    /// A gate on skill selection: after the skill interceptors, on the final skill name. Any
    /// gate's `Verdict::Deny` fails the run exactly as an interceptor's `Deny`, whatever the
    /// interceptors decided (unless one substituted: then no skill runs to guard).
    pub fn gate_skill<M>(mut self, gate: impl IntoGate<String, str, M>) -> Self {
        let gate = NamedGate::of(gate);
        self.links.skill_gates.push(gate.link());
        self.tree.skill_gates.push(gate);
        self.registered(Registered::SkillGate)
    }

    /// A gate on every model call: after the turn interceptors, on the final messages.
    pub fn gate_turn<M>(mut self, gate: impl IntoGate<Vec<Message>, [Message], M>) -> Self {
        let gate = NamedGate::of(gate);
        self.links.turn_gates.push(gate.link());
        self.tree.turn_gates.push(gate);
        self.registered(Registered::TurnGate)
    }

    /// Let this agent's tool interceptors — before and after, typed and dynamic — judge the tool
    /// calls of every agent it runs (sub-agents, handoff targets, and theirs), after each
    /// agent's own interceptors. Off by default, unlike gates, which always flow down: a rewrite
    /// of a sub-agent's arguments that its author did not write surprises that author, a denial
    /// never does. Skill and turn interceptors stay with their agent either way (their
    /// substitute is this agent's output type, not a sub-agent's).
    ///
    /// ```
    /// use agents_kt::{Agent, Decision, Reply, ScriptedModel};
    /// let planner = Agent::<String, String>::builder("planner")
    ///     .model(ScriptedModel::new([Reply::text("done")]))
    ///     .on_before_tool_call(|_name: &str, args: &serde_json::Value| {
    ///         let mut args = args.clone();
    ///         args["trace"] = "planner".into();
    ///         Decision::ProceedWith(args)
    ///     })
    ///     .interceptors_apply_to_children()
    ///     .build()
    ///     .unwrap();
    /// # let _ = planner;
    /// ```
    pub fn interceptors_apply_to_children(mut self) -> Self {
        self.interceptors_apply_to_children = true;
        self
    }

    /// A gate on one tool's calls, over its typed arguments after the interceptor chain (a
    /// `ProceedWith` replacement included): a function over `&Args` (such as one marked
    /// `#[gate(tool)]`) returning a `Verdict`, or a [`ToolGate`](crate::ToolGate).
    pub fn gate_tool_call<T: Tool, M>(mut self, gate: impl IntoToolGate<T, M>) -> Self {
        self.tool_links
            .push(ToolEntry::gate::<T>(gate.into_tool_gate()));
        self.registered(Registered::Tool)
    }

    /// A gate on every tool's calls, over `(name, JSON arguments)` after the interceptor chain
    /// (optionally with a trailing `&InterceptContext`), or an `impl Gate<Value>`.
    pub fn on_gate_tool_call<M>(mut self, gate: impl IntoToolCallGate<M>) -> Self {
        let name = name_of_val(&gate);
        self.tool_links
            .push(ToolEntry::any_gate(gate.into_tool_call_gate(), name));
        self.registered(Registered::Tool)
    }

    /// Whether the run's spans carry content: the messages a model turn sends and receives
    /// (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`) and a
    /// tool call's arguments and result (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`).
    /// Off unless turned on here or by the environment variable
    /// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` (the OpenTelemetry GenAI
    /// instrumentations' switch). What is captured is what the model reads: a tool result after
    /// the after-tool interceptors (redaction first), a turn's messages after its interceptors.
    ///
    /// ```
    /// use agents_kt::{Agent, ScriptedModel};
    /// let agent = Agent::<String, String>::builder("quiet")
    ///     .model(ScriptedModel::new([]))
    ///     .capture_content(false)
    ///     .build();
    /// assert!(agent.is_ok());
    /// ```
    pub fn capture_content(mut self, capture: bool) -> Self {
        self.capture_content = Some(capture);
        self
    }

    /// Keep a panicking interceptor's or gate's text from the model (and from an MCP client): its
    /// `Deny` reads "an interceptor failed" / "a gate failed" instead, while its decision — the
    /// `InterceptorDecision` event, the trace, the `tracing` log naming it — keeps the text. For
    /// deployments where a panic's text may hold a secret. Off by default: the seed's rule, the
    /// panic's text is the reason.
    ///
    /// ```
    /// use agents_kt::{Agent, ScriptedModel};
    /// let agent = Agent::<String, String>::builder("discreet")
    ///     .model(ScriptedModel::new([]))
    ///     .hide_interceptor_panics(true)
    ///     .build();
    /// assert!(agent.is_ok());
    /// ```
    pub fn hide_interceptor_panics(mut self, hide: bool) -> Self {
        self.hide_interceptor_panics = hide;
        self
    }

    /// The meter the agent's metrics are recorded with (`gen_ai.client.token.usage`,
    /// `gen_ai.client.operation.duration`, `agents_kt.decisions`). Without one, the global meter
    /// provider's meter at the time of `build()` (so install it first: [`crate::telemetry::init`]
    /// does).
    ///
    /// ```
    /// use agents_kt::{Agent, ScriptedModel};
    /// use opentelemetry::metrics::MeterProvider;
    /// let provider = opentelemetry_sdk::metrics::SdkMeterProvider::builder().build();
    /// let agent = Agent::<String, String>::builder("metered")
    ///     .model(ScriptedModel::new([]))
    ///     .meter(provider.meter("my-app"))
    ///     .build();
    /// assert!(agent.is_ok());
    /// ```
    #[cfg(feature = "otel")]
    pub fn meter(mut self, meter: opentelemetry::metrics::Meter) -> Self {
        self.meter = Some(meter);
        self
    }

    /// Where approvals asked by interceptors and gates
    /// ([`InterceptContext::approval`](crate::InterceptContext::approval)) go in runs without a
    /// journal: read the questions from the desk's inbox and answer them. Without a desk (and a
    /// journal), every approval is denied. The run's `Budget::max_duration` keeps counting while
    /// a human decides in process: give runs that wait for people a budget that allows it, or
    /// journal them (a durable engine suspends the run while it waits).
    pub fn approvals(mut self, desk: crate::ApprovalDesk) -> Self {
        self.approval_desk = Some(desk);
        self
    }

    /// How long a run in a remembered conversation (`run_in`, `session_in`) waits for another
    /// run on the same conversation to finish before it fails with
    /// [`StoreError::Busy`](crate::StoreError::Busy) — having called no model and run no tool
    /// (default 10 s; a lease whose holder crashed runs out after 2 minutes).
    ///
    /// ```
    /// use agents_kt::{Agent, ScriptedModel};
    /// let agent = Agent::<String, String>::builder("desk")
    ///     .model(ScriptedModel::default())
    ///     .conversation_wait(std::time::Duration::from_secs(30))
    ///     .build()
    ///     .unwrap();
    /// # let _ = agent;
    /// ```
    pub fn conversation_wait(mut self, wait: std::time::Duration) -> Self {
        self.conversation_wait = wait;
        self
    }

    /// Name the interceptor or gate registered just before, for decision events and logs (a
    /// function or a hand-written type is named after itself; a closure is `#<index>` unless
    /// named).
    ///
    /// ```
    /// use agents_kt::{Agent, Decision, Reply, ScriptedModel};
    /// let agent = Agent::<String, String>::builder("a")
    ///     .model(ScriptedModel::new([Reply::text("ok")]))
    ///     .on_before_turn(|_m: &[agents_kt::Message]| Decision::Proceed)
    ///     .named("injection_filter")
    ///     .build()
    ///     .unwrap();
    /// # let _ = agent;
    /// ```
    pub fn named(mut self, name: impl Into<String>) -> Self {
        let name: Arc<str> = Arc::from(name.into());
        match self.last {
            Some(Registered::Skill) => rename(&mut self.links.skill_chain, name),
            Some(Registered::SkillGate) => {
                rename(&mut self.links.skill_gates, Arc::clone(&name));
                NamedGate::rename_last(&mut self.tree.skill_gates, name);
            }
            Some(Registered::Turn) => rename(&mut self.links.turn_chain, name),
            Some(Registered::TurnGate) => {
                rename(&mut self.links.turn_gates, Arc::clone(&name));
                NamedGate::rename_last(&mut self.tree.turn_gates, name);
            }
            Some(Registered::Tool) => {
                if let Some(entry) = self.tool_links.last_mut() {
                    entry.rename(name);
                }
            }
            None => self.errors.push(BuildError::NothingToName {
                name: name.to_string(),
            }),
        }
        self
    }

    fn registered(mut self, point: Registered) -> Self {
        self.last = Some(point);
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
}

/// A link for an interceptor, named after its function or type when it has one.
fn named_link<T, R, U: ?Sized, M, I: IntoInterceptor<T, R, U, M>>(interceptor: I) -> Link<T, R> {
    let name = name_of::<I>();
    Link::new(interceptor.into_interceptor()).maybe_named(name.map(Arc::from))
}

fn name_of_val<F>(_: &F) -> Option<Arc<str>> {
    name_of::<F>().map(Arc::from)
}

fn rename<T, R>(links: &mut [Link<T, R>], name: Arc<str>) {
    if let Some(last) = links.last_mut() {
        *last = last.clone().named(name);
    }
}
