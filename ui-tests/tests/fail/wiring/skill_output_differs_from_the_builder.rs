//! A `#[skill]` returning `usize` on an `Agent<String, String>`: one error, at `.skill(..)`.
use agents_kt::prelude::*;

/// Counts words.
#[skill]
fn count(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let _ = Agent::<String, String>::builder("counter")
        .model(ScriptedModel::default())
        .skill(Count)
        .build();
}
