//! The baseline of a sub-agent call, shared by the sub-agent benches: a plain tool named
//! `research` whose body runs the child agent itself, unlinked.

use std::borrow::Cow;

use agents_kt::{Agent, Tool, ToolContext, ToolError};

#[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct ResearchArgs {
    pub input: String,
}

/// A tool whose body runs the child (`child.run(input)`): what a sub-agent call costs over this
/// is the linkage.
pub struct CallsTheChild(pub Agent<String, String>);

impl Tool for CallsTheChild {
    const NAME: &'static str = "research";
    type Args = ResearchArgs;
    type Output = String;

    fn description(&self) -> Cow<'static, str> {
        "Finds sources.".into()
    }

    async fn call(&self, args: ResearchArgs, _: &ToolContext) -> Result<String, ToolError> {
        self.0.run(args.input).await.map_err(ToolError::new)
    }
}
