//! The typed arguments of a sub-agent tool whose input is not a JSON object (a `String`, a
//! number, a list): `{"input": …}`, the shape `as_tool` sends for such an input too. A type of
//! this crate, named by its tool, so [`agent_tool!`](crate::agent_tool) can link it to the tool a
//! user declares — `impl ToolArguments for String` would break the orphan rule.

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::AgentInput;
use super::AgentOutput;
use super::AgentTool;
use crate::tool::ToolTarget;
use crate::{Tool, ToolArguments, ToolContext, ToolError};

/// The arguments of tool `T`, a sub-agent whose input `I` is not a JSON object: the model sends
/// `{"input": …}`. What typed interceptors of an
/// `agent_tool! { struct T("…"): String => … }` take and replace.
///
/// ```
/// use agents_kt::prelude::*;
/// use agents_kt::SubAgentInput;
///
/// agents_kt::agent_tool! {
///     /// Summarizes a text.
///     pub struct Summarize("summarize"): String => String;
/// }
///
/// /// Long texts are cut before the summarizer sees them.
/// #[before_tool_call(Summarize)]
/// fn at_most_a_page(args: &SubAgentInput<Summarize>) -> Decision<SubAgentInput<Summarize>, String> {
///     match args.input.len() > 2_000 {
///         true => Decision::ProceedWith(SubAgentInput::new(args.input[..2_000].to_string())),
///         false => Decision::Proceed,
///     }
/// }
/// ```
pub struct SubAgentInput<T, I = String> {
    /// The sub-agent's input.
    pub input: I,
    tool: PhantomData<fn() -> T>,
}

impl<T, I> SubAgentInput<T, I> {
    /// Arguments carrying `input`.
    pub fn new(input: I) -> Self {
        SubAgentInput {
            input,
            tool: PhantomData,
        }
    }
}

impl<T, I: Clone> Clone for SubAgentInput<T, I> {
    fn clone(&self) -> Self {
        SubAgentInput::new(self.input.clone())
    }
}

impl<T, I: std::fmt::Debug> std::fmt::Debug for SubAgentInput<T, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubAgentInput")
            .field("input", &self.input)
            .finish()
    }
}

impl<T, I: Serialize> Serialize for SubAgentInput<T, I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("input", &self.input)?;
        map.end()
    }
}

impl<'de, T, I: Deserialize<'de>> Deserialize<'de> for SubAgentInput<T, I> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Wire<I> {
            input: I,
        }
        Wire::deserialize(deserializer).map(|wire| SubAgentInput::new(wire.input))
    }
}

impl<T, I: JsonSchema> JsonSchema for SubAgentInput<T, I> {
    fn schema_name() -> Cow<'static, str> {
        Cow::Owned(format!("SubAgentInput_{}", I::schema_name()))
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let input = generator.subschema_for::<I>();
        schemars::json_schema!({
            "type": "object",
            "properties": { "input": input },
            "required": ["input"],
        })
    }
}

impl<T: Tool<Args = Self>, I> ToolArguments for SubAgentInput<T, I> {
    type Tool = T;
}

/// The sub-agent runs on the input the arguments carry.
impl<T, I, OUT> ToolTarget<SubAgentInput<T, I>, OUT> for AgentTool<I, OUT>
where
    AgentTool<I, OUT>: ToolTarget<I, OUT>,
    I: AgentInput + Sync,
    OUT: AgentOutput,
{
    fn description(&self) -> &str {
        ToolTarget::<I, OUT>::description(self)
    }

    fn manifest_source(&self) -> Option<serde_json::Value> {
        ToolTarget::<I, OUT>::manifest_source(self)
    }

    async fn call(
        &self,
        tool: &'static str,
        args: SubAgentInput<T, I>,
        ctx: &ToolContext,
    ) -> Result<OUT, ToolError> {
        ToolTarget::<I, OUT>::call(self, tool, args.input, ctx).await
    }
}
