//! One runtime for every tool without compile-time links.
//!
//! The guarded pipeline (`ToolRuntime`: guard, approvals, body under its timeout, after-tool
//! chain, journaled step) is generic over the tool, and compiling it once per tool is what made
//! a crate of many tools slow to build. Most tools have no link fixed at compile time, so they
//! share one copy of it: [`SharedTool`] is a tool whose arguments and output are
//! [`SharedArgs`] / [`SharedOutput`] — each the tool's own value in a box, with its type's
//! serialization beside it; the tool's readers (`readers.rs`) read new ones from JSON. Per tool,
//! only what needs its types is compiled: reading its arguments, running its body, writing and
//! reading its output.
//!
//! Nothing about the rules changes: the values serialize exactly as the tool's types do (the
//! same text, field order included), a dynamic link's JSON replacement is read by the tool's own
//! types (a misfit denies, in the same words), and a typed link registered on the builder or
//! inherited from an ancestor runs over the tool's own values through an adapter
//! (`shared_links.rs`). `tests/tests/shared_runtime_rules.rs` drives the same calls through
//! both runtimes and compares everything observable.

use std::any::{Any, TypeId};
use std::borrow::Cow;

use futures::future::BoxFuture;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::readers::Readers;
use crate::{Tool, ToolContext, ToolError};

/// A tool's arguments behind one type: the value and its serialization.
pub(crate) struct SharedArgs(Box<dyn ArgsValue>);

/// A tool's output behind one type.
pub(crate) struct SharedOutput(Box<dyn OutputValue>);

impl SharedArgs {
    pub(crate) fn of<T: Tool>(args: T::Args) -> Self {
        SharedArgs(Box::new(ArgsOf::<T>(args)))
    }

    /// The tool's own arguments, when they are `A`.
    pub(crate) fn get<A: 'static>(&self) -> Option<&A> {
        self.0.as_any().downcast_ref()
    }

    fn take<A: 'static>(self) -> Result<A, ToolError> {
        let mut slot = None::<A>;
        self.0.move_into(&mut slot);
        slot.ok_or_else(|| mixed_up("arguments"))
    }
}

impl SharedOutput {
    pub(crate) fn of<T: Tool>(output: T::Output) -> Self {
        SharedOutput(Box::new(OutputOf::<T>(output)))
    }

    /// The tool's own output, when it is `O`.
    pub(crate) fn get<O: 'static>(&self) -> Option<&O> {
        self.0.as_any().downcast_ref()
    }

    /// The tool's own output, when it is `O`; `None` when it is another's (a bug).
    pub(crate) fn take<O: 'static>(self) -> Option<O> {
        let mut slot = None::<O>;
        self.0.move_into(&mut slot);
        slot
    }

    /// The value itself, for code that looks at what an output is (a text, content).
    pub(crate) fn as_any(&self) -> &dyn Any {
        self.0.as_any()
    }

    /// The output as JSON text, written by its own type's serializer: the text the model reads
    /// after every call, so it is not written through `erased_serde`.
    pub(crate) fn to_json_text(&self) -> Result<String, serde_json::Error> {
        self.0.to_json_text()
    }

    /// `output` as the JSON text a journaled step records: a shared output by its own type's
    /// serializer (as [`SharedOutput::to_json_text`], for the same reason), any other by serde.
    pub(crate) fn journaled_text<O: Serialize + 'static>(
        output: &O,
    ) -> Result<Box<RawValue>, serde_json::Error> {
        match (output as &dyn Any).downcast_ref::<SharedOutput>() {
            Some(shared) => shared.0.to_raw_value(),
            None => serde_json::value::to_raw_value(output),
        }
    }
}

/// The shared runtime's values never meet one another's tools; if they did, the call fails
/// rather than run a tool on values it does not know.
fn mixed_up(what: &str) -> ToolError {
    ToolError::new(format!(
        "the call's {what} are of another tool (a bug in agents-kt)"
    ))
}

/// A tool's arguments with what the runtime does with them.
///
/// A value leaves its box through `move_into`: into `slot`, an `Option` of its own type behind
/// `dyn Any`, and nowhere when the slot is of another type. Moving it into a `Box<dyn Any>`
/// instead would allocate a second box on every call.
trait ArgsValue: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn move_into(self: Box<Self>, slot: &mut dyn Any);
    fn cloned(&self) -> SharedArgs;
    fn serializable(&self) -> &dyn erased_serde::Serialize;
}

/// A tool's output, as [`ArgsValue`] is its arguments.
trait OutputValue: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn move_into(self: Box<Self>, slot: &mut dyn Any);
    fn to_json_text(&self) -> Result<String, serde_json::Error>;
    fn to_raw_value(&self) -> Result<Box<RawValue>, serde_json::Error>;
    fn serializable(&self) -> &dyn erased_serde::Serialize;
}

struct ArgsOf<T: Tool>(T::Args);
struct OutputOf<T: Tool>(T::Output);

impl<T: Tool> ArgsValue for ArgsOf<T> {
    fn as_any(&self) -> &dyn Any {
        &self.0
    }
    fn move_into(self: Box<Self>, slot: &mut dyn Any) {
        if let Some(slot) = slot.downcast_mut::<Option<T::Args>>() {
            *slot = Some(self.0);
        }
    }
    fn cloned(&self) -> SharedArgs {
        SharedArgs::of::<T>(self.0.clone())
    }
    fn serializable(&self) -> &dyn erased_serde::Serialize {
        &self.0
    }
}

impl<T: Tool> OutputValue for OutputOf<T> {
    fn as_any(&self) -> &dyn Any {
        &self.0
    }
    fn move_into(self: Box<Self>, slot: &mut dyn Any) {
        if let Some(slot) = slot.downcast_mut::<Option<T::Output>>() {
            *slot = Some(self.0);
        }
    }
    fn to_json_text(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(&self.0)
    }
    fn to_raw_value(&self) -> Result<Box<RawValue>, serde_json::Error> {
        serde_json::value::to_raw_value(&self.0)
    }
    fn serializable(&self) -> &dyn erased_serde::Serialize {
        &self.0
    }
}

impl Clone for SharedArgs {
    fn clone(&self) -> Self {
        self.0.cloned()
    }
}

impl Serialize for SharedArgs {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        erased_serde::serialize(self.0.serializable(), serializer)
    }
}

impl Serialize for SharedOutput {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        erased_serde::serialize(self.0.serializable(), serializer)
    }
}

/// Never read by serde: without its tool there is no type to read into. The runtime reads
/// shared values through [`SharedTool`]'s readers; this refusal keeps any other path closed.
fn unreadable<'de, D: Deserializer<'de>, V>(_: D) -> Result<V, D::Error> {
    Err(serde::de::Error::custom(
        "a shared tool value is read by its tool's types, not directly (a bug in agents-kt)",
    ))
}

impl<'de> Deserialize<'de> for SharedArgs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        unreadable(deserializer)
    }
}

impl<'de> Deserialize<'de> for SharedOutput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        unreadable(deserializer)
    }
}

/// Never shown: a shared tool's spec is its own tool's, made before its types were boxed.
impl JsonSchema for SharedArgs {
    fn schema_name() -> Cow<'static, str> {
        "SharedArgs".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({ "type": "object" })
    }
}

/// One Rust tool as the shared runtime runs it.
pub(crate) struct SharedTool(Box<dyn Body>);

impl SharedTool {
    pub(crate) fn of<T: Tool>(tool: T) -> Self {
        SharedTool(Box::new(Own(tool)))
    }
}

/// What of a tool needs its types: its body and its readers.
trait Body: Send + Sync {
    fn call<'a>(
        &'a self,
        args: SharedArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<SharedOutput, ToolError>>;
    fn manifest_source(&self) -> Option<Value>;
    fn runs_agent(&self) -> bool;
    fn readers(&self) -> Readers<SharedTool>;
}

struct Own<T>(T);

impl<T: Tool> Body for Own<T> {
    fn call<'a>(
        &'a self,
        args: SharedArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<SharedOutput, ToolError>> {
        Box::pin(async move {
            let args = args.take::<T::Args>()?;
            self.0.call(args, ctx).await.map(SharedOutput::of::<T>)
        })
    }

    fn manifest_source(&self) -> Option<Value> {
        self.0.manifest_source()
    }

    fn runs_agent(&self) -> bool {
        self.0.__runs_agent()
    }

    /// `T`'s own readers (serde's over its types), their values boxed.
    fn readers(&self) -> Readers<SharedTool> {
        Readers::new(
            TypeId::of::<T>(),
            |text| serde_json::from_str(text).map(SharedArgs::of::<T>),
            |text| serde_json::from_str(text).map(SharedOutput::of::<T>),
        )
    }
}

impl Tool for SharedTool {
    // Never used as a name: a shared tool is registered under its own tool's.
    const NAME: &'static str = "(shared tool runtime)";
    type Args = SharedArgs;
    type Output = SharedOutput;

    fn description(&self) -> Cow<'static, str> {
        // Its own tool's description went into the spec before it was boxed.
        Cow::Borrowed("")
    }

    fn manifest_source(&self) -> Option<Value> {
        self.0.manifest_source()
    }

    async fn call(&self, args: SharedArgs, ctx: &ToolContext) -> Result<SharedOutput, ToolError> {
        self.0.call(args, ctx).await
    }

    fn __readers(&self) -> Readers<SharedTool> {
        self.0.readers()
    }

    fn __runs_agent(&self) -> bool {
        self.0.runs_agent()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    struct Pair {
        left: i64,
        right: String,
    }

    struct Swap;

    impl Tool for Swap {
        const NAME: &'static str = "swap";
        type Args = Pair;
        type Output = Pair;
        fn description(&self) -> Cow<'static, str> {
            "Swaps nothing.".into()
        }
        async fn call(&self, args: Pair, _: &ToolContext) -> Result<Pair, ToolError> {
            Ok(args)
        }
    }

    fn pair() -> Pair {
        Pair {
            left: 7,
            right: "sjö \"quoted\"".into(),
        }
    }

    #[test]
    fn a_value_leaves_its_box_as_its_own_type_and_as_no_other() {
        let taken = SharedArgs::of::<Swap>(pair()).take::<Pair>();
        assert!(taken.is_ok_and(|args| args.left == 7 && args.right == pair().right));
        let mixed = SharedArgs::of::<Swap>(pair()).take::<String>();
        assert!(mixed.is_err_and(|error| error.to_string().contains("of another tool")));
        assert!(SharedOutput::of::<Swap>(pair()).take::<Pair>().is_some());
        assert!(SharedOutput::of::<Swap>(pair()).take::<i64>().is_none());
    }

    #[test]
    fn an_output_writes_the_text_its_own_type_writes() {
        let shared = SharedOutput::of::<Swap>(pair());
        let own = serde_json::to_string(&pair()).ok();
        assert_eq!(shared.to_json_text().ok(), own);
        assert_eq!(serde_json::to_string(&shared).ok(), own);
    }
}
