//! How one tool chain serves typed and dynamic interceptors alike: the value travels as a
//! [`Viewed`] — typed, plus its JSON when a dynamic link reads it — and two adapters put typed and
//! dynamic interceptors into the same chain, in registration order.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::readers::FromText;

use crate::{Decision, Gate, Gated, InterceptContext, Intercepted, Interceptor, Verdict};

/// A value in a tool's chain: the typed value, and — when the chain holds a dynamic link — the
/// JSON that dynamic links see (the caller's raw JSON until someone replaces it).
#[doc(hidden)]
pub struct Viewed<X> {
    pub(crate) typed: X,
    pub(crate) json: Option<Value>,
}

impl<X> Viewed<X> {
    pub(crate) fn new(typed: X, json: Option<Value>) -> Self {
        Viewed { typed, json }
    }
}

/// Arguments or an output as JSON for observers and dynamic interceptors; they came from JSON (or
/// were built as Rust values), so a failure is reported in place rather than dropped.
pub(crate) fn json(value: &impl Serialize) -> Value {
    serde_json::to_value(value)
        .unwrap_or_else(|error| Value::String(format!("<not serializable as JSON: {error}>")))
}

/// A gate that judges the call — which tool, which call, in which run — not its value: it never
/// needs the value read as JSON, so it costs a call no parse.
pub(crate) struct CallGate(pub Arc<dyn Gate<()>>);

impl<X, R> Interceptor<X, R> for CallGate {
    fn intercept<'a>(&'a self, _: &X, ctx: &InterceptContext<'_>) -> Intercepted<'a, X, R> {
        let decision = |verdict| match verdict {
            Verdict::Allow => Decision::Proceed,
            Verdict::Deny(reason) => Decision::Deny(reason),
        };
        match self.0.check(&(), ctx) {
            Gated::Ready(verdict) => Intercepted::Ready(decision(verdict)),
            Gated::Pending(future) => {
                Intercepted::Pending(Box::pin(async move { decision(future.await) }))
            }
        }
    }
}

/// A typed interceptor (over `&X`) in a chain of [`Viewed<X>`]: shared in a chain assembled at
/// run time, held as itself in a compile-time one. A replacement keeps the JSON view in step when
/// the chain keeps one.
#[doc(hidden)]
pub struct TypedLink<I>(pub I);

impl<X, R, I> Interceptor<Viewed<X>, R> for TypedLink<I>
where
    X: Serialize + Send + Sync + 'static,
    R: 'static,
    I: Interceptor<X, R>,
{
    // Inlined so a compile-time chain's interceptors are inlined through it; what is not the
    // common answer is handled out of line.
    #[inline(always)]
    fn intercept<'a>(
        &'a self,
        value: &Viewed<X>,
        ctx: &InterceptContext<'_>,
    ) -> Intercepted<'a, Viewed<X>, R> {
        match self.0.intercept(&value.typed, ctx) {
            // The common answer, passed on without building (or moving) a replacement.
            Intercepted::Ready(Decision::Proceed) => Intercepted::Ready(Decision::Proceed),
            Intercepted::Ready(decision) => {
                Intercepted::Ready(viewed(decision, value.json.is_some()))
            }
            Intercepted::Pending(future) => pending_viewed(future, value.json.is_some()),
        }
    }
}

#[inline(never)]
fn pending_viewed<'a, X, R>(
    future: futures::future::BoxFuture<'a, Decision<X, R>>,
    keep_json: bool,
) -> Intercepted<'a, Viewed<X>, R>
where
    X: Serialize + Send + 'static,
    R: 'static,
{
    Intercepted::Pending(Box::pin(async move { viewed(future.await, keep_json) }))
}

/// A typed interceptor's decision as one about the chain's view.
#[inline(never)]
fn viewed<X: Serialize, R>(decision: Decision<X, R>, keep_json: bool) -> Decision<Viewed<X>, R> {
    match decision {
        Decision::Proceed => Decision::Proceed,
        Decision::ProceedWith(typed) => {
            let json = keep_json.then(|| json(&typed));
            Decision::ProceedWith(Viewed { typed, json })
        }
        Decision::Deny(reason) => Decision::Deny(reason),
        Decision::Substitute(result) => Decision::Substitute(result),
    }
}

/// A dynamic interceptor (over JSON) in a chain of [`Viewed<X>`]: it sees the JSON view, and its
/// JSON replacement or substitute is converted to the typed one. A value that does not convert
/// denies, saying why (fail closed).
pub(crate) struct JsonLink<X, R> {
    inner: Arc<dyn Interceptor<Value, Value>>,
    what: Viewing,
    tool: Arc<str>,
    /// How its JSON becomes the chain's value (`X`) or a substitute (`R`): the tool's readers
    /// (`readers.rs`), chosen when the link joins the tool's chain.
    read: FromText<X>,
    stand_in: FromText<R>,
}

/// What a dynamic link sees as JSON: a tool's arguments (before the call) or its result (after).
#[derive(Clone, Copy)]
pub(crate) enum Viewing {
    Arguments,
    Result,
}

impl Viewing {
    fn noun(self) -> &'static str {
        match self {
            Viewing::Arguments => "arguments",
            Viewing::Result => "result",
        }
    }

    /// The reason a replacement that does not convert is denied.
    fn misfit(self, tool: &str, error: &serde_json::Error) -> String {
        match self {
            Viewing::Arguments => {
                format!("interceptor's replacement arguments do not fit tool '{tool}': {error}")
            }
            Viewing::Result => format!(
                "interceptor's replacement result does not fit the output of tool '{tool}': {error}"
            ),
        }
    }
}

impl<X, R> JsonLink<X, R> {
    /// `inner` over `what` of `tool`, its replacements read by `read` and its substitutes by
    /// `stand_in`.
    pub(crate) fn new(
        inner: Arc<dyn Interceptor<Value, Value>>,
        (what, tool): (Viewing, Arc<str>),
        read: FromText<X>,
        stand_in: FromText<R>,
    ) -> Self {
        JsonLink {
            inner,
            what,
            tool,
            read,
            stand_in,
        }
    }
}

impl<X, R> Interceptor<Viewed<X>, R> for JsonLink<X, R>
where
    X: Send + Sync + 'static,
    R: 'static,
{
    fn intercept<'a>(
        &'a self,
        value: &Viewed<X>,
        ctx: &InterceptContext<'_>,
    ) -> Intercepted<'a, Viewed<X>, R> {
        let Some(json) = &value.json else {
            // The runtime builds the view whenever a dynamic link is in the chain; never guess.
            return Intercepted::Ready(Decision::Deny(format!(
                "the {} of tool '{}' could not be shown to an interceptor as JSON",
                self.what.noun(),
                self.tool
            )));
        };
        match self.inner.intercept(json, ctx) {
            Intercepted::Ready(decision) => Intercepted::Ready(self.typed(decision)),
            Intercepted::Pending(future) => {
                Intercepted::Pending(Box::pin(async move { self.typed(future.await) }))
            }
        }
    }
}

impl<X, R> JsonLink<X, R> {
    /// Convert a JSON decision into the chain's types.
    fn typed(&self, decision: Decision<Value, Value>) -> Decision<Viewed<X>, R> {
        let tool = &self.tool;
        match decision {
            Decision::Proceed => Decision::Proceed,
            Decision::Deny(reason) => Decision::Deny(reason),
            Decision::ProceedWith(replacement) => match (self.read)(&replacement.to_string()) {
                Ok(typed) => Decision::ProceedWith(Viewed {
                    typed,
                    json: Some(replacement),
                }),
                Err(error) => Decision::Deny(self.what.misfit(tool, &error)),
            },
            Decision::Substitute(result) => match (self.stand_in)(&result.to_string()) {
                Ok(result) => Decision::Substitute(result),
                Err(error) => Decision::Deny(format!(
                    "interceptor's substitute result does not fit the output of tool '{tool}': {error}"
                )),
            },
        }
    }
}
