//! The two sides of the comparison with rig: the same tool, scripted model reply and hooks on
//! each — shared by the criterion bench (`against_rig.rs`) and the instruction counter
//! (`rig_counts.rs`).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The tool's arguments, the same on both sides.
#[derive(Clone, Deserialize, Serialize, schemars::JsonSchema)]
pub struct AddArgs {
    pub x: i64,
    pub y: i64,
}

pub mod ours {
    use super::*;
    use agents_kt::{Agent, Decision, Reply, ScriptedModel, Tool, ToolContext, ToolError};

    pub struct Add;

    impl Tool for Add {
        const NAME: &'static str = "add";
        type Args = AddArgs;
        type Output = i64;
        fn description(&self) -> Cow<'static, str> {
            "Adds x and y.".into()
        }
        async fn call(&self, args: AddArgs, _: &ToolContext) -> Result<i64, ToolError> {
            Ok(args.x + args.y)
        }
    }

    /// An agent whose model calls `add` and answers, `runs` times, behind `hooks` proceeding
    /// interceptors.
    pub fn agent(hooks: usize, runs: usize) -> Agent<String, String> {
        let turn = [
            Reply::tool_call("add", json!({"x": 1, "y": 2})),
            Reply::text("3"),
        ];
        let model = ScriptedModel::new((0..runs).flat_map(|_| turn.clone())).without_recording();
        let mut builder = Agent::builder("adder").model(model).tool(Add);
        for _ in 0..hooks {
            builder = builder.on_before_tool_call(|_: &str, _: &Value| Decision::Proceed);
        }
        builder.build().expect("the agent builds")
    }

    pub async fn run(agent: &Agent<String, String>) -> String {
        agent
            .run("add 1 and 2".into())
            .await
            .expect("the run answers")
    }
}

pub mod rig {
    use super::*;
    use rig_agent::agent::hook::{AgentHook, DispatchAction, DispatchEvent, HookContext};
    use rig_agent::agent::{Agent, AgentBuilder};
    use rig_agent::test_utils::{MockCompletionModel, MockTurn};
    use rig_agent::tool::{Tool, ToolContext};

    #[derive(Debug, thiserror::Error)]
    #[error("never")]
    pub struct Never;

    pub struct Add;

    impl Tool for Add {
        const NAME: &'static str = "add";
        type Error = Never;
        type Args = AddArgs;
        type Output = i64;
        fn description(&self) -> String {
            "Adds x and y.".to_string()
        }
        fn parameters(&self) -> Value {
            serde_json::to_value(schemars::schema_for!(AddArgs)).expect("a schema")
        }
        async fn call(&self, _: &mut ToolContext, args: AddArgs) -> Result<i64, Never> {
            Ok(args.x + args.y)
        }
    }

    /// A hook that lets every dispatch through.
    #[derive(Clone)]
    pub struct Proceed;

    impl AgentHook for Proceed {
        async fn on_dispatch(&self, _: &HookContext, _: DispatchEvent<'_>) -> DispatchAction {
            DispatchAction::proceed()
        }
    }

    /// An agent whose model calls `add` and answers, `runs` times.
    pub fn agent(runs: usize) -> Agent {
        let model = MockCompletionModel::from_turns((0..runs).flat_map(|_| {
            [
                MockTurn::tool_call("call_1", "add", json!({"x": 1, "y": 2})),
                MockTurn::text("3"),
            ]
        }));
        AgentBuilder::new(model).tool(Add).build()
    }

    /// One run of `agent`, its prompt behind `hooks` proceeding hooks (rig adds hooks to a
    /// prompt, not to an agent).
    pub async fn run(agent: &Agent, hooks: usize) -> String {
        let mut prompt = agent.prompt("add 1 and 2").max_turns(3);
        for _ in 0..hooks {
            prompt = prompt.add_hook(Proceed);
        }
        prompt.await.expect("the run answers").output()
    }
}
