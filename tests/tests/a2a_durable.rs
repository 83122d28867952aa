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
    rpc_at(&service.uri(), method, params).await
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

/// A JSON-RPC call to the server at `url`: the `result`, or the whole answer when it is an error.
async fn rpc_at(url: &str, method: &str, params: Value) -> Value {
    let answer: Value = reqwest::Client::new()
        .post(url)
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

/// A durable server on `file` keeping at most `max_tasks`, its agent answering every message.
async fn greeter_on(file: &std::path::Path, max_tasks: usize) -> agents_kt::A2aHttpServer {
    let agent = agents_kt::Agent::<String, String>::builder("greeter")
        .model(agents_kt::ScriptedModel::new([
            agents_kt::Reply::text("hello"),
            agents_kt::Reply::text("hello again"),
        ]))
        .build()
        .expect("the agent builds");
    agents_kt::A2aServer::builder(agent)
        .durable(file)
        .max_tasks(max_tasks)
        .build()
        .expect("the server builds")
        .bind("127.0.0.1:0".parse().expect("an address"))
        .await
        .expect("the server listens")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_the_table_forgets_to_make_room_is_gone_from_the_file_too() {
    let scratch = agents_kt_tests::scratch::Scratch::new("a2a-forget");
    let file = scratch.0.join("tasks.db");
    let server = greeter_on(&file, 1).await;
    let message = |text: &str| json!({"message": {"messageId": text, "role": "ROLE_USER", "parts": [{"text": text}]}});
    let first = rpc_at(server.url(), "SendMessage", message("hi")).await["task"].clone();
    let second = rpc_at(server.url(), "SendMessage", message("hi again")).await["task"].clone();
    assert_eq!(
        second["status"]["state"], "TASK_STATE_COMPLETED",
        "{second}"
    );
    server.shutdown().await.expect("the server stops");

    let again = greeter_on(&file, 1).await;
    let gone = rpc_at(again.url(), "GetTask", json!({ "id": first["id"] })).await;
    assert!(
        gone.to_string().to_lowercase().contains("not found"),
        "the forgotten task is not kept: {gone}"
    );
    let kept = rpc_at(again.url(), "GetTask", json!({ "id": second["id"] })).await;
    assert_eq!(kept["status"]["state"], "TASK_STATE_COMPLETED", "{kept}");
    let journal = rusqlite::Connection::open(&file)
        .expect("the file opens")
        .query_row(
            "SELECT COUNT(*) FROM agents_kt_journal WHERE run_id = ?1",
            [format!(
                "a2a-task/{}",
                first["id"].as_str().unwrap_or_default()
            )],
            |row| row.get::<_, i64>(0),
        )
        .expect("the journal table is there");
    assert_eq!(journal, 0, "and neither is its journal");
}
