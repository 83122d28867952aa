//! The approval desk and its inbox: where a process's questions wait for a human. One desk can
//! serve every agent of a tree (a sub-agent without a desk asks its parent's), several runs and
//! several agents; its inbox lists what waits ([`ApprovalInbox::pending`]), answers any of it out
//! of band by fingerprint ([`ApprovalInbox::answer`]), in any order, and streams the questions
//! as they come and every change ([`ApprovalInbox::changes`]) — serializable, for a web page.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use futures::channel::{mpsc, oneshot};
use futures::{Stream, StreamExt};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ApprovalAnswer, ApprovalRequest};

/// How many answered fingerprints a desk remembers, to say "already answered" rather than
/// "unknown".
const REMEMBERED_ANSWERS: usize = 1024;

/// Where a run's approvals go in one process: give it to the agent
/// ([`AgentBuilder::approvals`](crate::AgentBuilder::approvals)) or to a
/// [`MemoryJournal`](crate::MemoryJournal), and read the questions from its [`ApprovalInbox`].
///
/// ```
/// use agents_kt::{Agent, Approval, ApprovalDesk, InterceptContext, Reply, ScriptedModel, Verdict};
/// use futures::StreamExt;
/// # #[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
/// # pub struct PayArgs { pub amount: u32 }
/// # pub struct Pay;
/// # impl agents_kt::Tool for Pay {
/// #     const NAME: &'static str = "pay";
/// #     type Args = PayArgs;
/// #     type Output = String;
/// #     fn description(&self) -> std::borrow::Cow<'static, str> { "Pay.".into() }
/// #     async fn call(&self, a: PayArgs, _: &agents_kt::ToolContext) -> Result<String, agents_kt::ToolError> { Ok(format!("paid {}", a.amount)) }
/// # }
/// # impl agents_kt::ToolArguments for PayArgs { type Tool = Pay; }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let (desk, mut inbox) = ApprovalDesk::new();
/// let agent = Agent::<String, String>::builder("expenses")
///     .model(ScriptedModel::new([
///         Reply::tool_call("pay", serde_json::json!({"amount": 250})),
///         Reply::text("done"),
///     ]))
///     .tool(Pay)
///     .approvals(desk)
///     .gate_tool_call(|args: &PayArgs, ctx: &InterceptContext<'_>| {
///         let (approver, args) = (ctx.approver(), args.clone());
///         async move {
///             match approver.ask(&args).await {
///                 Approval::Approved => Verdict::Allow,
///                 Approval::Denied(reason) => Verdict::Deny(reason),
///                 Approval::Edited(_) => Verdict::deny("edited"),
///             }
///         }
///     })
///     .build()
///     .unwrap();
/// // The human's side: read the question, look at the typed arguments, answer.
/// let human = tokio::spawn(async move {
///     let question = inbox.next().await.unwrap();
///     assert_eq!(question.args::<PayArgs>().unwrap().amount, 250);
///     question.approve();
/// });
/// assert_eq!(agent.run("pay the invoice".into()).await.unwrap(), "done");
/// human.await.unwrap();
/// # }
/// ```
#[derive(Clone)]
pub struct ApprovalDesk {
    life: Arc<DeskLife>,
}

/// The questions put to an [`ApprovalDesk`]: a `Stream` of each new [`PendingApproval`] (it ends
/// when every desk is dropped), what waits now ([`ApprovalInbox::pending`]), answers by
/// fingerprint ([`ApprovalInbox::answer`]) and a stream of changes ([`ApprovalInbox::changes`]).
/// A clone reads the questions asked from then on; questions wait until answered, or until the
/// last inbox is dropped (then they are denied: nobody reads the desk).
pub struct ApprovalInbox {
    life: Arc<InboxLife>,
    questions: mpsc::UnboundedReceiver<PendingApproval>,
}

/// One question waiting for an answer: a handle on the desk's question, which any inbox can
/// answer too (the first answer counts).
pub struct PendingApproval {
    request: ApprovalRequest,
    id: u64,
    board: Arc<Board>,
}

/// What changed on a desk, as [`ApprovalInbox::changes`] streams it: serializable, for a page
/// that shows the inbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
#[non_exhaustive]
pub enum InboxChange {
    /// A question was asked and waits.
    Asked {
        /// The question.
        request: ApprovalRequest,
    },
    /// A question was answered.
    Answered {
        /// The question.
        request: ApprovalRequest,
        /// The answer.
        answer: ApprovalAnswer,
    },
    /// A question stopped waiting unanswered: its run ended (or gave up) first.
    Withdrawn {
        /// The question.
        request: ApprovalRequest,
    },
}

/// Why [`ApprovalInbox::answer`] refused an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InboxError {
    /// No question with this fingerprint waits: never asked here, withdrawn, or asked about other
    /// arguments or under another permission manifest (a stale answer).
    #[error(
        "no approval with fingerprint {fingerprint} is waiting: it was never asked here, its run ended, or it is stale (other arguments, or permissions that have changed since)"
    )]
    NotWaiting {
        /// The answer's fingerprint.
        fingerprint: String,
    },
    /// The question with this fingerprint was answered already; the first answer counts.
    #[error("the approval with fingerprint {fingerprint} was answered already")]
    AlreadyAnswered {
        /// The answer's fingerprint.
        fingerprint: String,
    },
}

/// An answer about other arguments than the ones asked about: refused, the question still open.
#[derive(Debug, thiserror::Error)]
#[error("the answer is for arguments with fingerprint {given}, the question is about {asked}")]
#[non_exhaustive]
pub struct StaleApproval {
    /// The question, still waiting for an answer.
    pub pending: PendingApproval,
    /// The fingerprint the answer carried.
    pub given: String,
    /// The question's.
    pub asked: String,
}

/// A desk's questions and who listens, shared by every desk and inbox handle.
#[derive(Default)]
struct Board {
    state: Mutex<BoardState>,
    next_id: AtomicU64,
}

#[derive(Default)]
struct BoardState {
    /// In the order asked.
    waiting: Vec<Waiting>,
    /// Fingerprints answered lately, newest last.
    answered: VecDeque<String>,
    /// Every inbox's stream of new questions.
    readers: Vec<mpsc::UnboundedSender<PendingApproval>>,
    /// Every stream of changes.
    watchers: Vec<mpsc::UnboundedSender<InboxChange>>,
    /// How many inboxes are alive.
    inboxes: usize,
}

struct Waiting {
    id: u64,
    request: ApprovalRequest,
    reply: oneshot::Sender<ApprovalAnswer>,
}

/// The desks' share of the board: when the last desk is dropped, no question can come, and the
/// inboxes' streams end.
struct DeskLife {
    board: Arc<Board>,
}

/// The inboxes' share: when the last inbox is dropped, nobody can answer, and what waits is
/// denied.
struct InboxLife {
    board: Arc<Board>,
}

impl Board {
    fn state(&self) -> MutexGuard<'_, BoardState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Answer the question `id` (or, without one, the first waiting with the answer's
    /// fingerprint).
    fn answer(&self, id: Option<u64>, answer: ApprovalAnswer) -> Result<(), InboxError> {
        let fingerprint = answer.fingerprint().to_string();
        let mut state = self.state();
        let position = state.waiting.iter().position(|waiting| match id {
            Some(id) => waiting.id == id,
            None => waiting.request.fingerprint == fingerprint,
        });
        let Some(position) = position else {
            return Err(if state.answered.contains(&fingerprint) {
                InboxError::AlreadyAnswered { fingerprint }
            } else {
                InboxError::NotWaiting { fingerprint }
            });
        };
        let waiting = state.waiting.remove(position);
        state.answered.push_back(fingerprint);
        if state.answered.len() > REMEMBERED_ANSWERS {
            state.answered.pop_front();
        }
        let change = InboxChange::Answered {
            request: waiting.request,
            answer: answer.clone(),
        };
        state.tell(change);
        // The run may have ended meanwhile; then nobody needs the answer.
        let _ = waiting.reply.send(answer);
        Ok(())
    }
}

impl BoardState {
    fn tell(&mut self, change: InboxChange) {
        self.watchers
            .retain(|watcher| watcher.unbounded_send(change.clone()).is_ok());
    }
}

impl Drop for DeskLife {
    fn drop(&mut self) {
        let mut state = self.board.state();
        state.readers.clear();
        state.watchers.clear();
    }
}

impl Drop for InboxLife {
    fn drop(&mut self) {
        let mut state = self.board.state();
        state.inboxes -= 1;
        if state.inboxes == 0 {
            // Nobody is left to answer: each waiting run is told so (its reply dropped).
            state.waiting.clear();
        }
    }
}

impl ApprovalDesk {
    /// A desk and the inbox its questions arrive in.
    pub fn new() -> (ApprovalDesk, ApprovalInbox) {
        let board = Arc::new(Board::default());
        let desk = ApprovalDesk {
            life: Arc::new(DeskLife {
                board: Arc::clone(&board),
            }),
        };
        (desk, ApprovalInbox::on(board))
    }

    /// Ask, and wait for the answer (as JSON of an [`ApprovalAnswer`]). Nobody left to answer —
    /// every inbox dropped — is a denial.
    pub(crate) async fn ask(&self, mut request: ApprovalRequest) -> Value {
        let fingerprint = request.fingerprint.clone();
        let unanswered = |why: &str| {
            let answer =
                ApprovalAnswer::deny(fingerprint.clone(), format!("approval not given: {why}"));
            serde_json::to_value(answer).unwrap_or(Value::Null)
        };
        let board = &self.life.board;
        let id = board.next_id.fetch_add(1, Ordering::Relaxed);
        request.since_ms = now_ms();
        let (reply, answer) = oneshot::channel();
        {
            let mut state = board.state();
            if state.inboxes == 0 {
                return unanswered("nobody reads the approval desk");
            }
            state.waiting.push(Waiting {
                id,
                request: request.clone(),
                reply,
            });
            let question = |request: &ApprovalRequest| PendingApproval {
                request: request.clone(),
                id,
                board: Arc::clone(board),
            };
            state
                .readers
                .retain(|reader| reader.unbounded_send(question(&request)).is_ok());
            state.tell(InboxChange::Asked { request });
        }
        let mut withdraw = Withdraw {
            board: Arc::clone(board),
            id: Some(id),
        };
        let answer = answer.await;
        withdraw.id = None;
        match answer {
            Ok(answer) => serde_json::to_value(answer).unwrap_or(Value::Null),
            Err(_) => unanswered("nobody reads the approval desk"),
        }
    }
}

/// Takes a question off the board when its asker stops waiting unanswered (its run ended).
struct Withdraw {
    board: Arc<Board>,
    id: Option<u64>,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        let mut state = self.board.state();
        if let Some(position) = state.waiting.iter().position(|waiting| waiting.id == id) {
            let waiting = state.waiting.remove(position);
            state.tell(InboxChange::Withdrawn {
                request: waiting.request,
            });
        }
    }
}

fn now_ms() -> u64 {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since_epoch.map_or(0, |elapsed| {
        u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
    })
}

impl ApprovalInbox {
    fn on(board: Arc<Board>) -> Self {
        let (reader, questions) = mpsc::unbounded();
        {
            let mut state = board.state();
            state.inboxes += 1;
            state.readers.push(reader);
        }
        ApprovalInbox {
            life: Arc::new(InboxLife { board }),
            questions,
        }
    }

    /// Every question waiting now, oldest first: its run, agent, depth, tool, arguments,
    /// fingerprint, manifest hash and when it was asked — all serializable.
    ///
    /// ```
    /// let (_desk, inbox) = agents_kt::ApprovalDesk::new();
    /// assert!(inbox.pending().is_empty());
    /// ```
    pub fn pending(&self) -> Vec<ApprovalRequest> {
        let state = self.life.board.state();
        state
            .waiting
            .iter()
            .map(|waiting| waiting.request.clone())
            .collect()
    }

    /// Answer the waiting question whose fingerprint the answer repeats, out of band (any
    /// question, in any order). An answer for a question not waiting — never asked, withdrawn,
    /// stale, or answered already — is an error saying which.
    ///
    /// ```
    /// use agents_kt::{ApprovalAnswer, ApprovalDesk, InboxError};
    /// let (_desk, inbox) = ApprovalDesk::new();
    /// let refused = inbox.answer(ApprovalAnswer::approve("ab12"));
    /// assert!(matches!(refused, Err(InboxError::NotWaiting { .. })));
    /// ```
    pub fn answer(&self, answer: ApprovalAnswer) -> Result<(), InboxError> {
        self.life.board.answer(None, answer)
    }

    /// Every change from now on — asked, answered, withdrawn — as a stream; it ends when every
    /// desk is dropped.
    pub fn changes(&self) -> impl Stream<Item = InboxChange> + Send + 'static {
        let (watcher, changes) = mpsc::unbounded();
        self.life.board.state().watchers.push(watcher);
        changes
    }
}

impl Clone for ApprovalInbox {
    /// Another reader of the same desk: it streams the questions asked from now on, and sees and
    /// answers every waiting one.
    fn clone(&self) -> Self {
        // A life of its own, so dropping a clone counts one inbox less.
        ApprovalInbox::on(Arc::clone(&self.life.board))
    }
}

impl fmt::Debug for ApprovalDesk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalDesk").finish_non_exhaustive()
    }
}

impl fmt::Debug for ApprovalInbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalInbox")
            .field("pending", &self.pending().len())
            .finish()
    }
}

impl Stream for ApprovalInbox {
    type Item = PendingApproval;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<PendingApproval>> {
        self.questions.poll_next_unpin(cx)
    }
}

impl PendingApproval {
    /// What is asked.
    pub fn request(&self) -> &ApprovalRequest {
        &self.request
    }

    /// The arguments as the tool's own type.
    pub fn args<A: DeserializeOwned>(&self) -> Result<A, serde_json::Error> {
        A::deserialize(&self.request.args)
    }

    /// Answer; an answer carrying another fingerprint is refused and the question stays open.
    /// Answering a question another inbox answered first does nothing.
    pub fn answer(self, answer: ApprovalAnswer) -> Result<(), Box<StaleApproval>> {
        if answer.fingerprint() != self.request.fingerprint {
            let asked = self.request.fingerprint.clone();
            return Err(Box::new(StaleApproval {
                given: answer.fingerprint().to_string(),
                asked,
                pending: self,
            }));
        }
        let _ = self.board.answer(Some(self.id), answer);
        Ok(())
    }

    /// Approve the arguments shown.
    pub fn approve(self) {
        let fingerprint = self.request.fingerprint.clone();
        let _ = self.answer(ApprovalAnswer::approve(fingerprint));
    }

    /// Deny, saying why.
    pub fn deny(self, reason: impl Into<String>) {
        let fingerprint = self.request.fingerprint.clone();
        let _ = self.answer(ApprovalAnswer::deny(fingerprint, reason));
    }

    /// Run with `args` instead (they pass the guard again and need their own approval).
    pub fn edit<A: Serialize>(self, args: &A) -> Result<(), serde_json::Error> {
        let fingerprint = self.request.fingerprint.clone();
        let args = serde_json::to_value(args)?;
        let _ = self.answer(ApprovalAnswer::edit(fingerprint, args));
        Ok(())
    }
}

impl fmt::Debug for PendingApproval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingApproval")
            .field("request", &self.request)
            .finish_non_exhaustive()
    }
}
