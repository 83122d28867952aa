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
use crate::signature::{ParamKind, Signature};
use crate::tool::free_function;

/// Where an interceptor, gate or after-interceptor sits.
pub(crate) enum Point {
    /// Before calls of one tool, named by its function.
    Tool(Ident),
    /// Before calls of every tool.
    AnyTool,
    /// Before every model turn.
    Turn,
    /// Before the skill runs.
    Skill,
    /// A gate on one tool's calls.
    GateTool(Ident),
    /// A gate on every tool's calls.
    GateAnyTool,
    /// A gate on every model turn.
    GateTurn,
    /// A gate on the skill.
    GateSkill,
    /// After calls of one tool.
    AfterTool(Ident),
    /// After calls of every tool.
    AfterAnyTool,
}

impl Point {
    /// The point an attribute names, from its name and its optional tool.
    pub(crate) fn of(macro_name: &str, tool: Option<Ident>) -> Point {
        match (macro_name, tool) {
            ("before_tool_call", Some(tool)) => Point::Tool(tool),
            ("before_tool_call", None) => Point::AnyTool,
            ("before_turn", _) => Point::Turn,
            ("gate", Some(tool)) => Point::GateTool(tool),
            ("gate", None) => Point::GateAnyTool,
            ("gate_turn", _) => Point::GateTurn,
            ("gate_skill", _) => Point::GateSkill,
            ("after_tool_call", Some(tool)) => Point::AfterTool(tool),
            ("after_tool_call", None) => Point::AfterAnyTool,
            _ => Point::Skill,
        }
    }

    /// Whether the attribute takes a tool's function name.
    pub(crate) fn takes_tool(macro_name: &str) -> bool {
        matches!(macro_name, "before_tool_call" | "gate" | "after_tool_call")
    }

    pub(crate) fn macro_name(&self) -> &'static str {
        match self {
            Point::Tool(_) | Point::AnyTool => "before_tool_call",
            Point::Turn => "before_turn",
            Point::Skill => "before_skill",
            Point::GateTool(_) | Point::GateAnyTool => "gate",
            Point::GateTurn => "gate_turn",
            Point::GateSkill => "gate_skill",
            Point::AfterTool(_) | Point::AfterAnyTool => "after_tool_call",
        }
    }

    /// The tool it names, if any.
    pub(crate) fn tool(&self) -> Option<&Ident> {
        match self {
            Point::Tool(tool) | Point::GateTool(tool) | Point::AfterTool(tool) => Some(tool),
            _ => None,
        }
    }

    pub(crate) fn is_gate(&self) -> bool {
        matches!(
            self,
            Point::GateTool(_) | Point::GateAnyTool | Point::GateTurn | Point::GateSkill
        )
    }

    /// How many parameters it takes before the optional trailing `&InterceptContext`.
    pub(crate) fn arity(&self) -> usize {
        match self {
            Point::AnyTool | Point::GateAnyTool => 2,
            Point::AfterAnyTool => 3,
            _ => 1,
        }
    }
}

/// The parameters an interceptor at `point` takes, as the user should write them.
pub(crate) fn expected_params(point: &Point) -> &'static str {
    match point {
        Point::Tool(_) | Point::GateTool(_) => {
            "one parameter, the tool's arguments by reference: `args: &<Tool>Args` (then optionally `ctx: &InterceptContext`)"
        }
        Point::AnyTool | Point::GateAnyTool => {
            "two parameters: `name: &str, args: &serde_json::Value` (then optionally `ctx: &InterceptContext`)"
        }
        Point::Turn | Point::GateTurn => {
            "one parameter, the outbound messages: `messages: &[Message]` (then optionally `ctx: &InterceptContext`)"
        }
        Point::Skill | Point::GateSkill => {
            "one parameter, the chosen skill's name: `skill: &str` (then optionally `ctx: &InterceptContext`)"
        }
        Point::AfterTool(_) => {
            "one parameter, the tool's output by reference: `out: &<Tool output>` (then optionally `ctx: &InterceptContext`)"
        }
        Point::AfterAnyTool => {
            "three parameters: `name: &str, args: &serde_json::Value, result: &serde_json::Value` (then optionally `ctx: &InterceptContext`)"
        }
    }
}

/// Check the parameter count (a trailing `&InterceptContext` is optional, and only last) and
/// that each is a reference.
pub(crate) fn check_params(
    point: &Point,
    sig: &Signature,
    fn_sig: &syn::Signature,
    errors: &mut Errors,
) {
    let wanted = point.arity();
    let contexts = sig
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::InterceptContext)
        .count();
    let context_last = sig
        .params
        .last()
        .is_none_or(|p| p.kind == ParamKind::InterceptContext || contexts == 0);
    if sig.params.len() - contexts != wanted || contexts > 1 || !context_last {
        let message = format!("#[{}] takes {}", point.macro_name(), expected_params(point));
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

/// The types a point's value parameters take, what a replacement must be and what a substitute
/// must be (`None` for a gate, which returns a `Verdict`). A tool is named by its function: on a
/// free function through the type alias `#[tool]` generates under the function's name (so a
/// misspelt name is one error, with rustc's suggestion), in an `#[agent]` block by its type.
pub(crate) fn point_types(
    krate: &TokenStream,
    point: &Point,
    output: &TokenStream,
    through_alias: bool,
) -> (Vec<TokenStream>, Option<(TokenStream, TokenStream)>) {
    let value = quote!(#krate::__private::serde_json::Value);
    let message = quote!(#krate::Message);
    let tool_type = |tool: &Ident| {
        if through_alias {
            quote!(#tool)
        } else {
            let tool_type = crate::tool::tool_ident(tool);
            quote!(#tool_type)
        }
    };
    let args_of = |tool: &Ident| {
        let tool_type = tool_type(tool);
        quote!(<#tool_type as #krate::Tool>::Args)
    };
    let output_of = |tool: &Ident| {
        let tool_type = tool_type(tool);
        quote!(<#tool_type as #krate::Tool>::Output)
    };
    match point {
        Point::Tool(tool) => {
            let args = args_of(tool);
            (vec![quote!(&#args)], Some((args, output_of(tool))))
        }
        Point::GateTool(tool) => {
            let args = args_of(tool);
            (vec![quote!(&#args)], None)
        }
        Point::AnyTool => (
            vec![quote!(&str), quote!(&#value)],
            Some((value.clone(), value)),
        ),
        Point::GateAnyTool => (vec![quote!(&str), quote!(&#value)], None),
        Point::Turn => (
            vec![quote!(&[#message])],
            Some((quote!(::std::vec::Vec<#message>), output.clone())),
        ),
        Point::GateTurn => (vec![quote!(&[#message])], None),
        Point::Skill => (
            vec![quote!(&str)],
            Some((quote!(::std::string::String), output.clone())),
        ),
        Point::GateSkill => (vec![quote!(&str)], None),
        Point::AfterTool(tool) => {
            let out = output_of(tool);
            (vec![quote!(&#out)], Some((out.clone(), out)))
        }
        Point::AfterAnyTool => (
            vec![quote!(&str), quote!(&#value), quote!(&#value)],
            Some((value.clone(), value)),
        ),
    }
}

/// An interceptor attribute on a free function.
pub(crate) fn expand(macro_name: &str, args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = InterceptorAttr::parse(args, macro_name, Point::takes_tool(macro_name), &mut errors);
    let krate = krate(&attr.krate);
    let point = Point::of(macro_name, attr.tool);
    let (function, sig) = match free_function(item, macro_name, "an interceptor", &mut errors) {
        Ok(parsed) => parsed,
        Err(tokens) => return tokens,
    };
    check_params(&point, &sig, &function.sig, &mut errors);
    let sound = errors.is_empty();
    let checks = if sound {
        free_function_checks(&krate, &point, &sig)
    } else {
        quote!()
    };
    let mut function = function;
    if matches!(point, Point::AfterTool(_)) {
        function.attrs.push(after_tool_allowance());
    }
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

/// What rustc must check of a free function at `point`: its parameter is the named tool's
/// arguments (or output), and it returns a decision of the right types — or, for a gate, a
/// verdict. Turn and skill interceptors are checked where they are registered, where the agent's
/// output type is known.
fn free_function_checks(krate: &TokenStream, point: &Point, sig: &Signature) -> TokenStream {
    let mut checks = match point.tool() {
        Some(tool) => tool_param_check(krate, point, &quote!(#tool), sig),
        None => quote!(),
    };
    if point.is_gate() {
        checks.extend(verdict_check(krate, sig));
    } else if !matches!(point, Point::Turn | Point::Skill) {
        let (_, decided) = point_types(krate, point, &quote!(()), true);
        if let Some((replacement, substitute)) = decided {
            checks.extend(decision_check(krate, sig, replacement, substitute));
        }
    }
    checks
}

/// The first parameter of a tool's interceptor or gate must be that tool's arguments (its output,
/// after the call), checked by rustc at the user's type.
pub(crate) fn tool_param_check(
    krate: &TokenStream,
    point: &Point,
    tool_type: &TokenStream,
    sig: &Signature,
) -> TokenStream {
    let Some(first) = sig.params.first() else {
        return quote!();
    };
    let param_ty = match &first.ty {
        Type::Reference(reference) => &*reference.elem,
        other => other,
    };
    let check = if matches!(point, Point::AfterTool(_)) {
        quote_spanned!(param_ty.span()=> #krate::__private::assert_output_of::<#tool_type, #param_ty>();)
    } else {
        quote_spanned!(param_ty.span()=> #krate::__private::assert_arguments_of::<#tool_type, #param_ty>();)
    };
    quote! {
        const _: () = {
            #[allow(dead_code)]
            fn __check() { #check }
        };
    }
}

/// A gate must return a `Verdict` (or a `Result` of one).
pub(crate) fn verdict_check(krate: &TokenStream, sig: &Signature) -> TokenStream {
    let returned = &sig.returned.written;
    let check = quote_spanned! {returned.span()=>
        #krate::__private::assert_verdict::<#returned, _>();
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

/// A typed after-tool interceptor takes `&<Tool output>` by contract — `&String` for a tool that
/// returns a `String` — so clippy's advice to take `&str` cannot be followed there.
pub(crate) fn after_tool_allowance() -> syn::Attribute {
    syn::parse_quote!(#[allow(clippy::ptr_arg)])
}
