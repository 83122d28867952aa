//! `#[agent]` on an impl block: gathers its `#[tool]`, `#[skill]` and `#[before_*]` methods,
//! generates their types next to the block, and an `agent_builder` method registering them all
//! in source order (registration order is execution order).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, ImplItem, ImplItemFn, ItemImpl, Type};

use crate::attr::{AgentAttr, InterceptorAttr, SkillAttr, ToolAttr, krate};
use crate::errors::Errors;
use crate::interceptor::{
    Point, check_params, decision_check, point_types, tool_param_check, verdict_check,
};
use crate::naming::closest;
use crate::signature::{self, ParamKind, Receiver, Signature};
use crate::skill::{self, SkillDef, SkillParts};
use crate::tool::{self, Target, ToolDef, tool_ident};

/// What one marked method is.
enum Role {
    Tool(ToolAttr),
    Skill(SkillAttr),
    Interceptor(Point),
}

struct Marked {
    role: Role,
    method: ImplItemFn,
    sig: Signature,
}

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = AgentAttr::parse(args, &mut errors);
    let mut block: ItemImpl = match syn::parse2(item.clone()) {
        Ok(block) => block,
        Err(_) => {
            errors.push(syn::Error::new(
                item.span(),
                "#[agent] applies to an impl block: `#[agent] impl MyAgent { #[tool] fn … }`",
            ));
            let errors = errors.to_compile_errors();
            return quote!(#item #errors);
        }
    };
    if let Some((_, trait_path, _)) = &block.trait_ {
        errors.at(
            trait_path,
            "#[agent] applies to an inherent impl block (`impl MyAgent { … }`), not a trait impl",
        );
    }
    if !block.generics.params.is_empty() {
        errors.at(
            &block.generics,
            "an #[agent] type cannot be generic: its tools are registered as concrete types",
        );
    }
    let krate = krate(&attr.krate);
    let self_ty = (*block.self_ty).clone();
    let input = attr
        .input
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::std::string::String));
    let output = attr
        .output
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::std::string::String));

    let marked = gather(&mut block, &mut errors);
    check_tool_names(&marked, &mut errors);

    let mut items = Vec::new();
    let mut registrations = Vec::new();
    for entry in &marked {
        match &entry.role {
            Role::Tool(tool_attr) => {
                let def = ToolDef {
                    krate: krate.clone(),
                    vis: entry.method.vis.clone(),
                    sig: &entry.sig,
                    name: tool::tool_name(tool_attr, &entry.sig),
                    description: tool::description(
                        tool_attr,
                        &entry.method.attrs,
                        &entry.sig,
                        &mut errors,
                    ),
                    param_docs: tool_attr.params.clone(),
                    blocking: tool_attr.blocking,
                    target: Target::Method {
                        self_ty: Box::new(self_ty.clone()),
                    },
                };
                if entry.sig.faulty {
                    items.push(tool::stub(&def));
                    continue;
                }
                items.push(tool::generate(&def, &mut errors));
                let tool = tool_ident(&entry.sig.ident);
                registrations.push(quote! {
                    .tool(#tool { agent: #krate::__private::Arc::clone(&__this) })
                });
            }
            Role::Skill(_) | Role::Interceptor(_) if entry.sig.faulty => {}
            Role::Skill(skill_attr) => {
                let def = SkillDef {
                    krate: krate.clone(),
                    vis: entry.method.vis.clone(),
                    sig: &entry.sig,
                    name: skill::skill_name(&skill_attr.name, &entry.sig),
                    description: skill_attr
                        .description
                        .as_ref()
                        .map(syn::LitStr::value)
                        .unwrap_or_else(|| signature::doc_text(&entry.method.attrs)),
                    target: Target::Method {
                        self_ty: Box::new(self_ty.clone()),
                    },
                };
                let SkillParts {
                    items: input_items,
                    skill,
                    input: skill_input,
                    output: skill_output,
                } = skill::generate(&def, &mut errors);
                items.push(input_items);
                let name = &entry.sig.ident;
                let check = quote_spanned! {name.span()=>
                    #krate::__private::assert_skill_types::<#skill_input, #skill_output, #input, #output>();
                };
                items.push(quote! {
                    const _: () = {
                        #[allow(dead_code)]
                        fn __check() { #check }
                    };
                });
                registrations.push(quote! {
                    .skill({
                        let __this = #krate::__private::Arc::clone(&__this);
                        let _ = &__this;
                        #skill
                    })
                });
            }
            Role::Interceptor(point) => {
                check_params(point, &entry.sig, &entry.method.sig, &mut errors);
                if let Some(registration) =
                    interceptor(&krate, point, entry, &self_ty, &output, &mut items)
                {
                    registrations.push(registration);
                }
            }
        }
    }
    let builder = quote! {
        impl #self_ty {
            /// A builder for an agent named `name` with this value's tools, skills and
            /// interceptors registered in source order; add a model and build it.
            #[allow(clippy::redundant_clone)]
            pub fn agent_builder(
                self,
                name: impl ::core::convert::Into<::std::string::String>,
            ) -> #krate::AgentBuilder<#input, #output> {
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

/// Take the marked methods out of `block` (removing their marker attributes), in source order.
fn gather(block: &mut ItemImpl, errors: &mut Errors) -> Vec<Marked> {
    let mut marked = Vec::new();
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else { continue };
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
        if kind == "after_tool_call" {
            method
                .attrs
                .push(crate::interceptor::after_tool_allowance());
        }
        let args = match &attribute.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => TokenStream::new(),
        };
        let what = match kind {
            "tool" => "a tool",
            "skill" => "a skill",
            _ => "an interceptor",
        };
        let sig = signature::read(&method.sig, what, errors);
        let role = match kind {
            "tool" => Role::Tool(ToolAttr::parse(args, errors)),
            "skill" => Role::Skill(SkillAttr::parse(args, errors)),
            other => {
                let parsed = InterceptorAttr::parse(args, other, Point::takes_tool(other), errors);
                Role::Interceptor(Point::of(other, parsed.tool))
            }
        };
        marked.push(Marked {
            role,
            method: method.clone(),
            sig,
        });
    }
    marked
}

/// Which marker attribute this is, by its last path segment.
fn marker(attribute: &Attribute) -> Option<&'static str> {
    let last = attribute.path().segments.last()?.ident.to_string();
    [
        "tool",
        "skill",
        "before_tool_call",
        "before_turn",
        "before_skill",
        "gate",
        "gate_turn",
        "gate_skill",
        "after_tool_call",
    ]
    .into_iter()
    .find(|known| *known == last)
}

/// Tool names are unique, and every typed interceptor names a tool of this block.
fn check_tool_names(marked: &[Marked], errors: &mut Errors) {
    let mut seen: Vec<(String, &Ident)> = Vec::new();
    let tool_fns: Vec<String> = marked
        .iter()
        .filter(|m| matches!(m.role, Role::Tool(_)))
        .map(|m| m.sig.ident.to_string())
        .collect();
    for entry in marked {
        match &entry.role {
            Role::Tool(attr) => {
                let name = tool::tool_name(attr, &entry.sig);
                if let Some((_, first)) = seen.iter().find(|(existing, _)| *existing == name) {
                    let span_of = attr
                        .name
                        .as_ref()
                        .map_or(entry.sig.ident.span(), |n| n.span());
                    errors.push(syn::Error::new(
                        span_of,
                        format!("a second tool is named `{name}` (the first is `{first}`): tool names must be unique within an agent; rename one with #[tool(name = \"...\")]"),
                    ));
                } else {
                    seen.push((name, &entry.sig.ident));
                }
            }
            Role::Interceptor(point)
                if point
                    .tool()
                    .is_some_and(|tool| !tool_fns.contains(&tool.to_string())) =>
            {
                let Some(tool) = point.tool() else { continue };
                let suggestion = closest(&tool.to_string(), tool_fns.iter().map(String::as_str))
                    .map(|close| format!("; did you mean `{close}`?"))
                    .unwrap_or_else(|| {
                        if tool_fns.is_empty() {
                            "; this block has no #[tool] methods".to_string()
                        } else {
                            format!("; its tools are: {}", tool_fns.join(", "))
                        }
                    });
                errors.push(syn::Error::new(
                    tool.span(),
                    format!("no #[tool] named `{tool}` in this #[agent] block{suggestion}"),
                ));
            }
            _ => {}
        }
    }
}

/// The registration of one interceptor, gate or after-interceptor method, plus checks of its
/// decision (or verdict) type. The generated closure always takes the context, and passes it on
/// when the method takes it; the registration is named after the method.
fn interceptor(
    krate: &TokenStream,
    point: &Point,
    entry: &Marked,
    self_ty: &Type,
    output: &Type,
    items: &mut Vec<TokenStream>,
) -> Option<TokenStream> {
    let sig = &entry.sig;
    let wanted = point.arity();
    let takes_context = sig
        .params
        .last()
        .is_some_and(|p| p.kind == ParamKind::InterceptContext);
    if sig.params.len() != wanted + usize::from(takes_context) {
        return None;
    }
    let (params, decided) = point_types(krate, point, &quote!(#output), false);
    match decided {
        Some((replacement, substitute)) => {
            items.push(decision_check(krate, sig, replacement, substitute))
        }
        None => items.push(verdict_check(krate, sig)),
    }
    if let Some(tool) = point.tool() {
        let tool_type = tool_ident(tool);
        items.push(tool_param_check(krate, point, &quote!(#tool_type), sig));
    }
    let arguments: Vec<_> = (0..wanted)
        .map(|n| quote::format_ident!("__a{}", n))
        .collect();
    // Each argument is passed spanned at the user's parameter type, so a wrong type is reported there.
    let mut passed: Vec<TokenStream> = sig
        .params
        .iter()
        .zip(&arguments)
        .map(|(param, argument)| {
            if sig.is_async {
                quote_spanned!(param.ty.span()=> #krate::__private::Borrow::borrow(&#argument))
            } else {
                quote_spanned!(param.ty.span()=> #argument)
            }
        })
        .collect();
    if takes_context {
        passed.push(if sig.is_async {
            quote!(&__ctx.context())
        } else {
            quote!(__ctx)
        });
    }
    let name = &sig.ident;
    let callee = match sig.receiver {
        Receiver::Ref => quote!(__this.#name),
        Receiver::None => quote!(<#self_ty>::#name),
    };
    let body = if sig.is_async {
        let snapshot = if takes_context {
            quote!(let __ctx = #krate::__private::ContextSnapshot::of(__ctx);)
        } else {
            quote!()
        };
        quote! {
            let __this = #krate::__private::Arc::clone(&__this);
            #(let #arguments = #krate::__private::ToOwned::to_owned(#arguments);)*
            #snapshot
            async move { #callee(#(#passed),*).await }
        }
    } else {
        quote!(#callee(#(#passed),*))
    };
    let closure = quote! {{
        let __this = #krate::__private::Arc::clone(&__this);
        let _ = &__this;
        move |#(#arguments: #params,)* __ctx: &#krate::InterceptContext<'_>| {
            let _ = &__ctx;
            #body
        }
    }};
    let registration = match point {
        Point::Tool(tool) => {
            let tool_type = tool_ident(tool);
            quote!(.before_tool_call(#krate::ToolInterceptor::<#tool_type>::with_context(#closure)))
        }
        Point::AnyTool => quote!(.on_before_tool_call(#closure)),
        Point::Turn => quote!(.on_before_turn(#closure)),
        Point::Skill => quote!(.on_before_skill(#closure)),
        Point::GateTool(tool) => {
            let tool_type = tool_ident(tool);
            quote!(.gate_tool_call(#krate::ToolGate::<#tool_type>::new(#closure)))
        }
        Point::GateAnyTool => quote!(.on_gate_tool_call(#closure)),
        Point::GateTurn => quote!(.gate_turn(#closure)),
        Point::GateSkill => quote!(.gate_skill(#closure)),
        Point::AfterTool(tool) => {
            let tool_type = tool_ident(tool);
            quote!(.after_tool_call::<#tool_type, _>(#closure))
        }
        Point::AfterAnyTool => quote!(.on_after_tool_call(#closure)),
    };
    let label = name.to_string();
    Some(quote!(#registration .named(#label)))
}
