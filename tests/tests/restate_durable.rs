//! Durable runs on a real Restate server: the ledger agent (`durable_ledger`, every append
//! approved by a human) as a separate process. An approval outlives a SIGKILL of the service and
//! of the server; the model is called exactly as often as without the crash and the append
//! happens once; deny, edit and stale answers; a crash right after the tool's effect does not
//! repeat it; a SIGKILL between the answer and the call neither loses the answer nor runs the
//! call twice; a run moves to another worker; a replay of changed code stops clearly.

use agents_kt_tests::restate::{Balancer, LedgerService, RestateServer};
use serde_json::{Value, json};

const SERVICE: &str = env!("CARGO_BIN_EXE_durable_ledger");

/// One Restate server at a time: each takes a few hundred MB and both cores while it starts.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn setup(crash_after_append: bool) -> Option<(RestateServer, LedgerService)> {
    let server = RestateServer::start().await?;
    let service = LedgerService::start(SERVICE, crash_after_append).await;
    server.register(&service.uri()).await;
    Some((server, service))
}

fn approve(pending: &Value) -> Value {
    json!({ "answer": "approve", "fingerprint": pending["fingerprint"] })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_outlives_a_killed_service_and_the_run_finishes_once() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let Some((server, mut service)) = setup(false).await else {
        return;
    };
    server.start_run("run-1", "pay 10").await;
    let pending = server.pending_approval("run-1").await;
    assert_eq!(pending["tool"], "append");
    assert_eq!(pending["args"], json!({ "line": "pay 10" }));
    assert_eq!(pending["step"], "approval#1:append");
    assert_eq!(service.lines("model-calls.txt").len(), 1);

    service.kill();
    service.restart().await;
    let (status, body) = server
        .call("run-1", "approve", Some(approve(&pending)))
        .await;
    assert_eq!(status, 200, "{body}");

    let (status, output) = server.output("run-1").await;
    assert_eq!(status, 200, "{output}\n{}", server.log());
    assert_eq!(output, json!("done: appended pay 10"));
    assert_eq!(
        service.lines("ledger.txt"),
        ["pay 10"],
        "the effect happened once"
    );
    assert_eq!(
        service.lines("model-calls.txt").len(),
        2,
        "the model was called as often as without the crash: turn 1 was replayed"
    );
    let (_, status) = server.call("run-1", "status", None).await;
    assert_eq!(
        status["steps"],
        json!(["turn#1", "approval#1:append", "tool#1:append", "turn#2"])
    );
    let (_, events) = server.call("run-1", "events", None).await;
    assert_eq!(events[1]["value"]["answer"], "approve");
    assert_eq!(events[2]["value"]["output"], "appended pay 10");
    assert_eq!(events[3]["value"]["content"], "done: appended pay 10");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_outlives_a_killed_server() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let Some((mut server, service)) = setup(false).await else {
        return;
    };
    server.start_run("run-2", "pay 20").await;
    let pending = server.pending_approval("run-2").await;
    server.kill_and_restart().await;
    let (status, body) = server
        .call("run-2", "approve", Some(approve(&pending)))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, output) = server.output("run-2").await;
    assert_eq!(status, 200, "{output}");
    assert_eq!(output, json!("done: appended pay 20"));
    assert_eq!(service.lines("ledger.txt"), ["pay 20"]);
    assert_eq!(service.lines("model-calls.txt").len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deny_edit_and_stale_answers() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let Some((server, service)) = setup(false).await else {
        return;
    };
    // Deny: the tool never runs, the model is told why.
    server.start_run("denied", "pay 30").await;
    let pending = server.pending_approval("denied").await;
    let deny =
        json!({ "answer": "deny", "fingerprint": pending["fingerprint"], "reason": "over budget" });
    assert_eq!(server.call("denied", "approve", Some(deny)).await.0, 200);
    let (_, output) = server.output("denied").await;
    assert_eq!(
        output,
        json!("done: ERROR: Tool 'append' denied by policy: over budget")
    );
    assert!(service.lines("ledger.txt").is_empty());

    // Stale: an answer about other arguments is refused, the run still waits.
    server.start_run("edited", "pay 3000").await;
    let pending = server.pending_approval("edited").await;
    let stale = json!({ "answer": "approve", "fingerprint": "0000" });
    let (status, body) = server.call("edited", "approve", Some(stale)).await;
    assert_eq!(status, 409, "{body}");
    // Edit: the edited arguments are asked about again, then run.
    let edit = json!({ "answer": "edit", "fingerprint": pending["fingerprint"], "args": { "line": "pay 300" } });
    assert_eq!(server.call("edited", "approve", Some(edit)).await.0, 200);
    let mut again = server.pending_approval("edited").await;
    while again["step"] == pending["step"] {
        again = server.pending_approval("edited").await;
    }
    assert_eq!(again["args"], json!({ "line": "pay 300" }));
    assert_eq!(again["step"], "approval#2:append");
    assert_eq!(
        server
            .call("edited", "approve", Some(approve(&again)))
            .await
            .0,
        200
    );
    let (_, output) = server.output("edited").await;
    assert_eq!(output, json!("done: appended pay 300"));
    assert_eq!(service.lines("ledger.txt"), ["pay 300"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_right_after_the_effect_does_not_repeat_it() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let Some((server, mut service)) = setup(true).await else {
        return;
    };
    server.start_run("crashy", "pay 40").await;
    let pending = server.pending_approval("crashy").await;
    assert_eq!(
        server
            .call("crashy", "approve", Some(approve(&pending)))
            .await
            .0,
        200
    );
    // The tool appends, then the process aborts before the result is journaled.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !service.exited() {
        assert!(
            std::time::Instant::now() < deadline,
            "the service did not crash"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(service.lines("crashed.txt").len(), 1);
    service.restart().await;
    let (status, output) = server.output("crashy").await;
    assert_eq!(status, 200, "{output}");
    assert_eq!(output, json!("done: appended pay 40"));
    assert_eq!(
        service.lines("ledger.txt"),
        ["pay 40"],
        "the retried call found its idempotency key and did not append again"
    );
    assert_eq!(service.lines("keys.txt"), ["crashy/call-1"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_waiting_on_a_killed_worker_is_finished_by_another() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let Some(server) = RestateServer::start().await else {
        return;
    };
    let mut a = LedgerService::start(SERVICE, false).await;
    let b = LedgerService::another(&a, "b").await;
    let balancer = Balancer::new(&a.address).await;
    server.register(&balancer.uri()).await;

    server.start_run("moved", "pay 50").await;
    let pending = server.pending_approval("moved").await;
    assert_eq!(
        a.lines("model-calls.txt").len(),
        1,
        "worker a took the first turn"
    );
    a.kill();
    balancer.switch_to(&b.address);
    assert_eq!(
        server
            .call("moved", "approve", Some(approve(&pending)))
            .await
            .0,
        200
    );
    let (status, output) = server.output("moved").await;
    assert_eq!(status, 200, "{output}");
    assert_eq!(output, json!("done: appended pay 50"));
    assert_eq!(
        b.lines("workers.txt"),
        ["b"],
        "worker b ran the approved call"
    );
    assert_eq!(b.lines("ledger.txt"), ["pay 50"]);
    assert_eq!(b.lines("model-calls.txt").len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_after_a_code_change_that_alters_the_steps_fails_clearly() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let Some((server, mut service)) = setup(false).await else {
        return;
    };
    server.start_run("changed", "pay 60").await;
    server.pending_approval("changed").await;
    // While the run waits, the service is redeployed without the approval: the replay would
    // run the tool where the journal recorded an approval wait.
    service.restart_unguarded().await;
    let failure = server
        .run_failure("changed", |f| !f.contains("broken pipe") && !f.is_empty())
        .await;
    eprintln!("FAILURE: {failure}");
    assert!(
        service.lines("ledger.txt").is_empty(),
        "nothing ran on a mixed journal"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_waiting_for_approval_outlives_a_killed_service_and_its_effect_happens_once() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let Some(server) = RestateServer::start().await else {
        return;
    };
    let mut service = LedgerService::start_nested(SERVICE).await;
    server.register(&service.uri()).await;
    server.start_run("nested-1", "pay 30").await;
    // The approval is asked inside the sub-agent's run, under the front desk's call step.
    let pending = server.pending_approval("nested-1").await;
    assert_eq!(pending["tool"], "append");
    assert_eq!(pending["args"], json!({ "line": "pay 30" }));
    assert_eq!(pending["step"], "tool#1:bookkeeper/approval#1:append");

    service.kill();
    service.restart().await;
    let (status, body) = server
        .call("nested-1", "approve", Some(approve(&pending)))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, output) = server.output("nested-1").await;
    assert_eq!(status, 200, "{output}\n{}", server.log());
    assert_eq!(output, json!("front: done: appended pay 30"));
    assert_eq!(
        service.lines("ledger.txt"),
        ["pay 30"],
        "the effect happened once"
    );
    // Replayed, not asked again: each model as often as without the crash.
    assert_eq!(service.lines("front-calls.txt").len(), 2);
    assert_eq!(service.lines("model-calls.txt").len(), 2);
    let (_, status) = server.call("nested-1", "status", None).await;
    assert_eq!(
        status["steps"],
        json!([
            "turn#1",
            "tool#1:bookkeeper/turn#1",
            "tool#1:bookkeeper/approval#1:append",
            "tool#1:bookkeeper/tool#1:append",
            "tool#1:bookkeeper/turn#2",
            "turn#2"
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approved_once_the_call_runs_once_after_a_sigkill_between_the_answer_and_the_call() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let Some(server) = RestateServer::start().await else {
        return;
    };
    let mut service = LedgerService::start_hanging_after_approval(SERVICE).await;
    server.register(&service.uri()).await;
    server.start_run("answered", "pay 70").await;
    let pending = server.pending_approval("answered").await;
    let (status, body) = server
        .call("answered", "approve", Some(approve(&pending)))
        .await;
    assert_eq!(status, 200, "{body}");

    // The answer reached the run; the process dies before the call.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while service.lines("hung.txt").is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the approval never reached the run\n{}",
            server.log()
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        service.lines("ledger.txt").is_empty(),
        "the call had not run"
    );
    service.kill();
    service.restart().await;

    let (status, output) = server.output("answered").await;
    assert_eq!(status, 200, "{output}\n{}", server.log());
    assert_eq!(output, json!("done: appended pay 70"));
    assert_eq!(
        service.lines("ledger.txt"),
        ["pay 70"],
        "the approved call ran once"
    );
    assert_eq!(service.lines("hung.txt").len(), 1);
    // The recorded answer was replayed: nobody was asked twice, the model not called again.
    let (_, status) = server.call("answered", "status", None).await;
    assert_eq!(
        status["steps"],
        json!(["turn#1", "approval#1:append", "tool#1:append", "turn#2"])
    );
    assert!(status["pending"].is_null(), "{status}");
    assert_eq!(service.lines("model-calls.txt").len(), 2);
}
