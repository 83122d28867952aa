//! `#[tool]`: an `<Pascal>Args` struct from a function's parameters and a `<Pascal>` type
//! implementing `Tool` by calling the function. Free functions expand here; methods are expanded
//! by `#[agent]` through the same [`generate`].
//!
//! Every impl over a user's parameter or output type is bounded on that type being usable (`for<'__p>
//! T: Trait`, a bound rustc accepts on a non-generic impl), and the type is checked once, at the
//! user's token. A type missing its derives is then one error saying what to derive, not one per
//! derive and supertrait.
//!
//! Each impl is bounded on only what its own body needs (`Clone` on the parameters' `Clone`, the
//! impls naming the tool on the tool being a `Tool`), not on everything a parameter must be:
//! rustc proves a where-clause's whole elaboration in every body under it, and the full bounds on
//! every impl were a tenth of the instructions of building a crate of tools.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use crate::ast::{Target, ToolDef};
use crate::attr::{ToolAttr, krate};
use crate::errors::Errors;
use crate::naming::{args_ident, tool_ident};
use crate::signature::{self, ParamKind, Receiver};
use crate::{fallback, valid};

impl ToolDef<'_> {
    /// `for<'__p> P: bound` for each argument's type `P`.
    fn params_bounded(&self, bound: &TokenStream) -> Vec<TokenStream> {
        self.sig
            .values()
            .map(|param| {
                let ty = &param.ty;
                quote!(for<'__p> #ty: #bound)
            })
            .collect()
    }

    /// The bounds of the `Tool` impl (whose associated types need all of it): each argument's
    /// type is a tool parameter and the output a tool output.
    pub(crate) fn bounds(&self) -> Vec<TokenStream> {
        let krate = &self.krate;
        let output = &self.sig.returned.ty;
        let mut bounds = self.params_bounded(&quote!(#krate::tool::ToolParameterType));
        bounds.push(quote!(for<'__p> #output: #krate::tool::ToolOutputType));
        bounds
    }
}

/// `#[tool]` on a free function.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = ToolAttr::parse(args, &mut errors);
    let function = match super::free_function(item, "tool", &mut errors) {
        Ok(function) => function,
        Err(tokens) => return tokens,
    };
    if !valid::no_self(&function.sig, "tool", &mut errors) {
        // A method outside an `#[agent]` block: nothing can be generated inside an impl.
        let errors = errors.to_compile_errors();
        return quote!(#function #errors);
    }
    let sig = signature::read(&function.sig);
    let def = ToolDef::new(&attr, &function, &sig, krate(&attr.krate), Target::Free);
    let sound =
        valid::signature(&function.sig, "a tool", &mut errors) & valid::tool(&def, &mut errors);
    let generated = if !valid::tool_names_free(&sig, &mut errors) {
        quote!()
    } else if sound {
        generate(&def)
    } else {
        fallback::tool(&def)
    };
    let errors = errors.to_compile_errors();
    let alias = alias(&def);
    quote! {
        #function
        #generated
        #alias
        #errors
    }
}

/// The tool's function name in the type namespace, so `#[before_tool_call(get_weather)]` can name
/// the tool and a misspelling is reported with the closest function name.
fn alias(def: &ToolDef) -> TokenStream {
    let tool = tool_ident(&def.sig.ident);
    let function_name = &def.sig.ident;
    let vis = &def.vis;
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis type #function_name = #tool;
    }
}

/// The `Args` struct, the tool type and their impls, for a validated tool.
pub(crate) fn generate(def: &ToolDef) -> TokenStream {
    let ToolDef {
        krate, vis, sig, ..
    } = def;
    let args = args_ident(&sig.ident);
    let tool = tool_ident(&sig.ident);
    let bounds = def.bounds();
    let output = &sig.returned.ty;
    // The impls that name the tool need only that it is one, with its types said (under a bare
    // `Tool` bound rustc would not see through `<Tool as Tool>::Args`).
    let is_tool = quote!(for<'__p> #tool: #krate::Tool<Args = #args, Output = #output>);

    let mut fields = Vec::new();
    let mut field_names = Vec::new();
    let mut call_args = Vec::new();
    let mut checks = Vec::new();
    for (position, param) in sig.params.iter().enumerate() {
        if param.kind == ParamKind::ToolContext {
            call_args.push(quote!(__ctx));
            continue;
        }
        let name = param
            .ident
            .clone()
            .unwrap_or_else(|| format_ident!("__arg{}", position));
        let ty = &param.ty;
        let doc = def
            .param_docs
            .iter()
            .find(|(documented, _)| *documented == name)
            .map(|(_, text)| quote!(#[doc = #text]))
            .unwrap_or_else(|| quote!(#[allow(missing_docs)]));
        let optional = is_option(ty).then(|| quote!(#[serde(default)]));
        fields.push(quote! { #doc #optional pub #name: #ty });
        checks.push(quote_spanned! {ty.span()=>
            let () = <#ty as #krate::__private::ToolParameter>::CHECKED;
        });
        call_args.push(quote!(#name));
        field_names.push(name);
    }
    checks.push(quote_spanned! {output.span()=>
        let () = <#output as #krate::__private::ToolOutput>::CHECKED;
    });
    let result = call(def, &call_args);
    let (name, description) = (&def.name, &def.description);
    let tool_doc = format!("The `{name}` tool: {description}");
    let tool_struct = match &def.target {
        Target::Free => quote! {
            #[doc = #tool_doc]
            #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
            #vis struct #tool;
        },
        Target::Method { self_ty } => quote! {
            #[doc = #tool_doc]
            #vis struct #tool {
                agent: #krate::__private::Arc<#self_ty>,
            }
        },
    };
    let args_struct = args_struct(def, &args, &fields);
    quote! {
        #args_struct

        #tool_struct

        impl #krate::Tool for #tool where #(#bounds,)* {
            const NAME: &'static str = #name;
            type Args = #args;
            type Output = #output;

            fn description(&self) -> #krate::__private::Cow<'static, str> {
                #krate::__private::Cow::Borrowed(#description)
            }

            fn output_schema(&self) -> ::core::option::Option<#krate::__private::serde_json::Value> {
                #[allow(unused_imports)]
                use #krate::__private::{NoOutputSchema as _, OutputSchemaOf as _};
                (&#krate::__private::OutputSchemaProbe::<#output>::new()).output_schema()
            }

            async fn call(
                &self,
                __args: #args,
                __ctx: &#krate::ToolContext,
            ) -> ::core::result::Result<#output, #krate::ToolError> {
                let _ = __ctx;
                let #args { #(#field_names),* } = __args;
                #result
            }
        }

        impl #krate::ToolArguments for #args where #is_tool {
            type Tool = #tool;
        }

        impl #krate::__private::ArgumentsOf<#tool> for #args where #is_tool {
            fn cast(__args: &#args) -> &Self {
                __args
            }
        }

        impl #krate::__private::OutputOf<#tool> for #output where #is_tool {
            fn cast(__output: &#output) -> &Self {
                __output
            }
        }

        const _: () = {
            #[allow(dead_code)]
            fn __check() { #(#checks)* }
        };
    }
}

/// The arguments struct: serde's derives reached through the runtime crate (so users need
/// neither serde nor schemars in their manifest), and `JsonSchema`, `Clone` and `Debug` written
/// out, every impl bounded on the argument types.
fn args_struct(def: &ToolDef, args: &Ident, fields: &[TokenStream]) -> TokenStream {
    let krate = &def.krate;
    let schemars = quote!(#krate::__private::schemars);
    let serialize = quote!(#krate::__private::serde::Serialize);
    let serialize_bounds = def.params_bounded(&serialize);
    let schema_bounds = def.params_bounded(&quote!(#schemars::JsonSchema));
    let clone_bounds = def.params_bounded(&quote!(::core::clone::Clone));
    // serde's own bounds, as text; `Deserialize<'de>` names the impl's lifetime, so it needs no
    // `for<'__p>` to be accepted.
    let serialize_text = joined(&serialize_bounds);
    let deserialize_bounds: Vec<_> = def
        .sig
        .values()
        .map(|param| {
            let ty = &param.ty;
            quote!(#ty: #krate::__private::serde::Deserialize<'de>)
        })
        .collect();
    let deserialize_text = joined(&deserialize_bounds);
    let serde_crate = format!("{krate}::__private::serde").replace(' ', "");
    let label = args.to_string();
    let vis = &def.vis;
    let values: Vec<_> = def.sig.values().collect();
    let names: Vec<&Ident> = values.iter().filter_map(|p| p.ident.as_ref()).collect();
    let field_labels: Vec<String> = names.iter().map(ToString::to_string).collect();
    let types = values.iter().map(|p| &p.ty);
    let optional = values.iter().map(|p| is_option(&p.ty));
    let docs = names.iter().map(|name| {
        match def
            .param_docs
            .iter()
            .find(|(documented, _)| documented == *name)
        {
            Some((_, text)) => quote!(::core::option::Option::Some(#text)),
            None => quote!(::core::option::Option::None),
        }
    });
    let description = format!("Arguments of the `{}` tool.", def.name);
    quote! {
        #[doc = #description]
        #[derive(#krate::__private::serde::Deserialize, #krate::__private::serde::Serialize)]
        #[serde(crate = #serde_crate, bound(serialize = #serialize_text, deserialize = #deserialize_text))]
        #vis struct #args {
            #(#fields,)*
        }

        impl #schemars::JsonSchema for #args where #(#schema_bounds,)* {
            fn schema_name() -> #krate::__private::Cow<'static, str> {
                #krate::__private::Cow::Borrowed(#label)
            }

            fn schema_id() -> #krate::__private::Cow<'static, str> {
                #krate::__private::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #label))
            }

            fn json_schema(__generator: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                #krate::__private::args_schema(#description, [
                    #((#field_labels, #optional, #docs, __generator.subschema_for::<#types>()),)*
                ])
            }
        }

        impl ::core::clone::Clone for #args where #(#clone_bounds,)* {
            fn clone(&self) -> Self {
                #args { #(#names: ::core::clone::Clone::clone(&self.#names)),* }
            }
        }

        // Written as JSON, through `Serialize`.
        impl ::core::fmt::Debug for #args where #(#serialize_bounds,)* {
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #krate::__private::debug_struct(__f, #label, &[
                    #((#field_labels, &#krate::__private::AsJson(&self.#names) as &dyn ::core::fmt::Debug),)*
                ])
            }
        }
    }
}

/// The call of the user's function from the tool's `call`, as a `Result<Output, ToolError>`.
fn call(def: &ToolDef, call_args: &[TokenStream]) -> TokenStream {
    let ToolDef { krate, sig, .. } = def;
    let function = &sig.ident;
    let blocking = def.blocking.is_some() && !sig.is_async;
    // On the blocking pool the method's agent is an owned `Arc`, not `self.agent`.
    let agent = if blocking {
        quote!(__agent)
    } else {
        quote!(self.agent)
    };
    let call = match (&def.target, &sig.receiver) {
        (Target::Free, _) => quote!(#function(#(#call_args),*)),
        (Target::Method { .. }, Receiver::Ref) => quote!(#agent.#function(#(#call_args),*)),
        (Target::Method { self_ty }, Receiver::None) => {
            quote!(<#self_ty>::#function(#(#call_args),*))
        }
    };
    let call = if sig.is_async {
        quote!(#call.await)
    } else {
        call
    };
    let result = if sig.returned.fallible {
        quote!(#krate::__private::tool_result(#call))
    } else {
        quote!(::core::result::Result::Ok(#call))
    };
    if !blocking {
        return result;
    }
    // The body moves to the blocking pool with owned copies of what it uses, so a deadline can
    // cut it off without stalling the runtime's threads.
    let take_agent = match &def.target {
        Target::Method { .. } => quote! {
            let __agent = #krate::__private::Arc::clone(&self.agent);
        },
        Target::Free => quote!(),
    };
    quote! {{
        #take_agent
        let __ctx = ::core::clone::Clone::clone(__ctx);
        #krate::__private::run_blocking(move || {
            let __ctx = &__ctx;
            let _ = __ctx;
            #result
        }).await
    }}
}

/// Bounds as the text of a serde `bound` attribute.
fn joined(bounds: &[TokenStream]) -> String {
    bounds
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "Option"))
}
