//! A durable A2A server (`A2aServer::durable`, its tasks and their journals in one SQLite file)
//! as a separate process — the `durable_ledger` agent, every append approved by a person — killed
//! with SIGKILL while a task waits in `input-required`, and started again on the same file: the
//! task is there, asks the same question (same fingerprint), and the client's answer finishes
//! it; the model is called as often as without the crash, the append happens once; a finished
//! task is still readable after another restart.

use std::time::{Duration, Instant};

use agents_kt_tests::restate::LedgerService;
use serde_json::{Value, json};

const SERVICE: &str = env!("CARGO_BIN_EXE_durable_ledger");

/// A JSON-RPC call to the service: the `result`, or the whole answer when it is an error.
async fn rpc(service: &LedgerService, method: &str, params: Value) -> Value {
    let answer: Value = reqwest::Client::new()
        .post(service.uri())
        .header("a2a-version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .expect("the server answers")
        .json()
        .await
        .expect("the answer is JSON");
    answer.get("result").cloned().unwrap_or(answer)
}

/// Send `text` as a new task, waiting until it finishes or waits: the task.
async fn send(service: &LedgerService, text: &str) -> Value {
    let message = json!({"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]});
    rpc(service, "SendMessage", json!({ "message": message })).await["task"].clone()
}

/// Answer the approval task `id` waits for with `answer` (a data part).
async fn answer(service: &LedgerService, id: &str, answer: Value) -> Value {
    let message = json!({
        "messageId": "m-2", "role": "ROLE_USER", "taskId": id, "parts": [{ "data": answer }]
    });
    rpc(service, "SendMessage", json!({ "message": message })).await
}

/// The approval request in an `input-required` task's status message (without when it was
/// asked).
fn question(task: &Value) -> Value {
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    task["status"]["message"]["parts"]
        .as_array()
        .and_then(|parts| parts.iter().find_map(|part| part.get("data")))
        .cloned()
        .map(|mut request| {
            request["since_ms"] = Value::Null;
            request
        })
        .unwrap_or_else(|| panic!("the status carries the request: {task}"))
}

/// Task `id` once it is in `state` (a restarted server runs it on from its journal first).
async fn task_in(service: &LedgerService, id: &str, state: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let task = rpc(service, "GetTask", json!({ "id": id })).await;
        if task["status"]["state"] == state {
            return task;
        }
        assert!(
            Instant::now() < deadline,
            "task {id} never reached {state}: {task}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn output(task: &Value) -> Value {
    task["artifacts"]
        .as_array()
        .and_then(|artifacts| artifacts.iter().find(|a| a["artifactId"] == "output"))
        .map(|artifact| artifact["parts"][0]["text"].clone())
        .unwrap_or(Value::Null)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_waiting_for_approval_survives_a_killed_server_and_the_append_happens_once() {
    let mut service = LedgerService::start_a2a(SERVICE, false).await;
    let task = send(&service, "pay 10").await;
    let asked = question(&task);
    assert_eq!(asked["tool"], "append");
    assert_eq!(asked["args"], json!({ "line": "pay 10" }));
    let id = task["id"].as_str().expect("the task has an id").to_string();
    assert_eq!(service.lines("model-calls.txt").len(), 1);

    service.kill();
    service.restart().await;
    let again = task_in(&service, &id, "TASK_STATE_INPUT_REQUIRED").await;
    assert_eq!(
        question(&again),
        asked,
        "the same question, with the same fingerprint"
    );
    assert_eq!(
        service.lines("model-calls.txt").len(),
        1,
        "the turn before the question was replayed, not asked again"
    );

    let stale = answer(
        &service,
        &id,
        json!({"answer": "approve", "fingerprint": "0000"}),
    )
    .await;
    assert!(
        stale.to_string().contains("fingerprint"),
        "a stale answer is refused: {stale}"
    );
    let approve = json!({"answer": "approve", "fingerprint": asked["fingerprint"]});
    let done = answer(&service, &id, approve).await["task"].clone();
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED", "{done}");
    assert_eq!(output(&done), "done: appended pay 10");
    assert_eq!(
        service.lines("ledger.txt"),
        ["pay 10"],
        "the effect happened once"
    );
    assert_eq!(
        service.lines("model-calls.txt").len(),
        2,
        "the model was called as often as without the crash"
    );

    service.restart().await;
    let kept = task_in(&service, &id, "TASK_STATE_COMPLETED").await;
    assert_eq!(
        output(&kept),
        "done: appended pay 10",
        "a finished task is kept as it ended"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        service.lines("ledger.txt"),
        ["pay 10"],
        "a finished task does not run again"
    );
    assert_eq!(service.lines("model-calls.txt").len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_asked_inside_a_sub_agent_survives_a_killed_server() {
    let mut service = LedgerService::start_a2a(SERVICE, true).await;
    let task = send(&service, "pay 7").await;
    let asked = question(&task);
    assert_eq!(asked["args"], json!({ "line": "pay 7" }));
    assert_eq!(
        asked["agent"], "ledger",
        "asked in the bookkeeper's run: {asked}"
    );
    let id = task["id"].as_str().expect("the task has an id").to_string();

    service.kill();
    service.restart().await;
    let again = task_in(&service, &id, "TASK_STATE_INPUT_REQUIRED").await;
    assert_eq!(question(&again), asked);

    let approve = json!({"answer": "approve", "fingerprint": asked["fingerprint"]});
    let done = answer(&service, &id, approve).await["task"].clone();
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED", "{done}");
    assert_eq!(output(&done), "front: done: appended pay 7");
    assert_eq!(service.lines("ledger.txt"), ["pay 7"]);
    assert_eq!(
        service.lines("front-calls.txt").len(),
        2,
        "the front desk's turn 1 was replayed"
    );
    assert_eq!(
        service.lines("model-calls.txt").len(),
        2,
        "so was the bookkeeper's"
    );
}
