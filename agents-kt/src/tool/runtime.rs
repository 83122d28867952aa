//! One registered tool with its interceptor chain: parse → chain → execute, typed or from JSON.

use std::any::Any;
use std::borrow::Cow;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;

use super::{Tool, ToolContext};
use crate::chain::{ChainDecision, Effect, panic_message, run_chain};
use crate::{DecisionKind, Interceptor, ToolSpec};

/// How a tool call ended, before anyone is told.
#[derive(Debug)]
pub(crate) enum CallResult<O> {
    /// The arguments did not parse into the tool's `Args`; nothing ran.
    Invalid { reason: String },
    /// The tool ran (or a substitute stood in for it) and produced `output`.
    Completed { output: O, substituted: bool },
    /// An interceptor denied the call; the tool did not run.
    Denied { reason: String },
    /// The tool body failed.
    Failed { failure: ToolFailure },
}

/// Why a tool body failed.
#[derive(Debug, Clone)]
pub(crate) enum ToolFailure {
    /// It returned an error.
    Error(String),
    /// It panicked.
    Panicked(String),
    /// It ran longer than the per-tool timeout.
    TimedOut(Duration),
}

impl std::fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolFailure::Error(message) => f.write_str(message),
            ToolFailure::Panicked(message) => write!(f, "tool panicked: {message}"),
            ToolFailure::TimedOut(after) => write!(f, "tool timed out after {after:?}"),
        }
    }
}

/// A finished call: the arguments it ran with, its result, the chain's decisions, and the
/// effective decision's kind.
#[derive(Debug)]
pub(crate) struct CallRecord<O> {
    /// The arguments after the chain (a `ProceedWith` replacement included) as JSON, when the call
    /// is reported; `Value::Null` when nobody will read them, so the hot path never builds them.
    pub args: Value,
    pub result: CallResult<O>,
    pub decisions: Vec<ChainDecision>,
    pub effect: DecisionKind,
}

/// Which parts of a call are wanted as JSON values besides the answer text: nothing on the hot
/// path; the arguments and the output when observers, `observe()` streams or a session listen;
/// the output alone for MCP structured content.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Report {
    pub args: bool,
    pub output: bool,
}

/// A tool's output as its caller reads it: the text for the model (or an MCP client), and the
/// JSON value for observers, events and MCP structured content when one of them wants it.
#[derive(Debug)]
pub(crate) struct JsonOutput {
    pub text: String,
    pub value: Option<Value>,
    /// The output was a JSON string, so `text` is that string, not JSON.
    is_string: bool,
}

impl JsonOutput {
    /// Serialize `output` straight to text, in its own field order, and to a `Value` too only
    /// when someone reads one. The text is the same either way; a JSON string becomes its plain
    /// text, so the model reads `sunny`, not `"sunny"`.
    fn of<O: Serialize + 'static>(output: &O, value: bool) -> Result<Self, serde_json::Error> {
        if let Some(text) = (output as &dyn Any).downcast_ref::<String>() {
            let value = value.then(|| Value::String(text.clone()));
            return Ok(JsonOutput {
                text: text.clone(),
                value,
                is_string: true,
            });
        }
        let text = serde_json::to_string(output)?;
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
        })
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

/// A tool of one agent: the tool itself, what the model is told about it, and its chain (typed
/// interceptors for it and dynamic ones for every tool, in registration order).
pub(crate) struct ToolRuntime<T: Tool> {
    tool: T,
    spec: ToolSpec,
    chain: Vec<Arc<dyn Interceptor<T::Args, T::Output>>>,
}

impl<T: Tool> ToolRuntime<T> {
    pub(crate) fn new(
        tool: T,
        spec: ToolSpec,
        chain: Vec<Arc<dyn Interceptor<T::Args, T::Output>>>,
    ) -> Self {
        ToolRuntime { tool, spec, chain }
    }

    /// Run the chain over `args`, then the tool unless the chain denied or substituted. With
    /// `report_args`, the record carries the arguments as JSON for observers and events.
    pub(crate) async fn call(
        &self,
        args: T::Args,
        ctx: &ToolContext,
        timeout: Option<Duration>,
        report_args: bool,
    ) -> CallRecord<T::Output> {
        let outcome = run_chain(&self.chain, args).await;
        let args = outcome.value;
        // Serialized before the tool consumes them, and only when someone will read them: this
        // replaces a clone on every call.
        let args_json = if report_args {
            json(&args)
        } else {
            Value::Null
        };
        let (result, effect) = match outcome.effect {
            Effect::Deny(reason) => (CallResult::Denied { reason }, DecisionKind::Deny),
            Effect::Substitute(output) => {
                ctx.started(T::NAME, &args_json);
                let result = CallResult::Completed {
                    output,
                    substituted: true,
                };
                (result, DecisionKind::Substitute)
            }
            Effect::Proceed | Effect::ProceedWith => {
                let effect = if matches!(outcome.effect, Effect::Proceed) {
                    DecisionKind::Proceed
                } else {
                    DecisionKind::ProceedWith
                };
                ctx.started(T::NAME, &args_json);
                let result = match self.execute(args, ctx, timeout).await {
                    Ok(output) => CallResult::Completed {
                        output,
                        substituted: false,
                    },
                    Err(failure) => CallResult::Failed { failure },
                };
                (result, effect)
            }
        };
        CallRecord {
            args: args_json,
            result,
            decisions: outcome.decisions,
            effect,
        }
    }

    /// The tool body, with panics caught and the per-tool timeout applied. Interceptors are not
    /// timed: an approval flow may wait for a human.
    ///
    /// One hand-written poll loop rather than nested combinators: it keeps both the future and
    /// the code generated for each tool small. A body that finishes on its first poll never arms
    /// a timer — reading the clock and registering a timer entry cost more than a quick tool, and
    /// no timer could have interrupted that poll anyway; the timer is boxed so the fast path's
    /// future does not carry its weight.
    async fn execute(
        &self,
        args: T::Args,
        ctx: &ToolContext,
        timeout: Option<Duration>,
    ) -> Result<T::Output, ToolFailure> {
        let mut body = pin!(self.tool.call(args, ctx));
        let mut timer: Option<Pin<Box<tokio::time::Sleep>>> = None;
        std::future::poll_fn(|cx| {
            match catch_unwind(AssertUnwindSafe(|| body.as_mut().poll(cx))) {
                Ok(Poll::Ready(result)) => {
                    return Poll::Ready(
                        result.map_err(|error| ToolFailure::Error(error.to_string())),
                    );
                }
                Ok(Poll::Pending) => {}
                // A panicking tool fails its call, not the agent.
                Err(payload) => {
                    return Poll::Ready(Err(ToolFailure::Panicked(panic_message(
                        payload.as_ref(),
                    ))));
                }
            }
            let Some(limit) = timeout else {
                return Poll::Pending;
            };
            let timer = timer.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
            timer
                .as_mut()
                .poll(cx)
                .map(|()| Err(ToolFailure::TimedOut(limit)))
        })
        .await
    }
}

/// A tool with its types erased, as the agent loop and the MCP server hold it.
pub(crate) trait ErasedTool: Send + Sync {
    fn name(&self) -> &'static str;
    fn spec(&self) -> &ToolSpec;
    /// Parse `arguments` (the model's JSON text), run the chain and the tool, and give the
    /// outcome as JSON, with the arguments and the output as `Value`s too as `report` asks.
    fn call_json<'a>(
        &'a self,
        arguments: &'a str,
        ctx: &'a ToolContext,
        timeout: Option<Duration>,
        report: Report,
    ) -> BoxFuture<'a, CallRecord<JsonOutput>>;
    /// For code skills calling the tool with typed arguments.
    fn as_any(&self) -> &dyn Any;
}

impl<T: Tool> ErasedTool for ToolRuntime<T> {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call_json<'a>(
        &'a self,
        arguments: &'a str,
        ctx: &'a ToolContext,
        timeout: Option<Duration>,
        report: Report,
    ) -> BoxFuture<'a, CallRecord<JsonOutput>> {
        async move {
            let args = match parse_args::<T::Args>(arguments) {
                Ok(args) => args,
                Err(reason) => {
                    return CallRecord {
                        args: if report.args {
                            parse_or_text(arguments)
                        } else {
                            Value::Null
                        },
                        result: CallResult::Invalid { reason },
                        decisions: Vec::new(),
                        effect: DecisionKind::Proceed,
                    };
                }
            };
            self.call(args, ctx, timeout, report.args)
                .await
                .into_json(report.output)
                .0
        }
        .boxed()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Parse a model's argument text; empty text means "no arguments", as several providers send it.
fn parse_args<A: serde::de::DeserializeOwned>(arguments: &str) -> Result<A, String> {
    let text = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    serde_json::from_str(text).map_err(|error| error.to_string())
}

/// The model's argument text as JSON when it parses, as a string otherwise.
pub(crate) fn parse_or_text(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
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
            decisions,
            effect,
        } = self;
        let (result, output) = match result {
            CallResult::Completed {
                output,
                substituted,
            } => match JsonOutput::of(&output, value) {
                Ok(json) => (
                    CallResult::Completed {
                        output: json,
                        substituted,
                    },
                    Some(output),
                ),
                // A code skill still gets its typed output: it never needed the JSON.
                Err(error) => (
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
            CallResult::Failed { failure } => (CallResult::Failed { failure }, None),
        };
        let record = CallRecord {
            args,
            result,
            decisions,
            effect,
        };
        (record, output)
    }
}

/// Arguments as JSON for observers; they came from JSON (or were built as `Args`), so a failure
/// is reported in place rather than dropped.
fn json(value: &impl Serialize) -> Value {
    serde_json::to_value(value)
        .unwrap_or_else(|error| Value::String(format!("<arguments not serializable: {error}>")))
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
