//! Whose call an interceptor or gate judges: the run, the agent, the skill, the turn, the tool call,
//! the MCP principal, and the caller's own per-run [`Extensions`].

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::GateOwner;
use crate::RunIds;

/// Typed values a caller attaches to one run (the end user, a tenant, an approval channel), read
/// back by interceptors and gates through [`InterceptContext::extensions`]. One value per type.
///
/// ```
/// use agents_kt::Extensions;
/// #[derive(Debug, PartialEq)]
/// struct EndUser(&'static str);
/// let extensions = Extensions::new().with(EndUser("ada"));
/// assert_eq!(extensions.get::<EndUser>(), Some(&EndUser("ada")));
/// assert_eq!(extensions.get::<u32>(), None);
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl Extensions {
    /// No extensions.
    pub fn new() -> Self {
        Extensions::default()
    }

    /// These extensions plus `value` (replacing any earlier value of its type).
    pub fn with<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// Add `value`, replacing any earlier value of its type.
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        self.values.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if one was attached.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.values.get(&TypeId::of::<T>())?.downcast_ref()
    }

    /// Whether nothing is attached.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("values", &self.values.len())
            .finish()
    }
}

/// What an interceptor, gate or after-interceptor knows about the call it judges. Taken as an
/// optional trailing `&InterceptContext` parameter; it borrows from the run, so building one costs
/// nothing.
///
/// ```
/// use agents_kt::{Agent, Decision, Extensions, InterceptContext, Reply, ScriptedModel};
///
/// struct EndUser(String);
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let agent = Agent::<String, String>::builder("desk")
///     .model(ScriptedModel::new([Reply::text("hi")]))
///     .on_before_turn(|_messages: &[agents_kt::Message], ctx: &InterceptContext| {
///         match ctx.extensions().get::<EndUser>() {
///             Some(user) if user.0 == "ada" => Decision::Proceed,
///             _ => Decision::deny(format!("unknown user in {}", ctx.ids().session_id)),
///         }
///     })
///     .build()?;
/// let ada = Extensions::new().with(EndUser("ada".into()));
/// assert_eq!(agent.run_with("hello".into(), ada).await?, "hi");
/// assert!(agent.run("hello".into()).await.is_err());
/// # Ok(()) }
/// ```
#[derive(Clone, Copy)]
pub struct InterceptContext<'a> {
    pub(crate) ids: &'a RunIds,
    pub(crate) agent: &'a str,
    pub(crate) skill: Option<&'a str>,
    pub(crate) turn: u32,
    pub(crate) tool: Option<&'a str>,
    pub(crate) tool_call_id: Option<&'a str>,
    pub(crate) client: Option<&'a str>,
    pub(crate) extensions: &'a Extensions,
    /// The model's raw arguments, for dynamic after-tool interceptors (which see them with the
    /// result).
    pub(crate) args: Option<&'a Value>,
    /// Where approvals asked in this tool call's guard go, when the run has an approval desk or
    /// a journal.
    pub(crate) approvals: Option<&'a Arc<crate::approval::ApprovalScope>>,
    /// Whose tool call started this run, when it is a sub-agent's.
    pub(crate) parent: Option<&'a ParentCall>,
    /// The ancestor whose link is being asked, when it judges a descendant's call.
    pub(crate) owner: Option<&'a GateOwner>,
    /// The tree's record of its tool calls, for call constraints; `None` outside a run.
    pub(crate) ledger: Option<&'a crate::ledger::CallLedger>,
    /// This tool call's number in the tree's ledger (0 when it has none): what a call
    /// constraint reserves, unique in the tree whatever ids the model or the agents' names
    /// repeat.
    pub(crate) ledger_call: u64,
}

impl<'a> InterceptContext<'a> {
    /// A context outside any agent run (for unit-testing an interceptor, or running a chain by
    /// hand with [`crate::chain::run_chain`]).
    ///
    /// ```
    /// use agents_kt::{Extensions, InterceptContext, RunIds};
    /// let ids = RunIds::new("r", "s");
    /// let extensions = Extensions::new();
    /// let ctx = InterceptContext::detached(&ids, &extensions);
    /// assert_eq!(ctx.agent(), "");
    /// assert_eq!(ctx.tool_call_id(), None);
    /// ```
    pub fn detached(ids: &'a RunIds, extensions: &'a Extensions) -> Self {
        InterceptContext {
            ids,
            agent: "",
            skill: None,
            turn: 0,
            tool: None,
            tool_call_id: None,
            client: None,
            extensions,
            args: None,
            approvals: None,
            parent: None,
            owner: None,
            ledger: None,
            ledger_call: 0,
        }
    }

    /// The run's ids (its session id names the session an approval is for).
    pub fn ids(&self) -> &'a RunIds {
        self.ids
    }

    /// The agent's name.
    pub fn agent(&self) -> &'a str {
        self.agent
    }

    /// The skill running (at the skill point: the skill asked for), if one was chosen yet.
    pub fn skill(&self) -> Option<&'a str> {
        self.skill
    }

    /// The model turn, from 1; 0 before the first turn (a skill decision, a code skill's first
    /// tool call).
    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// The tool called, at the tool points.
    pub fn tool(&self) -> Option<&'a str> {
        self.tool
    }

    /// The tool call's id, at the tool points.
    pub fn tool_call_id(&self) -> Option<&'a str> {
        self.tool_call_id
    }

    /// The MCP principal when the call came over MCP (the authenticated principal over HTTP, the
    /// client's own name over stdio); `None` otherwise.
    pub fn client(&self) -> Option<&'a str> {
        self.client
    }

    /// At the after-tool point: the arguments the tool ran with, as JSON (a hand-written dynamic
    /// after-interceptor reads them here); `None` elsewhere.
    pub fn arguments(&self) -> Option<&'a Value> {
        self.args
    }

    /// Whose tool call started this run, when it is a sub-agent's (a tool that runs an agent, or
    /// a handoff): the parent agent, its run's ids, the tool call's id and this run's depth.
    /// `None` for a run a caller started. A sub-agent's run inherits its parent's MCP principal
    /// ([`client`](Self::client)) and extensions.
    pub fn parent(&self) -> Option<&'a ParentCall> {
        self.parent
    }

    /// Whose gate (or opted-in interceptor) is asking, when it is an ancestor's judging a
    /// descendant's call: that agent and its depth. `None` when the agent's own link asks — then
    /// [`agent`](Self::agent) is whose it is.
    ///
    /// ```
    /// use agents_kt::{Extensions, InterceptContext, RunIds};
    /// let (ids, extensions) = (RunIds::default(), Extensions::new());
    /// assert!(InterceptContext::detached(&ids, &extensions).gate_owner().is_none());
    /// ```
    pub fn gate_owner(&self) -> Option<&'a GateOwner> {
        self.owner
    }

    /// How deep this run is: 0 for a run a caller started, 1 for a sub-agent's, …
    pub fn depth(&self) -> u32 {
        self.parent.map_or(0, ParentCall::depth)
    }

    /// What the caller attached to this run with `run_with` / `session_with`.
    pub fn extensions(&self) -> &'a Extensions {
        self.extensions
    }

    /// Ask a human to approve `args` and wait for the answer (see [`crate::Approval`]): at a
    /// tool call of a run with an approval desk
    /// ([`AgentBuilder::approvals`](crate::AgentBuilder::approvals)) or a journal
    /// ([`Agent::run_journaled`](crate::Agent::run_journaled)). Anywhere else the answer is
    /// `Denied`. An `Edited` answer re-runs the tool's interceptors and gates on the edited
    /// arguments. The wait is not cut short by `Budget::interceptor_timeout`.
    ///
    /// ```
    /// use agents_kt::{Approval, InterceptContext, Verdict};
    /// # #[derive(Clone, serde::Serialize, serde::Deserialize)] struct WriteArgs { path: String }
    /// async fn human_says_yes(args: WriteArgs, ctx: &InterceptContext<'_>) -> Verdict {
    ///     match ctx.approval(&args).await {
    ///         Approval::Approved => Verdict::Allow,
    ///         Approval::Denied(reason) => Verdict::Deny(reason),
    ///         // The guard runs again on the edited arguments, and asks again.
    ///         Approval::Edited(_) => Verdict::deny("edited"),
    ///     }
    /// }
    /// ```
    pub fn approval<A>(&self, args: &A) -> futures::future::BoxFuture<'static, crate::Approval<A>>
    where
        A: serde::Serialize + serde::de::DeserializeOwned + Send + 'static,
    {
        self.approver().ask(args)
    }

    /// An owned handle for asking approvals from a future that outlives this borrow (a closure
    /// registered on the builder that returns `async move { .. }`).
    pub fn approver(&self) -> crate::Approver {
        crate::Approver::new(self.approvals.cloned())
    }

    /// Whether someone in this guard is waiting for a human (the interceptor timeout waits too).
    pub(crate) fn awaiting_approval(&self) -> bool {
        self.approvals.is_some_and(|scope| scope.is_waiting())
    }
}

impl fmt::Debug for InterceptContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InterceptContext")
            .field("ids", self.ids)
            .field("agent", &self.agent)
            .field("skill", &self.skill)
            .field("turn", &self.turn)
            .field("tool", &self.tool)
            .field("tool_call_id", &self.tool_call_id)
            .field("client", &self.client)
            .field("parent", &self.parent)
            .field("owner", &self.owner)
            .finish_non_exhaustive()
    }
}

/// Whose tool call started a sub-agent's run: what [`crate::InterceptContext::parent`] tells its
/// interceptors and gates.
///
/// ```
/// use agents_kt::{Agent, Decision, InterceptContext, Reply, ScriptedModel};
/// let child = Agent::<String, String>::builder("researcher")
///     .model(ScriptedModel::new([Reply::text("three sources")]))
///     .on_before_turn(|_m: &[agents_kt::Message], ctx: &InterceptContext| match ctx.parent() {
///         Some(parent) if parent.agent() == "planner" => Decision::Proceed,
///         _ => Decision::deny("only the planner may ask"),
///     })
///     .build()
///     .unwrap();
/// # let _ = child;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParentCall {
    agent: String,
    ids: RunIds,
    tool: String,
    tool_call_id: String,
    depth: u32,
}

impl ParentCall {
    /// The parent agent's name.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// The parent run's ids.
    pub fn ids(&self) -> &RunIds {
        &self.ids
    }

    /// The tool the parent called (the sub-agent's tool name, or `transfer_to_<name>`).
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The id of the parent's tool call that started this run.
    pub fn tool_call_id(&self) -> &str {
        &self.tool_call_id
    }

    /// This run's depth: 1 for a sub-agent of a run a caller started, 2 below that, …
    pub fn depth(&self) -> u32 {
        self.depth
    }
}

impl ParentCall {
    /// The call `tool_call_id` of `tool` by the run `ids` of `agent`, starting a run at `depth`.
    pub(crate) fn new(
        agent: &str,
        ids: RunIds,
        tool: &str,
        tool_call_id: &str,
        depth: u32,
    ) -> Self {
        ParentCall {
            agent: agent.to_string(),
            ids,
            tool: tool.to_string(),
            tool_call_id: tool_call_id.to_string(),
            depth,
        }
    }
}
