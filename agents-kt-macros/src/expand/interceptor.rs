//! Interceptors, gates and after-interceptors. On a free function (`#[before_tool_call]`, …) the
//! signature is checked and an async function is rewritten so its future owns its arguments (a
//! registered interceptor's future must be `'static`); in an `#[agent]` block each method becomes a
//! registration closure ([`method_registration`]).
//!
//! Type checks are left to rustc, spanned at the user's tokens, through trait paths such as
//! `<Ret as IntoDecision<T, R>>::into_decision`: a wrong type is one error there, in our words, and
//! in an `#[agent]` block the same path converts the method's result, so the registration itself
//! never fails a second time.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use crate::ast::FnItem;
use crate::attr::{InterceptorAttr, krate};
use crate::errors::Errors;
use crate::naming::tool_ident;
use crate::point::{Point, Scope, Stage};
use crate::signature::{self, ParamKind, Receiver, Signature};
use crate::{fallback, valid};

/// An interceptor attribute on a free function.
pub(crate) fn expand(attribute: &str, args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = InterceptorAttr::parse(args, attribute, Point::takes_tool(attribute), &mut errors);
    let krate = krate(&attr.krate);
    let Some(point) = Point::of(attribute, attr.tool) else {
        return syn::Error::new(proc_macro2::Span::call_site(), "unknown interception point")
            .to_compile_error();
    };
    let mut function = match super::free_function(item, attribute, &mut errors) {
        Ok(function) => function,
        Err(tokens) => return tokens,
    };
    if !valid::no_self(&function.sig, attribute, &mut errors) {
        let errors = errors.to_compile_errors();
        return quote!(#function #errors);
    }
    signature::name_context_lifetime(&mut function.sig);
    let sig = signature::read(&function.sig);
    let sound = valid::signature(&function.sig, "an interceptor", &mut errors)
        & valid::interceptor(&point, &sig, &function.sig, &mut errors);
    if !sound {
        let stub = fallback::interceptor(&function, &point, &krate);
        let errors = errors.to_compile_errors();
        return quote!(#stub #errors);
    }
    let canonical = (!sig.is_async)
        .then(|| canonical_decision(&krate, &point, &sig))
        .flatten();
    let checks = free_function_checks(&krate, &point, &sig, canonical.is_none());
    if let Some(canonical) = canonical {
        canonical.rewrite(&mut function, &sig);
    }
    if point.stage == Stage::After {
        function.attrs.push(after_tool_allowance());
    }
    let function = if sig.is_async {
        owning_async(&krate, function, &sig)
    } else {
        quote!(#function)
    };
    let errors = errors.to_compile_errors();
    let alias = tool_alias_item(&point, &sig);
    quote! {
        #function
        #alias
        const _: () = {
            #[allow(dead_code)]
            fn __check() { #checks }
        };
        #errors
    }
}

/// Rewrite `async fn f(a: &A) -> D { body }` as `fn f(a: &A) -> impl Future<Output = D> + Send +
/// 'static` whose future owns a copy of its arguments: registration needs a `'static` future,
/// and the function stays callable as before (`f(&a).await`).
fn owning_async(krate: &TokenStream, mut function: FnItem, sig: &Signature) -> TokenStream {
    let mut owned = Vec::new();
    let mut bindings = Vec::new();
    for (position, (input, param)) in function.sig.inputs.iter_mut().zip(&sig.params).enumerate() {
        let argument = format_ident!("__arg{}", position);
        let copy = format_ident!("__owned{}", position);
        if let syn::FnArg::Typed(typed) = input {
            *typed.pat = syn::parse_quote!(#argument);
        }
        let (pat, ty) = (&param.pat, &param.ty);
        if param.kind == ParamKind::InterceptContext {
            // The context borrows the run: the future keeps an owned copy and lends it back.
            let lent = format_ident!("__lent{}", position);
            owned.push(quote!(let #copy = #krate::__private::ContextSnapshot::of(#argument);));
            bindings.push(quote!(let #lent = #copy.context(); let #pat: #ty = &#lent;));
            continue;
        }
        owned.push(quote!(let #copy = #krate::__private::ToOwned::to_owned(#argument);));
        bindings.push(quote!(let #pat: #ty = #krate::__private::Borrow::borrow(&#copy);));
    }
    let output = &sig.returned.written;
    function.sig.asyncness = None;
    function.sig.output = syn::parse_quote! {
        -> impl ::core::future::Future<Output = #output> + ::core::marker::Send + 'static + use<>
    };
    let body = &function.body;
    function.body = quote!({
        #(#owned)*
        async move {
            #(#bindings)*
            #body
        }
    });
    quote!(#function)
}

/// What rustc must check of a free function: its parameter is the named tool's arguments (or
/// output), and it returns a decision of the right types — or, for a gate, a verdict. A turn or
/// skill interceptor's substitute is the agent's output, checked where it is registered.
fn free_function_checks(
    krate: &TokenStream,
    point: &Point,
    sig: &Signature,
    check_return: bool,
) -> TokenStream {
    let alias = tool_alias(sig);
    let mut checks = match point.tool() {
        Some(_) => {
            let param = sig.params.first().map(|p| referent(&p.ty));
            param
                .map(|ty| cast(krate, point, &quote!(#alias), ty))
                .map(|cast| quote!(let _ = #cast;))
        }
        None => None,
    }
    .unwrap_or_default();
    if check_return
        && (point.stage == Stage::Gate || !matches!(point.scope, Scope::Turn | Scope::Skill))
    {
        let convert = conversion(krate, point, sig, &quote!(()), &|_| quote!(#alias));
        checks.extend(quote!(let _ = #convert;));
    }
    checks
}

/// A synchronous typed tool interceptor whose return type is written `Decision<..>` (or
/// `Result<Decision<..>, E>`) returns the point's own decision type, `Decision<<Tool>::Args,
/// <Tool>::Output>` (or the tool's output twice, after the call): its body is checked against the
/// type as written and converted through `IntoDecision`, spanned at that type. A written type of
/// the wrong decision is then one error there, and registering the function is none (it has the
/// right type): one mistake, one error. For a correct function the type is the same one.
struct CanonicalDecision {
    /// `Decision<R, S>` of the point.
    decision: TokenStream,
    /// The conversion from the written decision type, spanned at it.
    convert: TokenStream,
    /// `E`, when the written type is `Result<Decision<..>, E>`.
    error: Option<Type>,
}

fn canonical_decision(
    krate: &TokenStream,
    point: &Point,
    sig: &Signature,
) -> Option<CanonicalDecision> {
    point.tool()?;
    let alias = tool_alias(sig);
    let (_, Some((replacement, substitute))) = point.types(krate, &quote!(()), |_| quote!(#alias))
    else {
        return None;
    };
    let returned = &sig.returned;
    if !last_segment_is(&returned.ty, "Decision") {
        return None;
    }
    let error = if returned.fallible {
        Some(result_error(&returned.written)?)
    } else {
        None
    };
    let ty = &returned.ty;
    Some(CanonicalDecision {
        decision: quote!(#krate::Decision<#replacement, #substitute>),
        convert: quote_spanned! {ty.span()=>
            <#ty as #krate::IntoDecision<#replacement, #substitute>>::into_decision
        },
        error,
    })
}

impl CanonicalDecision {
    fn rewrite(self, function: &mut FnItem, sig: &Signature) {
        let (decision, convert, written) = (&self.decision, &self.convert, &sig.returned.written);
        let body = &function.body;
        let (output, converted) = match &self.error {
            None => (decision.clone(), quote!(#convert(__written))),
            Some(error) => (
                quote!(::core::result::Result<#decision, #error>),
                quote!(::core::result::Result::map(__written, #convert)),
            ),
        };
        function.sig.output = syn::parse_quote!(-> #output);
        function.body = quote!({
            let __written: #written = #body;
            #converted
        });
    }
}

/// Whether `ty` is a path whose last segment is `name`.
fn last_segment_is(ty: &Type, name: &str) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
        && path.path.segments.last().is_some_and(|segment| segment.ident == name))
}

/// `E` of a written `Result<T, E>`.
fn result_error(written: &Type) -> Option<Type> {
    let Type::Path(path) = written else {
        return None;
    };
    let syn::PathArguments::AngleBracketed(arguments) = &path.path.segments.last()?.arguments
    else {
        return None;
    };
    match arguments.args.iter().nth(1)? {
        syn::GenericArgument::Type(error) => Some(error.clone()),
        _ => None,
    }
}

/// The name a free interceptor's code gives the tool it names: one alias of the attribute's tool
/// (`type __tool_named_by_f = tool;`), so a misspelt tool is one error, at the attribute, and
/// every use of the alias is quiet.
fn tool_alias(sig: &Signature) -> Ident {
    format_ident!("__tool_named_by_{}", sig.ident)
}

/// The alias item itself, for an interceptor that names a tool.
fn tool_alias_item(point: &Point, sig: &Signature) -> TokenStream {
    let Some(tool) = point.tool() else {
        return TokenStream::new();
    };
    let alias = tool_alias(sig);
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        type #alias = #tool;
    }
}

/// `&T` → `T`.
fn referent(ty: &Type) -> &Type {
    match ty {
        Type::Reference(reference) => &reference.elem,
        other => other,
    }
}

/// The path turning a tool's `&Args` (or `&Output`) into the user's parameter type, spanned at
/// it: the identity when they agree, one error in our words when they do not.
fn cast(krate: &TokenStream, point: &Point, tool: &TokenStream, param: &Type) -> TokenStream {
    if point.stage == Stage::After {
        quote_spanned!(param.span()=> <#param as #krate::__private::OutputOf<#tool>>::cast)
    } else {
        quote_spanned!(param.span()=> <#param as #krate::__private::ArgumentsOf<#tool>>::cast)
    }
}

/// The path turning what the function returns into the point's decision (or a gate's verdict),
/// spanned at the return type.
fn conversion(
    krate: &TokenStream,
    point: &Point,
    sig: &Signature,
    output: &TokenStream,
    tool_type: &dyn Fn(&Ident) -> TokenStream,
) -> TokenStream {
    let returned = &sig.returned.written;
    match point.types(krate, output, tool_type).1 {
        Some((replacement, substitute)) => quote_spanned! {returned.span()=>
            <#returned as #krate::IntoDecision<#replacement, #substitute>>::into_decision
        },
        None => quote_spanned!(returned.span()=> <#returned as #krate::IntoVerdict>::into_verdict),
    }
}

/// The builder registration of one interceptor, gate or after-interceptor method of an
/// `#[agent]` block, named after the method.
pub(crate) fn method_registration(
    krate: &TokenStream,
    point: &Point,
    sig: &Signature,
    self_ty: &Type,
    output: &Type,
) -> TokenStream {
    let closure = method_closure(krate, point, sig, self_ty, output);
    let registration = point.registration(krate, closure, |tool| {
        let tool = tool_ident(tool);
        quote!(#tool)
    });
    let label = sig.ident.to_string();
    quote!(#registration .named(#label))
}

/// The link of one typed tool interceptor, gate or after-interceptor method in its tool's
/// compile-time chain (`ToolChain::before`/`gate`/`after`), named after the method.
pub(crate) fn static_link(
    krate: &TokenStream,
    point: &Point,
    sig: &Signature,
    self_ty: &Type,
    output: &Type,
) -> TokenStream {
    let closure = method_closure(krate, point, sig, self_ty, output);
    let method = point.chain_method();
    let label = sig.ident.to_string();
    quote!(.#method(#closure).named(#label))
}

/// The closure calling a method of an `#[agent]` block at its point: it takes the point's values
/// and the context, passes the context on when the method takes it, and converts the method's
/// result, so a type the method gets wrong is reported once, at the method.
fn method_closure(
    krate: &TokenStream,
    point: &Point,
    sig: &Signature,
    self_ty: &Type,
    output: &Type,
) -> TokenStream {
    let takes_context = sig
        .params
        .last()
        .is_some_and(|p| p.kind == ParamKind::InterceptContext);
    let tool_type = |tool: &Ident| {
        let tool = tool_ident(tool);
        quote!(#tool)
    };
    let (params, _) = point.types(krate, &quote!(#output), tool_type);
    let arguments: Vec<_> = (0..params.len())
        .map(|n| format_ident!("__a{}", n))
        .collect();
    let mut passed: Vec<TokenStream> = sig
        .params
        .iter()
        .zip(&arguments)
        .enumerate()
        .map(|(position, (param, argument))| {
            let argument = if sig.is_async {
                quote!(#krate::__private::Borrow::borrow(&#argument))
            } else {
                quote!(#argument)
            };
            match point.tool() {
                Some(tool) if position == 0 => {
                    let cast = cast(krate, point, &tool_type(tool), referent(&param.ty));
                    quote!(#cast(#argument))
                }
                // Spanned at the user's type, so a wrong one is reported there.
                _ => quote_spanned!(param.ty.span()=> #argument),
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
    let convert = conversion(krate, point, sig, &quote!(#output), &tool_type);
    let body = if sig.is_async {
        let snapshot = takes_context
            .then(|| quote!(let __ctx = #krate::__private::ContextSnapshot::of(__ctx);));
        quote! {
            let __this = #krate::__private::Arc::clone(&__this);
            #(let #arguments = #krate::__private::ToOwned::to_owned(#arguments);)*
            #snapshot
            async move { #convert(#callee(#(#passed),*).await) }
        }
    } else {
        quote!(#convert(#callee(#(#passed),*)))
    };
    quote! {{
        let __this = #krate::__private::Arc::clone(&__this);
        let _ = &__this;
        move |#(#arguments: #params,)* __ctx: &#krate::InterceptContext<'_>| {
            let _ = &__ctx;
            #body
        }
    }}
}

/// A typed after-tool interceptor takes `&<Tool output>` by contract — `&String` for a tool that
/// returns a `String` — so clippy's advice to take `&str` cannot be followed there.
pub(crate) fn after_tool_allowance() -> syn::Attribute {
    syn::parse_quote!(#[allow(clippy::ptr_arg)])
}
