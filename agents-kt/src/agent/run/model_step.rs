//! The model's turn as a journaled step (`turn#N`): the reply is recorded, and a replay reads it
//! back instead of calling the model.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;

use super::{Run, chat_contained};
use crate::journal::{EntryWriter, JournalError, RunJournal};
use crate::{AgentError, ChatRequest, ChatResponse, ModelError};

impl<OUT: Clone + Send + 'static> Run<OUT> {
    /// The model call as a journaled step (`turn#N`): the reply is recorded, and a replay reads
    /// it back instead of calling the model. A failed call is not recorded (a durable engine may
    /// retry it); the run ends with the model's own error.
    pub(super) async fn call_model_journaled(
        &self,
        journal: &RunJournal,
        model: &Arc<dyn crate::ModelClient>,
        request: &mut ChatRequest,
    ) -> Result<ChatResponse, AgentError> {
        let step =
            crate::journal::step_name("turn", u64::from(self.turn.load(Ordering::Relaxed)), None);
        // The step's work must own what it reads: the request is lent to it, not copied (a copy
        // of the whole history per turn made a long conversation's journaled turns quadratic),
        // and taken back once the step is done, with what the work produced when it ran (the
        // model's response itself, or its error) — one allocation for both.
        let lent = Arc::new(Lent {
            request: std::mem::take(request),
            outcome: Mutex::new(None),
        });
        let work = |entry: EntryWriter| {
            let (model, lent) = (Arc::clone(model), Arc::clone(&lent));
            Box::pin(async move {
                let error = match chat_contained(model.as_ref(), &lent.request).await {
                    Ok(response) => match entry.write(&response) {
                        Ok(entry) => {
                            *lent.outcome() = Some(Ok(response));
                            return Ok(entry);
                        }
                        Err(error) => AgentError::Model(ModelError::Other(format!(
                            "the model's reply could not be journaled: {error}"
                        ))),
                    },
                    Err(error) => error,
                };
                let text = error.to_string();
                *lent.outcome() = Some(Err(error));
                Err(text)
            }) as futures::future::BoxFuture<'static, Result<Box<RawValue>, String>>
        };
        let recorded = journal.step(&step, work).await;
        let produced = lent.outcome().take();
        // A journal that still holds the work (it has not dropped it yet) gets a copy instead.
        *request = match Arc::try_unwrap(lent) {
            Ok(lent) => lent.request,
            Err(lent) => ChatRequest::clone(&lent.request),
        };
        let recorded = match (recorded, produced) {
            // The work ran: a journal returns what its work produced (`Journal::step`'s
            // contract), and a response's JSON reads back equal to it (a test says so), so the
            // run goes on with the response itself instead of reading its copy back.
            (Ok(_), Some(Ok(response))) => return Ok(response),
            (Ok(recorded), _) => recorded,
            (Err(JournalError::StepFailed(text)), produced) => {
                return Err(match produced {
                    Some(Err(original)) => original,
                    _ => AgentError::Model(ModelError::Other(text)),
                });
            }
            (Err(error), _) => return Err(error.into()),
        };
        serde_json::from_str(recorded.value()?.get()).map_err(|error| {
            AgentError::Journal(JournalError::unreadable(recorded.name(), error.to_string()))
        })
    }
}

/// The request a journaled turn's work borrows, and what the work produced.
struct Lent {
    request: ChatRequest,
    outcome: Mutex<Option<Result<ChatResponse, AgentError>>>,
}

impl Lent {
    fn outcome(&self) -> std::sync::MutexGuard<'_, Option<Result<ChatResponse, AgentError>>> {
        self.outcome.lock().unwrap_or_else(|p| p.into_inner())
    }
}
