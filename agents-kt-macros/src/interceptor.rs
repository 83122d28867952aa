//! `#[before_tool_call]`, `#[before_turn]`, `#[before_skill]` on free functions: the signature is
//! checked, an async function is rewritten so its future owns its arguments (an interceptor's
//! future must be `'static`), and a typed tool interceptor is checked against its tool's types.
//! Methods are registered by `#[agent]`, which uses [`Point`] and [`expected_params`] from here.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, Type};

use crate::attr::{InterceptorAttr, krate};
use crate::errors::Errors;
use crate::signature::Signature;
use crate::tool::free_function;

/// Where an interceptor sits.
pub(crate) enum Point {
    /// Before calls of one tool, named by its function.
    Tool(Ident),
    /// Before calls of every tool.
    AnyTool,
    /// Before every model turn.
    Turn,
    /// Before the skill runs.
    Skill,
}

impl Point {
    pub(crate) fn macro_name(&self) -> &'static str {
        match self {
            Point::Tool(_) | Point::AnyTool => "before_tool_call",
            Point::Turn => "before_turn",
            Point::Skill => "before_skill",
        }
    }
}

/// The parameters an interceptor at `point` takes, as the user should write them.
pub(crate) fn expected_params(point: &Point) -> &'static str {
    match point {
        Point::Tool(_) => "one parameter, the tool's arguments by reference: `args: &<Tool>Args`",
        Point::AnyTool => "two parameters: `name: &str, args: &serde_json::Value`",
        Point::Turn => "one parameter, the outbound messages: `messages: &[Message]`",
        Point::Skill => "one parameter, the chosen skill's name: `skill: &str`",
    }
}

/// Check the parameter count and that each is a reference.
pub(crate) fn check_params(
    point: &Point,
    sig: &Signature,
    fn_sig: &syn::Signature,
    errors: &mut Errors,
) {
    let wanted = if matches!(point, Point::AnyTool) {
        2
    } else {
        1
    };
    if sig.params.len() != wanted {
        let message = format!(
            "#[{}] interceptor takes {}",
            point.macro_name(),
            expected_params(point)
        );
        if fn_sig.inputs.is_empty() {
            errors.push(syn::Error::new(fn_sig.paren_token.span.join(), message));
        } else {
            errors.at(&fn_sig.inputs, message);
        }
        return;
    }
    for param in &sig.params {
        if !matches!(param.ty, Type::Reference(_)) {
            let ty = &param.ty;
            errors.at(
                ty,
                format!("take this by reference (`&{}`): every interceptor in the chain observes the same value", quote!(#ty)),
            );
        }
    }
}

/// An interceptor attribute on a free function.
pub(crate) fn expand(macro_name: &str, args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = InterceptorAttr::parse(
        args,
        macro_name,
        macro_name == "before_tool_call",
        &mut errors,
    );
    let krate = krate(&attr.krate);
    let point = match (macro_name, attr.tool) {
        ("before_tool_call", Some(tool)) => Point::Tool(tool),
        ("before_tool_call", None) => Point::AnyTool,
        ("before_turn", _) => Point::Turn,
        _ => Point::Skill,
    };
    let (function, sig) = match free_function(item, macro_name, "an interceptor", &mut errors) {
        Ok(parsed) => parsed,
        Err(tokens) => return tokens,
    };
    check_params(&point, &sig, &function.sig, &mut errors);
    let sound = errors.is_empty();
    let checks = match &point {
        Point::Tool(tool) if sound => typed_tool_checks(&krate, tool, &sig, &function),
        Point::AnyTool if sound => decision_check(
            &krate,
            &sig,
            quote!(#krate::__private::serde_json::Value),
            quote!(#krate::__private::serde_json::Value),
        ),
        _ => quote!(),
    };
    let function = if sig.is_async && sound {
        owning_async(&krate, function, &sig)
    } else {
        quote!(#function)
    };
    let errors = errors.to_compile_errors();
    quote! {
        #function
        #checks
        #errors
    }
}

/// Rewrite `async fn f(a: &A) -> D { body }` as `fn f(a: &A) -> impl Future<Output = D> + Send +
/// 'static` whose future owns a copy of its arguments: registration needs a `'static` future,
/// and the function stays callable as before (`f(&a).await`).
fn owning_async(krate: &TokenStream, mut function: ItemFn, sig: &Signature) -> TokenStream {
    let mut owned = Vec::new();
    let mut bindings = Vec::new();
    for (position, (input, param)) in function.sig.inputs.iter_mut().zip(&sig.params).enumerate() {
        let argument = format_ident!("__arg{}", position);
        let copy = format_ident!("__owned{}", position);
        if let syn::FnArg::Typed(typed) = input {
            *typed.pat = syn::parse_quote!(#argument);
        }
        let (pat, ty) = (&param.pat, &param.ty);
        owned.push(quote!(let #copy = #krate::__private::ToOwned::to_owned(#argument);));
        bindings.push(quote!(let #pat: #ty = #krate::__private::Borrow::borrow(&#copy);));
    }
    let output = &sig.returned.written;
    function.sig.asyncness = None;
    function.sig.output = syn::parse_quote! {
        -> impl ::core::future::Future<Output = #output> + ::core::marker::Send + 'static + use<>
    };
    let body = &function.block;
    function.block = syn::parse_quote!({
        #(#owned)*
        async move {
            #(#bindings)*
            #body
        }
    });
    quote!(#function)
}

/// A typed tool interceptor must take `&<Tool>::Args` and decide with the tool's `Args` and
/// `Output`; the checks are spanned at the user's tokens.
fn typed_tool_checks(
    krate: &TokenStream,
    tool: &Ident,
    sig: &Signature,
    function: &ItemFn,
) -> TokenStream {
    let _ = function;
    let param_ty = match &sig.params[0].ty {
        Type::Reference(reference) => &*reference.elem,
        other => other,
    };
    let arguments = quote_spanned! {param_ty.span()=>
        #krate::__private::assert_arguments_of::<#tool, #param_ty>();
    };
    let decision = decision_check(
        krate,
        sig,
        quote!(<#tool as #krate::Tool>::Args),
        quote!(<#tool as #krate::Tool>::Output),
    );
    quote! {
        const _: () = {
            #[allow(dead_code)]
            fn __check() {
                #arguments
            }
        };
        #decision
    }
}

/// The function must return a decision about `T` with substitute type `R` (or a `Result` of one).
pub(crate) fn decision_check(
    krate: &TokenStream,
    sig: &Signature,
    t: TokenStream,
    r: TokenStream,
) -> TokenStream {
    let returned = &sig.returned.written;
    let check = quote_spanned! {returned.span()=>
        #krate::__private::assert_decision::<#t, #r, #returned, _>();
    };
    quote! {
        const _: () = {
            #[allow(dead_code)]
            fn __check() {
                #check
            }
        };
    }
}
