//! Grants: which tools an agent — and every agent under it — may call at all. With any grant
//! declared, a tool not granted is refused: at build (an agent's own tools) and at every call
//! (a descendant's, through the gate the grants become). `confirm` asks a human first.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use crate::tool::registry::ToolEntry;
use crate::{Approval, Gate, Gated, InterceptContext, Tool, Verdict};

/// One tool granted to an agent: allowed outright, or allowed once a human confirms each call.
///
/// ```
/// use agents_kt::Grant;
/// # use agents_kt::{Tool, ToolContext, ToolError};
/// # #[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
/// # pub struct PathArgs { pub path: String }
/// # pub struct ReadFile;
/// # impl Tool for ReadFile {
/// #     const NAME: &'static str = "read_file";
/// #     type Args = PathArgs;
/// #     type Output = String;
/// #     fn description(&self) -> std::borrow::Cow<'static, str> { "Read.".into() }
/// #     async fn call(&self, _: PathArgs, _: &ToolContext) -> Result<String, ToolError> { Ok(String::new()) }
/// # }
/// let read = Grant::allow::<ReadFile>();
/// let write = Grant::confirm_named("write_file");
/// assert_eq!((read.tool(), read.confirms()), ("read_file", false));
/// assert_eq!((write.tool(), write.confirms()), ("write_file", true));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub struct Grant {
    tool: String,
    confirm: bool,
}

impl Grant {
    /// Tool `T` may be called.
    pub fn allow<T: Tool>() -> Self {
        Grant::allow_named(T::NAME)
    }

    /// Tool `T` may be called once a human approves each call.
    pub fn confirm<T: Tool>() -> Self {
        Grant::confirm_named(T::NAME)
    }

    /// The tool called `name` (a JSON tool: a remote MCP tool, a sub-agent, a handoff's
    /// `transfer_to_<name>`) may be called.
    pub fn allow_named(name: impl Into<String>) -> Self {
        Grant {
            tool: name.into(),
            confirm: false,
        }
    }

    /// The tool called `name` may be called once a human approves each call.
    pub fn confirm_named(name: impl Into<String>) -> Self {
        Grant {
            tool: name.into(),
            confirm: true,
        }
    }

    /// The tool granted.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Whether each call needs a human's approval.
    pub fn confirms(&self) -> bool {
        self.confirm
    }
}

/// An agent's grants as one gate over every tool call: a tool granted is allowed (after a
/// human's approval for a `confirm` grant), any other is denied. It flows down as every gate
/// does, so an agent's grants bound every agent under it.
pub(crate) struct GrantsGate {
    /// Whose grants, for the denial text.
    owner: String,
    allowed: BTreeSet<String>,
    confirmed: BTreeSet<String>,
}

impl GrantsGate {
    /// The gate of `grants`, declared by `owner`; a tool granted both ways needs confirming
    /// (the stricter wins).
    fn new(owner: &str, grants: &[Grant]) -> Arc<Self> {
        let confirmed: BTreeSet<String> = grants
            .iter()
            .filter(|grant| grant.confirm)
            .map(|grant| grant.tool.clone())
            .collect();
        let allowed = grants
            .iter()
            .filter(|grant| !confirmed.contains(&grant.tool))
            .map(|grant| grant.tool.clone())
            .collect();
        Arc::new(GrantsGate {
            owner: owner.to_string(),
            allowed,
            confirmed,
        })
    }
}

impl GrantsGate {
    /// The grants of `owner` as one tool entry: a gate over the call alone — no argument is
    /// parsed for it — unless a tool is granted with confirming, whose approver must see the
    /// arguments.
    pub(crate) fn entry(owner: &str, grants: &[Grant]) -> ToolEntry {
        let gate = GrantsGate::new(owner, grants);
        let name = Some(Arc::from("grants"));
        match gate.confirmed.is_empty() {
            true => ToolEntry::call_gate(gate, name),
            false => ToolEntry::any_gate(gate, name),
        }
    }

    /// The verdict on a call of `tool` when no human is to be asked; `None` when one is.
    fn without_asking(&self, tool: &str) -> Option<Verdict> {
        if self.allowed.contains(tool) {
            return Some(Verdict::Allow);
        }
        if self.confirmed.contains(tool) {
            return None;
        }
        let granted: Vec<&str> = (self.allowed.iter().chain(&self.confirmed))
            .map(String::as_str)
            .collect();
        Some(Verdict::Deny(format!(
            "tool '{tool}' is not granted by '{}' (granted: {})",
            self.owner,
            granted.join(", ")
        )))
    }
}

/// Grants without confirming judge the call alone.
impl Gate<()> for GrantsGate {
    fn check<'a>(&'a self, _: &(), ctx: &InterceptContext<'_>) -> Gated<'a> {
        let tool = ctx.tool().unwrap_or_default();
        // Registered this way only without confirmed tools; were one asked about, closed.
        Gated::Ready(self.without_asking(tool).unwrap_or_else(|| {
            Verdict::deny("a confirmed grant was judged without the call's arguments")
        }))
    }
}

impl Gate<Value> for GrantsGate {
    fn check<'a>(&'a self, args: &Value, ctx: &InterceptContext<'_>) -> Gated<'a> {
        let tool = ctx.tool().unwrap_or_default();
        if let Some(verdict) = self.without_asking(tool) {
            return Gated::Ready(verdict);
        }
        let (approver, args, owner) = (ctx.approver(), args.clone(), self.owner.clone());
        Gated::Pending(Box::pin(async move {
            match approver.ask(&args).await {
                Approval::Approved => Verdict::Allow,
                // Fail closed: no approver, or a human's no, is a denial that says so.
                Approval::Denied(reason) => Verdict::Deny(format!(
                    "'{owner}' grants this tool only with a human's approval, which was not given: {reason}"
                )),
                // The guard runs again on the edited arguments, and asks again.
                Approval::Edited(_) => Verdict::deny("the approver edited the arguments"),
            }
        }))
    }
}
