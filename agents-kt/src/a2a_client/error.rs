//! What can go wrong calling a remote A2A agent, each failure saying where and why.

/// A failed call of a remote A2A agent ([`A2aAgent`](crate::A2aAgent)).
///
/// ```
/// let error = agents_kt::A2aClientError::transport("http://127.0.0.1:9", "connection refused");
/// assert_eq!(error.to_string(), "the A2A agent at http://127.0.0.1:9 could not be reached: connection refused");
/// ```
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum A2aClientError {
    /// The agent card could not be fetched or read.
    #[error("the agent card at {url} could not be read: {reason}")]
    Card {
        /// Where the card was looked for.
        url: String,
        /// Why it could not be read.
        reason: String,
    },
    /// The card describes an agent whose input or output does not fit the Rust types.
    #[error("the A2A agent '{agent}' does not fit the types asked for: {reason}")]
    Mismatch {
        /// The remote agent's name.
        agent: String,
        /// Which property or type differs.
        reason: String,
    },
    /// The connection failed, the request timed out, or the answer was an HTTP error.
    #[error("the A2A agent at {url} could not be reached: {reason}")]
    Transport {
        /// The endpoint called.
        url: String,
        /// What failed.
        reason: String,
    },
    /// The remote answered with a JSON-RPC error.
    #[error("the A2A agent refused the request ({code}): {message}")]
    Remote {
        /// The JSON-RPC error code (A2A's: -32001 task not found, -32009 version, …).
        code: i32,
        /// The remote's message.
        message: String,
    },
    /// The remote's answer does not follow the protocol (or exceeds the size allowed).
    #[error("the A2A agent's answer is malformed: {reason}")]
    Protocol {
        /// What is wrong with it.
        reason: String,
    },
    /// The remote task ended without an output: failed, rejected or canceled.
    #[error("the remote task {state}: {message}")]
    TaskFailed {
        /// The task's final state (`failed`, `rejected`, `canceled`, `auth-required`).
        state: String,
        /// What the remote said about it.
        message: String,
    },
    /// The remote asked for input and it was not given (no approver, or the approver denied).
    #[error("the A2A agent asked for input, which was not given: {reason}")]
    InputNotGiven {
        /// Why not.
        reason: String,
    },
    /// The remote's output does not fit the output type.
    #[error("the A2A agent's output does not fit `{type_name}`: {reason}")]
    Output {
        /// The Rust output type.
        type_name: &'static str,
        /// Why it does not fit.
        reason: String,
    },
    /// The whole call took longer than the client's timeout.
    #[error("the A2A agent did not finish within {after_ms} ms (its task was canceled)")]
    Timeout {
        /// The timeout, in milliseconds.
        after_ms: u64,
    },
}

impl A2aClientError {
    /// The agent at `url` could not be reached, for `reason`.
    pub fn transport(url: impl Into<String>, reason: impl Into<String>) -> Self {
        A2aClientError::Transport {
            url: url.into(),
            reason: reason.into(),
        }
    }

    /// The remote's answer is malformed, for `reason`.
    ///
    /// ```
    /// let error = agents_kt::A2aClientError::protocol("no result");
    /// assert!(error.to_string().contains("no result"));
    /// ```
    pub fn protocol(reason: impl Into<String>) -> Self {
        A2aClientError::Protocol {
            reason: reason.into(),
        }
    }
}

crate::error_debug::readable_debug!(A2aClientError);
