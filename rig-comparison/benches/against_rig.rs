//! One tool call through rig's agent and through ours, with 0 and 8 hooks that let it through:
//! a prompt, a scripted model that calls `add` once and then answers, the same tool body.
//!
//! - rig (rig-agent 0.44, its `MockCompletionModel`): 0 or 8 `AgentHook`s whose `on_dispatch`
//!   returns `DispatchAction::proceed()`. rig 0.44 has no `on_tool_call`: `on_dispatch` is its
//!   hook before a tool runs — and before each model call too (two per run here), so a rig hook
//!   is asked three times per run where ours is asked once.
//! - ours (`ScriptedModel`): 0 or 8 `on_before_tool_call` interceptors over the JSON arguments
//!   returning `Decision::Proceed` — the JSON dispatch path, the closest to rig's hooks.
//!
//! Each agent is built outside the timed part; a run is the prompt to the answer. The overhead of
//! 8 hooks is the 8-hook run less the 0-hook run, each side against its own; the goal is ours ≤
//! 0.5× rig's.
//!
//! `cargo bench --manifest-path rig-comparison/Cargo.toml` (`scripts/bench.sh` runs it).

use std::borrow::Cow;
use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The tool's arguments, the same on both sides.
#[derive(Clone, Deserialize, Serialize, schemars::JsonSchema)]
struct AddArgs {
    x: i64,
    y: i64,
}

mod ours {
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

    /// An agent whose model calls `add` and answers, behind `hooks` proceeding interceptors.
    pub fn agent(hooks: usize) -> Agent<String, String> {
        let model = ScriptedModel::new([
            Reply::tool_call("add", json!({"x": 1, "y": 2})),
            Reply::text("3"),
        ]);
        let mut builder = Agent::builder("adder").model(model).tool(Add);
        for _ in 0..hooks {
            builder = builder.on_before_tool_call(|_: &str, _: &Value| Decision::Proceed);
        }
        builder.build().expect("the agent builds")
    }

    pub async fn run(agent: Agent<String, String>) -> String {
        agent.run("add 1 and 2".into()).await.expect("the run answers")
    }
}

mod rig {
    use super::*;
    use rig_agent::agent::hook::{AgentHook, DispatchAction, DispatchEvent, HookContext};
    use rig_agent::agent::{Agent, AgentBuilder};
    use rig_agent::completion::Prompt;
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

    pub fn agent() -> Agent<MockCompletionModel> {
        let model = MockCompletionModel::from_turns([
            MockTurn::tool_call("call_1", "add", json!({"x": 1, "y": 2})),
            MockTurn::text("3"),
        ]);
        AgentBuilder::new(model).tool(Add).build()
    }

    pub async fn run(agent: Agent<MockCompletionModel>, hooks: usize) -> String {
        let mut prompt = agent.prompt("add 1 and 2").max_turns(3);
        for _ in 0..hooks {
            prompt = prompt.add_hook(Proceed);
        }
        prompt.await.expect("the run answers")
    }
}

fn against_rig(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let mut group = c.benchmark_group("against_rig");
    for hooks in [0, 8] {
        group.bench_function(format!("rig, {hooks} proceeding hooks"), |b| {
            b.iter_batched(
                rig::agent,
                |agent| runtime.block_on(async { black_box(rig::run(agent, hooks).await) }),
                BatchSize::SmallInput,
            )
        });
        group.bench_function(format!("agents-kt, {hooks} proceeding interceptors"), |b| {
            b.iter_batched(
                || ours::agent(hooks),
                |agent| runtime.block_on(async { black_box(ours::run(agent).await) }),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, against_rig);
criterion_main!(benches);
