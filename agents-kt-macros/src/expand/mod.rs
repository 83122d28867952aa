//! Phase three, expand: the code generated for items that passed validation. One file per
//! macro; `#[agent]` reuses the tool, skill and interceptor expansions for its methods.

pub(crate) mod agent;
pub(crate) mod interceptor;
pub(crate) mod skill;
pub(crate) mod tool;

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

use crate::ast::FnItem;
use crate::errors::Errors;

/// The function under one of the attribute macros, read signature-first; or, when it is not a
/// function, the tokens to emit instead (the user's item and the error).
pub(crate) fn free_function(
    item: TokenStream,
    macro_name: &str,
    errors: &mut Errors,
) -> Result<FnItem, TokenStream> {
    match syn::parse2::<FnItem>(item.clone()) {
        Ok(function)
            if function.sig.receiver().is_none()
                && crate::enclosing::in_impl_block(
                    &function.sig.ident.to_string(),
                    function.sig.ident.span(),
                ) =>
        {
            // What it would generate beside the function cannot live in an impl block: one
            // error here, and the function left as it is.
            errors.push(syn::Error::new(
                function.sig.ident.span(),
                format!(
                    "#[{macro_name}] on an associated function of a plain impl block: put the block under `#[agent]`, which registers it with its agent, or move the function out of the impl"
                ),
            ));
            let errors = errors.to_compile_errors();
            Err(quote!(#function #errors))
        }
        Ok(function) => Ok(function),
        Err(_) => {
            errors.push(not_a_function(&item, macro_name));
            let errors = errors.to_compile_errors();
            Err(quote!(#item #errors))
        }
    }
}

/// The error for a macro applied to something that is not a function, at its keyword.
fn not_a_function(item: &TokenStream, macro_name: &str) -> syn::Error {
    let keyword = item
        .clone()
        .into_iter()
        .find(|token| {
            matches!(token, proc_macro2::TokenTree::Ident(ident) if [
                "struct", "enum", "impl", "trait", "const", "static", "mod", "type", "union", "use",
            ]
            .iter()
            .any(|keyword| ident == keyword))
        })
        .map_or_else(|| item.span(), |token| token.span());
    syn::Error::new(
        keyword,
        format!(
            "#[{macro_name}] applies to a function: write `fn name(arguments) -> Output` and put #[{macro_name}] on it"
        ),
    )
}

/// `tokens` with every span set to `span`: a trait path built from interpolated pieces (the crate
/// path, the user's types) then reports its error at one token of the user's, not across
/// generated code.
pub(crate) fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = proc_macro2::TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}
