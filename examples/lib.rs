//! Runnable examples of agents-kt (see the `[[example]]` targets in this crate's manifest), and
//! the one helper they share.

/// `Ok` when the example reached the outcome it demonstrates; otherwise an error that makes the
/// example exit non-zero, saying what was not reached.
///
/// ```
/// assert!(agents_kt_examples::ensure(true, "anything").is_ok());
/// assert!(agents_kt_examples::ensure(false, "the denial").is_err());
/// ```
pub fn ensure(condition: bool, what: &str) -> Result<(), String> {
    if condition {
        Ok(())
    } else {
        Err(format!("example outcome not reached: {what}"))
    }
}
