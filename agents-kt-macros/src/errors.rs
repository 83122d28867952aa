//! Collecting several errors so one compile reports them all.

use proc_macro2::TokenStream;

/// Errors found so far, combined into one `syn::Error`.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(existing) => existing.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub(crate) fn at(&mut self, spanned: impl quote::ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(spanned, message));
    }

    pub(crate) fn into_error(self) -> Option<syn::Error> {
        self.0
    }

    /// `compile_error!` invocations for every error, or nothing.
    pub(crate) fn to_compile_errors(&self) -> TokenStream {
        self.0
            .as_ref()
            .map(syn::Error::to_compile_error)
            .unwrap_or_default()
    }
}
