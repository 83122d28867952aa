//! Parsing the macros' attribute arguments. Every unknown key is an error at that key listing the
//! valid ones.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Path, Token, Type};

use crate::errors::Errors;

/// Parse `key = value, …` arguments, handing each key to `on_key`; unknown keys are reported
/// with the list of `valid` ones.
fn parse_keys(
    args: TokenStream,
    macro_name: &str,
    valid: &[&str],
    errors: &mut Errors,
    mut on_key: impl FnMut(&str, &ParseNestedMeta) -> syn::Result<()>,
) {
    let parser = syn::meta::parser(|meta| {
        let path = &meta.path;
        let key = quote::quote!(#path).to_string().replace(' ', "");
        if valid.contains(&key.as_str()) {
            on_key(&key, &meta)
        } else {
            Err(meta.error(format!(
                "unknown key `{key}` for #[{macro_name}]: valid keys are {}",
                valid.join(", ")
            )))
        }
    });
    if let Err(error) = parser.parse2(args) {
        errors.push(error);
    }
}

/// `#[tool(name = "...", description = "...", params(arg = "..."), blocking, crate = path)]`
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub name: Option<LitStr>,
    pub description: Option<LitStr>,
    pub params: Vec<(Ident, LitStr)>,
    /// The span of a `blocking` key: run the sync body on the blocking pool.
    pub blocking: Option<proc_macro2::Span>,
    pub krate: Option<Path>,
}

impl ToolAttr {
    pub(crate) fn parse(args: TokenStream, errors: &mut Errors) -> Self {
        let mut attr = ToolAttr::default();
        parse_keys(
            args,
            "tool",
            &["name", "description", "params", "blocking", "crate"],
            errors,
            |key, meta| {
                match key {
                    "blocking" => attr.blocking = Some(meta.path.span()),
                    "name" => attr.name = Some(meta.value()?.parse()?),
                    "description" => attr.description = Some(meta.value()?.parse()?),
                    "params" => meta.parse_nested_meta(|param| {
                        let ident = param.path.require_ident()?.clone();
                        let text: LitStr = param.value()?.parse()?;
                        attr.params.push((ident, text));
                        Ok(())
                    })?,
                    _ => attr.krate = Some(meta.value()?.parse()?),
                }
                Ok(())
            },
        );
        attr
    }
}

/// `#[skill(name = "...", description = "...", crate = path)]`
#[derive(Default)]
pub(crate) struct SkillAttr {
    pub name: Option<LitStr>,
    pub description: Option<LitStr>,
    pub krate: Option<Path>,
}

impl SkillAttr {
    pub(crate) fn parse(args: TokenStream, errors: &mut Errors) -> Self {
        let mut attr = SkillAttr::default();
        parse_keys(
            args,
            "skill",
            &["name", "description", "crate"],
            errors,
            |key, meta| {
                match key {
                    "name" => attr.name = Some(meta.value()?.parse()?),
                    "description" => attr.description = Some(meta.value()?.parse()?),
                    _ => attr.krate = Some(meta.value()?.parse()?),
                }
                Ok(())
            },
        );
        attr
    }
}

/// `#[agent(input = Type, output = Type, grants(allow(tool, ..), confirm(tool, ..)), crate = path)]`
#[derive(Default)]
pub(crate) struct AgentAttr {
    pub input: Option<Type>,
    pub output: Option<Type>,
    /// The tools granted, each with whether its calls need confirming; `None`: no `grants`.
    pub grants: Option<Vec<(Ident, bool)>>,
    pub krate: Option<Path>,
}

impl AgentAttr {
    pub(crate) fn parse(args: TokenStream, errors: &mut Errors) -> Self {
        let mut attr = AgentAttr::default();
        parse_keys(
            args,
            "agent",
            &["input", "output", "grants", "crate"],
            errors,
            |key, meta| {
                match key {
                    "input" => attr.input = Some(meta.value()?.parse()?),
                    "output" => attr.output = Some(meta.value()?.parse()?),
                    "grants" => {
                        let grants = attr.grants.get_or_insert_with(Vec::new);
                        meta.parse_nested_meta(|kind| {
                            let confirm = if kind.path.is_ident("allow") {
                                false
                            } else if kind.path.is_ident("confirm") {
                                true
                            } else {
                                return Err(kind
                                    .error("a grant is `allow(tool, ..)` or `confirm(tool, ..)`"));
                            };
                            kind.parse_nested_meta(|tool| {
                                grants.push((tool.path.require_ident()?.clone(), confirm));
                                Ok(())
                            })
                        })?
                    }
                    _ => attr.krate = Some(meta.value()?.parse()?),
                }
                Ok(())
            },
        );
        attr
    }
}

/// `#[before_tool_call]`, `#[before_tool_call(tool_fn)]`, each optionally with `crate = path`;
/// also `#[before_turn]` and `#[before_skill]` (which take no tool).
#[derive(Default)]
pub(crate) struct InterceptorAttr {
    pub tool: Option<Ident>,
    pub krate: Option<Path>,
}

impl InterceptorAttr {
    pub(crate) fn parse(
        args: TokenStream,
        macro_name: &str,
        takes_tool: bool,
        errors: &mut Errors,
    ) -> Self {
        let parser = |input: ParseStream| -> syn::Result<Self> {
            let mut attr = InterceptorAttr::default();
            if takes_tool && input.peek(Ident) && !input.peek2(Token![=]) {
                attr.tool = Some(input.parse()?);
                if !input.is_empty() {
                    input.parse::<Token![,]>()?;
                }
            }
            let rest: TokenStream = input.parse()?;
            let mut inner = Errors::default();
            parse_keys(rest, macro_name, &["crate"], &mut inner, |_, meta| {
                attr.krate = Some(meta.value()?.parse()?);
                Ok(())
            });
            match inner.into_error() {
                Some(error) => Err(error),
                None => Ok(attr),
            }
        };
        match parser.parse2(args) {
            Ok(attr) => attr,
            Err(error) => {
                errors.push(error);
                InterceptorAttr::default()
            }
        }
    }
}

/// The runtime crate's path in generated code: `::agents_kt`, or what `crate = path` says.
pub(crate) fn krate(path: &Option<Path>) -> TokenStream {
    match path {
        Some(path) => quote::quote!(#path),
        None => quote::quote!(::agents_kt),
    }
}

/// The attributes of a generated struct the model exchanges as JSON: serde and schemars derives
/// reached through the runtime crate, so users need neither crate in their manifest.
pub(crate) fn json_struct_attributes(krate: &TokenStream) -> TokenStream {
    let serde_crate = format!("{}::__private::serde", quote::quote!(#krate)).replace(' ', "");
    let schemars_crate = format!("{}::__private::schemars", quote::quote!(#krate)).replace(' ', "");
    quote::quote! {
        #[derive(
            #krate::__private::serde::Deserialize,
            #krate::__private::serde::Serialize,
            #krate::__private::schemars::JsonSchema,
            ::core::clone::Clone,
            ::core::fmt::Debug
        )]
        #[serde(crate = #serde_crate)]
        #[schemars(crate = #schemars_crate)]
    }
}
