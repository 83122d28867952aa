//! The approval desk and its inbox: where a process's questions wait for a human. One desk can
//! serve every agent of a tree (a sub-agent without a desk asks its parent's), several runs and
//! several agents; its inbox lists what waits ([`ApprovalInbox::pending`]), answers any of it out
//! of band by fingerprint ([`ApprovalInbox::answer`]), in any order, and streams the questions
//! as they come and every change ([`ApprovalInbox::changes`]) — serializable, for a web page.
//! The board behind them is in memory (one process) or, behind `sqlite`, in a SQLite file that
//! several processes share.

use std::fmt;
use std::sync::Arc;

use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::board::{DeskLife, InboxLife, MemoryBoard};
#[cfg(feature = "sqlite")]
use super::sqlite::FileBoard;
use super::{ApprovalAnswer, ApprovalRequest};

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
    place: DeskPlace,
}

#[derive(Clone)]
enum DeskPlace {
    Memory(Arc<DeskLife>),
    #[cfg(feature = "sqlite")]
    File(Arc<FileBoard>),
}

/// The questions put to an [`ApprovalDesk`]: a `Stream` of each new [`PendingApproval`] (it ends
/// when every desk is dropped), what waits now ([`ApprovalInbox::pending`]), answers by
/// fingerprint ([`ApprovalInbox::answer`]) and a stream of changes ([`ApprovalInbox::changes`]).
/// A clone reads the questions asked from then on. In memory, questions wait until answered, or
/// until the last inbox is dropped (then they are denied: nobody reads the desk); on a SQLite
/// file ([`ApprovalDesk::sqlite`]) they wait until some process answers them, or their asker's
/// process dies (then they are withdrawn), and the streams never end.
pub struct ApprovalInbox {
    shelf: Shelf,
    /// An in-memory inbox's share of its board (the file's inboxes need none).
    _life: Option<Arc<InboxLife>>,
    questions: BoxStream<'static, (u64, ApprovalRequest)>,
}

/// One question waiting for an answer: a handle on the desk's question, which any inbox can
/// answer too (the first answer counts).
pub struct PendingApproval {
    request: ApprovalRequest,
    id: u64,
    shelf: Shelf,
}

/// The board a question is on, for answering and reading it.
#[derive(Clone)]
enum Shelf {
    Memory(Arc<MemoryBoard>),
    #[cfg(feature = "sqlite")]
    File(Arc<FileBoard>),
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
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
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
    /// The inbox's SQLite file could not be opened, read or written; nothing was answered.
    #[error("the approvals file failed: {reason}")]
    Store {
        /// What failed.
        reason: String,
    },
}

impl InboxError {
    /// The inbox's store failed, for `reason`.
    ///
    /// ```
    /// let e = agents_kt::InboxError::store("disk full");
    /// assert!(e.to_string().contains("disk full"));
    /// ```
    pub fn store(reason: impl Into<String>) -> Self {
        InboxError::Store {
            reason: reason.into(),
        }
    }
}

/// An answer about other arguments than the ones asked about: refused, the question still open.
#[derive(thiserror::Error)]
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

impl Shelf {
    fn answer(&self, id: Option<u64>, answer: ApprovalAnswer) -> Result<(), InboxError> {
        match self {
            Shelf::Memory(board) => board.answer(id, answer),
            #[cfg(feature = "sqlite")]
            Shelf::File(board) => board.answer(id, answer),
        }
    }
}

impl ApprovalDesk {
    /// A desk and the inbox its questions arrive in, in this process's memory.
    pub fn new() -> (ApprovalDesk, ApprovalInbox) {
        let board = Arc::new(MemoryBoard::default());
        let desk = ApprovalDesk {
            place: DeskPlace::Memory(Arc::new(DeskLife {
                board: Arc::clone(&board),
            })),
        };
        (desk, ApprovalInbox::on(Shelf::Memory(board)))
    }

    /// A desk and inbox on the SQLite file at `path` (created if needed), shared with every
    /// process that opens it: a question asked in one is listed and answered in any. Inbox
    /// calls are short transactions on the calling thread; an asker looks for its answer every
    /// 100 ms on Tokio's blocking pool, and keeps a heartbeat on its question, so the question
    /// of a process that died is withdrawn (after 10 s without a beat) rather than approved for
    /// nothing.
    ///
    /// ```
    /// use agents_kt::{ApprovalAnswer, ApprovalDesk, InboxError};
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = std::env::temp_dir().join(format!("agents-kt-inbox-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// // One process asks through its desk...
    /// let (_desk, _) = ApprovalDesk::sqlite(dir.join("approvals.db"))?;
    /// // ...another answers through its inbox on the same file.
    /// let (_, inbox) = ApprovalDesk::sqlite(dir.join("approvals.db"))?;
    /// assert!(inbox.pending()?.is_empty());
    /// assert!(matches!(inbox.answer(ApprovalAnswer::approve("ab12")), Err(InboxError::NotWaiting { .. })));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "sqlite")]
    pub fn sqlite(
        path: impl AsRef<std::path::Path>,
    ) -> Result<(ApprovalDesk, ApprovalInbox), InboxError> {
        let board = FileBoard::open(path.as_ref())?;
        let desk = ApprovalDesk {
            place: DeskPlace::File(Arc::clone(&board)),
        };
        Ok((desk, ApprovalInbox::on(Shelf::File(board))))
    }

    /// Ask, and wait for the answer (as JSON of an [`ApprovalAnswer`]). No answer — every
    /// in-memory inbox dropped, the question withdrawn, the file failing — is a denial saying
    /// why.
    pub(crate) async fn ask(&self, mut request: ApprovalRequest) -> Value {
        request.since_ms = super::now_ms();
        let fingerprint = request.fingerprint.clone();
        let answer = match &self.place {
            DeskPlace::Memory(life) => life.ask(request).await,
            #[cfg(feature = "sqlite")]
            DeskPlace::File(board) => board.ask(request).await,
        };
        let answer = answer.unwrap_or_else(|why| {
            ApprovalAnswer::deny(fingerprint, format!("approval not given: {why}"))
        });
        serde_json::to_value(answer).unwrap_or(Value::Null)
    }
}

impl ApprovalInbox {
    fn on(shelf: Shelf) -> Self {
        match &shelf {
            Shelf::Memory(board) => {
                let (life, questions) = InboxLife::on(Arc::clone(board));
                ApprovalInbox {
                    shelf,
                    _life: Some(life),
                    questions: questions.boxed(),
                }
            }
            #[cfg(feature = "sqlite")]
            Shelf::File(board) => {
                let questions = board
                    .changes()
                    .filter_map(|(id, change)| async move {
                        match change {
                            InboxChange::Asked { request } => Some((id, request)),
                            _ => None,
                        }
                    })
                    .boxed();
                ApprovalInbox {
                    shelf,
                    _life: None,
                    questions,
                }
            }
        }
    }

    /// Every question waiting now, oldest first: its run, agent, depth, tool, arguments,
    /// fingerprint, manifest hash and when it was asked — all serializable.
    ///
    /// ```
    /// let (_desk, inbox) = agents_kt::ApprovalDesk::new();
    /// assert!(inbox.pending().unwrap().is_empty());
    /// ```
    pub fn pending(&self) -> Result<Vec<ApprovalRequest>, InboxError> {
        match &self.shelf {
            Shelf::Memory(board) => Ok(board.pending()),
            #[cfg(feature = "sqlite")]
            Shelf::File(board) => board.pending(),
        }
    }

    /// Answer the waiting question whose fingerprint the answer repeats, out of band (any
    /// question, in any order, from any process sharing the inbox's file). An answer for a
    /// question not waiting — never asked, withdrawn, stale, or answered already — is an error
    /// saying which.
    ///
    /// ```
    /// use agents_kt::{ApprovalAnswer, ApprovalDesk, InboxError};
    /// let (_desk, inbox) = ApprovalDesk::new();
    /// let refused = inbox.answer(ApprovalAnswer::approve("ab12"));
    /// assert!(matches!(refused, Err(InboxError::NotWaiting { .. })));
    /// ```
    pub fn answer(&self, answer: ApprovalAnswer) -> Result<(), InboxError> {
        self.shelf.answer(None, answer)
    }

    /// Every change from now on — asked, answered, withdrawn — as a stream; in memory it ends
    /// when every desk is dropped, on a file it does not end (any process may ask).
    pub fn changes(&self) -> impl Stream<Item = InboxChange> + Send + 'static {
        match &self.shelf {
            Shelf::Memory(board) => board.watch().boxed(),
            #[cfg(feature = "sqlite")]
            Shelf::File(board) => board.changes().map(|(_, change)| change).boxed(),
        }
    }
}

impl Clone for ApprovalInbox {
    /// Another reader of the same desk: it streams the questions asked from now on, and sees and
    /// answers every waiting one.
    fn clone(&self) -> Self {
        // A life of its own, so dropping a clone counts one inbox less.
        ApprovalInbox::on(self.shelf.clone())
    }
}

impl fmt::Debug for ApprovalDesk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalDesk").finish_non_exhaustive()
    }
}

impl fmt::Debug for ApprovalInbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalInbox").finish_non_exhaustive()
    }
}

impl Stream for ApprovalInbox {
    type Item = PendingApproval;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<PendingApproval>> {
        let question = std::task::ready!(self.questions.poll_next_unpin(cx));
        std::task::Poll::Ready(question.map(|(id, request)| PendingApproval {
            request,
            id,
            shelf: self.shelf.clone(),
        }))
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
        match self.shelf.answer(Some(self.id), answer) {
            // Answered first elsewhere (the first answer counts), or no longer waiting.
            Ok(()) | Err(InboxError::NotWaiting { .. } | InboxError::AlreadyAnswered { .. }) => {}
            // The question still waits; whoever watches the inbox can answer it again.
            Err(error) => {
                tracing::error!(%error, fingerprint = %self.request.fingerprint, "an approval answer was not recorded")
            }
        }
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

crate::error_debug::readable_debug!(InboxError, StaleApproval);
