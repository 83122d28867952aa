//! One registered tool with its interceptor chain: parse → chain → execute, typed or from JSON.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::{Tool, ToolContext};
use crate::chain::{ChainDecision, Effect, panic_message, run_chain};
use crate::{DecisionKind, Interceptor, ToolSpec};

/// How a tool call ended, before anyone is told.
#[derive(Debug)]
pub(crate) enum CallResult<A, O> {
    /// The arguments did not parse into the tool's `Args`; nothing ran.
    Invalid { reason: String },
    /// The tool ran (or a substitute stood in for it) and produced `output`.
    Completed {
        args: A,
        output: O,
        substituted: bool,
    },
    /// An interceptor denied the call; the tool did not run.
    Denied { args: A, reason: String },
    /// The tool body failed.
    Failed { args: A, failure: ToolFailure },
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

/// A finished call: its result, the chain's decisions, and the effective decision's kind.
#[derive(Debug)]
pub(crate) struct CallRecord<A, O> {
    pub result: CallResult<A, O>,
    pub decisions: Vec<ChainDecision>,
    pub effect: DecisionKind,
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

    /// Run the chain over `args`, then the tool unless the chain denied or substituted.
    pub(crate) async fn call(
        &self,
        args: T::Args,
        ctx: &ToolContext,
        timeout: Option<Duration>,
    ) -> CallRecord<T::Args, T::Output> {
        let outcome = run_chain(&self.chain, args).await;
        let args = outcome.value;
        let (result, effect) = match outcome.effect {
            Effect::Deny(reason) => (CallResult::Denied { args, reason }, DecisionKind::Deny),
            Effect::Substitute(output) => {
                ctx.started(T::NAME, &args);
                (
                    CallResult::Completed {
                        args,
                        output,
                        substituted: true,
                    },
                    DecisionKind::Substitute,
                )
            }
            Effect::Proceed | Effect::ProceedWith => {
                let effect = if matches!(outcome.effect, Effect::Proceed) {
                    DecisionKind::Proceed
                } else {
                    DecisionKind::ProceedWith
                };
                ctx.started(T::NAME, &args);
                let result = match self.execute(args.clone(), ctx, timeout).await {
                    Ok(output) => CallResult::Completed {
                        args,
                        output,
                        substituted: false,
                    },
                    Err(failure) => CallResult::Failed { args, failure },
                };
                (result, effect)
            }
        };
        CallRecord {
            result,
            decisions: outcome.decisions,
            effect,
        }
    }

    /// The tool body, with panics caught and the per-tool timeout applied. Interceptors are not
    /// timed: an approval flow may wait for a human.
    async fn execute(
        &self,
        args: T::Args,
        ctx: &ToolContext,
        timeout: Option<Duration>,
    ) -> Result<T::Output, ToolFailure> {
        let body = AssertUnwindSafe(self.tool.call(args, ctx)).catch_unwind();
        let finished = match timeout {
            Some(limit) => tokio::time::timeout(limit, body)
                .await
                .map_err(|_| ToolFailure::TimedOut(limit))?,
            None => body.await,
        };
        match finished {
            Ok(Ok(output)) => Ok(output),
            Ok(Err(error)) => Err(ToolFailure::Error(error.to_string())),
            Err(payload) => Err(ToolFailure::Panicked(panic_message(payload.as_ref()))),
        }
    }
}

/// A tool with its types erased, as the agent loop and the MCP server hold it.
pub(crate) trait ErasedTool: Send + Sync {
    fn name(&self) -> &'static str;
    fn spec(&self) -> &ToolSpec;
    /// Parse `arguments` (the model's JSON text), run the chain and the tool, and give the
    /// outcome as JSON.
    fn call_json<'a>(
        &'a self,
        arguments: &'a str,
        ctx: &'a ToolContext,
        timeout: Option<Duration>,
    ) -> BoxFuture<'a, CallRecord<Value, Value>>;
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
    ) -> BoxFuture<'a, CallRecord<Value, Value>> {
        async move {
            let args = match parse_args::<T::Args>(arguments) {
                Ok(args) => args,
                Err(reason) => {
                    return CallRecord {
                        result: CallResult::Invalid { reason },
                        decisions: Vec::new(),
                        effect: DecisionKind::Proceed,
                    };
                }
            };
            self.call(args, ctx, timeout).await.to_json()
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

impl<A: serde::Serialize, O: serde::Serialize> CallRecord<A, O> {
    /// The same record with arguments and output as JSON, for observers and the model. An output
    /// that does not serialize turns the call into a failure, so the model is told rather than
    /// handed nothing.
    pub(crate) fn to_json(&self) -> CallRecord<Value, Value> {
        let result = match &self.result {
            CallResult::Invalid { reason } => CallResult::Invalid {
                reason: reason.clone(),
            },
            CallResult::Completed {
                args,
                output,
                substituted,
            } => match serde_json::to_value(output) {
                Ok(output) => CallResult::Completed {
                    args: json(args),
                    output,
                    substituted: *substituted,
                },
                Err(error) => CallResult::Failed {
                    args: json(args),
                    failure: ToolFailure::Error(format!(
                        "tool result could not be serialized to JSON: {error}"
                    )),
                },
            },
            CallResult::Denied { args, reason } => CallResult::Denied {
                args: json(args),
                reason: reason.clone(),
            },
            CallResult::Failed { args, failure } => CallResult::Failed {
                args: json(args),
                failure: failure.clone(),
            },
        };
        CallRecord {
            result,
            decisions: self.decisions.clone(),
            effect: self.effect,
        }
    }
}

/// Arguments as JSON for observers; they came from JSON (or were built as `Args`), so a failure
/// is reported in place rather than dropped.
fn json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value)
        .unwrap_or_else(|error| Value::String(format!("<arguments not serializable: {error}>")))
}
