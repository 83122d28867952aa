//! `#[skill]`: a code skill from a function. The function's arguments are the skill's input (one
//! argument is the input itself; several become a `<Pascal>Input` struct with a JSON schema, so
//! the skill can be exposed as a tool); an optional `SkillContext<OUT>` parameter is its handle on
//! the run.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Ident, LitStr, Type, Visibility};

use crate::attr::{SkillAttr, json_struct_attributes, krate};
use crate::errors::Errors;
use crate::naming::pascal;
use crate::signature::{self, ParamKind, Receiver, Signature};
use crate::tool::{Target, free_function};

pub(crate) struct SkillDef<'a> {
    pub krate: TokenStream,
    pub vis: Visibility,
    pub sig: &'a Signature,
    pub name: String,
    pub description: String,
    pub target: Target,
}

/// What `generate` produces: items for the enclosing module, and the `Skill` expression.
pub(crate) struct SkillParts {
    pub items: TokenStream,
    pub skill: TokenStream,
    pub input: TokenStream,
    pub output: Type,
}

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = SkillAttr::parse(args, &mut errors);
    let (function, sig) = match free_function(item, "skill", "a skill", &mut errors) {
        Ok(parsed) => parsed,
        Err(tokens) => return tokens,
    };
    let def = SkillDef {
        krate: krate(&attr.krate),
        vis: function.vis.clone(),
        sig: &sig,
        name: skill_name(&attr.name, &sig),
        description: attr
            .description
            .as_ref()
            .map(LitStr::value)
            .unwrap_or_else(|| signature::doc_text(&function.attrs)),
        target: Target::Free,
    };
    let generated = if errors.is_empty() {
        let SkillParts {
            items,
            skill,
            input,
            output,
        } = generate(&def, &mut errors);
        let krate = &def.krate;
        let vis = &def.vis;
        let skill_type = pascal(&sig.ident, "");
        let doc = format!(
            "The `{}` skill: use it with `.skill({skill_type})`.",
            def.name
        );
        quote! {
            #items
            #[doc = #doc]
            #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
            #vis struct #skill_type;
            impl #krate::IntoSkill<#input, #output> for #skill_type {
                fn into_skill(self) -> #krate::Skill<#input, #output> {
                    #skill
                }
            }
        }
    } else {
        quote!()
    };
    let errors = errors.to_compile_errors();
    quote! {
        #function
        #generated
        #errors
    }
}

pub(crate) fn skill_name(name: &Option<LitStr>, sig: &Signature) -> String {
    name.as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| sig.ident.to_string().trim_start_matches("r#").to_string())
}

/// The input struct (if any) and the `Skill::code(..)` expression. For a method, the expression
/// expects `__this: Arc<Self>` in scope.
pub(crate) fn generate(def: &SkillDef, errors: &mut Errors) -> SkillParts {
    let SkillDef {
        krate, vis, sig, ..
    } = def;
    let values: Vec<_> = sig.values().collect();
    let mut names: Vec<Ident> = Vec::new();
    for (position, param) in values.iter().enumerate() {
        names.push(param.ident.clone().unwrap_or_else(|| {
            errors.at(&param.pat, "name this parameter with a plain identifier: it becomes a field of the skill's input");
            format_ident!("__arg{}", position)
        }));
    }
    let mut items = quote!();
    let (input, bind) = match values.as_slice() {
        [] => (quote!(()), quote!(let () = __input;)),
        [single] => {
            let ty = &single.ty;
            let name = &names[0];
            (quote!(#ty), quote!(let #name = __input;))
        }
        several => {
            let input = pascal(&sig.ident, "Input");
            let types = several.iter().map(|p| &p.ty);
            let json = json_struct_attributes(krate);
            let doc = format!("Input of the `{}` skill.", def.name);
            items = quote! {
                #[doc = #doc]
                #json
                #vis struct #input {
                    #(#[allow(missing_docs)] pub #names: #types,)*
                }
            };
            (
                quote!(#input),
                quote!(let #input { #(#names),* } = __input;),
            )
        }
    };
    let mut call_args = Vec::new();
    let mut value_index = 0;
    for param in &sig.params {
        match param.kind {
            ParamKind::Value => {
                let name = &names[value_index];
                value_index += 1;
                call_args.push(quote!(#name));
            }
            ParamKind::SkillContext => call_args.push(quote!(__ctx)),
            ParamKind::ToolContext | ParamKind::InterceptContext => {
                errors.at(
                    &param.ty,
                    "a skill receives `SkillContext<OUT>`, not `&ToolContext` or `&InterceptContext`",
                );
            }
        }
    }
    let function = &sig.ident;
    let (capture, call) = match (&def.target, &sig.receiver) {
        (Target::Free, _) => (quote!(), quote!(#function(#(#call_args),*))),
        (Target::Method { .. }, Receiver::Ref) => (
            quote!(let __this = #krate::__private::Arc::clone(&__this);),
            quote!(__this.#function(#(#call_args),*)),
        ),
        (Target::Method { self_ty }, Receiver::None) => {
            (quote!(), quote!(<#self_ty>::#function(#(#call_args),*)))
        }
    };
    let call = if sig.is_async {
        quote!(#call.await)
    } else {
        call
    };
    let result = if sig.returned.fallible {
        quote!(#krate::__private::skill_result(#call))
    } else {
        quote!(::core::result::Result::Ok(#call))
    };
    let output = sig.returned.ty.clone();
    let (name, description) = (&def.name, &def.description);
    let skill = quote! {
        #krate::Skill::code(#name, move |__input: #input, __ctx: #krate::SkillContext<#output>| {
            #capture
            async move {
                let _ = &__ctx;
                #bind
                #result
            }
        })
        .description(#description)
    };
    SkillParts {
        items,
        skill,
        input,
        output,
    }
}
