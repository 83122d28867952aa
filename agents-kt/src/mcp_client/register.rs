//! A toolset's tools as registrations for an agent's build: each remote tool guarded by the
//! agent's dynamic links, and a bound one by its binding's typed links too — the same chains a
//! Rust tool gets, assembled by the tool registry.

use std::sync::Arc;

use super::{Bound, McpToolset, RemoteCall};
use crate::tool::register::{self, PendingTool, Registration};
use crate::tool::registry::{self, ToolEntry};
use crate::tool::runtime::ErasedTool;
use crate::{BuildError, RemoteBinding, RemoteToolBinding, ToolSpec};

impl McpToolset {
    /// Each tool under its registered name, or why it cannot be registered.
    pub(crate) fn registrations(&self) -> Vec<Result<Registration, BuildError>> {
        self.tools
            .iter()
            .map(|tool| {
                let call = RemoteCall {
                    connection: Arc::clone(&self.connection),
                    remote_name: Arc::clone(&tool.remote_name),
                    schema: Arc::clone(&tool.input_schema),
                };
                let name: Arc<str> = Arc::from(self.name_of(tool));
                let registered = Arc::clone(&name);
                let source = format!(
                    "the MCP server `{}` (its tool `{}`)",
                    self.server, tool.remote_name
                );
                let description = tool.description.clone();
                let schema = Arc::clone(&tool.input_schema);
                let pending: PendingTool = match tool.bound.clone() {
                    // A binding names its tool by the registered name: a prefix given after the
                    // binding renamed it, and its typed interceptors would guard nothing.
                    Some(Bound {
                        name: bound,
                        type_name,
                        ..
                    }) if bound != &*name => {
                        return Err(BuildError::BoundToolRenamed {
                            binding: type_name.to_string(),
                            bound: bound.to_string(),
                            registered: name.to_string(),
                        });
                    }
                    Some(bound) => Box::new(move |entries: &[ToolEntry]| {
                        let spec =
                            registry::spec(&name, description.clone(), (*schema).clone(), None)?;
                        let remote = RemoteBinding::new(call, &description);
                        (bound.register)(name, remote, spec, entries)
                    }),
                    None => Box::new(move |entries: &[ToolEntry]| {
                        let spec = registry::spec(&name, description, (*schema).clone(), None)?;
                        register::named_runtime(name, call, spec, entries)
                    }),
                };
                Ok(Registration {
                    name: registered,
                    source,
                    pending,
                })
            })
            .collect()
    }
}

/// A remote tool bound to `B`'s types, as [`McpToolset::bind`] registers it: `B`'s typed
/// interceptors, gates and after-interceptors join its chains like a Rust tool's.
pub(super) fn bound<B: RemoteToolBinding>(
    name: Arc<str>,
    remote: RemoteBinding,
    spec: ToolSpec,
    entries: &[ToolEntry],
) -> Result<Arc<dyn ErasedTool>, BuildError> {
    register::named_runtime(name, B::bind(remote), spec, entries)
}
