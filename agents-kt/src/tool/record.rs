//! What a tool call produces and needs: its setup from the run, the record of how it ended (the
//! decisions before and after it, the arguments it ran with, its result), and its output as the
//! caller reads it. Every path that reports a call reads this record; nothing here runs a call.

use std::any::Any;
use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::ToolContext;
use super::content::{self, ToolContent};
use super::inherited::InheritedFor;
use super::shared::SharedOutput;
use crate::approval::RunApprovals;
use crate::chain::{ChainDecision, GuardOptions};
use crate::journal::RunJournal;
use crate::{DecisionKind, InterceptContext};

/// How a tool call ended, before anyone is told.
#[derive(Debug)]
pub(crate) enum CallResult<O> {
    /// The arguments did not parse into the tool's `Args`; nothing ran.
    Invalid { reason: String },
    /// The tool ran (or a substitute stood in for it) and produced `output`, which passed the
    /// after-tool chain (possibly replaced by it).
    Completed { output: O, substituted: bool },
    /// An interceptor or gate denied the call; the tool did not run.
    Denied { reason: String },
    /// The tool ran (or was substituted), but an after-tool interceptor withheld its result.
    Withheld { reason: String },
    /// The tool body failed.
    Failed { failure: ToolFailure },
}

/// Why a tool body failed. Journaled as it is, so a replay fails the same way.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) enum ToolFailure {
    /// It returned an error.
    Error(String),
    /// It panicked.
    Panicked(String),
    /// It ran longer than the per-tool timeout.
    TimedOut(Duration),
    /// Serializing its output panicked: the run ends (a `Serialize` impl that panics is a bug in
    /// the program, not a result the model can act on).
    OutputPanicked(String),
    /// The run's journal could not give the call's result: the run ends.
    #[serde(skip)]
    Journal(crate::JournalError),
}

impl std::fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolFailure::Error(message) => f.write_str(message),
            ToolFailure::Panicked(message) => write!(f, "tool panicked: {message}"),
            ToolFailure::TimedOut(after) => write!(f, "tool timed out after {after:?}"),
            ToolFailure::OutputPanicked(message) => {
                write!(f, "serializing the tool's output panicked: {message}")
            }
            ToolFailure::Journal(error) => write!(f, "{error}"),
        }
    }
}

/// A finished call: the arguments it ran with, its result, and the decisions taken before and
/// after it.
#[derive(Debug)]
pub(crate) struct CallRecord<O> {
    /// The arguments after the chain (a `ProceedWith` replacement included) as JSON, when the call
    /// is reported; `Value::Null` when nobody will read them, so the hot path never builds them.
    pub args: Value,
    pub result: CallResult<O>,
    /// Decisions of the before-tool interceptors and the tool gates.
    pub before: Vec<ChainDecision>,
    /// Decisions of the after-tool interceptors.
    pub after: Vec<ChainDecision>,
    pub effect: DecisionKind,
}

impl<O> CallRecord<O> {
    pub(crate) fn rejected(args: Value, result: CallResult<O>) -> Self {
        CallRecord {
            args,
            result,
            before: Vec::new(),
            after: Vec::new(),
            effect: DecisionKind::Proceed,
        }
    }
}

/// Which parts of a call are wanted as JSON values besides the answer text: nothing on the hot
/// path; the arguments and the output when observers, `observe()` streams or a session listen;
/// the output alone for MCP structured content.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Report {
    pub args: bool,
    pub output: bool,
}

/// What a tool call needs from its run besides the arguments.
pub(crate) struct CallSetup<'a> {
    pub tool_ctx: &'a ToolContext,
    pub intercept: InterceptContext<'a>,
    /// How the guard runs: how long an undecided interceptor or gate may take, and whom to tell
    /// of a gate's `Allow`.
    pub guard: GuardOptions,
    /// How long the tool body may take (`None`: no limit).
    pub tool_timeout: Option<Duration>,
    pub report: Report,
    /// Where approvals asked in the guard go, if the run has somewhere.
    pub approvals: Option<&'a Arc<RunApprovals>>,
    /// The journal the execution is recorded in, and its step, in a journaled run.
    pub journaled: Option<Journaled<'a>>,
    /// What the call inherits from the runs above its run (a sub-agent's): the ancestors' gates,
    /// and the interceptors of those that opted in.
    pub inherited: Option<InheritedFor<'a>>,
}

/// A tool execution as a journaled step.
pub(crate) struct Journaled<'a> {
    pub journal: &'a Arc<RunJournal>,
    pub step: String,
}

/// A tool's output as its caller reads it: the text for the model (or an MCP client), and the
/// JSON value for observers, events and MCP structured content when one of them wants it.
#[derive(Debug)]
pub(crate) struct JsonOutput {
    pub text: String,
    /// Always built for a content result (its text is a summary the value cannot be read back
    /// from).
    pub value: Option<Value>,
    /// The output was a JSON string, so `text` is that string, not JSON.
    is_string: bool,
    /// For content (`text` is its summary): the size of its blocks as JSON, counted once.
    content_bytes: Option<usize>,
}

impl JsonOutput {
    /// Serialize `output` straight to text, in its own field order, and to a `Value` too only
    /// when someone reads one. The text is the same either way; a JSON string becomes its plain
    /// text, so the model reads `sunny`, not `"sunny"`. A content result ([`ToolContent`], or
    /// JSON in its shape) becomes its summary for the model, and its value keeps the blocks.
    pub(crate) fn of<O: Serialize + 'static>(
        output: &O,
        value: bool,
    ) -> Result<Self, serde_json::Error> {
        let any: &dyn Any = output;
        // The shared runtime's output is the tool's own, boxed: look at that.
        let shared = any.downcast_ref::<SharedOutput>();
        let any = match shared {
            Some(shared) => shared.as_any(),
            None => any,
        };
        if let Some(text) = any.downcast_ref::<String>() {
            let value = value.then(|| Value::String(text.clone()));
            return Ok(JsonOutput {
                text: text.clone(),
                value,
                is_string: true,
                content_bytes: None,
            });
        }
        if let Some(content) = any.downcast_ref::<ToolContent>() {
            return Ok(JsonOutput::content(
                content.model_text(),
                serde_json::to_value(content)?,
            ));
        }
        if let Some(json) = any.downcast_ref::<Value>()
            && ToolContent::is_shape(json)
        {
            return Ok(JsonOutput::content(summary(json), json.clone()));
        }
        // A shared output is written by its own type's serializer (through `erased_serde` it
        // costs twice the instructions); the same text either way.
        let text = match shared {
            Some(shared) => shared.to_json_text()?,
            None => serde_json::to_string(output)?,
        };
        Self::serialized(text, output, value)
    }

    /// The output from its JSON `text`, and as a `Value` too when `value`.
    fn serialized<O: Serialize>(
        text: String,
        output: &O,
        value: bool,
    ) -> Result<Self, serde_json::Error> {
        let is_string = text.starts_with('"');
        let text = if is_string {
            serde_json::from_str::<String>(&text)?
        } else {
            text
        };
        let value = if value {
            Some(serde_json::to_value(output)?)
        } else {
            None
        };
        Ok(JsonOutput {
            text,
            value,
            is_string,
            content_bytes: None,
        })
    }

    fn content(text: String, value: Value) -> Self {
        JsonOutput {
            text,
            content_bytes: Some(json_len(&value)),
            value: Some(value),
            is_string: false,
        }
    }

    /// An output that is already JSON (a dynamic substitute).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn of_value(value: Value) -> Self {
        match value {
            Value::String(text) => JsonOutput {
                value: Some(Value::String(text.clone())),
                text,
                is_string: true,
                content_bytes: None,
            },
            value if ToolContent::is_shape(&value) => JsonOutput::content(summary(&value), value),
            value => JsonOutput {
                text: value.to_string(),
                value: Some(value),
                is_string: false,
                content_bytes: None,
            },
        }
    }

    /// The result's size in bytes, as `max_tool_result_bytes` counts it: its text, or — content,
    /// whose text is a summary — its blocks as JSON, which observers, journals and MCP clients
    /// receive whole.
    pub(crate) fn size(&self) -> usize {
        self.content_bytes.unwrap_or(self.text.len())
    }

    /// The output as JSON: the value when it was built, otherwise rebuilt from the text (a
    /// listener that arrived after the call began).
    pub(crate) fn value(&self) -> Cow<'_, Value> {
        match &self.value {
            Some(value) => Cow::Borrowed(value),
            None if self.is_string => Cow::Owned(Value::String(self.text.clone())),
            None => Cow::Owned(
                serde_json::from_str(&self.text)
                    .unwrap_or_else(|_| Value::String(self.text.clone())),
            ),
        }
    }
}

/// How many bytes `value` is as JSON text, counted as it is written, never kept.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a sink that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The model's text of JSON in the content shape (checked by the caller).
fn summary(json: &Value) -> String {
    let blocks = json.get("content").and_then(Value::as_array);
    content::model_text(blocks.into_iter().flatten().filter_map(Value::as_object))
}

/// What a call's record keeps from its guard while the tool runs.
pub(crate) struct Parts {
    pub args_json: Value,
    decisions: Vec<ChainDecision>,
    effect: DecisionKind,
    pub substituted: bool,
    /// Whether an after-tool interceptor (the tool's own or an ancestor's) is to see the output.
    pub has_after: bool,
}

impl Parts {
    pub(crate) fn new(
        args_json: Value,
        decisions: Vec<ChainDecision>,
        (effect, substituted): (DecisionKind, bool),
        has_after: bool,
    ) -> Self {
        Parts {
            args_json,
            decisions,
            effect,
            substituted,
            has_after,
        }
    }

    /// The finished record.
    pub(crate) fn ended<O>(
        self,
        result: CallResult<O>,
        after: Vec<ChainDecision>,
    ) -> CallRecord<O> {
        CallRecord {
            args: self.args_json,
            result,
            before: self.decisions,
            after,
            effect: self.effect,
        }
    }
}

impl<O: Serialize + 'static> CallRecord<O> {
    /// The record with the output serialized for its caller, and the typed output itself (for a
    /// code skill) when the tool or a substitute produced one. An output that does not serialize turns the call into a
    /// failure, so the model is told rather than handed nothing.
    /// With `value`, the output is kept as a JSON value as well as text.
    pub(crate) fn into_json(self, value: bool) -> (CallRecord<JsonOutput>, Option<O>) {
        let CallRecord {
            args,
            result,
            before,
            after,
            effect,
        } = self;
        let (result, output) = match result {
            CallResult::Completed {
                output,
                substituted,
            } => match catch_unwind(AssertUnwindSafe(|| JsonOutput::of(&output, value))) {
                Err(payload) => (
                    CallResult::Failed {
                        failure: ToolFailure::OutputPanicked(crate::chain::panic_message(
                            payload.as_ref(),
                        )),
                    },
                    None,
                ),
                Ok(Ok(json)) => (
                    CallResult::Completed {
                        output: json,
                        substituted,
                    },
                    Some(output),
                ),
                // A code skill still gets its typed output: it never needed the JSON.
                Ok(Err(error)) => (
                    CallResult::Failed {
                        failure: ToolFailure::Error(format!(
                            "tool result could not be serialized to JSON: {error}"
                        )),
                    },
                    Some(output),
                ),
            },
            CallResult::Invalid { reason } => (CallResult::Invalid { reason }, None),
            CallResult::Denied { reason } => (CallResult::Denied { reason }, None),
            CallResult::Withheld { reason } => (CallResult::Withheld { reason }, None),
            CallResult::Failed { failure } => (CallResult::Failed { failure }, None),
        };
        let record = CallRecord {
            args,
            result,
            before,
            after,
            effect,
        };
        (record, output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize)]
    enum Level {
        Calm,
    }

    #[derive(Serialize)]
    struct Reading {
        zone: &'static str,
        celsius: i32,
    }

    #[test]
    fn output_text_and_value_agree_whether_or_not_the_value_was_built() {
        let cases: [(JsonOutput, JsonOutput, &str, Value); 3] = [
            (
                JsonOutput::of(&"42".to_string(), true).unwrap(),
                JsonOutput::of(&"42".to_string(), false).unwrap(),
                "42",
                json!("42"),
            ),
            (
                JsonOutput::of(&Level::Calm, true).unwrap(),
                JsonOutput::of(&Level::Calm, false).unwrap(),
                "Calm",
                json!("Calm"),
            ),
            (
                JsonOutput::of(
                    &Reading {
                        zone: "n",
                        celsius: 4,
                    },
                    true,
                )
                .unwrap(),
                JsonOutput::of(
                    &Reading {
                        zone: "n",
                        celsius: 4,
                    },
                    false,
                )
                .unwrap(),
                r#"{"zone":"n","celsius":4}"#,
                json!({"zone": "n", "celsius": 4}),
            ),
        ];
        for (built, not_built, text, value) in cases {
            assert_eq!(built.text, text);
            assert_eq!(not_built.text, text);
            assert_eq!(*built.value(), value);
            assert_eq!(*not_built.value(), value);
        }
    }
}
