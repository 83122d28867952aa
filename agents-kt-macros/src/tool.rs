//! `#[tool]`: an `<Pascal>Args` struct from a function's parameters and a `<Pascal>` type
//! implementing `Tool` by calling the function. Free functions expand here; methods are expanded
//! by `#[agent]` through the same [`generate`].

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, LitStr, Type, Visibility};

use crate::attr::{ToolAttr, json_struct_attributes, krate};
use crate::errors::Errors;
use crate::naming::pascal;
use crate::signature::{self, ParamKind, Receiver, Signature};

/// Where the tool's function lives.
pub(crate) enum Target {
    /// A free function in the current module.
    Free,
    /// A method (or associated function) of an `#[agent]` type; the tool holds an `Arc` of it.
    Method { self_ty: Box<Type> },
}

/// Everything needed to generate one tool.
pub(crate) struct ToolDef<'a> {
    pub krate: TokenStream,
    pub vis: Visibility,
    pub sig: &'a Signature,
    /// The name the model calls the tool by.
    pub name: String,
    pub description: String,
    pub param_docs: Vec<(Ident, LitStr)>,
    /// `#[tool(blocking)]`: the sync body runs on the blocking pool.
    pub blocking: Option<proc_macro2::Span>,
    pub target: Target,
}

/// The tool type's name for a tool function.
pub(crate) fn tool_ident(function: &Ident) -> Ident {
    pascal(function, "")
}

/// The argument type's name for a tool function.
pub(crate) fn args_ident(function: &Ident) -> Ident {
    pascal(function, "Args")
}

/// A free function under one of the macros, with its signature read; or, when it is not a free
/// function, the tokens to emit instead (the user's item and the error).
pub(crate) fn free_function(
    item: TokenStream,
    macro_name: &str,
    what: &str,
    errors: &mut Errors,
) -> Result<(ItemFn, Signature), TokenStream> {
    let mut function: ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(_) => {
            errors.push(not_a_function(&item, macro_name));
            let errors = errors.to_compile_errors();
            return Err(quote!(#item #errors));
        }
    };
    signature::name_context_lifetime(&mut function.sig);
    let sig = signature::read(&function.sig, what, errors);
    if let Receiver::Ref = sig.receiver {
        // Inside a plain impl block nothing can be generated next to the method: report only this.
        errors.at(
            &function.sig.inputs,
            format!("a method {macro_name} belongs in an `#[agent]` impl block, which registers it with its agent; a free #[{macro_name}] takes no `self`"),
        );
        let errors = errors.to_compile_errors();
        return Err(quote!(#function #errors));
    }
    Ok((function, sig))
}

/// `#[tool]` on a free function.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = ToolAttr::parse(args, &mut errors);
    let (function, sig) = match free_function(item, "tool", "a tool", &mut errors) {
        Ok(parsed) => parsed,
        Err(tokens) => return tokens,
    };
    let def = ToolDef {
        krate: krate(&attr.krate),
        vis: function.vis.clone(),
        sig: &sig,
        name: tool_name(&attr, &sig),
        description: description(&attr, &function.attrs, &sig, &mut errors),
        param_docs: attr.params,
        blocking: attr.blocking,
        target: Target::Free,
    };
    let generated = if sig.faulty {
        stub(&def)
    } else {
        let generated = generate(&def, &mut errors);
        let tool = tool_ident(&sig.ident);
        let function_name = &sig.ident;
        let vis = &def.vis;
        // The tool's function name in the type namespace, so `#[before_tool_call(get_weather)]`
        // can name the tool and a misspelling is reported with the closest function name.
        quote! {
            #generated
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            #vis type #function_name = #tool;
        }
    };
    let errors = errors.to_compile_errors();
    quote! {
        #function
        #generated
        #errors
    }
}

/// The error for a macro applied to something that is not a function, at its keyword.
pub(crate) fn not_a_function(item: &TokenStream, macro_name: &str) -> syn::Error {
    let span = match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Struct(item)) => item.struct_token.span,
        Ok(syn::Item::Enum(item)) => item.enum_token.span,
        Ok(syn::Item::Impl(item)) => item.impl_token.span,
        Ok(syn::Item::Trait(item)) => item.trait_token.span,
        Ok(syn::Item::Const(item)) => item.const_token.span,
        Ok(syn::Item::Static(item)) => item.static_token.span,
        Ok(syn::Item::Mod(item)) => item.mod_token.span,
        Ok(syn::Item::Type(item)) => item.type_token.span,
        _ => item.span(),
    };
    syn::Error::new(
        span,
        format!(
            "#[{macro_name}] applies to a function: write `fn name(arguments) -> Output` and put #[{macro_name}] on it"
        ),
    )
}

pub(crate) fn tool_name(attr: &ToolAttr, sig: &Signature) -> String {
    attr.name
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| sig.ident.to_string().trim_start_matches("r#").to_string())
}

/// The description the model reads: `description = "..."`, else the doc comment; one is required.
pub(crate) fn description(
    attr: &ToolAttr,
    attrs: &[syn::Attribute],
    sig: &Signature,
    errors: &mut Errors,
) -> String {
    let text = attr
        .description
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| signature::doc_text(attrs));
    if text.is_empty() {
        errors.at(
            &sig.ident,
            "this tool has no description: add a doc comment (`/// What it does`) or #[tool(description = \"...\")]; the model reads it to decide when to call the tool",
        );
    }
    text
}

/// The `Args` struct, the tool type and their impls.
pub(crate) fn generate(def: &ToolDef, errors: &mut Errors) -> TokenStream {
    let ToolDef {
        krate, vis, sig, ..
    } = def;
    let args = args_ident(&sig.ident);
    let tool = tool_ident(&sig.ident);
    let json = json_struct_attributes(krate);
    check_param_docs(def, errors);
    if !names_are_free(sig, &tool, &args, errors) {
        return quote!();
    }

    let mut fields = Vec::new();
    let mut field_names = Vec::new();
    let mut call_args = Vec::new();
    let mut checks = Vec::new();
    for (position, param) in sig.params.iter().enumerate() {
        match param.kind {
            ParamKind::ToolContext => call_args.push(quote!(__ctx)),
            ParamKind::SkillContext | ParamKind::InterceptContext => {
                errors.at(&param.ty, "a tool receives `&ToolContext`, not `SkillContext` or `&InterceptContext`: skills call tools, tools do not run skills");
                call_args.push(quote!(::core::unreachable!()));
            }
            ParamKind::Value => {
                let name = param.ident.clone().unwrap_or_else(|| {
                    errors.at(&param.pat, "name this parameter with a plain identifier: it becomes the argument's JSON field name");
                    format_ident!("__arg{}", position)
                });
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
                    #krate::__private::assert_tool_param::<#ty>();
                });
                call_args.push(quote!(#name));
                field_names.push(name);
            }
        }
    }
    let output = &sig.returned.ty;
    checks.push(quote_spanned! {output.span()=>
        #krate::__private::assert_tool_output::<#output>();
    });
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
    if let (Some(span), true) = (def.blocking, sig.is_async) {
        errors.push(syn::Error::new(
            span,
            "`blocking` runs a synchronous body on the blocking pool; an `async fn` tool is already polled on the runtime: drop `blocking`, or make the function sync",
        ));
    }
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
    // The body moves to the blocking pool with owned copies of what it uses, so a deadline can
    // cut it off without stalling the runtime's threads.
    let result = if blocking {
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
    } else {
        result
    };
    let (name, description) = (&def.name, &def.description);
    let args_doc = format!("Arguments of the `{name}` tool.");
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
    quote! {
        #[doc = #args_doc]
        #json
        #vis struct #args {
            #(#fields,)*
        }

        #tool_struct

        impl #krate::Tool for #tool {
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

        impl #krate::ToolArguments for #args {
            type Tool = #tool;
        }

        impl #krate::__private::ArgumentsOf<#tool> for #args {}

        const _: () = {
            #(#checks)*
        };
    }
}

/// The tool's types with no behaviour, so code using them still compiles while the user fixes
/// the reported error.
pub(crate) fn stub(def: &ToolDef) -> TokenStream {
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
                #krate::__private::Cow::Borrowed("")
            }
            async fn call(&self, _: #args, _: &#krate::ToolContext) -> ::core::result::Result<(), #krate::ToolError> {
                ::core::result::Result::Err(#krate::ToolError::new("this tool failed to compile"))
            }
        }
        impl #krate::ToolArguments for #args {
            type Tool = #tool;
        }
    }
}

/// Every `params(name = "...")` entry must name a parameter.
fn check_param_docs(def: &ToolDef, errors: &mut Errors) {
    let names: Vec<String> = def
        .sig
        .values()
        .filter_map(|p| p.ident.as_ref().map(ToString::to_string))
        .collect();
    for (documented, _) in &def.param_docs {
        if !names.contains(&documented.to_string()) {
            errors.push(syn::Error::new(
                documented.span(),
                format!(
                    "`{documented}` is not a parameter of this tool; its parameters are: {}",
                    if names.is_empty() {
                        "(none)".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        }
    }
}

/// The generated type names must not be the names of the function's own parameter or output
/// types (`fn report() -> Report` would define `Report` twice).
fn names_are_free(sig: &Signature, tool: &Ident, args: &Ident, errors: &mut Errors) -> bool {
    let mut free = true;
    let types = sig
        .values()
        .map(|p| &p.ty)
        .chain(std::iter::once(&sig.returned.ty));
    for ty in types {
        if let Type::Path(path) = ty
            && let Some(last) = path.path.segments.last()
            && (last.ident == *tool || last.ident == *args)
        {
            errors.at(
                ty,
                format!(
                    "`{}` is also the name #[tool] gives the tool generated from `{}`: rename the function (e.g. `get_{}`) or the type",
                    last.ident, sig.ident, sig.ident
                ),
            );
            free = false;
        }
    }
    free
}

fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "Option"))
}
