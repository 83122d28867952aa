//! Reading a function's signature (part of the parse phase): its receiver, parameters (telling context handles apart from
//! arguments) and what it returns. Bodies are never parsed.

use syn::{FnArg, GenericArgument, Ident, Pat, PathArguments, ReturnType, Type};

/// Whether a function takes `self` (`valid` requires `&self` when it does).
pub(crate) enum Receiver {
    /// No `self`: a free or associated function.
    None,
    /// `self` in some form.
    Ref,
}

/// What a parameter is to the framework.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParamKind {
    /// An argument: part of the tool's `Args` or the skill's input.
    Value,
    /// `&ToolContext`: the running tool call's handle.
    ToolContext,
    /// `SkillContext<OUT>`: the code skill's handle on its run.
    SkillContext,
    /// `&InterceptContext`: whose call an interceptor or gate judges.
    InterceptContext,
}

pub(crate) struct Param {
    /// The name, when the pattern is a plain identifier.
    pub ident: Option<Ident>,
    pub pat: Pat,
    pub ty: Type,
    pub kind: ParamKind,
}

/// What the function returns: `T`, or `Result<T, E>` (by its last path segment).
pub(crate) struct Returned {
    /// `T`.
    pub ty: Type,
    /// Whether it is a `Result`.
    pub fallible: bool,
    /// The whole return type as written (`()` when omitted).
    pub written: Type,
    /// Whether the return type was omitted.
    pub omitted: bool,
}

pub(crate) struct Signature {
    pub ident: Ident,
    pub is_async: bool,
    pub receiver: Receiver,
    pub params: Vec<Param>,
    pub returned: Returned,
}

impl Signature {
    /// The parameters that are arguments (not context handles).
    pub(crate) fn values(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| p.kind == ParamKind::Value)
    }
}

/// Read `sig` into what the macros need to know of it. Checks are `valid`'s: this only reads.
pub(crate) fn read(sig: &syn::Signature) -> Signature {
    let mut receiver = Receiver::None;
    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(_) => receiver = Receiver::Ref,
            FnArg::Typed(typed) => {
                let ident = match &*typed.pat {
                    Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                        Some(pat.ident.clone())
                    }
                    _ => None,
                };
                params.push(Param {
                    ident,
                    pat: (*typed.pat).clone(),
                    ty: (*typed.ty).clone(),
                    kind: kind_of(&typed.ty),
                });
            }
        }
    }
    Signature {
        ident: sig.ident.clone(),
        is_async: sig.asyncness.is_some(),
        receiver,
        params,
        returned: returned(&sig.output),
    }
}

/// Whether a parameter type is one of the framework's context handles, by its last path segment.
fn kind_of(ty: &Type) -> ParamKind {
    let inner = match ty {
        Type::Reference(reference) => &*reference.elem,
        other => other,
    };
    match (ty, last_segment(inner).as_deref()) {
        (Type::Reference(_), Some("ToolContext")) => ParamKind::ToolContext,
        (Type::Reference(_), Some("InterceptContext")) => ParamKind::InterceptContext,
        (Type::Path(_), Some("SkillContext")) => ParamKind::SkillContext,
        _ => ParamKind::Value,
    }
}

fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn returned(output: &ReturnType) -> Returned {
    let written: Type = match output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => (**ty).clone(),
    };
    if let Type::Path(path) = &written
        && let Some(segment) = path.path.segments.last()
        && segment.ident == "Result"
        && let PathArguments::AngleBracketed(args) = &segment.arguments
        && let Some(GenericArgument::Type(ok)) = args.args.first()
    {
        return Returned {
            ty: ok.clone(),
            fallible: true,
            written,
            omitted: false,
        };
    }
    Returned {
        ty: written.clone(),
        fallible: false,
        omitted: matches!(output, ReturnType::Default),
        written,
    }
}

/// The text of the item's doc comments, lines trimmed and joined.
pub(crate) fn doc_text(attrs: &[syn::Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) => Some(text.value().trim().to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    lines.join("\n").trim().to_string()
}

/// Write `&InterceptContext` as `&InterceptContext<'_>` in `sig`: an `async fn` may not elide a
/// path's lifetime, and users should not have to know the context has one.
pub(crate) fn name_context_lifetime(sig: &mut syn::Signature) {
    for input in &mut sig.inputs {
        let FnArg::Typed(typed) = input else { continue };
        let Type::Reference(reference) = &mut *typed.ty else {
            continue;
        };
        let Type::Path(path) = &mut *reference.elem else {
            continue;
        };
        if let Some(last) = path.path.segments.last_mut()
            && last.ident == "InterceptContext"
            && last.arguments.is_none()
        {
            last.arguments = PathArguments::AngleBracketed(syn::parse_quote!(<'_>));
        }
    }
}
