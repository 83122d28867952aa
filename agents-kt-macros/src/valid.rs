//! Phase two, validate: every check the macros make, in one place, before anything is generated.
//! Each check reports at the user's token what is wrong and what to write instead, and says
//! whether the item can be expanded; when it cannot, `fallback` emits stubs so that nothing
//! downstream reports the same mistake again.

use quote::quote;
use syn::Type;

use crate::ast::{ImplBlock, Marked, Role, ToolDef};
use crate::errors::Errors;
use crate::naming::{args_ident, closest, tool_ident, tool_name};
use crate::point::{Point, Stage};
use crate::signature::{ParamKind, Signature};

/// What no macro of this crate accepts in a signature: generics, variadics, `self` taken other
/// than by `&self`.
pub(crate) fn signature(sig: &syn::Signature, what: &str, errors: &mut Errors) -> bool {
    let mut sound = true;
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.at(
            &sig.generics,
            format!("{what} cannot be generic: it is registered as one concrete function; use concrete types"),
        );
        sound = false;
    }
    if let Some(variadic) = &sig.variadic {
        errors.at(variadic, format!("{what} cannot be variadic"));
        sound = false;
    }
    for input in &sig.inputs {
        if let syn::FnArg::Receiver(r) = input
            && !(r.reference.is_some() && r.mutability.is_none() && r.colon_token.is_none())
        {
            errors.at(
                r,
                format!("{what} must take `&self`: the agent shares itself between concurrent calls, so it cannot give away or mutably borrow `self`"),
            );
            sound = false;
        }
    }
    sound
}

/// A free function under `#[macro_name]` takes no `self`: a method belongs in an `#[agent]` block.
pub(crate) fn no_self(sig: &syn::Signature, macro_name: &str, errors: &mut Errors) -> bool {
    if sig.receiver().is_none() {
        return true;
    }
    errors.at(
        &sig.inputs,
        format!("#[{macro_name}] on a method: put it in an `#[agent]` impl block, which registers it with its agent, or make it a free fn without `self`"),
    );
    false
}

/// A tool: a description, documented parameters that exist, plainly named arguments, the right
/// context handle, `blocking` only on a sync body.
pub(crate) fn tool(def: &ToolDef, errors: &mut Errors) -> bool {
    let sig = def.sig;
    let mut sound = true;
    if def.description.is_empty() {
        errors.at(
            &sig.ident,
            "this tool has no description: add a doc comment (`/// What it does`) or #[tool(description = \"...\")]; the model reads it to decide when to call the tool",
        );
    }
    let names: Vec<String> = sig
        .values()
        .filter_map(|p| p.ident.as_ref().map(ToString::to_string))
        .collect();
    for (documented, _) in &def.param_docs {
        if !names.contains(&documented.to_string()) {
            let listed = if names.is_empty() {
                "(none)".to_string()
            } else {
                names.join(", ")
            };
            errors.at(
                documented,
                format!(
                    "`{documented}` is not a parameter of this tool; its parameters are: {listed}"
                ),
            );
        }
    }
    for param in &sig.params {
        match param.kind {
            ParamKind::SkillContext | ParamKind::InterceptContext => {
                errors.at(&param.ty, "a tool receives `&ToolContext`, not `SkillContext` or `&InterceptContext`: skills call tools, tools do not run skills");
                sound = false;
            }
            ParamKind::Value if matches!(param.ty, syn::Type::Reference(_)) => {
                errors.at(&param.ty, borrowed_parameter(&param.ty));
                sound = false;
            }
            ParamKind::Value if param.ident.is_none() => {
                errors.at(&param.pat, "name this parameter with a plain identifier: it becomes the argument's JSON field name");
                sound = false;
            }
            _ => {}
        }
    }
    if let (Some(span), true) = (def.blocking, sig.is_async) {
        errors.push(syn::Error::new(
            span,
            "`blocking` runs a synchronous body on the blocking pool; an `async fn` tool is already polled on the runtime: drop `blocking`, or make the function sync",
        ));
    }
    sound
}

/// Why a tool parameter cannot be borrowed, and the owned type to write instead.
fn borrowed_parameter(ty: &syn::Type) -> String {
    let syn::Type::Reference(reference) = ty else {
        return String::new();
    };
    let inner = &reference.elem;
    let owned = match &**inner {
        syn::Type::Path(path) if path.path.is_ident("str") => "String".to_string(),
        syn::Type::Path(path) if path.path.is_ident("Path") => "PathBuf".to_string(),
        syn::Type::Slice(slice) => {
            let element = &slice.elem;
            format!("Vec<{}>", quote::quote!(#element))
        }
        other => quote::quote!(#other).to_string(),
    };
    format!(
        "a tool parameter is owned: the model's JSON arguments are read into it, so nothing outlives the call to borrow from — use `{owned}`"
    )
}

/// The names `#[tool]` generates (`GetWeather`, `GetWeatherArgs`) are not the names of the
/// function's own argument or output types (`fn report() -> Report` would define `Report`
/// twice). When they are, nothing may be generated, not even stubs.
pub(crate) fn tool_names_free(sig: &Signature, errors: &mut Errors) -> bool {
    let generated = [tool_ident(&sig.ident), args_ident(&sig.ident)];
    let mut free = true;
    for ty in sig.values().map(|p| &p.ty).chain([&sig.returned.ty]) {
        if let Type::Path(path) = ty
            && let Some(last) = path.path.segments.last()
            && generated.contains(&last.ident)
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

/// A code skill: plainly named arguments and the skill's own context handle.
pub(crate) fn skill(sig: &Signature, errors: &mut Errors) -> bool {
    let mut sound = true;
    for param in &sig.params {
        match param.kind {
            ParamKind::ToolContext | ParamKind::InterceptContext => {
                errors.at(
                    &param.ty,
                    "a skill receives `SkillContext<OUT>`, not `&ToolContext` or `&InterceptContext`",
                );
                sound = false;
            }
            ParamKind::Value if param.ident.is_none() => {
                errors.at(&param.pat, "name this parameter with a plain identifier: it becomes a field of the skill's input");
                sound = false;
            }
            _ => {}
        }
    }
    sound
}

/// An interceptor, gate or after-interceptor: the point's parameters, by reference, with an
/// optional trailing `&InterceptContext`; and a return type that can be a decision (or verdict).
pub(crate) fn interceptor(
    point: &Point,
    sig: &Signature,
    fn_sig: &syn::Signature,
    errors: &mut Errors,
) -> bool {
    let attribute = point.attribute();
    let contexts = sig
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::InterceptContext)
        .count();
    let context_last = sig
        .params
        .last()
        .is_none_or(|p| p.kind == ParamKind::InterceptContext || contexts == 0);
    let mut sound = true;
    if sig.params.len() - contexts != point.arity() || contexts > 1 || !context_last {
        let message = format!(
            "#[{attribute}] takes {} (then optionally `ctx: &InterceptContext`)",
            point.expected_params()
        );
        if fn_sig.inputs.is_empty() {
            errors.push(syn::Error::new(fn_sig.paren_token.span.join(), message));
        } else {
            errors.at(&fn_sig.inputs, message);
        }
        sound = false;
    } else {
        for param in &sig.params {
            if !matches!(param.ty, Type::Reference(_)) {
                let ty = &param.ty;
                errors.at(
                    ty,
                    format!("take this by reference (`&{}`): every interceptor in the chain observes the same value", quote!(#ty)),
                );
                sound = false;
            }
        }
    }
    let what = if point.stage == Stage::Gate {
        "a gate returns"
    } else {
        "an interceptor returns"
    };
    let returned = &sig.returned;
    if returned.omitted {
        errors.push(syn::Error::new(
            fn_sig.paren_token.span.close(),
            format!(
                "{what} {}: add it after the parameters, as `-> …`",
                point.expected_return()
            ),
        ));
        sound = false;
    } else if is_bool(&returned.written) {
        let instead = if point.stage == Stage::Gate {
            "return `Verdict::Allow` or `Verdict::deny(reason)` instead of `true`/`false`"
        } else {
            "return `Decision::Proceed` or `Decision::deny(reason)` instead of `true`/`false`"
        };
        errors.at(
            &returned.written,
            format!("{what} {}, not `bool`: {instead}", point.expected_return()),
        );
        sound = false;
    } else if point.stage == Stage::Gate && names_decision(&returned.ty) {
        errors.at(
            &returned.written,
            format!(
                "a gate returns {}, not a `Decision`: a gate only allows or denies — return `Verdict::Allow` or `Verdict::deny(reason)`, and rewrite or substitute in an interceptor instead",
                point.expected_return()
            ),
        );
        sound = false;
    }
    sound
}

/// Whether `ty` is written as a `Decision<..>` (by its last path segment).
fn names_decision(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
        && path.path.segments.last().is_some_and(|last| last.ident == "Decision"))
}

fn is_bool(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none() && path.path.is_ident("bool"))
}

/// An `#[agent]` block is an inherent, non-generic impl.
pub(crate) fn agent_block(block: &ImplBlock, errors: &mut Errors) {
    if let Some(trait_path) = &block.trait_ {
        errors.at(
            trait_path,
            "#[agent] applies to an inherent impl block (`impl MyAgent { … }`), not a trait impl",
        );
    }
    if !block.generics.params.is_empty() {
        errors.at(
            &block.generics,
            "an #[agent] type cannot be generic: its tools are registered as concrete types",
        );
    }
}

/// With `grants(..)` declared, every `#[tool]` of the block is granted: the agent may call only
/// granted tools, so one left out would fail `build` — said here, at the tool's name.
pub(crate) fn agent_grants(
    grants: &Option<Vec<(syn::Ident, bool)>>,
    marked: &[Marked],
    errors: &mut Errors,
) {
    let Some(grants) = grants else {
        return;
    };
    for entry in marked.iter().filter(|m| matches!(m.role, Role::Tool(_))) {
        let tool = &entry.sig.ident;
        if !grants.iter().any(|(granted, _)| granted == tool) {
            errors.at(
                tool,
                format!(
                    "tool `{tool}` is not granted: with `grants(..)` an agent may call only the tools granted; add it to `allow(..)` or `confirm(..)`"
                ),
            );
        }
    }
}

/// Tool names are unique in an agent, and every typed interceptor names a tool of its block.
/// Returns, per entry, whether it can be registered.
pub(crate) fn agent_tools(marked: &[Marked], errors: &mut Errors) -> Vec<bool> {
    let mut sound = vec![true; marked.len()];
    let mut seen: Vec<(String, &syn::Ident)> = Vec::new();
    let tool_fns: Vec<String> = marked
        .iter()
        .filter(|m| matches!(m.role, Role::Tool(_)))
        .map(|m| m.sig.ident.to_string())
        .collect();
    for (index, entry) in marked.iter().enumerate() {
        match &entry.role {
            Role::Tool(attr) => {
                let name = tool_name(attr, &entry.sig);
                if let Some((_, first)) = seen.iter().find(|(existing, _)| *existing == name) {
                    let span = attr
                        .name
                        .as_ref()
                        .map_or(entry.sig.ident.span(), |n| n.span());
                    errors.push(syn::Error::new(
                        span,
                        format!("a second tool is named `{name}` (the first is `{first}`): tool names must be unique within an agent; rename one with #[tool(name = \"...\")]"),
                    ));
                } else {
                    seen.push((name, &entry.sig.ident));
                }
            }
            Role::Interceptor(point) => {
                let Some(tool) = point.tool() else { continue };
                if tool_fns.contains(&tool.to_string()) {
                    continue;
                }
                let suggestion = closest(&tool.to_string(), tool_fns.iter().map(String::as_str))
                    .map(|close| format!("; did you mean `{close}`?"))
                    .unwrap_or_else(|| {
                        if tool_fns.is_empty() {
                            "; this block has no #[tool] methods".to_string()
                        } else {
                            format!("; its tools are: {}", tool_fns.join(", "))
                        }
                    });
                errors.at(
                    tool,
                    format!("no #[tool] named `{tool}` in this #[agent] block{suggestion}"),
                );
                sound[index] = false;
            }
            Role::Skill(_) => {}
        }
    }
    sound
}
