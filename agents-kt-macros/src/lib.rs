//! Procedural macros for [agents-kt](https://docs.rs/agents-kt): `#[tool]`, `#[skill]`,
//! `#[agent]`, `#[before_tool_call]`, `#[before_turn]` and `#[before_skill]`.
//!
//! Use them through the `agents_kt` crate, which re-exports them with their documentation; this
//! crate is an implementation detail. Every macro runs the same four phases, one module each:
//! `ast` reads the item signature-first (bodies stay token trees) with `attr` and
//! `signature`, and holds what the phases pass on (`ToolDef`, `Marked`); `valid` makes every
//! check, collecting the errors at the user's tokens; `expand` generates code for what passed;
//! `fallback` stubs what did not, so a mistake is reported once. `point` describes the
//! interception points for all of them and `naming` the names generated from a function's.
//!
//! Each phase imports only the ones before it: `valid` and `fallback` read `ast`, `attr`,
//! `naming`, `point` and `signature`, never `expand`.

mod ast;
mod attr;
mod enclosing;
mod errors;
mod expand;
mod fallback;
mod naming;
mod point;
mod signature;
mod valid;

use proc_macro::TokenStream;

/// Make a function a tool. See `agents_kt::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool::expand(args.into(), item.into()).into()
}

/// Make a function a code skill. See `agents_kt::skill`.
#[proc_macro_attribute]
pub fn skill(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::skill::expand(args.into(), item.into()).into()
}

/// Gather an impl block's tools, skills and interceptors into an agent. See `agents_kt::agent`.
#[proc_macro_attribute]
pub fn agent(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::agent::expand(args.into(), item.into()).into()
}

/// Make a function a tool-call interceptor. See `agents_kt::before_tool_call`.
#[proc_macro_attribute]
pub fn before_tool_call(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::interceptor::expand("before_tool_call", args.into(), item.into()).into()
}

/// Make a function a model-turn interceptor. See `agents_kt::before_turn`.
#[proc_macro_attribute]
pub fn before_turn(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::interceptor::expand("before_turn", args.into(), item.into()).into()
}

/// Make a function a skill interceptor. See `agents_kt::before_skill`.
#[proc_macro_attribute]
pub fn before_skill(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::interceptor::expand("before_skill", args.into(), item.into()).into()
}

/// Make a function a tool-call gate. See `agents_kt::gate`.
#[proc_macro_attribute]
pub fn gate(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::interceptor::expand("gate", args.into(), item.into()).into()
}

/// Make a function a model-turn gate. See `agents_kt::gate_turn`.
#[proc_macro_attribute]
pub fn gate_turn(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::interceptor::expand("gate_turn", args.into(), item.into()).into()
}

/// Make a function a skill gate. See `agents_kt::gate_skill`.
#[proc_macro_attribute]
pub fn gate_skill(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::interceptor::expand("gate_skill", args.into(), item.into()).into()
}

/// Make a function an after-tool interceptor. See `agents_kt::after_tool_call`.
#[proc_macro_attribute]
pub fn after_tool_call(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::interceptor::expand("after_tool_call", args.into(), item.into()).into()
}

#[cfg(test)]
mod tests {
    use quote::quote;

    /// Every path in generated code goes through the configured crate path.
    fn mentions_default_crate(tokens: proc_macro2::TokenStream) -> bool {
        tokens.to_string().replace(' ', "").contains("agents_kt")
    }

    #[test]
    fn agent_puts_typed_tool_interceptors_into_the_tools_compile_time_chain_until_an_every_tool_one()
     {
        let agent = crate::expand::agent::expand(
            quote!(),
            quote! {
                impl Desk {
                    /// Notes.
                    #[tool]
                    fn note(&self, text: String) -> String { text }
                    #[before_tool_call(note)]
                    fn early(&self, args: &NoteArgs) -> Decision<NoteArgs, String> { Decision::Proceed }
                    #[gate(note)]
                    fn check(&self, args: &NoteArgs) -> Verdict { Verdict::Allow }
                    #[before_tool_call]
                    fn every(&self, name: &str, args: &Value) -> Decision<Value, Value> { Decision::Proceed }
                    #[before_tool_call(note)]
                    fn late(&self, args: &NoteArgs) -> Decision<NoteArgs, String> { Decision::Proceed }
                }
            },
        );
        let text = agent.to_string().replace(' ', "");
        let chain = text
            .split(".tool_with_chain(")
            .nth(1)
            .expect("the tool is registered with its chain");
        let chain = &chain[..chain.find(".on_before_tool_call(").unwrap_or(chain.len())];
        assert!(chain.contains(".named(\"early\")"), "{chain}");
        assert!(chain.contains(".gate("), "{chain}");
        assert!(!chain.contains("\"late\""), "{chain}");
        assert!(
            text.contains(".before_tool_call("),
            "late stays on the builder: {text}"
        );
    }

    #[test]
    fn crate_path_reaches_every_generated_path() {
        let tool = crate::expand::tool::expand(
            quote!(crate = ::my_agents),
            quote! {
                /// Current weather.
                fn get_weather(city: String, ctx: &ToolContext) -> Result<String, String> { Ok(city) }
            },
        );
        assert!(!mentions_default_crate(tool.clone()), "{tool}");
        assert!(
            tool.to_string()
                .replace(' ', "")
                .contains("::my_agents::Tool")
        );

        let agent = crate::expand::agent::expand(
            quote!(crate = ::my_agents),
            quote! {
                impl Desk {
                    /// The time.
                    #[tool]
                    fn now(&self) -> String { String::new() }
                    #[before_tool_call(now)]
                    async fn check(&self, args: &NowArgs) -> Decision<NowArgs, String> { Decision::Proceed }
                    /// Echo.
                    #[skill]
                    fn echo(&self, text: String) -> String { text }
                }
            },
        );
        assert!(!mentions_default_crate(agent.clone()), "{agent}");

        let interceptor = crate::expand::interceptor::expand(
            "before_tool_call",
            quote!(get_weather, crate = ::my_agents),
            quote!(
                async fn approve(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, String> {
                    Decision::Proceed
                }
            ),
        );
        assert!(
            !mentions_default_crate(interceptor.clone()),
            "{interceptor}"
        );
    }

    #[test]
    fn an_error_still_emits_the_users_item() {
        let output = crate::expand::tool::expand(
            quote!(colour = "red"),
            quote! {
                /// Current weather.
                fn get_weather(city: String) -> String { city }
            },
        )
        .to_string();
        assert!(output.contains("fn get_weather"));
        assert!(output.contains("compile_error"));
        assert!(
            output.contains("struct GetWeatherArgs"),
            "the rest is still generated"
        );
    }
}
