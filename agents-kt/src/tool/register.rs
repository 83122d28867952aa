//! Registration: a tool waiting for the agent's build, which hands it every registered link
//! and gets its [`ToolRuntime`] back (the links joined by [`super::registry::chains_for`]). The
//! builder and the MCP toolset both register through it.

use std::sync::Arc;

use serde_json::Value;

use super::Tool;
use super::registry::{ToolEntry, ToolKey, chains_for, spec, spec_of};
use super::runtime::{ErasedTool, ToolRuntime};
use super::shared::SharedTool;
use super::static_chain::BoxedChain;
use crate::{BuildError, ToolSpec};

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

/// A Rust tool without links fixed at compile time: run by the runtime every such tool shares
/// (`shared.rs`), so the typed pipeline is not compiled for it. Nothing here may name the typed
/// runtime of `T`, not even in a branch never taken: the compiler would still walk it.
pub(crate) fn tool<T: Tool>(tool: T) -> Registration {
    let pending: PendingTool = Box::new(move |entries: &[ToolEntry]| {
        let spec = spec_of(&tool)?;
        shared_runtime(Arc::from(T::NAME), SharedTool::of(tool), spec, entries)
    });
    registration::<T>(pending)
}

/// The shared runtime of one tool. Not generic: compiled once, in this crate.
fn shared_runtime(
    name: Arc<str>,
    tool: SharedTool,
    spec: ToolSpec,
    entries: &[ToolEntry],
) -> Result<Arc<dyn ErasedTool>, BuildError> {
    named_runtime(name, tool, spec, entries)
}

/// A Rust tool with the links fixed at compile time (`ToolChain`): those run first, then the
/// builder's, in registration order.
pub(crate) fn rust_tool<T: Tool>(tool: T, statics: BoxedChain<T>) -> Registration {
    let pending: PendingTool = Box::new(move |entries: &[ToolEntry]| {
        let spec = spec_of(&tool)?;
        let key = ToolKey {
            name: T::NAME,
            readers: tool.__readers(),
        };
        let chains = chains_for(entries, key)?;
        let name = Arc::from(T::NAME);
        let runtime = ToolRuntime::chained(name, tool, spec, statics, chains);
        Ok(Arc::new(runtime) as Arc<dyn ErasedTool>)
    });
    registration::<T>(pending)
}

/// `T`'s registration; what is not `T`'s own compiled once.
fn registration<T: Tool>(pending: PendingTool) -> Registration {
    registration_of(T::NAME, std::any::type_name::<T>(), pending)
}

fn registration_of(name: &str, type_name: &str, pending: PendingTool) -> Registration {
    Registration {
        name: Arc::from(name),
        source: format!("the Rust tool `{type_name}`"),
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
        named_runtime(name, tool, spec, entries)
    })
}

/// The runtime of `tool`, called `name`, with its links from `entries`.
pub(crate) fn named_runtime<T: Tool>(
    name: Arc<str>,
    tool: T,
    spec: ToolSpec,
    entries: &[ToolEntry],
) -> Result<Arc<dyn ErasedTool>, BuildError> {
    let key = ToolKey {
        name: &name,
        readers: tool.__readers(),
    };
    let chains = chains_for(entries, key)?;
    Ok(Arc::new(ToolRuntime::named(name, tool, spec, chains)))
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::tool::shared::SharedTool;
    use crate::{IntoToolChain, ToolChain, ToolContext, ToolError};

    #[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
    struct EchoArgs {
        text: String,
    }

    struct Echo;

    impl Tool for Echo {
        const NAME: &'static str = "echo";
        type Args = EchoArgs;
        type Output = String;
        fn description(&self) -> Cow<'static, str> {
            "Echoes.".into()
        }
        async fn call(&self, args: EchoArgs, _: &ToolContext) -> Result<String, ToolError> {
            Ok(args.text)
        }
    }

    fn built(registration: Registration) -> Arc<dyn ErasedTool> {
        (registration.pending)(&[]).unwrap_or_else(|error| panic!("builds: {error}"))
    }

    #[test]
    fn a_tool_without_compile_time_links_runs_in_the_shared_runtime() {
        let runtime = built(tool(Echo));
        assert!(runtime.as_any().is::<ToolRuntime<SharedTool>>());
        assert_eq!(runtime.spec().name, "echo");
        assert!(runtime.spec().parameters["properties"]["text"].is_object());
    }

    #[test]
    fn a_tool_with_a_compile_time_chain_keeps_its_typed_runtime() {
        let runtime = built(rust_tool(Echo, ToolChain::<Echo>::new().into_guard()));
        assert!(runtime.as_any().is::<ToolRuntime<Echo>>());
    }
}
