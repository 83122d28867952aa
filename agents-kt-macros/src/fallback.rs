//! Phase four, fallback: what is emitted for an item that failed validation, beside the errors.
//! The stubs define every name the item would have defined, with the types its users expect, so
//! code using them compiles and the mistake is reported once, where it was made. Their bodies
//! are unreachable: a crate with a stub never finishes compiling.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{FnItem, ToolDef};
use crate::attr::json_struct_attributes;
use crate::naming::{args_ident, pascal, tool_ident};
use crate::point::{Point, Scope, Stage};

/// The tool's argument and tool types, with no behaviour.
pub(crate) fn tool(def: &ToolDef) -> TokenStream {
    let krate = &def.krate;
    let vis = &def.vis;
    let args = args_ident(&def.sig.ident);
    let tool = tool_ident(&def.sig.ident);
    let name = &def.name;
    let json = json_struct_attributes(krate);
    quote! {
        #[allow(missing_docs)]
        #json
        #vis struct #args {}
        #[allow(missing_docs)]
        #vis struct #tool;
        impl #krate::Tool for #tool {
            const NAME: &'static str = #name;
            type Args = #args;
            type Output = ();
            fn description(&self) -> #krate::__private::Cow<'static, str> {
                ::core::unreachable!()
            }
            async fn call(&self, _: #args, _: &#krate::ToolContext) -> ::core::result::Result<(), #krate::ToolError> {
                ::core::unreachable!()
            }
        }
        impl #krate::ToolArguments for #args {
            type Tool = #tool;
        }
        impl #krate::__private::ArgumentsOf<#tool> for #args {
            fn cast(__args: &#args) -> &Self {
                __args
            }
        }
    }
}

/// The skill's type, accepted by an agent of any input and output.
pub(crate) fn skill(function: &FnItem, krate: &TokenStream) -> TokenStream {
    let vis = &function.vis;
    let skill = pascal(&function.sig.ident, "");
    quote! {
        #[allow(missing_docs)]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #skill;
        impl<__In, __Out> #krate::IntoSkill<__In, __Out> for #skill {
            fn into_skill(self) -> #krate::Skill<__In, __Out> {
                ::core::unreachable!()
            }
        }
    }
}

/// The interceptor with the signature its point expects, in place of a function whose
/// signature is wrong: registering it then reports nothing more. A turn or skill interceptor's
/// substitute type is the agent's output, unknown here, so that stub is generic over it.
pub(crate) fn interceptor(function: &FnItem, point: &Point, krate: &TokenStream) -> TokenStream {
    let (attrs, vis, name) = (&function.attrs, &function.vis, &function.sig.ident);
    let (params, decided) = point.types(krate, &quote!(__Out), |tool| quote!(#tool));
    let names = (0..params.len()).map(|n| quote::format_ident!("_{}", n));
    let generic = point.stage == Stage::Before && matches!(point.scope, Scope::Turn | Scope::Skill);
    let generics = generic.then(|| quote!(<__Out>));
    let returned = match decided {
        Some((replacement, substitute)) => quote!(#krate::Decision<#replacement, #substitute>),
        None => quote!(#krate::Verdict),
    };
    quote! {
        #(#attrs)*
        #[allow(clippy::ptr_arg)]
        #vis fn #name #generics (#(#names: #params),*) -> #returned {
            ::core::unreachable!()
        }
    }
}
