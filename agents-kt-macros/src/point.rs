//! The interception points, described once: which attribute marks each, what its function takes
//! and returns, and which builder method registers it. Parsing, validation, expansion and the
//! error texts all read this table instead of matching attribute names themselves.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// When a marked function runs relative to the guarded thing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// An interceptor: may rewrite, deny or substitute.
    Before,
    /// A gate: allows or denies the final value.
    Gate,
    /// An after-tool interceptor: may replace or withhold the result.
    After,
}

/// What it guards.
#[derive(Clone)]
pub(crate) enum Scope {
    /// One tool, named by its function.
    Tool(Ident),
    /// Every tool.
    AnyTool,
    /// Every model turn.
    Turn,
    /// The chosen skill.
    Skill,
}

/// What an attribute guards when it names no tool.
#[derive(Clone, Copy)]
enum Guards {
    /// Tools: one when the attribute names its function, else all.
    Tools,
    Turn,
    Skill,
}

/// Every attribute that marks an interceptor, gate or after-interceptor.
const ATTRIBUTES: [(&str, Stage, Guards); 7] = [
    ("before_tool_call", Stage::Before, Guards::Tools),
    ("before_turn", Stage::Before, Guards::Turn),
    ("before_skill", Stage::Before, Guards::Skill),
    ("gate", Stage::Gate, Guards::Tools),
    ("gate_turn", Stage::Gate, Guards::Turn),
    ("gate_skill", Stage::Gate, Guards::Skill),
    ("after_tool_call", Stage::After, Guards::Tools),
];

/// An interception point: a stage and a scope.
#[derive(Clone)]
pub(crate) struct Point {
    pub stage: Stage,
    pub scope: Scope,
}

impl Point {
    /// Whether `attribute` marks an interception point.
    pub(crate) fn is_attribute(attribute: &str) -> bool {
        ATTRIBUTES.iter().any(|(name, ..)| *name == attribute)
    }

    /// Whether `attribute` may name a tool: `#[before_tool_call(get_weather)]`.
    pub(crate) fn takes_tool(attribute: &str) -> bool {
        ATTRIBUTES
            .iter()
            .any(|(name, _, guards)| *name == attribute && matches!(guards, Guards::Tools))
    }

    /// The point `attribute` marks, naming `tool` or not. `None` for an unknown attribute.
    pub(crate) fn of(attribute: &str, tool: Option<Ident>) -> Option<Point> {
        let (_, stage, guards) = ATTRIBUTES.iter().find(|(name, ..)| *name == attribute)?;
        let scope = match (guards, tool) {
            (Guards::Tools, Some(tool)) => Scope::Tool(tool),
            (Guards::Tools, None) => Scope::AnyTool,
            (Guards::Turn, _) => Scope::Turn,
            (Guards::Skill, _) => Scope::Skill,
        };
        Some(Point {
            stage: *stage,
            scope,
        })
    }

    /// The attribute that marks it.
    pub(crate) fn attribute(&self) -> &'static str {
        ATTRIBUTES
            .iter()
            .find(|(_, stage, guards)| {
                *stage == self.stage
                    && matches!(
                        (guards, &self.scope),
                        (Guards::Tools, Scope::Tool(_) | Scope::AnyTool)
                            | (Guards::Turn, Scope::Turn)
                            | (Guards::Skill, Scope::Skill)
                    )
            })
            .map_or("before_tool_call", |(name, ..)| name)
    }

    /// The tool it names, if any.
    pub(crate) fn tool(&self) -> Option<&Ident> {
        match &self.scope {
            Scope::Tool(tool) => Some(tool),
            _ => None,
        }
    }

    /// How many parameters it takes before the optional trailing `&InterceptContext`.
    pub(crate) fn arity(&self) -> usize {
        match (self.stage, &self.scope) {
            (Stage::After, Scope::AnyTool) => 3,
            (_, Scope::AnyTool) => 2,
            _ => 1,
        }
    }

    /// The parameters, as the user should write them.
    pub(crate) fn expected_params(&self) -> &'static str {
        match (self.stage, &self.scope) {
            (Stage::After, Scope::Tool(_)) => {
                "one parameter, the tool's output by reference: `out: &<Tool output>`"
            }
            (Stage::After, _) => {
                "three parameters: `name: &str, args: &serde_json::Value, result: &serde_json::Value`"
            }
            (_, Scope::Tool(_)) => {
                "one parameter, the tool's arguments by reference: `args: &<Tool>Args`"
            }
            (_, Scope::AnyTool) => "two parameters: `name: &str, args: &serde_json::Value`",
            (_, Scope::Turn) => "one parameter, the outbound messages: `messages: &[Message]`",
            (_, Scope::Skill) => "one parameter, the chosen skill's name: `skill: &str`",
        }
    }

    /// What it returns, as the user should write it: the type, in backticks, and what its
    /// placeholder stands for.
    pub(crate) fn expected_return(&self) -> String {
        match (self.stage, &self.scope) {
            (Stage::Gate, _) => "`Verdict` (or `Result<Verdict, E>`)".to_string(),
            (Stage::After, Scope::Tool(tool)) => {
                format!("`Decision<O, O>` (O: the output of `{tool}`)")
            }
            (_, Scope::Tool(tool)) => {
                let args = crate::naming::pascal(tool, "Args");
                format!("`Decision<{args}, O>` (O: the output of `{tool}`)")
            }
            (_, Scope::AnyTool) => "`Decision<serde_json::Value, serde_json::Value>`".to_string(),
            (_, Scope::Turn) => {
                "`Decision<Vec<Message>, OUT>` (OUT: the agent's output)".to_string()
            }
            (_, Scope::Skill) => "`Decision<String, OUT>` (OUT: the agent's output)".to_string(),
        }
    }

    /// The types its value parameters take, and — for a decision, not a gate's verdict — what a
    /// replacement and a substitute must be. `tool_type` names a tool's type from its function.
    pub(crate) fn types(
        &self,
        krate: &TokenStream,
        output: &TokenStream,
        tool_type: impl Fn(&Ident) -> TokenStream,
    ) -> (Vec<TokenStream>, Option<(TokenStream, TokenStream)>) {
        let value = quote!(#krate::__private::serde_json::Value);
        let message = quote!(#krate::Message);
        let (params, decided) = match &self.scope {
            Scope::Tool(tool) => {
                let tool = tool_type(tool);
                let (args, out) = (
                    quote!(<#tool as #krate::Tool>::Args),
                    quote!(<#tool as #krate::Tool>::Output),
                );
                match self.stage {
                    Stage::After => (vec![quote!(&#out)], (out.clone(), out)),
                    _ => (vec![quote!(&#args)], (args, out)),
                }
            }
            Scope::AnyTool => match self.stage {
                Stage::After => (
                    vec![quote!(&str), quote!(&#value), quote!(&#value)],
                    (value.clone(), value),
                ),
                _ => (vec![quote!(&str), quote!(&#value)], (value.clone(), value)),
            },
            Scope::Turn => (
                vec![quote!(&[#message])],
                (quote!(::std::vec::Vec<#message>), output.clone()),
            ),
            Scope::Skill => (
                vec![quote!(&str)],
                (quote!(::std::string::String), output.clone()),
            ),
        };
        let decided = (self.stage != Stage::Gate).then_some(decided);
        (params, decided)
    }

    /// The method of a tool's compile-time chain (`ToolChain`) adding a link at this point, for
    /// a point of one tool.
    pub(crate) fn chain_method(&self) -> Ident {
        let name = match self.stage {
            Stage::Before => "before",
            Stage::Gate => "gate",
            Stage::After => "after",
        };
        Ident::new(name, proc_macro2::Span::call_site())
    }

    /// The builder call registering `closure` (which takes the context) at this point.
    pub(crate) fn registration(
        &self,
        krate: &TokenStream,
        closure: TokenStream,
        tool_type: impl Fn(&Ident) -> TokenStream,
    ) -> TokenStream {
        match (self.stage, &self.scope) {
            (Stage::Before, Scope::Tool(tool)) => {
                let tool = tool_type(tool);
                quote!(.before_tool_call(#krate::ToolInterceptor::<#tool>::with_context(#closure)))
            }
            (Stage::Before, Scope::AnyTool) => quote!(.on_before_tool_call(#closure)),
            (Stage::Before, Scope::Turn) => quote!(.on_before_turn(#closure)),
            (Stage::Before, Scope::Skill) => quote!(.on_before_skill(#closure)),
            (Stage::Gate, Scope::Tool(tool)) => {
                let tool = tool_type(tool);
                quote!(.gate_tool_call(#krate::ToolGate::<#tool>::new(#closure)))
            }
            (Stage::Gate, Scope::AnyTool) => quote!(.on_gate_tool_call(#closure)),
            (Stage::Gate, Scope::Turn) => quote!(.gate_turn(#closure)),
            (Stage::Gate, Scope::Skill) => quote!(.gate_skill(#closure)),
            (Stage::After, Scope::Tool(tool)) => {
                let tool = tool_type(tool);
                quote!(.after_tool_call::<#tool, _>(#closure))
            }
            (Stage::After, _) => quote!(.on_after_tool_call(#closure)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    #[test]
    fn every_attribute_round_trips_through_its_point() {
        for (name, ..) in ATTRIBUTES {
            let tool =
                Point::takes_tool(name).then(|| Ident::new("get_weather", Span::call_site()));
            let point = Point::of(name, tool).expect("a known attribute");
            assert_eq!(point.attribute(), name);
        }
        assert!(Point::of("before_lunch", None).is_none());
    }
}
