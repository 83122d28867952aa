//! Registration's links: the interceptors and gates registered for tools ([`ToolEntry`]s), and
//! how they become one tool's chains — [`chains_for`] joins the tool's typed links and the
//! dynamic ones, in registration order, once, at build (`register.rs` holds the tools waiting
//! for them); the same joining serves the links a sub-agent's run inherits (`inherited.rs`).
//! Nothing here knows an agent or a runtime.

use std::any::{Any, TypeId};
use std::sync::Arc;

use serde_json::Value;

use super::Tool;
use super::chains::ToolChains;
use super::readers::Readers;
use super::shared_links;
use super::typed_interceptor::{ToolGate, ToolInterceptor, ToolInterceptorOf};
use super::view::{CallGate, JsonLink, TypedLink, Viewing};
use crate::chain::gate::GateInChain;
use crate::chain::{GateOwner, Link};
use crate::{BuildError, Gate, Interceptor, ToolSpec};

/// Where in a tool call a tool link sits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ToolStage {
    Before,
    Gate,
    After,
}

/// A tool interceptor or gate as registered: for one tool by name (typed), or for every tool.
#[derive(Clone)]
pub(crate) struct ToolEntry {
    stage: ToolStage,
    /// `Some(name)`: typed, for the tool of that name; `None`: dynamic, for every tool.
    tool: Option<&'static str>,
    link: ToolLink,
    name: Option<Arc<str>>,
}

#[derive(Clone)]
enum ToolLink {
    /// A `ToolInterceptor<T>`, `ToolGate<T>` or `ToolInterceptorOf<T::Output>`, by stage
    /// (shared: the agents below inherit it) — as itself, for the typed runtime of `T`, and over
    /// the shared runtime's values (`shared_links.rs`), for `T` run by that runtime.
    Typed {
        tool_type: TypeId,
        typed: Arc<dyn Any + Send + Sync>,
        shared: Arc<dyn Any + Send + Sync>,
    },
    Dynamic(Arc<dyn Interceptor<Value, Value>>),
    DynamicGate(Arc<dyn Gate<Value>>),
    /// A gate of every tool over the call, not its arguments (grants, constraints).
    CallGate(Arc<dyn Gate<()>>),
}

impl ToolEntry {
    /// A typed before-tool interceptor of `T`.
    pub(crate) fn before<T: Tool>(interceptor: ToolInterceptor<T>) -> Self {
        let name = interceptor.name.map(Arc::from);
        let shared = Arc::new(shared_links::before(&interceptor));
        ToolEntry::typed::<T>(ToolStage::Before, Arc::new(interceptor), shared, name)
    }

    /// A typed gate of `T`.
    pub(crate) fn gate<T: Tool>(gate: ToolGate<T>) -> Self {
        let name = gate.name.map(Arc::from);
        let shared = Arc::new(shared_links::gate(&gate));
        ToolEntry::typed::<T>(ToolStage::Gate, Arc::new(gate), shared, name)
    }

    /// A typed after-tool interceptor of `T`.
    pub(crate) fn after<T: Tool>(interceptor: ToolInterceptorOf<T::Output>) -> Self {
        let name = interceptor.name.map(Arc::from);
        let shared = Arc::new(shared_links::after::<T>(&interceptor));
        ToolEntry::typed::<T>(ToolStage::After, Arc::new(interceptor), shared, name)
    }

    fn typed<T: Tool>(
        stage: ToolStage,
        typed: Arc<dyn Any + Send + Sync>,
        shared: Arc<dyn Any + Send + Sync>,
        name: Option<Arc<str>>,
    ) -> Self {
        let link = ToolLink::Typed {
            tool_type: TypeId::of::<T>(),
            typed,
            shared,
        };
        ToolEntry::of(stage, Some(T::NAME), link, name)
    }

    /// A before-tool interceptor of every tool, over JSON.
    pub(crate) fn any_before(
        interceptor: Arc<dyn Interceptor<Value, Value>>,
        name: Option<Arc<str>>,
    ) -> Self {
        ToolEntry::of(
            ToolStage::Before,
            None,
            ToolLink::Dynamic(interceptor),
            name,
        )
    }

    /// An after-tool interceptor of every tool, over JSON.
    pub(crate) fn any_after(
        interceptor: Arc<dyn Interceptor<Value, Value>>,
        name: Option<Arc<str>>,
    ) -> Self {
        ToolEntry::of(ToolStage::After, None, ToolLink::Dynamic(interceptor), name)
    }

    /// A gate of every tool, over JSON.
    pub(crate) fn any_gate(gate: Arc<dyn Gate<Value>>, name: Option<Arc<str>>) -> Self {
        ToolEntry::of(ToolStage::Gate, None, ToolLink::DynamicGate(gate), name)
    }

    fn of(
        stage: ToolStage,
        tool: Option<&'static str>,
        link: ToolLink,
        name: Option<Arc<str>>,
    ) -> Self {
        ToolEntry {
            stage,
            tool,
            link,
            name,
        }
    }

    /// A gate of every tool that judges the call itself (its tool, its id, its run), not the
    /// arguments: they are not read as JSON for it.
    pub(crate) fn call_gate(gate: Arc<dyn Gate<()>>, name: Option<Arc<str>>) -> Self {
        ToolEntry::of(ToolStage::Gate, None, ToolLink::CallGate(gate), name)
    }

    /// Report this link by `name` (`AgentBuilder::named`).
    pub(crate) fn rename(&mut self, name: Arc<str>) {
        self.name = Some(name);
    }

    /// Whether this is a gate (which the agents below always inherit; interceptors only when
    /// the agent opts in).
    pub(crate) fn is_gate(&self) -> bool {
        self.stage == ToolStage::Gate
    }

    /// The tool a typed link is for; `None` for a dynamic one.
    pub(crate) fn typed_for(&self) -> Option<&'static str> {
        self.tool
    }
}

/// Tool `T`'s chains from every registered tool link, in registration order: its own typed links
/// (for the tool named `tool`, `T::NAME` for a Rust tool) and every dynamic one, each adapted to
/// the chain's [`Viewed`](super::view::Viewed) values.
pub(crate) fn chains_for<T: Tool>(
    entries: &[ToolEntry],
    tool: ToolKey<'_, T>,
) -> Result<ToolChains<T>, BuildError> {
    let mut chains = ToolChains::<T>::default();
    for entry in entries {
        push_link(&mut chains, entry, tool, None)?;
    }
    Ok(chains)
}

/// Which tool a chain is for: the name the model calls it by, and how its values are read —
/// with the Rust type of the tool, run as `T` (itself, or the shared runtime's tool).
pub(crate) struct ToolKey<'a, T: Tool> {
    pub name: &'a str,
    pub readers: Readers<T>,
}

impl<T: Tool> Clone for ToolKey<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Tool> Copy for ToolKey<'_, T> {}

/// Add `entry` to `tool`'s chains when it is for that tool, as the link of `owner` (an
/// ancestor) when one is given. An error when a typed link for a tool of that name is for
/// another tool type.
pub(crate) fn push_link<T: Tool>(
    chains: &mut ToolChains<T>,
    entry: &ToolEntry,
    tool: ToolKey<'_, T>,
    owner: Option<&Arc<GateOwner>>,
) -> Result<(), BuildError> {
    if entry.tool.is_some_and(|typed_for| typed_for != tool.name) {
        return Ok(());
    }
    let mismatch = || BuildError::InterceptorToolMismatch {
        tool: tool.name.to_string(),
    };
    let (args, output) = (tool.readers.args, tool.readers.output);
    match &entry.link {
        ToolLink::Typed {
            tool_type: link_type,
            typed,
            shared,
        } => {
            if *link_type != tool.readers.tool_type {
                return Err(mismatch());
            }
            // The form this runtime runs: the tool's own, or over the shared runtime's values.
            let form = if TypeId::of::<T>() == *link_type {
                typed
            } else {
                shared
            };
            push_typed(chains, form, entry, owner).ok_or_else(mismatch)?;
        }
        ToolLink::Dynamic(dynamic) if entry.stage == ToolStage::After => {
            let what = (Viewing::Result, Arc::from(tool.name));
            let link = JsonLink::new(Arc::clone(dynamic), what, output, output);
            chains
                .after
                .push(owned(Link::new(Arc::new(link)), entry, owner));
            chains.json_output = true;
        }
        ToolLink::Dynamic(dynamic) => {
            let what = (Viewing::Arguments, Arc::from(tool.name));
            let link = JsonLink::new(Arc::clone(dynamic), what, args, output);
            chains
                .before
                .push(owned(Link::new(Arc::new(link)), entry, owner));
            chains.json_args = true;
        }
        ToolLink::DynamicGate(gate) => {
            let gate: Arc<dyn Interceptor<Value, Value>> = Arc::new(GateInChain(Arc::clone(gate)));
            let what = (Viewing::Arguments, Arc::from(tool.name));
            let link = JsonLink::new(gate, what, args, output);
            chains
                .gates
                .push(owned(Link::new(Arc::new(link)), entry, owner));
            chains.json_args = true;
        }
        ToolLink::CallGate(gate) => {
            let link = CallGate(Arc::clone(gate));
            chains
                .gates
                .push(owned(Link::new(Arc::new(link)), entry, owner));
        }
    }
    Ok(())
}

/// A typed link (`form`, as the runtime of `T` runs it) added at its stage; `None` when it is
/// not of `T` (a bug: the tool's type was compared already).
fn push_typed<T: Tool>(
    chains: &mut ToolChains<T>,
    form: &Arc<dyn Any + Send + Sync>,
    entry: &ToolEntry,
    owner: Option<&Arc<GateOwner>>,
) -> Option<()> {
    match entry.stage {
        ToolStage::Before => {
            let typed = form.downcast_ref::<ToolInterceptor<T>>()?;
            let link = TypedLink(Arc::clone(&typed.inner));
            chains
                .before
                .push(owned(Link::new(Arc::new(link)), entry, owner));
        }
        ToolStage::Gate => {
            let typed = form.downcast_ref::<ToolGate<T>>()?;
            let gate: Arc<dyn Interceptor<T::Args, T::Output>> =
                Arc::new(GateInChain(Arc::clone(&typed.inner)));
            let link = TypedLink(gate);
            chains
                .gates
                .push(owned(Link::new(Arc::new(link)), entry, owner));
        }
        ToolStage::After => {
            let typed = form.downcast_ref::<ToolInterceptorOf<T::Output>>()?;
            let link = TypedLink(Arc::clone(&typed.inner));
            chains
                .after
                .push(owned(Link::new(Arc::new(link)), entry, owner));
            // It reads the arguments the call ran with: keep them as JSON.
            chains.json_output |= typed.reads_args;
        }
    }
    Some(())
}

/// `link` named and owned as `entry` says.
fn owned<X: 'static, R: 'static>(
    link: Link<X, R>,
    entry: &ToolEntry,
    owner: Option<&Arc<GateOwner>>,
) -> Link<X, R> {
    let link = link.maybe_named(entry.name.clone());
    match owner {
        Some(owner) => link.owned_by(Arc::clone(owner)),
        None => link,
    }
}

/// The dynamic before-tool interceptors and tool gates alone, over JSON: what guards an MCP call
/// of an exposed skill.
pub(crate) type JsonLinks = Vec<Link<Value, Value>>;
pub(crate) fn any_tool_links(entries: &[ToolEntry]) -> (JsonLinks, JsonLinks) {
    let (mut chain, mut gates) = (Vec::new(), Vec::new());
    for entry in entries.iter().filter(|entry| entry.tool.is_none()) {
        let name = entry.name.clone();
        match (&entry.link, entry.stage) {
            (ToolLink::Dynamic(dynamic), ToolStage::Before) => {
                chain.push(Link::new(Arc::clone(dynamic)).maybe_named(name));
            }
            (ToolLink::DynamicGate(gate), _) => {
                gates.push(Link::gate(Arc::clone(gate)).maybe_named(name));
            }
            (ToolLink::CallGate(gate), _) => {
                let link = Link::new(Arc::new(CallGate(Arc::clone(gate))));
                gates.push(link.maybe_named(name));
            }
            _ => {}
        }
    }
    (chain, gates)
}

/// What the model is told about tool `T`: its name, description and argument schema, which must
/// be an object.
pub(crate) fn spec_of<T: Tool>(tool: &T) -> Result<ToolSpec, BuildError> {
    let parameters = serde_json::to_value(schemars::schema_for!(T::Args))
        .unwrap_or_else(|_| Value::Object(Default::default()));
    spec(
        T::NAME,
        tool.description().into_owned(),
        parameters,
        tool.output_schema(),
    )
}

/// The non-generic rest of [`spec_of`], compiled once rather than once per tool.
pub(crate) fn spec(
    name: &str,
    description: String,
    parameters: Value,
    output_schema: Option<Value>,
) -> Result<ToolSpec, BuildError> {
    // The arguments' schema is kept as written, `$schema` included: MCP clients read it as JSON
    // Schema 2020-12 (SEP-1613); the model providers' requests leave the dialect out.
    let kind = parameters
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("none");
    if kind != "object" {
        return Err(BuildError::ArgsNotObject {
            tool: name.to_string(),
            found: kind.to_string(),
        });
    }
    let output_schema = output_schema.map(|mut schema| {
        if let Value::Object(map) = &mut schema {
            map.remove("$schema");
        }
        schema
    });
    Ok(ToolSpec {
        name: name.to_string(),
        description,
        parameters,
        output_schema: output_schema
            .filter(|schema| schema.get("type") == Some(&Value::from("object"))),
    })
}
