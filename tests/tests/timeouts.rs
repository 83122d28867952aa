//! Timeouts that hold: a tool's deadline counts from its start (work before its first `.await`
//! too), a blocking tool is cut off without stalling the runtime, and an interceptor that never
//! decides denies.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use agents_kt::prelude::*;
use agents_kt::{BudgetLimit, InterceptContext};
use agents_kt_tests::{PATHS, WriteFile, WriteFileArgs, drive, last_message};
use serde_json::json;

static FINISHED: AtomicBool = AtomicBool::new(false);

/// Sleeps without ever awaiting: no timer can interrupt it.
#[tool]
fn inline_sleep(millis: u64) -> String {
    std::thread::sleep(Duration::from_millis(millis));
    "slept".to_string()
}

/// Blocks its thread, on the blocking pool.
#[tool(blocking)]
fn blocking_sleep(millis: u64) -> String {
    std::thread::sleep(Duration::from_millis(millis));
    FINISHED.store(true, Ordering::SeqCst);
    "slept".to_string()
}

fn budget() -> Budget {
    Budget::default().per_tool_timeout(Duration::from_millis(50))
}

#[tokio::test]
async fn an_inline_body_that_overran_ends_the_run_and_its_result_is_not_sent() {
    for path in PATHS {
        let model = ScriptedModel::new([
            Reply::tool_call("inline_sleep", json!({"millis": 200})),
            Reply::text("never"),
        ]);
        let agent: Agent<String, String> = Agent::builder("a")
            .model(model.clone())
            .tool(InlineSleep)
            .budget(budget())
            .build()
            .unwrap();
        let (output, _) = drive(&agent, "x", path).await;
        assert!(
            matches!(
                output,
                Err(AgentError::BudgetExceeded {
                    limit: BudgetLimit::PerToolTimeout,
                    ..
                })
            ),
            "{path:?}: {output:?}"
        );
        assert_eq!(
            model.requests().len(),
            1,
            "{path:?}: the late result must not be sent"
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_blocking_tool_is_cut_off_at_its_deadline_without_stalling_the_runtime() {
    let ticks = Arc::new(AtomicU32::new(0));
    let ticker = {
        let ticks = Arc::clone(&ticks);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(5)).await;
                ticks.fetch_add(1, Ordering::SeqCst);
            }
        })
    };
    let agent: Agent<String, String> = Agent::builder("a")
        .model(ScriptedModel::new([
            Reply::tool_call("blocking_sleep", json!({"millis": 1500})),
            Reply::text("never"),
        ]))
        .tool(BlockingSleep)
        .budget(budget())
        .build()
        .unwrap();
    let output = agent.run("x".into()).await;
    assert!(
        matches!(
            output,
            Err(AgentError::BudgetExceeded {
                limit: BudgetLimit::PerToolTimeout,
                ..
            })
        ),
        "{output:?}"
    );
    assert!(
        !FINISHED.load(Ordering::SeqCst),
        "the run ended before the blocking body did"
    );
    assert!(
        ticks.load(Ordering::SeqCst) > 0,
        "the single runtime thread kept serving other tasks while the body blocked"
    );
    ticker.abort();
}

/// Waits for an approval that never comes.
async fn never_decides(_: WriteFileArgs) -> Decision<WriteFileArgs, String> {
    std::future::pending().await
}

#[tokio::test(start_paused = true)]
async fn an_interceptor_that_never_decides_denies_after_the_interceptor_timeout() {
    let model = ScriptedModel::new([
        Reply::tool_call("writeFile", json!({"path": "/tmp/a", "contents": "x"})),
        Reply::text("gave up"),
    ]);
    let tool = WriteFile::default();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model.clone())
        .tool(tool.clone())
        .before_tool_call(|args: &WriteFileArgs, _: &InterceptContext| never_decides(args.clone()))
        .named("approve_write")
        .budget(Budget::default().interceptor_timeout(Duration::from_secs(30)))
        .build()
        .unwrap();
    assert_eq!(agent.run("x".into()).await.unwrap(), "gave up");
    assert!(
        tool.ran.is_empty(),
        "an undecided interceptor never lets the tool run"
    );
    assert_eq!(
        last_message(&model, 1),
        "ERROR: Tool 'writeFile' denied by policy: interceptor 'approve_write' timed out after 30s"
    );
}
