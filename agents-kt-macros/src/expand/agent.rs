//! `#[agent]` on an impl block: gathers its `#[tool]`, `#[skill]` and interceptor methods,
//! generates their types next to the block, and an `agent_builder` method registering them all
//! in source order (registration order is execution order).

use proc_macro2::TokenStream;
use quote::quote;
use syn::Attribute;

use super::interceptor::{after_tool_allowance, method_registration, static_link};
use super::skill::{SkillDef, SkillParts};
use crate::ast::{ImplBlock, ImplEntry, Marked, Role, Target, ToolDef};
use crate::attr::{AgentAttr, InterceptorAttr, SkillAttr, ToolAttr, krate};
use crate::errors::Errors;
use crate::naming::tool_ident;
use crate::point::{Point, Scope, Stage};
use crate::signature;
use crate::{fallback, valid};

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = AgentAttr::parse(args, &mut errors);
    let mut block: ImplBlock = match syn::parse2(item.clone()) {
        Ok(block) => block,
        Err(error) => {
            errors.push(syn::Error::new(
                error.span(),
                "#[agent] applies to an impl block: `#[agent] impl MyAgent { #[tool] fn … }`",
            ));
            let errors = errors.to_compile_errors();
            return quote!(#item #errors);
        }
    };
    valid::agent_block(&block, &mut errors);
    let krate = krate(&attr.krate);
    let self_ty = block.self_ty.clone();
    let input = attr
        .input
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::std::string::String));
    let output = attr
        .output
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::std::string::String));

    let marked = gather(&mut block, &mut errors);
    let registrable = valid::agent_tools(&marked, &mut errors);
    valid::agent_grants(&attr.grants, &marked, &mut errors);

    let statics = StaticLinks::of(&marked);
    let mut items = Vec::new();
    let mut registrations = Vec::new();
    let mut bounds = Vec::new();
    // Each tool's compile-time chain, by the tool's function name, and where its registration
    // goes (filled in once every method has been read: its interceptors may come after it).
    let mut chains: Vec<(String, Vec<TokenStream>)> = Vec::new();
    let mut tool_slots = Vec::new();
    for (index, (entry, registrable)) in marked.iter().zip(registrable).enumerate() {
        let target = || Target::Method {
            self_ty: Box::new(self_ty.clone()),
        };
        match &entry.role {
            Role::Tool(tool_attr) => {
                let def = ToolDef::new(
                    tool_attr,
                    &entry.method,
                    &entry.sig,
                    krate.clone(),
                    target(),
                );
                if !valid::tool_names_free(&entry.sig, &mut errors) {
                    continue;
                }
                if !(entry.sound & valid::tool(&def, &mut errors)) {
                    items.push(fallback::tool(&def));
                    continue;
                }
                items.push(super::tool::generate(&def));
                let tool = tool_ident(&entry.sig.ident);
                tool_slots.push((registrations.len(), entry.sig.ident.to_string(), tool));
                registrations.push(TokenStream::new());
            }
            Role::Skill(skill_attr) => {
                if !(entry.sound & valid::skill(&entry.sig, &mut errors)) {
                    continue;
                }
                let def = SkillDef::new(
                    skill_attr,
                    &entry.method,
                    &entry.sig,
                    krate.clone(),
                    target(),
                );
                let SkillParts {
                    items: input_items,
                    skill,
                    input: skill_input,
                    output: skill_output,
                } = super::skill::generate(&def);
                items.push(input_items);
                // The skill is turned into the agent's `Skill<IN, OUT>` here, spanned at its
                // name: a skill of other types is one error, at the method.
                let name = &entry.sig.ident;
                let same = super::respan(
                    quote!(<#krate::Skill<#skill_input, #skill_output> as #krate::IntoSkill<#input, #output>>::into_skill),
                    name.span(),
                );
                registrations.push(quote! {
                    .skill({
                        let __this = #krate::__private::Arc::clone(&__this);
                        let _ = &__this;
                        #same(#skill)
                    })
                });
            }
            Role::Interceptor(point) => {
                if !(entry.sound
                    & registrable
                    & valid::interceptor(point, &entry.sig, &entry.method.sig, &mut errors))
                {
                    continue;
                }
                match statics.tool_of(index) {
                    Some(tool) => {
                        let link = static_link(&krate, point, &entry.sig, &self_ty, &output);
                        match chains.iter_mut().find(|(name, _)| *name == tool) {
                            Some((_, links)) => links.push(link),
                            None => chains.push((tool, vec![link])),
                        }
                    }
                    None => registrations.push(method_registration(
                        &krate, point, &entry.sig, &self_ty, &output,
                    )),
                }
            }
        }
    }
    for (slot, name, tool) in tool_slots {
        let links = chains
            .iter()
            .find(|(tool, _)| *tool == name)
            .map(|(_, links)| links.as_slice())
            .unwrap_or_default();
        let value = quote!(#tool { agent: #krate::__private::Arc::clone(&__this) });
        registrations[slot] = if links.is_empty() {
            // Registered when it is a tool: a tool whose types fail `#[tool]`'s check (one error,
            // at the type) needs no bound on the builder that would repeat it at every call.
            quote! {
                .__apply(|__builder| {
                    #[allow(unused_imports)]
                    use #krate::__private::{RegisterTool as _, ToolMissing as _};
                    (&#krate::__private::ToolProbe::<#tool>::new()).register(__builder, #value)
                })
            }
        } else {
            // Its compile-time chain names its types: the builder exists when the tool does.
            bounds.push(quote!(for<'__p> #tool: #krate::Tool));
            quote! {
                .tool_with_chain(#value, #krate::ToolChain::<#tool>::new() #(#links)*)
            }
        };
    }
    registrations.extend(grant_registrations(&krate, &attr.grants, &marked));
    let builder = quote! {
        impl #self_ty {
            /// A builder for an agent named `name` with this value's tools, skills and
            /// interceptors registered in source order; add a model and build it.
            #[allow(clippy::redundant_clone)]
            pub fn agent_builder(
                self,
                name: impl ::core::convert::Into<::std::string::String>,
            ) -> #krate::AgentBuilder<#input, #output>
            where #(#bounds,)*
            {
                let __this = #krate::__private::Arc::new(self);
                let _ = &__this;
                #krate::Agent::<#input, #output>::builder(name)
                    #(#registrations)*
            }
        }
    };
    let errors = errors.to_compile_errors();
    quote! {
        #block
        #(#items)*
        #builder
        #errors
    }
}

/// `.grant(..)` for each tool of `grants(..)`: typed for a `#[tool]` of the block, by name for
/// any other (a sub-agent, a tool registered on the builder).
fn grant_registrations(
    krate: &TokenStream,
    grants: &Option<Vec<(syn::Ident, bool)>>,
    marked: &[Marked],
) -> Vec<TokenStream> {
    let in_block = |tool: &syn::Ident| {
        marked
            .iter()
            .any(|m| matches!(m.role, Role::Tool(_)) && m.sig.ident == *tool)
    };
    let grants = grants.as_deref().unwrap_or_default();
    grants
        .iter()
        .map(|(tool, confirm)| {
            let (typed, named) = match confirm {
                true => (quote!(confirm), quote!(confirm_named)),
                false => (quote!(allow), quote!(allow_named)),
            };
            if in_block(tool) {
                let ty = tool_ident(tool);
                quote!(.grant(#krate::Grant::#typed::<#ty>()))
            } else {
                let name = tool.to_string();
                quote!(.grant(#krate::Grant::#named(#name)))
            }
        })
        .collect()
}

/// Which typed tool interceptors, gates and after-interceptors go into their tool's compile-time
/// chain: each one registered before any interceptor of its stage for every tool. The chain runs
/// its compile-time links first, then the builder's in registration order, so one that follows an
/// every-tool interceptor of its stage stays on the builder, and the order is the source order.
struct StaticLinks {
    /// For each marked method: the tool whose compile-time chain it joins.
    tools: Vec<Option<String>>,
}

impl StaticLinks {
    fn of(marked: &[Marked]) -> Self {
        let mut every_tool_seen = [false; 3];
        let slot = |stage: Stage| match stage {
            Stage::Before => 0,
            Stage::Gate => 1,
            Stage::After => 2,
        };
        let tools = marked
            .iter()
            .map(|entry| match &entry.role {
                Role::Interceptor(Point {
                    stage,
                    scope: Scope::Tool(tool),
                }) if !every_tool_seen[slot(*stage)] => Some(tool.to_string()),
                Role::Interceptor(Point {
                    stage,
                    scope: Scope::AnyTool,
                }) => {
                    every_tool_seen[slot(*stage)] = true;
                    None
                }
                _ => None,
            })
            .collect();
        StaticLinks { tools }
    }

    fn tool_of(&self, index: usize) -> Option<String> {
        self.tools.get(index).cloned().flatten()
    }
}

/// Take the marked methods out of `block` (removing their marker attributes), in source order.
fn gather(block: &mut ImplBlock, errors: &mut Errors) -> Vec<Marked> {
    let mut marked = Vec::new();
    for item in &mut block.items {
        let ImplEntry::Fn(method) = item else {
            continue;
        };
        let mut role = None;
        let mut kept = Vec::new();
        for attribute in method.attrs.drain(..) {
            match marker(&attribute) {
                Some(kind) if role.is_none() => role = Some((kind, attribute)),
                Some(_) => errors.at(
                    &attribute,
                    "a method can have one role: tool, skill or interceptor",
                ),
                None => kept.push(attribute),
            }
        }
        method.attrs = kept;
        let Some((kind, attribute)) = role else {
            continue;
        };
        signature::name_context_lifetime(&mut method.sig);
        let args = match &attribute.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => TokenStream::new(),
        };
        let what = match kind.as_str() {
            "tool" => "a tool",
            "skill" => "a skill",
            _ => "an interceptor",
        };
        let sound = valid::signature(&method.sig, what, errors);
        let sig = signature::read(&method.sig);
        let role = match kind.as_str() {
            "tool" => Role::Tool(ToolAttr::parse(args, errors)),
            "skill" => Role::Skill(SkillAttr::parse(args, errors)),
            other => {
                let parsed = InterceptorAttr::parse(args, other, Point::takes_tool(other), errors);
                match Point::of(other, parsed.tool) {
                    Some(point) => Role::Interceptor(point),
                    None => continue,
                }
            }
        };
        if let Role::Interceptor(Point {
            stage: Stage::After,
            ..
        }) = role
        {
            method.attrs.push(after_tool_allowance());
        }
        marked.push(Marked {
            role,
            method: (**method).clone(),
            sig,
            sound,
        });
    }
    marked
}

/// Which marker attribute this is, by its last path segment.
fn marker(attribute: &Attribute) -> Option<String> {
    let last = attribute.path().segments.last()?.ident.to_string();
    (last == "tool" || last == "skill" || Point::is_attribute(&last)).then_some(last)
}
