//! Whether one JSON schema's values fit another's: the check a typed binding makes before it
//! trusts a peer — an MCP tool's arguments (ours must fit the server's input schema), an A2A
//! agent's input (ours must fit its card's) and output (its must fit ours).

use serde_json::{Map, Value};

/// Who the two sides of a check are, as its error names them.
#[derive(Clone, Copy)]
pub(crate) struct Sides<'a> {
    /// The side whose values are sent (`the arguments type`).
    pub ours: &'a str,
    /// The side that takes them (`the server`).
    pub theirs: &'a str,
}

/// Whether arguments described by `ours` (a schemars root schema, `$defs` included) fit the
/// server's `theirs`: every property the server requires is one of ours and required; every
/// property of ours is one the server takes (unless it takes any); and where both name a JSON
/// type, ours is one of the server's (an integer fits a number). The error names the property.
pub(crate) fn fits(ours: &Value, theirs: &Value, sides: Sides<'_>) -> Result<(), String> {
    let Sides {
        ours: we,
        theirs: they,
    } = sides;
    let empty = Map::new();
    let properties = |schema: &Value| -> Map<String, Value> {
        schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty)
            .clone()
    };
    let required = |schema: &Value| -> Vec<String> {
        schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(|name| name.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (our_properties, their_properties) = (properties(ours), properties(theirs));
    let (our_required, their_required) = (required(ours), required(theirs));
    for name in &their_required {
        if !our_properties.contains_key(name) {
            return Err(format!(
                "{they} requires the property `{name}`, which {we} lacks"
            ));
        }
        if !our_required.contains(name) {
            return Err(format!(
                "{they} requires the property `{name}`, which {we} makes optional"
            ));
        }
    }
    let open = theirs
        .get("additionalProperties")
        .is_some_and(|extra| extra != &Value::Bool(false));
    for (name, schema) in &our_properties {
        let Some(their_schema) = their_properties.get(name) else {
            if open {
                continue;
            }
            return Err(format!(
                "{we} has the property `{name}`, which {they} does not take"
            ));
        };
        let (ours, theirs) = (types(schema, ours), types(their_schema, theirs));
        if ours.is_empty() || theirs.is_empty() {
            continue; // One side does not say: nothing to compare.
        }
        let fits = ours.iter().all(|ty| {
            theirs.contains(ty) || (ty == "integer" && theirs.iter().any(|t| t == "number"))
        });
        if !fits {
            return Err(format!(
                "the property `{name}` is {} in {we}, but {they} takes {}",
                ours.join(" or "),
                theirs.join(" or ")
            ));
        }
    }
    Ok(())
}

/// The JSON types a property's schema allows, `null` left out (an optional field is `null` when
/// absent, which says nothing about its type), following a local `$ref` into `root`'s `$defs`.
fn types(schema: &Value, root: &Value) -> Vec<String> {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .strip_prefix("#/$defs/")
            .or_else(|| reference.strip_prefix("#/definitions/"))
            .and_then(|name| {
                root.get("$defs")
                    .or_else(|| root.get("definitions"))
                    .and_then(|defs| defs.get(name))
            })
            .unwrap_or(schema),
        None => schema,
    };
    let listed = match schema.get("type") {
        Some(Value::String(ty)) => vec![ty.clone()],
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(|ty| ty.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    listed.into_iter().filter(|ty| ty != "null").collect()
}
