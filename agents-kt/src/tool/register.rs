//! Registration: a tool waiting for the agent's build, which hands it every registered link
//! and gets its [`ToolRuntime`] back (the links joined by [`super::registry::chains_for`]). The
//! builder and the MCP toolset both register through it.

use std::sync::Arc;

use serde_json::Value;

use super::Tool;
use super::registry::{ToolEntry, chains_for, spec, spec_of};
use super::runtime::{ErasedTool, ToolRuntime};
use super::static_chain::BoxedChain;
use crate::BuildError;

/// Builds a tool's runtime once every interceptor is known.
pub(crate) type PendingTool =
    Box<dyn FnOnce(&[ToolEntry]) -> Result<Arc<dyn ErasedTool>, BuildError> + Send>;

/// A tool waiting for the agent's build: the name the model calls it by, where it came from (for
/// a duplicate's error), and how to build its runtime.
pub(crate) struct Registration {
    pub name: Arc<str>,
    pub source: String,
    pub pending: PendingTool,
}

/// A Rust tool with the links fixed at compile time (`ToolChain`): those run first, then the
/// builder's, in registration order.
pub(crate) fn rust_tool<T: Tool>(tool: T, statics: BoxedChain<T>) -> Registration {
    let pending: PendingTool = Box::new(move |entries: &[ToolEntry]| {
        let spec = spec_of(&tool)?;
        let chains = chains_for::<T>(entries, T::NAME)?;
        Ok(Arc::new(ToolRuntime::chained(
            Arc::from(T::NAME),
            tool,
            spec,
            statics,
            chains,
        )) as Arc<dyn ErasedTool>)
    });
    Registration {
        name: Arc::from(T::NAME),
        source: format!("the Rust tool `{}`", std::any::type_name::<T>()),
        pending,
    }
}

/// A tool registered under a name known only at run time (a sub-agent, a handoff): its
/// description and arguments' schema from `T`, its chains the dynamic links.
pub(crate) fn runtime_tool<T: Tool>(name: Arc<str>, tool: T) -> PendingTool {
    Box::new(move |entries: &[ToolEntry]| {
        let parameters = serde_json::to_value(schemars::schema_for!(T::Args))
            .unwrap_or_else(|_| Value::Object(Default::default()));
        let spec = spec(&name, tool.description().into_owned(), parameters, None)?;
        let chains = chains_for::<T>(entries, &name)?;
        Ok(Arc::new(ToolRuntime::named(name, tool, spec, chains)) as Arc<dyn ErasedTool>)
    })
}
