//! How the runtime reads a tool's values from JSON — its arguments from the model's text or a
//! JSON value, a dynamic link's replacement, a journaled output — as plain functions chosen once
//! per tool. For a tool they are serde's over its types; for the shared runtime (`shared.rs`)
//! they read the tool's own types and box the result.

use std::any::TypeId;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Tool;

/// A tool's readers, and the Rust type of the tool they read for (which typed links are matched
/// against). Not public API.
#[doc(hidden)]
pub struct Readers<T: Tool> {
    pub(crate) tool_type: TypeId,
    /// The arguments from the caller's text (the model's, an MCP client's).
    pub(crate) args_from_text: for<'t> fn(&'t str) -> Result<T::Args, serde_json::Error>,
    /// The arguments from a JSON value (a code skill's, an approver's edit).
    pub(crate) args_from_value: for<'v> fn(&'v Value) -> Result<T::Args, serde_json::Error>,
    /// A dynamic link's replacement arguments.
    pub(crate) args_from_link: for<'v> fn(&'v Value) -> Result<T::Args, serde_json::Error>,
    /// A dynamic link's substitute or replacement output.
    pub(crate) output_from_link: for<'v> fn(&'v Value) -> Result<T::Output, serde_json::Error>,
    /// A journaled output, read back on a replay.
    pub(crate) output_from_journal: fn(Value) -> Result<T::Output, serde_json::Error>,
}

impl<T: Tool> Clone for Readers<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Tool> Copy for Readers<T> {}

impl<T: Tool> Readers<T> {
    /// serde's readers over `T`'s own types.
    pub(crate) fn serde() -> Self {
        Readers {
            tool_type: TypeId::of::<T>(),
            args_from_text: |text| serde_json::from_str(text),
            args_from_value: |json| T::Args::deserialize(json),
            args_from_link: from_json::<T::Args>,
            output_from_link: from_json::<T::Output>,
            output_from_journal: serde_json::from_value,
        }
    }
}

/// A typed value from a JSON value, read back from its text: every tool already parses its
/// arguments from text, so this reuses that code instead of instantiating serde_json's `Value`
/// deserializer for each tool's types (hundreds of lines of LLVM IR per tool, for a rare path).
fn from_json<V: DeserializeOwned>(value: &Value) -> Result<V, serde_json::Error> {
    serde_json::from_str(&value.to_string())
}
