//! The in-memory board behind an [`ApprovalDesk::new`](super::ApprovalDesk::new): the questions
//! of one process, who reads them, and who waits for their answers.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use futures::channel::{mpsc, oneshot};

use super::{ApprovalAnswer, ApprovalRequest, InboxChange, InboxError};

/// How many answered fingerprints a board remembers, to say "already answered" rather than
/// "unknown".
const REMEMBERED_ANSWERS: usize = 1024;

/// A desk's questions and who listens, shared by every desk and inbox handle.
#[derive(Default)]
pub(super) struct MemoryBoard {
    state: Mutex<BoardState>,
    next_id: AtomicU64,
}

#[derive(Default)]
struct BoardState {
    /// In the order asked.
    waiting: Vec<Waiting>,
    /// Fingerprints answered lately, newest last.
    answered: VecDeque<String>,
    /// Every inbox's stream of new questions (by id).
    readers: Vec<mpsc::UnboundedSender<(u64, ApprovalRequest)>>,
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
pub(super) struct DeskLife {
    pub(super) board: Arc<MemoryBoard>,
}

/// An inbox's share: when the last inbox is dropped, nobody can answer, and what waits is
/// denied.
pub(super) struct InboxLife {
    board: Arc<MemoryBoard>,
}

impl MemoryBoard {
    fn state(&self) -> MutexGuard<'_, BoardState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Answer the question `id` (or, without one, the first waiting with the answer's
    /// fingerprint).
    pub(super) fn answer(&self, id: Option<u64>, answer: ApprovalAnswer) -> Result<(), InboxError> {
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

    /// Every question waiting now, oldest first.
    pub(super) fn pending(&self) -> Vec<ApprovalRequest> {
        let state = self.state();
        state
            .waiting
            .iter()
            .map(|waiting| waiting.request.clone())
            .collect()
    }

    /// Every change from now on.
    pub(super) fn watch(&self) -> mpsc::UnboundedReceiver<InboxChange> {
        let (watcher, changes) = mpsc::unbounded();
        self.state().watchers.push(watcher);
        changes
    }
}

impl BoardState {
    fn tell(&mut self, change: InboxChange) {
        self.watchers
            .retain(|watcher| watcher.unbounded_send(change.clone()).is_ok());
    }
}

impl DeskLife {
    /// Ask, and wait for the answer; nobody left to answer — every inbox dropped — is `Err`
    /// saying so.
    pub(super) async fn ask(&self, request: ApprovalRequest) -> Result<ApprovalAnswer, String> {
        let board = &self.board;
        let id = board.next_id.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = oneshot::channel();
        {
            let mut state = board.state();
            if state.inboxes == 0 {
                return Err("nobody reads the approval desk".to_string());
            }
            state.waiting.push(Waiting {
                id,
                request: request.clone(),
                reply,
            });
            state
                .readers
                .retain(|reader| reader.unbounded_send((id, request.clone())).is_ok());
            state.tell(InboxChange::Asked { request });
        }
        let mut withdraw = Withdraw {
            board: Arc::clone(board),
            id: Some(id),
        };
        let answer = answer.await;
        withdraw.id = None;
        answer.map_err(|_| "nobody reads the approval desk".to_string())
    }
}

impl Drop for DeskLife {
    fn drop(&mut self) {
        let mut state = self.board.state();
        state.readers.clear();
        state.watchers.clear();
    }
}

impl InboxLife {
    /// A new inbox on `board`: its life, and its stream of questions asked from now on.
    pub(super) fn on(
        board: Arc<MemoryBoard>,
    ) -> (
        Arc<InboxLife>,
        mpsc::UnboundedReceiver<(u64, ApprovalRequest)>,
    ) {
        let (reader, questions) = mpsc::unbounded();
        {
            let mut state = board.state();
            state.inboxes += 1;
            state.readers.push(reader);
        }
        (Arc::new(InboxLife { board }), questions)
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

/// Takes a question off the board when its asker stops waiting unanswered (its run ended).
struct Withdraw {
    board: Arc<MemoryBoard>,
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
