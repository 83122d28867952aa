//! A tool execution as a journaled step: the body runs the first time, its output or failure
//! recorded; a replay reads them back, so a tool does not act twice.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::record::{Journaled, ToolFailure};
use crate::journal::EntryWriter;

/// What a journaled tool body produced: its output as JSON text (or why it is not JSON), or its
/// failure.
pub(crate) type JournaledBody = Result<Result<Box<RawValue>, serde_json::Error>, ToolFailure>;

/// What a tool's body produced: its output's text, or its failure.
type Produced = Result<Box<RawValue>, ToolFailure>;

/// A tool step's value as it is written: `{"output": …}` or `{"failure": …}`.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum Written<'a> {
    Output(&'a RawValue),
    Failure(&'a ToolFailure),
}

/// A tool step's value as it is read back, the output still text.
#[derive(Deserialize)]
struct Read<'a> {
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(default)]
    failure: Option<ToolFailure>,
}

/// A tool execution as the journaled step `journaled.step`: `body` runs only the first time, its
/// output or failure recorded; a replay reads them back. The output's JSON text.
pub(crate) async fn journaled_step(
    journaled: &Journaled<'_>,
    body: BoxFuture<'static, JournaledBody>,
) -> Result<Box<RawValue>, ToolFailure> {
    // What the body produced, when it ran: read from its own text (as a replay reads it), not
    // found again in the recorded entry.
    let produced: Arc<Mutex<Option<Produced>>> = Arc::default();
    let work = |entry: EntryWriter| {
        let produced = Arc::clone(&produced);
        Box::pin(async move {
            let result = match body.await {
                Ok(Ok(output)) => Ok(output),
                Ok(Err(error)) => Err(ToolFailure::Error(format!(
                    "the tool's output could not be journaled: {error}"
                ))),
                Err(failure) => Err(failure),
            };
            let written = entry.write(&match &result {
                Ok(output) => Written::Output(output),
                Err(failure) => Written::Failure(failure),
            })?;
            *produced.lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
            Ok(written)
        }) as BoxFuture<'static, Result<Box<RawValue>, String>>
    };
    let recorded = journaled
        .journal
        .step(&journaled.step, work)
        .await
        .map_err(ToolFailure::Journal)?;
    if let Some(result) = produced.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return result;
    }
    let value = recorded.value().map_err(ToolFailure::Journal)?;
    let read: Read<'_> = match serde_json::from_str(value.get()) {
        Ok(read) => read,
        Err(error) => return Err(unreadable(recorded.name(), error.to_string())),
    };
    if let Some(failure) = read.failure {
        return Err(failure);
    }
    // A recorded `null` output reads as absent: both are the text `null`.
    Ok(read
        .output
        .map_or_else(Box::<RawValue>::default, RawValue::to_owned))
}

/// A recorded step that does not read back as a tool's result.
pub(crate) fn unreadable(step: &str, reason: String) -> ToolFailure {
    ToolFailure::Journal(crate::JournalError::unreadable(step, reason))
}
