//! Registration's links: the interceptors and gates registered for tools ([`ToolEntry`]s), and
//! how they become one tool's chains — [`chains_for`] joins the tool's typed links and the
//! dynamic ones, in registration order, once, at build (`register.rs` holds the tools waiting
//! for them); the same joining serves the links a sub-agent's run inherits (`inherited.rs`).
//! Nothing here knows an agent or a runtime.

use std::any::Any;
use std::sync::Arc;

use serde_json::Value;

use super::Tool;
use super::chains::ToolChains;
use super::typed_interceptor::{ToolGate, ToolInterceptor, ToolInterceptorOf};
use super::view::{CallGate, JsonLink, TypedLink, Viewed, Viewing};
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
    /// (shared: the agents below inherit it).
    Typed(Arc<dyn Any + Send + Sync>),
    Dynamic(Arc<dyn Interceptor<Value, Value>>),
    DynamicGate(Arc<dyn Gate<Value>>),
    /// A gate of every tool over the call, not its arguments (grants, constraints).
    CallGate(Arc<dyn Gate<()>>),
}

impl ToolEntry {
    /// A typed before-tool interceptor of `T`.
    pub(crate) fn before<T: Tool>(interceptor: ToolInterceptor<T>) -> Self {
        let name = interceptor.name.map(Arc::from);
        ToolEntry::typed::<T>(ToolStage::Before, Arc::new(interceptor), name)
    }

    /// A typed gate of `T`.
    pub(crate) fn gate<T: Tool>(gate: ToolGate<T>) -> Self {
        let name = gate.name.map(Arc::from);
        ToolEntry::typed::<T>(ToolStage::Gate, Arc::new(gate), name)
    }

    /// A typed after-tool interceptor of `T`.
    pub(crate) fn after<T: Tool>(interceptor: ToolInterceptorOf<T::Output>) -> Self {
        let name = interceptor.name.map(Arc::from);
        ToolEntry::typed::<T>(ToolStage::After, Arc::new(interceptor), name)
    }

    fn typed<T: Tool>(
        stage: ToolStage,
        link: Arc<dyn Any + Send + Sync>,
        name: Option<Arc<str>>,
    ) -> Self {
        ToolEntry::of(stage, Some(T::NAME), ToolLink::Typed(link), name)
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
    tool: &str,
) -> Result<ToolChains<T>, BuildError> {
    let mut chains = ToolChains::<T>::default();
    for entry in entries {
        push_link(&mut chains, entry, tool, None)?;
    }
    Ok(chains)
}

/// Add `entry` to tool `T`'s chains (named `tool`) when it is for that tool, as the link of
/// `owner` (an ancestor) when one is given. An error when a typed link for a tool of that name
/// is for another tool type.
pub(crate) fn push_link<T: Tool>(
    chains: &mut ToolChains<T>,
    entry: &ToolEntry,
    tool: &str,
    owner: Option<&Arc<GateOwner>>,
) -> Result<(), BuildError> {
    if entry.tool.is_some_and(|typed_for| typed_for != tool) {
        return Ok(());
    }
    let mismatch = || BuildError::InterceptorToolMismatch {
        tool: tool.to_string(),
    };
    let named = |link: Link<_, _>| {
        let link = link.maybe_named(entry.name.clone());
        match owner {
            Some(owner) => link.owned_by(Arc::clone(owner)),
            None => link,
        }
    };
    match (&entry.link, entry.stage) {
        (ToolLink::Typed(typed), ToolStage::Before) => {
            let typed = typed
                .downcast_ref::<ToolInterceptor<T>>()
                .ok_or_else(mismatch)?;
            let link = TypedLink(Arc::clone(&typed.inner));
            chains.before.push(named(Link::new(Arc::new(link))));
        }
        (ToolLink::Typed(typed), ToolStage::Gate) => {
            let typed = typed.downcast_ref::<ToolGate<T>>().ok_or_else(mismatch)?;
            let gate: Arc<dyn Interceptor<T::Args, T::Output>> =
                Arc::new(GateInChain(Arc::clone(&typed.inner)));
            chains
                .gates
                .push(named(Link::new(Arc::new(TypedLink(gate)))));
        }
        (ToolLink::Typed(typed), ToolStage::After) => {
            let typed = typed
                .downcast_ref::<ToolInterceptorOf<T::Output>>()
                .ok_or_else(mismatch)?;
            let link = TypedLink(Arc::clone(&typed.inner));
            chains.after.push(named_after::<T>(link, entry, owner));
            // It reads the arguments the call ran with: keep them as JSON.
            chains.json_output |= typed.reads_args;
        }
        (ToolLink::Dynamic(dynamic), ToolStage::After) => {
            let link = JsonLink::new(Arc::clone(dynamic), Viewing::Result, Arc::from(tool));
            chains.after.push(named_after::<T>(link, entry, owner));
            chains.json_output = true;
        }
        (ToolLink::Dynamic(dynamic), _) => {
            let link = JsonLink::new(Arc::clone(dynamic), Viewing::Arguments, Arc::from(tool));
            chains.before.push(named(Link::new(Arc::new(link))));
            chains.json_args = true;
        }
        (ToolLink::DynamicGate(gate), _) => {
            let gate: Arc<dyn Interceptor<Value, Value>> = Arc::new(GateInChain(Arc::clone(gate)));
            let link = JsonLink::new(gate, Viewing::Arguments, Arc::from(tool));
            chains.gates.push(named(Link::new(Arc::new(link))));
            chains.json_args = true;
        }
        (ToolLink::CallGate(gate), _) => {
            let link = CallGate(Arc::clone(gate));
            chains.gates.push(named(Link::new(Arc::new(link))));
        }
    }
    Ok(())
}

/// An after-tool link, named and owned as `entry` says (the closure above is typed by the
/// arguments' chain, this one by the output's).
fn named_after<T: Tool>(
    link: impl Interceptor<Viewed<T::Output>, T::Output> + 'static,
    entry: &ToolEntry,
    owner: Option<&Arc<GateOwner>>,
) -> Link<Viewed<T::Output>, T::Output> {
    let link = Link::new(Arc::new(link)).maybe_named(entry.name.clone());
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
