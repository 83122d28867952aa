//! Names: the types generated from a function's name, and the closest match for a misspelling.

use proc_macro2::Ident;
use syn::LitStr;

use crate::attr::ToolAttr;
use crate::signature::Signature;

/// `get_weather` → `GetWeather`, keeping the span so errors point at the user's name.
pub(crate) fn pascal(ident: &Ident, suffix: &str) -> Ident {
    let text = ident.to_string();
    let text = text.strip_prefix("r#").unwrap_or(&text);
    let mut pascal = String::with_capacity(text.len() + suffix.len());
    for word in text.split('_').filter(|word| !word.is_empty()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            pascal.extend(first.to_uppercase());
            pascal.push_str(chars.as_str());
        }
    }
    pascal.push_str(suffix);
    Ident::new(&pascal, ident.span())
}

/// The candidate closest to `name`, if it is close enough to be a likely misspelling.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance between two short names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

/// The tool type's name for a tool function.
pub(crate) fn tool_ident(function: &Ident) -> Ident {
    pascal(function, "")
}

/// The argument type's name for a tool function.
pub(crate) fn args_ident(function: &Ident) -> Ident {
    pascal(function, "Args")
}

/// The name the model calls it by: `name = "…"`, else the function's name.
pub(crate) fn tool_name(attr: &ToolAttr, sig: &Signature) -> String {
    attr.name
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| sig.ident.to_string().trim_start_matches("r#").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    #[test]
    fn snake_case_becomes_pascal_case() {
        let ident = Ident::new("get_weather", Span::call_site());
        assert_eq!(pascal(&ident, "Args").to_string(), "GetWeatherArgs");
    }

    #[test]
    fn a_misspelling_finds_the_closest_name_and_nonsense_finds_none() {
        let tools = ["get_weather", "write_file"];
        assert_eq!(closest("get_wether", tools), Some("get_weather"));
        assert_eq!(closest("launch", tools), None);
    }
}
