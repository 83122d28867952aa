//! Procedural macros for [agents-kt](https://docs.rs/agents-kt): `#[tool]`, `#[skill]`,
//! `#[agent]`, `#[before_tool_call]`, `#[before_turn]` and `#[before_skill]`.
//!
//! Use them through the `agents_kt` crate, which re-exports them with their documentation; this
//! crate is an implementation detail. Each macro parses its input, validates it (reporting every
//! mistake at the user's token, and still emitting the user's item), then expands.

mod agent;
mod attr;
mod errors;
mod interceptor;
mod naming;
mod signature;
mod skill;
mod tool;

use proc_macro::TokenStream;

/// Make a function a tool. See `agents_kt::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(args.into(), item.into()).into()
}

/// Make a function a code skill. See `agents_kt::skill`.
#[proc_macro_attribute]
pub fn skill(args: TokenStream, item: TokenStream) -> TokenStream {
    skill::expand(args.into(), item.into()).into()
}

/// Gather an impl block's tools, skills and interceptors into an agent. See `agents_kt::agent`.
#[proc_macro_attribute]
pub fn agent(args: TokenStream, item: TokenStream) -> TokenStream {
    agent::expand(args.into(), item.into()).into()
}

/// Make a function a tool-call interceptor. See `agents_kt::before_tool_call`.
#[proc_macro_attribute]
pub fn before_tool_call(args: TokenStream, item: TokenStream) -> TokenStream {
    interceptor::expand("before_tool_call", args.into(), item.into()).into()
}

/// Make a function a model-turn interceptor. See `agents_kt::before_turn`.
#[proc_macro_attribute]
pub fn before_turn(args: TokenStream, item: TokenStream) -> TokenStream {
    interceptor::expand("before_turn", args.into(), item.into()).into()
}

/// Make a function a skill interceptor. See `agents_kt::before_skill`.
#[proc_macro_attribute]
pub fn before_skill(args: TokenStream, item: TokenStream) -> TokenStream {
    interceptor::expand("before_skill", args.into(), item.into()).into()
}
