//! How the runtime reads a tool's values from JSON — its arguments from the model's text or a
//! JSON value, a dynamic link's replacement, a journaled output — as two plain functions chosen
//! once per tool, both from text. For a tool they are serde's over its types; for the shared
//! runtime (`shared.rs`) they read the tool's own types and box the result.
//!
//! Everything is read from text, a JSON value too (written out first): every tool parses its
//! arguments from text anyway, so this reuses that code instead of instantiating serde_json's
//! `Value` deserializer for each tool's types — hundreds of lines of LLVM IR per tool, for the
//! rarer paths (a dynamic link's replacement, an approver's edit, a code skill's JSON, a replay).

use std::any::TypeId;

use serde_json::Value;

use super::Tool;

/// A reader of a tool's values from JSON text.
pub(crate) type FromText<V> = for<'t> fn(&'t str) -> Result<V, serde_json::Error>;

/// A tool's readers, and the Rust type of the tool they read for (which typed links are matched
/// against). Not public API.
#[doc(hidden)]
pub struct Readers<T: Tool> {
    pub(crate) tool_type: TypeId,
    pub(crate) args: FromText<T::Args>,
    pub(crate) output: FromText<T::Output>,
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
            args: |text| serde_json::from_str(text),
            output: |text| serde_json::from_str(text),
        }
    }

    /// These readers, for a tool of type `tool_type`.
    pub(crate) fn new(
        tool_type: TypeId,
        args: FromText<T::Args>,
        output: FromText<T::Output>,
    ) -> Self {
        Readers {
            tool_type,
            args,
            output,
        }
    }

    /// The arguments from the caller's text (the model's, an MCP client's).
    pub(crate) fn args_from_text(&self, text: &str) -> Result<T::Args, serde_json::Error> {
        (self.args)(text)
    }

    /// The arguments from a JSON value (a dynamic link's replacement, an approver's edit, a code
    /// skill's JSON).
    pub(crate) fn args(&self, json: &Value) -> Result<T::Args, serde_json::Error> {
        (self.args)(&json.to_string())
    }

    /// An output from its text (a journaled step's).
    pub(crate) fn output_from_text(&self, text: &str) -> Result<T::Output, serde_json::Error> {
        (self.output)(text)
    }
}
