//! Who is calling over HTTP: put on a request by the HTTP layer, read by the handler that
//! judges the call, so neither of the two imports the other.

/// The principal an authenticator derived from a request's `Authorization` header; the client
/// policy sees it as the client's name.
#[derive(Debug, Clone)]
pub(crate) struct Principal(pub String);
