//! `Debug` for the public error types: the sentence `Display` writes, then any cause it does not
//! already say — anyhow's layout. `fn main() -> Result<(), Box<dyn Error>>` reports an error with
//! `Debug`, so this is what a user sees when a program fails: "skill 'default' has no model: add
//! `.model(..)` …", not `NoModel { skill: "default" }`. Match on the variants to tell them apart.

use std::error::Error;
use std::fmt;

/// Writes `error` as its `Debug` (see the module).
pub(crate) fn write(error: &dyn Error, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let mut said = error.to_string();
    f.write_str(&said)?;
    let mut heading = true;
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        // A cause the sentence already quotes (`…: {0}`) is not said twice.
        if !said.contains(&text) {
            if heading {
                f.write_str("\n\nCaused by:")?;
                heading = false;
            }
            write!(f, "\n    {text}")?;
            said.push_str(&text);
        }
        source = cause.source();
    }
    Ok(())
}

/// `impl Debug` for error types, as [`write`] says.
macro_rules! readable_debug {
    ($($error:ty),+ $(,)?) => {
        $(
            impl ::std::fmt::Debug for $error {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    $crate::error_debug::write(self, f)
                }
            }
        )+
    };
}
pub(crate) use readable_debug;

#[cfg(test)]
mod tests {
    use crate::{AgentError, BuildError, ModelError};

    #[test]
    fn debug_is_the_sentence_and_the_causes_it_does_not_already_say() {
        let no_model = BuildError::NoModel {
            skill: "default".into(),
        };
        assert_eq!(format!("{no_model:?}"), no_model.to_string());
        let model = AgentError::Model(ModelError::Transport("connection refused".into()));
        let debug = format!("{model:?}");
        assert!(debug.starts_with(&model.to_string()), "{debug}");
        assert_eq!(debug.matches("connection refused").count(), 1, "{debug}");
    }
}
