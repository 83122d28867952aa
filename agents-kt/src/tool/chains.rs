//! A tool's chains as the runtime runs them: typed links for it and dynamic ones for every tool,
//! joined in registration order once, at build ([`super::registry::chains_for`]).

use super::Tool;
use super::view::Viewed;
use crate::chain::Link;

/// A tool's chains: typed links for it and dynamic ones for every tool, in registration order,
/// all seeing the value through a [`Viewed`] (typed, and as JSON for the dynamic ones).
pub(crate) struct ToolChains<T: Tool> {
    pub before: Vec<Link<Viewed<T::Args>, T::Output>>,
    pub gates: Vec<Link<Viewed<T::Args>, T::Output>>,
    pub after: Vec<Link<Viewed<T::Output>, T::Output>>,
    /// Whether a dynamic link reads the arguments as JSON (before or gate), or the output (after).
    pub json_args: bool,
    pub json_output: bool,
}

impl<T: Tool> Default for ToolChains<T> {
    fn default() -> Self {
        ToolChains {
            before: Vec::new(),
            gates: Vec::new(),
            after: Vec::new(),
            json_args: false,
            json_output: false,
        }
    }
}
