//! `#[skill]`: a code skill from a function. The function's arguments are the skill's input (one
//! argument is the input itself; several become a `<Pascal>Input` struct with a JSON schema, so
//! the skill can be exposed as a tool); an optional `SkillContext<OUT>` parameter is its handle on
//! the run.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Ident, LitStr, Type, Visibility};

use crate::ast::{FnItem, Target};
use crate::attr::{SkillAttr, json_struct_attributes, krate};
use crate::errors::Errors;
use crate::naming::pascal;
use crate::signature::{self, ParamKind, Receiver, Signature};
use crate::{fallback, valid};

pub(crate) struct SkillDef<'a> {
    pub krate: TokenStream,
    pub vis: Visibility,
    pub sig: &'a Signature,
    pub name: String,
    pub description: String,
    pub target: Target,
}

impl<'a> SkillDef<'a> {
    pub(crate) fn new(
        attr: &SkillAttr,
        function: &FnItem,
        sig: &'a Signature,
        krate: TokenStream,
        target: Target,
    ) -> Self {
        SkillDef {
            krate,
            vis: function.vis.clone(),
            sig,
            name: attr
                .name
                .as_ref()
                .map(LitStr::value)
                .unwrap_or_else(|| sig.ident.to_string().trim_start_matches("r#").to_string()),
            description: attr
                .description
                .as_ref()
                .map(LitStr::value)
                .unwrap_or_else(|| signature::doc_text(&function.attrs)),
            target,
        }
    }
}

/// What `generate` produces: items for the enclosing module, and the `Skill` expression.
pub(crate) struct SkillParts {
    pub items: TokenStream,
    pub skill: TokenStream,
    pub input: TokenStream,
    pub output: Type,
}

/// `#[skill]` on a free function.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = SkillAttr::parse(args, &mut errors);
    let function = match super::free_function(item, "skill", &mut errors) {
        Ok(function) => function,
        Err(tokens) => return tokens,
    };
    if !valid::no_self(&function.sig, "skill", &mut errors) {
        let errors = errors.to_compile_errors();
        return quote!(#function #errors);
    }
    let krate = krate(&attr.krate);
    let sig = signature::read(&function.sig);
    let sound =
        valid::signature(&function.sig, "a skill", &mut errors) & valid::skill(&sig, &mut errors);
    let generated = if sound {
        let def = SkillDef::new(&attr, &function, &sig, krate.clone(), Target::Free);
        free_skill(&def)
    } else {
        fallback::skill(&function, &krate)
    };
    let errors = errors.to_compile_errors();
    quote! {
        #function
        #generated
        #errors
    }
}

/// The skill's type, turning into the skill with `.skill(Type)`.
fn free_skill(def: &SkillDef) -> TokenStream {
    let SkillParts {
        items,
        skill,
        input,
        output,
    } = generate(def);
    let krate = &def.krate;
    let vis = &def.vis;
    let skill_type = pascal(&def.sig.ident, "");
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
}

/// The input struct (if any) and the `Skill::code(..)` expression, for a validated skill. For a
/// method, the expression expects `__this: Arc<Self>` in scope.
pub(crate) fn generate(def: &SkillDef) -> SkillParts {
    let SkillDef {
        krate, vis, sig, ..
    } = def;
    let values: Vec<_> = sig.values().collect();
    let names: Vec<Ident> = values
        .iter()
        .enumerate()
        .map(|(position, param)| {
            param
                .ident
                .clone()
                .unwrap_or_else(|| format_ident!("__arg{}", position))
        })
        .collect();
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
    let mut values = names.iter();
    let call_args: Vec<TokenStream> = sig
        .params
        .iter()
        .filter_map(|param| match param.kind {
            ParamKind::Value => values.next().map(|name| quote!(#name)),
            ParamKind::SkillContext => Some(quote!(__ctx)),
            ParamKind::ToolContext | ParamKind::InterceptContext => None,
        })
        .collect();
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
