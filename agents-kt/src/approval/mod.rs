//! Approvals: an interceptor or gate at a tool call asks a human, and waits. The human sees the
//! tool and its arguments and answers Approve, Deny(reason) or Edit(arguments); the answer is
//! bound to a fingerprint of what they saw, so an answer about other arguments is refused.
//!
//! In one process the question goes to an [`ApprovalDesk`] (a channel the application reads);
//! in a journaled run it goes through the [`Journal`](crate::Journal), which records the answer —
//! under Restate the run waits on a durable promise with nothing held open, for days if need be.
//!
//! An edit re-runs the tool's interceptors and gates on the edited arguments (and whoever asked
//! asks again, for them); arguments changed by a later interceptor after an approval deny the
//! call. Ask in a gate to approve exactly what will run.

use crate::journal::RunJournal;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

mod board;
mod desk;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use desk::{
    ApprovalDesk, ApprovalInbox, InboxChange, InboxError, PendingApproval, StaleApproval,
};

/// What an approver is asked (built by the run; read its fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The run asking.
    pub run_id: String,
    /// The approval's step name in the run (`approval#N:tool`).
    pub step: String,
    /// The tool whose call is to be approved.
    pub tool: String,
    /// Its arguments, as JSON.
    pub args: Value,
    /// The fingerprint of the tool name and the canonical arguments (and the manifest's hash,
    /// when the run has one): an answer repeats it.
    pub fingerprint: String,
    /// The hash of the permission manifest the run asks under (see
    /// [`Agent::manifest`](crate::Agent::manifest)): an answer given under another is stale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<String>,
    /// The agent asking.
    #[serde(default)]
    pub agent: String,
    /// Its depth in the agent tree (0: the agent a caller ran).
    #[serde(default)]
    pub depth: u32,
    /// When it was put to the desk, in milliseconds since the Unix epoch (0 until then).
    #[serde(default)]
    pub since_ms: u64,
}

impl ApprovalRequest {
    /// A question an MCP server asks a person (`elicitation/create`), put to a desk by a
    /// toolset: the "tool" `mcp_elicitation`, its `args` what the person reads and may edit.
    #[cfg(feature = "mcp-client")]
    pub(crate) fn for_elicitation(number: u64, args: Value) -> Self {
        const TOOL: &str = "mcp_elicitation";
        ApprovalRequest {
            run_id: "mcp-elicitation".to_string(),
            step: format!("elicitation#{number}:{TOOL}"),
            tool: TOOL.to_string(),
            fingerprint: approval_fingerprint(TOOL, &args),
            args,
            manifest: None,
            agent: String::new(),
            depth: 0,
            since_ms: 0,
        }
    }
}

/// An approver's answer, bound to the fingerprint of the request it answers.
///
/// ```
/// use agents_kt::ApprovalAnswer;
/// let answer: ApprovalAnswer =
///     serde_json::from_str(r#"{"answer":"deny","fingerprint":"ab12","reason":"not today"}"#).unwrap();
/// assert_eq!(answer.fingerprint(), "ab12");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ApprovalAnswer {
    /// Run the call with the arguments shown ([`ApprovalAnswer::approve`]).
    #[non_exhaustive]
    Approve {
        /// The request's fingerprint.
        fingerprint: String,
    },
    /// Do not run it ([`ApprovalAnswer::deny`]).
    #[non_exhaustive]
    Deny {
        /// The request's fingerprint.
        fingerprint: String,
        /// Why, for the model and the audit trail.
        reason: String,
    },
    /// Run it with these arguments instead (they pass the interceptors and gates again, and
    /// need their own approval; [`ApprovalAnswer::edit`]).
    #[non_exhaustive]
    Edit {
        /// The request's fingerprint.
        fingerprint: String,
        /// The replacement arguments, as JSON of the tool's argument type.
        args: Value,
    },
}

impl ApprovalAnswer {
    /// Approve the request with this fingerprint, as asked.
    ///
    /// ```
    /// let answer = agents_kt::ApprovalAnswer::approve("ab12");
    /// assert_eq!(serde_json::to_value(&answer).unwrap()["answer"], "approve");
    /// ```
    pub fn approve(fingerprint: impl Into<String>) -> Self {
        ApprovalAnswer::Approve {
            fingerprint: fingerprint.into(),
        }
    }

    /// Deny the request with this fingerprint, saying why.
    ///
    /// ```
    /// let answer = agents_kt::ApprovalAnswer::deny("ab12", "not today");
    /// assert_eq!(answer.fingerprint(), "ab12");
    /// ```
    pub fn deny(fingerprint: impl Into<String>, reason: impl Into<String>) -> Self {
        ApprovalAnswer::Deny {
            fingerprint: fingerprint.into(),
            reason: reason.into(),
        }
    }

    /// Run the request with this fingerprint with `args` instead (JSON of the tool's arguments).
    ///
    /// ```
    /// let answer = agents_kt::ApprovalAnswer::edit("ab12", serde_json::json!({"amount": 100}));
    /// assert!(matches!(answer, agents_kt::ApprovalAnswer::Edit { .. }));
    /// ```
    pub fn edit(fingerprint: impl Into<String>, args: Value) -> Self {
        ApprovalAnswer::Edit {
            fingerprint: fingerprint.into(),
            args,
        }
    }

    /// The fingerprint of the request this answers.
    pub fn fingerprint(&self) -> &str {
        match self {
            ApprovalAnswer::Approve { fingerprint }
            | ApprovalAnswer::Deny { fingerprint, .. }
            | ApprovalAnswer::Edit { fingerprint, .. } => fingerprint,
        }
    }
}

/// What an interceptor or gate learns from [`InterceptContext::approval`](crate::InterceptContext::approval).
/// Deliberately exhaustive, like the approver's three answers it reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Approval<A> {
    /// Approved as asked.
    Approved,
    /// Denied, for this reason (also: nobody can answer, the answer did not fit, the wait
    /// failed — an approval never lets a call through by default).
    Denied(String),
    /// The approver edited the arguments: the tool's guard runs again on these.
    Edited(A),
}

/// The fingerprint of a call of `tool` with `args`: SHA-256 over the name and the arguments'
/// canonical JSON (object keys sorted at every level), in hex. Equal for equal arguments whatever
/// their field order.
///
/// ```
/// use agents_kt::approval_fingerprint;
/// use serde_json::json;
/// let a = approval_fingerprint("write", &json!({"path": "/tmp/a", "mode": 1}));
/// let b = approval_fingerprint("write", &json!({"mode": 1, "path": "/tmp/a"}));
/// assert_eq!(a, b);
/// assert_ne!(a, approval_fingerprint("write", &json!({"path": "/tmp/b", "mode": 1})));
/// ```
pub fn approval_fingerprint(tool: &str, args: &Value) -> String {
    let mut hash = Sha256::new();
    hash.update(tool.as_bytes());
    hash.update([0]);
    canonical(args, &mut hash);
    hex(hash)
}

/// [`approval_fingerprint`] of a call asked under the permission manifest `manifest` (its
/// hash): the same call under another manifest has another fingerprint, so an approval given
/// before the agent tree's permissions changed does not answer a question asked after.
///
/// ```
/// use agents_kt::{approval_fingerprint, approval_fingerprint_under};
/// use serde_json::json;
/// let args = json!({"path": "/tmp/a"});
/// assert_ne!(approval_fingerprint_under("aa11", "write", &args), approval_fingerprint_under("bb22", "write", &args));
/// assert_ne!(approval_fingerprint_under("aa11", "write", &args), approval_fingerprint("write", &args));
/// ```
pub fn approval_fingerprint_under(manifest: &str, tool: &str, args: &Value) -> String {
    let mut hash = Sha256::new();
    hash.update(b"manifest\0");
    hash.update(manifest.as_bytes());
    hash.update([0]);
    hash.update(tool.as_bytes());
    hash.update([0]);
    canonical(args, &mut hash);
    hex(hash)
}

/// A call's fingerprint, under the run's manifest when it has one.
fn fingerprint(manifest: Option<&str>, tool: &str, args: &Value) -> String {
    match manifest {
        Some(manifest) => approval_fingerprint_under(manifest, tool, args),
        None => approval_fingerprint(tool, args),
    }
}

/// SHA-256 of `value`'s canonical JSON (object keys sorted at every level), in hex.
pub(crate) fn canonical_sha256(value: &Value) -> String {
    let mut hash = Sha256::new();
    canonical(value, &mut hash);
    hex(hash)
}

fn hex(hash: Sha256) -> String {
    hash.finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Feed `value`'s canonical JSON to `hash`: objects with their keys sorted. Written out first
/// and hashed at once (many small updates cost more than the hashing).
fn canonical(value: &Value, hash: &mut Sha256) {
    let mut text = Vec::with_capacity(256);
    write_canonical(value, &mut text);
    hash.update(&text);
}

fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push(b'{');
            for (position, key) in keys.into_iter().enumerate() {
                if position > 0 {
                    out.push(b',');
                }
                write_scalar(&Value::String(key.clone()), out);
                out.push(b':');
                write_canonical(&map[key], out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => write_scalar(scalar, out),
    }
}

/// A string or scalar as JSON text (writing into a `Vec` cannot fail).
fn write_scalar(value: &Value, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
fn now_ms() -> u64 {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since_epoch.map_or(0, |elapsed| {
        u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
    })
}

/// Where a run's approvals go: its journal (recorded, durable), or a desk.
#[derive(Clone)]
pub(crate) enum Channel {
    Journal(Arc<RunJournal>),
    Desk(ApprovalDesk),
}

/// A run's approvals: where they go and how many were asked (the step numbers).
pub(crate) struct RunApprovals {
    channel: Channel,
    run_id: String,
    /// The hash of the manifest the run asks under.
    manifest: Option<Arc<str>>,
    /// The agent asking, and its depth in the tree.
    agent: String,
    depth: u32,
    asked: AtomicU32,
}

impl RunApprovals {
    pub(crate) fn new(channel: Channel, ids: &crate::RunIds, agent: &str, depth: u32) -> Self {
        RunApprovals {
            channel,
            run_id: ids.run_id.clone(),
            manifest: ids.manifest.clone(),
            agent: agent.to_string(),
            depth,
            asked: AtomicU32::new(0),
        }
    }
}

/// The approvals of one guard of one tool call: what was approved and edited in it.
pub(crate) struct ApprovalScope {
    run: Arc<RunApprovals>,
    tool: String,
    state: Mutex<ScopeState>,
    /// Whether someone in this guard is waiting for a human: the interceptor timeout does not
    /// run out on a human.
    waiting: AtomicBool,
}

#[derive(Default)]
struct ScopeState {
    approved: Vec<String>,
    edit: Option<Value>,
}

impl ApprovalScope {
    pub(crate) fn new(run: Arc<RunApprovals>, tool: &str) -> Arc<Self> {
        Arc::new(ApprovalScope {
            run,
            tool: tool.to_string(),
            state: Mutex::new(ScopeState::default()),
            waiting: AtomicBool::new(false),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, ScopeState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The arguments an approver edited in this guard, if any (taken: the next guard starts
    /// clean).
    pub(crate) fn take_edit(&self) -> Option<Value> {
        let mut state = self.state();
        let edit = state.edit.take();
        if edit.is_some() {
            // What was approved before the edit is not what will run.
            state.approved.clear();
        }
        edit
    }

    /// Whether something was approved in this guard, but not `final_args`: a later link changed
    /// the arguments after the approval.
    pub(crate) fn changed_after_approval(&self, final_args: impl FnOnce() -> Value) -> bool {
        let state = self.state();
        !state.approved.is_empty()
            && !state.approved.contains(&fingerprint(
                self.run.manifest.as_deref(),
                &self.tool,
                &final_args(),
            ))
    }

    /// Whether someone is waiting for a human now.
    pub(crate) fn is_waiting(&self) -> bool {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Ask about `args`; the answer as the caller's type.
    async fn ask(&self, args: Value) -> AnswerOf {
        self.waiting.store(true, Ordering::Relaxed);
        let answer = self.run.ask_about(&self.tool, args).await;
        self.waiting.store(false, Ordering::Relaxed);
        let (answer, fingerprint) = match answer {
            Ok(answered) => answered,
            Err(reason) => return AnswerOf::Denied(reason),
        };
        match answer {
            ApprovalAnswer::Approve { .. } => {
                self.state().approved.push(fingerprint);
                AnswerOf::Approved
            }
            ApprovalAnswer::Deny { reason, .. } => AnswerOf::Denied(reason),
            ApprovalAnswer::Edit { args, .. } => {
                self.state().edit = Some(args.clone());
                AnswerOf::Edited(args)
            }
        }
    }
}

impl RunApprovals {
    /// Ask about a call of `tool` with `args` — the run's next approval step, through its
    /// journal or its desk — and check that the answer is about them: the answer and the
    /// fingerprint asked, or why there is none (a denial's reason).
    pub(crate) async fn ask_about(
        &self,
        tool: &str,
        args: Value,
    ) -> Result<(ApprovalAnswer, String), String> {
        let number = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
        let step = crate::journal::step_name("approval", u64::from(number), Some(tool));
        let manifest = self.manifest.as_deref();
        let fingerprint = fingerprint(manifest, tool, &args);
        let request = ApprovalRequest {
            run_id: self.run_id.clone(),
            step: step.clone(),
            tool: tool.to_string(),
            args,
            fingerprint: fingerprint.clone(),
            manifest: manifest.map(str::to_string),
            agent: self.agent.clone(),
            depth: self.depth,
            since_ms: 0,
        };
        let answer = match &self.channel {
            Channel::Desk(desk) => Ok(desk.ask(request).await),
            Channel::Journal(journal) => journal.approval(&step, request).await,
        };
        let answer = answer.map_err(|error| format!("approval not given: {error}"))?;
        let answer: ApprovalAnswer = serde_json::from_value(answer)
            .map_err(|error| format!("the approval answer could not be read: {error}"))?;
        if answer.fingerprint() != fingerprint {
            // Stale: given for other arguments, or before the tree's permissions changed.
            let under = manifest.map_or_else(String::new, |hash| format!(" under manifest {hash}"));
            return Err(format!(
                "the approval answered another question (fingerprint {}, asked {fingerprint}{under}): other arguments, or permissions that have changed since",
                answer.fingerprint()
            ));
        }
        Ok((answer, fingerprint))
    }
}

enum AnswerOf {
    Approved,
    Denied(String),
    Edited(Value),
}

/// An owned handle to ask for approvals from inside an interceptor's or gate's future
/// ([`InterceptContext::approver`](crate::InterceptContext::approver)).
#[derive(Clone)]
pub struct Approver {
    scope: Option<Arc<ApprovalScope>>,
}

impl Approver {
    pub(crate) fn new(scope: Option<Arc<ApprovalScope>>) -> Self {
        Approver { scope }
    }

    /// Ask a human to approve `args` and wait for the answer. Without an approval desk or a
    /// journal, or outside a tool call, the answer is `Denied` (an approval never defaults to
    /// yes).
    pub fn ask<A>(&self, args: &A) -> BoxFuture<'static, Approval<A>>
    where
        A: Serialize + DeserializeOwned + Send + 'static,
    {
        let scope = self.scope.clone();
        let args = serde_json::to_value(args);
        Box::pin(async move {
            let Some(scope) = scope else {
                return Approval::Denied(
                    "no approver: give the agent an ApprovalDesk (`.approvals(desk)`) or run it journaled, and ask at a tool call".to_string(),
                );
            };
            let args = match args {
                Ok(args) => args,
                Err(error) => {
                    return Approval::Denied(format!(
                        "the arguments could not be shown to the approver: {error}"
                    ));
                }
            };
            match scope.ask(args).await {
                AnswerOf::Approved => Approval::Approved,
                AnswerOf::Denied(reason) => Approval::Denied(reason),
                AnswerOf::Edited(args) => match A::deserialize(&args) {
                    Ok(args) => Approval::Edited(args),
                    Err(error) => {
                        Approval::Denied(format!("the approver's edit does not fit: {error}"))
                    }
                },
            }
        })
    }
}

impl fmt::Debug for Approver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Approver")
            .field("available", &self.scope.is_some())
            .finish()
    }
}
