//! A tool execution as a journaled step: the body runs the first time, its output or failure
//! recorded; a replay reads them back, so a tool does not act twice.

use futures::future::BoxFuture;
use serde_json::Value;

use super::record::{Journaled, ToolFailure};

/// What a journaled tool body produced: its output as JSON (or why it is not JSON), or its failure.
pub(crate) type JournaledBody = Result<Result<Value, serde_json::Error>, ToolFailure>;

/// A tool execution as the journaled step `journaled.step`: `body` runs only the first time, its
/// output or failure recorded; a replay reads them back. The step's name and the recorded output.
pub(crate) async fn journaled_step(
    journaled: &Journaled<'_>,
    body: BoxFuture<'static, JournaledBody>,
) -> Result<(String, Value), ToolFailure> {
    let step = journaled.step.clone();
    let work = {
        let step = step.clone();
        Box::pin(async move {
            let value = match body.await {
                // By hand: `json!` would serialize the output again into a copy of itself.
                Ok(Ok(output)) => {
                    Value::Object(serde_json::Map::from_iter([("output".to_string(), output)]))
                }
                Ok(Err(error)) => serde_json::json!({ "failure": ToolFailure::Error(format!(
                    "the tool's output could not be journaled: {error}"
                )) }),
                Err(failure) => serde_json::json!({ "failure": failure }),
            };
            Ok(crate::journal_entry(&step, value))
        }) as BoxFuture<'static, Result<Value, String>>
    };
    let recorded = journaled
        .journal
        .step(&step, work)
        .await
        .map_err(ToolFailure::Journal)?;
    let mut value = crate::journal::read_entry(&step, recorded).map_err(ToolFailure::Journal)?;
    if let Some(failure) = value.get_mut("failure") {
        return Err(serde_json::from_value(failure.take())
            .unwrap_or_else(|error| unreadable(step, error.to_string())));
    }
    let output = value
        .get_mut("output")
        .map(Value::take)
        .unwrap_or(Value::Null);
    Ok((step, output))
}

/// A recorded step that does not read back as a tool's result.
pub(crate) fn unreadable(step: String, reason: String) -> ToolFailure {
    ToolFailure::Journal(crate::JournalError::Unreadable { step, reason })
}
