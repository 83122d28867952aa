//! Phase one, parse: the items the macros apply to, read signature-first. A function's body is
//! kept as a token tree and re-emitted untouched (tracing's `MaybeItemFn` approach): it is never
//! parsed, so a macro costs the same for a one-line body as for a long one, and a syntax error in
//! a body is rustc's to report, once.

use proc_macro2::TokenStream;
use quote::{ToTokens, TokenStreamExt};
use syn::parse::{Parse, ParseStream};
use syn::{
    Attribute, Generics, Ident, ImplItem, LitStr, Path, Signature, Token, Type, Visibility, braced,
};

use crate::attr::{SkillAttr, ToolAttr};
use crate::naming::tool_name;
use crate::point::Point;
use crate::signature::{self, Signature as ParsedSignature};

/// A function — free, or in an impl block — with its body unparsed.
#[derive(Clone)]
pub(crate) struct FnItem {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    /// `default`, in a specializing impl.
    pub defaultness: Option<Token![default]>,
    pub sig: Signature,
    /// The body's brace group (or the `;` of a declaration), as written.
    pub body: TokenStream,
}

impl FnItem {
    /// Whether `input` starts a function (after its attributes and visibility).
    fn starts(input: ParseStream) -> bool {
        let fork = input.fork();
        fork.call(Attribute::parse_outer).is_ok()
            && fork.parse::<Visibility>().is_ok()
            && fork.parse::<Option<Token![default]>>().is_ok()
            && fork.parse::<Signature>().is_ok()
    }
}

impl Parse for FnItem {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        let defaultness = input.parse()?;
        let sig = input.parse()?;
        let body = if input.peek(Token![;]) {
            input.parse::<Token![;]>()?.into_token_stream()
        } else {
            let group: proc_macro2::Group = input.parse()?;
            if group.delimiter() != proc_macro2::Delimiter::Brace {
                return Err(syn::Error::new(
                    group.span(),
                    "expected the function's body",
                ));
            }
            group.into_token_stream()
        };
        Ok(FnItem {
            attrs,
            vis,
            defaultness,
            sig,
            body,
        })
    }
}

impl ToTokens for FnItem {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.append_all(&self.attrs);
        self.vis.to_tokens(tokens);
        self.defaultness.to_tokens(tokens);
        self.sig.to_tokens(tokens);
        self.body.to_tokens(tokens);
    }
}

/// One item of an impl block: a function (body unparsed), or anything else, as written.
pub(crate) enum ImplEntry {
    Fn(Box<FnItem>),
    Other(TokenStream),
}

/// An impl block, its header parsed and its functions read signature-first.
pub(crate) struct ImplBlock {
    pub attrs: Vec<Attribute>,
    pub generics: Generics,
    /// `Trait for` in a trait impl (only to report it).
    pub trait_: Option<Path>,
    pub self_ty: Type,
    pub items: Vec<ImplEntry>,
    /// The header's tokens, re-emitted as written: `unsafe impl<…> Trait for Type where …`.
    header: TokenStream,
    inner_attrs: Vec<Attribute>,
}

impl Parse for ImplBlock {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        // The header is every token before the body's braces; syn reads it as an impl with an
        // empty body, which parses no function.
        let mut header = TokenStream::new();
        while !input.is_empty() && !input.peek(syn::token::Brace) {
            let token: proc_macro2::TokenTree = input.parse()?;
            header.append(token);
        }
        let parsed: syn::ItemImpl = syn::parse2(quote::quote!(#header {}))?;
        let content;
        braced!(content in input);
        let inner_attrs = content.call(Attribute::parse_inner)?;
        let mut items = Vec::new();
        while !content.is_empty() {
            if FnItem::starts(&content) {
                items.push(ImplEntry::Fn(Box::new(content.parse()?)));
            } else {
                items.push(ImplEntry::Other(
                    content.parse::<ImplItem>()?.into_token_stream(),
                ));
            }
        }
        Ok(ImplBlock {
            attrs,
            generics: parsed.generics,
            trait_: parsed.trait_.map(|(_, path, _)| path),
            self_ty: *parsed.self_ty,
            items,
            header,
            inner_attrs,
        })
    }
}

impl ToTokens for ImplBlock {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.append_all(&self.attrs);
        self.header.to_tokens(tokens);
        let inner = &self.inner_attrs;
        let items = self.items.iter().map(|item| match item {
            ImplEntry::Fn(function) => function.to_token_stream(),
            ImplEntry::Other(other) => other.clone(),
        });
        tokens.extend(quote::quote!({ #(#inner)* #(#items)* }));
    }
}

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
    pub sig: &'a ParsedSignature,
    /// The name the model calls the tool by.
    pub name: String,
    pub description: String,
    pub param_docs: Vec<(Ident, LitStr)>,
    /// `#[tool(blocking)]`: the sync body runs on the blocking pool.
    pub blocking: Option<proc_macro2::Span>,
    pub target: Target,
}

impl<'a> ToolDef<'a> {
    pub(crate) fn new(
        attr: &ToolAttr,
        function: &FnItem,
        sig: &'a ParsedSignature,
        krate: TokenStream,
        target: Target,
    ) -> Self {
        ToolDef {
            krate,
            vis: function.vis.clone(),
            sig,
            name: tool_name(attr, sig),
            description: attr
                .description
                .as_ref()
                .map(LitStr::value)
                .unwrap_or_else(|| signature::doc_text(&function.attrs)),
            param_docs: attr.params.clone(),
            blocking: attr.blocking,
            target,
        }
    }
}

/// What one marked method is.
pub(crate) enum Role {
    Tool(ToolAttr),
    Skill(SkillAttr),
    Interceptor(Point),
}

/// A method with a role, its marker attribute removed.
pub(crate) struct Marked {
    pub role: Role,
    pub method: FnItem,
    pub sig: ParsedSignature,
    /// Whether its signature passed validation.
    pub sound: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn a_function_body_is_kept_as_written_and_never_parsed() {
        // `@@` is not Rust: a full parse of the body would fail.
        let function: FnItem = syn::parse2(quote! {
            /// Doc.
            pub async fn f(a: &str) -> u32 { @@ not rust @@ }
        })
        .expect("signature-only parse");
        assert_eq!(function.sig.ident, "f");
        assert!(function.body.to_string().contains("not rust"));
        assert!(
            function
                .to_token_stream()
                .to_string()
                .contains("pub async fn f")
        );
    }

    #[test]
    fn an_impl_block_reads_its_functions_signature_first_and_keeps_other_items() {
        let block: ImplBlock = syn::parse2(quote! {
            impl Desk where Desk: Send {
                const LIMIT: u32 = 3;
                /// A tool.
                #[tool]
                fn now(&self) -> String { @@ }
            }
        })
        .expect("impl block");
        assert!(block.trait_.is_none());
        assert_eq!(block.items.len(), 2);
        let ImplEntry::Fn(now) = &block.items[1] else {
            panic!("the second item is a function")
        };
        assert_eq!(now.sig.ident, "now");
        let text = block.to_token_stream().to_string();
        assert!(text.contains("where Desk : Send"), "{text}");
    }
}
