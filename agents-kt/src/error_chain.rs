//! How a transport error is told: reqwest puts what actually failed in an error's sources, so
//! both the request path and the stream decoder report the whole chain.

/// An error with its sources, which is where reqwest says what actually failed.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
