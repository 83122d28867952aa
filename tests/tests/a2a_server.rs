//! `A2aServer` against the official Python A2A SDK client (PyPI `a2a-sdk` 1.x, over JSON-RPC and
//! HTTP+JSON) and raw HTTP: the card, SendMessage, streaming, GetTask, CancelTask reaching the
//! tool, interceptors' and gates' decisions as the client sees them, per-caller gates, tasks
//! private to their principal, the approval round trip through `input-required`, and bad input
//! answered with errors while the server stays up.
//!
//! Needs `A2A_PYTHONPATH` (`eval "$(scripts/a2a-peers.sh)"`, which `scripts/test.sh` runs).

use std::time::Duration;

use agents_kt::{A2aHttpServer, A2aServer, Agent, Decision, Grant, InterceptContext, Verdict};
use agents_kt_tests::GetWeather;
use agents_kt_tests::a2a::{
    DeskModel, SlowReport, python_client, python_client_marking, python_path,
};
use serde_json::{Value, json};

const BINDINGS: [&str; 2] = ["JSONRPC", "HTTP+JSON"];

fn principal(header: &str) -> Option<String> {
    let token = header.strip_prefix("Bearer ")?;
    ["alice", "bob", "guest", "banned"]
        .contains(&token)
        .then(|| token.to_string())
}

/// The help desk: weather and a slow report, with an interceptor that fixes and caches, a gate
/// per caller and per city, and a skill gate for banned callers.
fn helpdesk(weather: &GetWeather, slow: &SlowReport) -> Agent<String, String> {
    Agent::<String, String>::builder("helpdesk")
        .model(DeskModel)
        .tool(weather.clone())
        .tool(slow.clone())
        .on_before_tool_call(
            |name: &str, args: &Value| match (name, args["city"].as_str()) {
                ("get_weather", Some("oslo")) => Decision::ProceedWith(json!({"city": "Oslo"})),
                ("get_weather", Some("Cache")) => {
                    Decision::Substitute(json!({"city": "Cache", "cached": true}))
                }
                _ => Decision::Proceed,
            },
        )
        .on_gate_tool_call(|_: &str, args: &Value, ctx: &InterceptContext| {
            if ctx.client() == Some("guest") {
                Verdict::deny("guests may not look things up")
            } else if args["city"] == "Mordor" {
                Verdict::deny("no such city")
            } else {
                Verdict::Allow
            }
        })
        .gate_skill(|_: &str, ctx: &InterceptContext| match ctx.client() {
            Some("banned") => Verdict::deny("banned callers get nothing"),
            _ => Verdict::Allow,
        })
        .build()
        .unwrap()
}

async fn serve(agent: Agent<String, String>, max_tasks: usize) -> A2aHttpServer {
    A2aServer::builder(agent)
        .description("Answers weather questions.")
        .authenticator(principal)
        .max_tasks(max_tasks)
        .max_body_bytes(64 * 1024)
        .build()
        .unwrap()
        .bind("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

/// The help desk with tools nobody inspects, served.
async fn serve_helpdesk() -> A2aHttpServer {
    serve(
        helpdesk(&GetWeather::default(), &SlowReport::default()),
        100,
    )
    .await
}

/// The task a blocking send returned.
fn task_of(result: &Value) -> &Value {
    let events = result["events"]
        .as_array()
        .unwrap_or_else(|| panic!("{result}"));
    &events.last().unwrap_or_else(|| panic!("{result}"))["task"]
}

/// The text of artifact `id` of `task`.
fn artifact_text(task: &Value, id: &str) -> String {
    let artifacts = task["artifacts"].as_array().cloned().unwrap_or_default();
    let artifact = artifacts
        .iter()
        .find(|a| a["artifactId"] == id)
        .unwrap_or_else(|| panic!("no artifact {id}: {task}"));
    artifact["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|part| part["text"].as_str())
        .collect()
}

/// Every text of the task's history.
fn history_text(task: &Value) -> String {
    let history = task["history"].as_array().cloned().unwrap_or_default();
    history
        .iter()
        .flat_map(|m| m["parts"].as_array().cloned().unwrap_or_default())
        .filter_map(|part| part["text"].as_str().map(str::to_string))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_names_the_agent_its_bindings_and_its_io_schemas() {
    let Some(python) = python_path() else { return };
    let server = serve_helpdesk().await;
    let card = python_client(&python, server.url(), "alice", "JSONRPC", "card", "").await;
    assert_eq!(card["name"], "helpdesk", "{card}");
    assert_eq!(card["description"], "Answers weather questions.");
    assert_eq!(card["capabilities"]["streaming"], true);
    let bindings: Vec<&str> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["protocolBinding"].as_str().unwrap())
        .collect();
    assert_eq!(bindings, BINDINGS);
    // Read raw, the schemas of the agent's input and output travel as an extension.
    let raw: Value = reqwest::get(format!("{}/.well-known/agent-card.json", server.url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let extension = &raw["capabilities"]["extensions"][0];
    assert_eq!(extension["uri"], agents_kt::IO_SCHEMAS_EXTENSION);
    assert_eq!(extension["params"]["input"]["type"], "string");
    assert_eq!(extension["params"]["output"]["type"], "string");
    // It says the server wants a bearer token.
    assert_eq!(
        raw["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"], "Bearer",
        "{raw}"
    );
    assert!(
        raw["securityRequirements"]
            .as_array()
            .is_some_and(|r| !r.is_empty()),
        "{raw}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_message_runs_the_agent_through_its_guard_over_both_bindings() {
    let Some(python) = python_path() else { return };
    let weather = GetWeather::default();
    let server = serve(helpdesk(&weather, &SlowReport::default()), 100).await;
    for binding in BINDINGS {
        let sent = python_client(
            &python,
            server.url(),
            "alice",
            binding,
            "send",
            "weather in Paris",
        )
        .await;
        let task = task_of(&sent);
        assert_eq!(
            task["status"]["state"], "TASK_STATE_COMPLETED",
            "{binding}: {sent}"
        );
        let output = artifact_text(task, "output");
        assert!(
            output.starts_with("report: ") && output.contains("Paris"),
            "{output}"
        );
        assert!(
            history_text(task).contains("calling tool 'get_weather'"),
            "{task}"
        );

        // What the interceptor and gates decided, as the client reads it.
        let denied = python_client(
            &python,
            server.url(),
            "alice",
            binding,
            "send",
            "weather in Mordor",
        )
        .await;
        let task = task_of(&denied);
        let said = "ERROR: Tool 'get_weather' denied by policy: no such city";
        assert!(history_text(task).contains(said), "{task}");
        assert_eq!(artifact_text(task, "output"), format!("report: {said}"));
        let fixed = python_client(
            &python,
            server.url(),
            "alice",
            binding,
            "send",
            "weather in oslo",
        )
        .await;
        assert!(
            artifact_text(task_of(&fixed), "output").contains("\"Oslo\""),
            "{fixed}"
        );
        let cached = python_client(
            &python,
            server.url(),
            "alice",
            binding,
            "send",
            "weather in Cache",
        )
        .await;
        assert!(
            artifact_text(task_of(&cached), "output").contains("\"cached\":true"),
            "{cached}"
        );
    }
    let ran: Vec<String> = weather.ran.entries().into_iter().map(|a| a.city).collect();
    assert_eq!(
        ran,
        ["Paris", "Oslo", "Paris", "Oslo"],
        "denied and substituted calls never ran"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_begins_with_the_task_and_ends_when_it_completes() {
    let Some(python) = python_path() else { return };
    let server = serve_helpdesk().await;
    for binding in BINDINGS {
        let streamed = python_client(
            &python,
            server.url(),
            "alice",
            binding,
            "stream",
            "weather in Rome",
        )
        .await;
        let events = streamed["events"]
            .as_array()
            .unwrap_or_else(|| panic!("{streamed}"));
        assert!(
            events[0].get("task").is_some(),
            "the first event is the task: {streamed}"
        );
        let last = &events[events.len() - 1];
        assert_eq!(
            last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
            "{streamed}"
        );
        let output = events
            .iter()
            .find(|e| e["artifactUpdate"]["artifact"]["artifactId"] == "output")
            .unwrap_or_else(|| panic!("no output artifact: {streamed}"));
        let text = output["artifactUpdate"]["artifact"]["parts"][0]["text"]
            .as_str()
            .unwrap();
        assert!(text.contains("Rome"), "{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gates_judge_per_caller_and_a_denied_skill_fails_the_task() {
    let Some(python) = python_path() else { return };
    let weather = GetWeather::default();
    let server = serve(helpdesk(&weather, &SlowReport::default()), 100).await;
    let guest = python_client(
        &python,
        server.url(),
        "guest",
        "JSONRPC",
        "send",
        "weather in Paris",
    )
    .await;
    assert!(
        history_text(task_of(&guest)).contains("guests may not look things up"),
        "{guest}"
    );
    let banned = python_client(
        &python,
        server.url(),
        "banned",
        "JSONRPC",
        "send",
        "weather in Paris",
    )
    .await;
    let task = task_of(&banned);
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED", "{banned}");
    assert!(
        history_text(task).contains("banned callers get nothing"),
        "{task}"
    );
    assert!(weather.ran.is_empty());
    // No credentials, or unknown ones: refused before anything runs.
    let anonymous = python_client(
        &python,
        server.url(),
        "-",
        "JSONRPC",
        "send",
        "weather in Paris",
    )
    .await;
    assert!(anonymous.get("error").is_some(), "{anonymous}");
    assert!(weather.ran.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_principals_task_is_not_found_even_with_a_forged_principal_header() {
    let Some(python) = python_path() else { return };
    let server = serve_helpdesk().await;
    let sent = python_client(&python, server.url(), "alice", "HTTP+JSON", "send", "hello").await;
    let id = task_of(&sent)["id"].as_str().unwrap().to_string();
    let own = python_client(&python, server.url(), "alice", "HTTP+JSON", "get", &id).await;
    assert_eq!(own["id"], id.as_str(), "{own}");
    for binding in BINDINGS {
        let theirs = python_client(&python, server.url(), "bob", binding, "get", &id).await;
        assert!(
            theirs["text"]
                .as_str()
                .unwrap_or_default()
                .to_lowercase()
                .contains("not found"),
            "{theirs}"
        );
        let cancel = python_client(&python, server.url(), "bob", binding, "cancel", &id).await;
        assert!(cancel.get("error").is_some(), "{cancel}");
    }
    // Bob names himself Alice in the header the server uses inside: it is replaced.
    let forged = reqwest::Client::new()
        .post(server.url())
        .header("authorization", "Bearer bob")
        .header("x-agents-kt-principal", "alice")
        .header("a2a-version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": id}}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert!(forged.get("error").is_some(), "{forged}");
}

/// A JSON-RPC call as `token`.
async fn rpc(server: &A2aHttpServer, token: &str, method: &str, params: Value) -> Value {
    reqwest::Client::new()
        .post(server.url())
        .header("authorization", format!("Bearer {token}"))
        .header("a2a-version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn user_message(text: &str) -> Value {
    json!({"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]})
}

/// Start the slow report as `alice`, not waiting for it: the answer (its task, when accepted).
async fn start_slowly(server: &A2aHttpServer) -> Value {
    let message =
        json!({"message": user_message("slowly"), "configuration": {"returnImmediately": true}});
    rpc(server, "alice", "SendMessage", message).await
}

/// Wait (up to 30 s) until `done` says so.
async fn eventually(mut done: impl FnMut() -> bool) {
    for _ in 0..1200 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_the_run_and_reaches_the_tool_in_flight() {
    let Some(python) = python_path() else { return };
    let slow = SlowReport::default();
    let server = serve(helpdesk(&GetWeather::default(), &slow), 100).await;
    let started = start_slowly(&server).await;
    let id = started["result"]["task"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{started}"))
        .to_string();
    eventually(|| !slow.log.is_empty()).await;
    assert_eq!(slow.log.entries(), ["started"]);
    let canceled = python_client(&python, server.url(), "alice", "JSONRPC", "cancel", &id).await;
    assert_eq!(
        canceled["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    eventually(|| slow.log.len() == 2).await;
    assert_eq!(
        slow.log.entries(),
        ["started", "dropped"],
        "the tool's call was dropped"
    );
    let again = python_client(&python, server.url(), "alice", "JSONRPC", "get", &id).await;
    assert_eq!(again["status"]["state"], "TASK_STATE_CANCELED", "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_is_a_round_trip_through_input_required() {
    let Some(python) = python_path() else { return };
    let weather = GetWeather::default();
    let agent = Agent::<String, String>::builder("careful")
        .model(DeskModel)
        .tool(weather.clone())
        .grant(Grant::confirm::<GetWeather>())
        .build()
        .unwrap();
    let server = serve(agent, 100).await;
    for binding in BINDINGS {
        let round = python_client(
            &python,
            server.url(),
            "alice",
            binding,
            "approve",
            "weather in Lima",
        )
        .await;
        let asked = &round["asked"];
        assert_eq!(
            asked["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
            "{round}"
        );
        let request = asked["status"]["message"]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|part| part.get("data"))
            .unwrap();
        assert_eq!(request["tool"], "get_weather");
        assert_eq!(request["args"], json!({"city": "Lima"}));
        let stale = round["stale"]["text"].as_str().unwrap_or_default();
        assert!(
            stale.contains("fingerprint"),
            "a stale answer is refused: {round}"
        );
        let answered = round["answered"].as_array().unwrap();
        let done = &answered[answered.len() - 1]["task"];
        assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED", "{round}");
        assert!(artifact_text(done, "output").contains("Lima"), "{done}");
    }
    assert_eq!(weather.ran.len(), 2, "each approved call ran once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_errors_and_the_server_stays_up() {
    let server = serve(helpdesk(&GetWeather::default(), &SlowReport::default()), 1).await;
    let post = |body: String, version: Option<&str>| {
        let mut request = reqwest::Client::new()
            .post(server.url())
            .header("authorization", "Bearer alice")
            .header("content-type", "application/json")
            .body(body);
        if let Some(version) = version {
            request = request.header("a2a-version", version);
        }
        request.send()
    };
    let malformed: Value = post("{not json".into(), Some("1.0"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(malformed["error"]["code"], -32700, "{malformed}");
    let unknown = rpc(&server, "alice", "message/send", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let empty = rpc(&server, "alice", "SendMessage", json!({})).await;
    assert!(empty.get("error").is_some(), "{empty}");
    let no_parts = rpc(
        &server,
        "alice",
        "SendMessage",
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": []}}),
    )
    .await;
    assert!(
        no_parts["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no parts"),
        "{no_parts}"
    );
    let old: Value = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}).to_string(),
        None,
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert!(
        old.get("error").is_some(),
        "a request without A2A-Version is 0.3: {old}"
    );
    let rest_without_version = reqwest::Client::new()
        .get(format!("{}/rest/tasks/x", server.url()))
        .header("authorization", "Bearer alice")
        .send()
        .await
        .unwrap();
    assert_eq!(rest_without_version.status(), 400);
    let oversized = post("x".repeat(200 * 1024), Some("1.0")).await.unwrap();
    assert_eq!(oversized.status(), 413);

    // One task at most: while it runs, another is refused, saying why.
    let first = start_slowly(&server).await;
    assert!(first.get("result").is_some(), "{first}");
    let second = rpc(
        &server,
        "alice",
        "SendMessage",
        json!({"message": user_message("hello")}),
    )
    .await;
    let said = second["error"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("maximum of 1 live tasks"), "{second}");
    // Still serving.
    let card = reqwest::get(format!("{}/.well-known/agent-card.json", server.url()))
        .await
        .unwrap();
    assert_eq!(card.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_context_is_a_remembered_conversation_of_its_principal() {
    let store = agents_kt::InMemoryStore::new();
    let server = A2aServer::builder(helpdesk(&GetWeather::default(), &SlowReport::default()))
        .authenticator(principal)
        .memory(&store)
        .build()
        .unwrap()
        .bind("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let in_context = |text: &str| json!({"message": {"messageId": text, "role": "ROLE_USER", "contextId": "ctx-1", "parts": [{"text": text}]}});
    for (who, text) in [("alice", "first"), ("alice", "second"), ("bob", "third")] {
        let sent = rpc(&server, who, "SendMessage", in_context(text)).await;
        assert_eq!(
            sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
            "{sent}"
        );
    }
    let contents = |conversation: &str| {
        let store = store.clone();
        let conversation = conversation.to_string();
        async move {
            use agents_kt::ConversationStore;
            let loaded = store.load(&conversation).await.unwrap();
            loaded
                .messages()
                .iter()
                .map(|m| m.content.clone())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        contents("a2a/alice/ctx-1").await,
        ["first", "echo: first", "second", "echo: second"],
        "alice's two messages in one context are one conversation"
    );
    assert_eq!(
        contents("a2a/bob/ctx-1").await,
        ["third", "echo: third"],
        "bob's same context id is his own conversation"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_on_the_server_judges_every_task_it_runs() {
    let weather = GetWeather::default();
    let policy = agents_kt::Policy::builder("org")
        .on_gate_tool_call(|name: &str, _: &Value| match name {
            "get_weather" => Verdict::deny("weather is off today"),
            _ => Verdict::Allow,
        })
        .build();
    let server = A2aServer::builder(helpdesk(&weather, &SlowReport::default()))
        .authenticator(principal)
        .policy(&policy)
        .build()
        .unwrap()
        .bind("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let sent = rpc(
        &server,
        "alice",
        "SendMessage",
        json!({"message": user_message("weather in Paris")}),
    )
    .await;
    let output = artifact_text(&sent["result"]["task"], "output");
    assert_eq!(
        output,
        "report: ERROR: Tool 'get_weather' denied by policy: weather is off today"
    );
    assert!(weather.ran.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_follows_a_running_task_to_its_end() {
    let Some(python) = python_path() else { return };
    let slow = SlowReport::default();
    let server = serve(helpdesk(&GetWeather::default(), &slow), 100).await;
    let started = start_slowly(&server).await;
    let id = started["result"]["task"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let url = server.url().to_string();
    let scratch = agents_kt_tests::scratch::Scratch::new("a2a-subscribe");
    let mark = scratch.0.join("subscribed");
    let subscriber = {
        let (python, id, mark) = (python.clone(), id.clone(), mark.clone());
        tokio::spawn(async move {
            let (token, binding) = ("alice", "HTTP+JSON");
            let mark = Some(mark.as_path());
            python_client_marking(&python, &url, token, binding, "subscribe", &id, mark).await
        })
    };
    // Once the subscriber is in, cancel: its stream ends with the cancellation.
    eventually(|| mark.exists()).await;
    assert!(
        mark.exists(),
        "the subscription never delivered its first event"
    );
    let canceled = rpc(&server, "alice", "CancelTask", json!({"id": id})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    let followed = subscriber.await.unwrap();
    let events = followed["events"]
        .as_array()
        .unwrap_or_else(|| panic!("{followed}"));
    assert!(events[0].get("task").is_some(), "{followed}");
    assert_eq!(
        events[events.len() - 1]["statusUpdate"]["status"]["state"],
        "TASK_STATE_CANCELED",
        "{followed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_tasks_shows_a_principal_its_own_tasks_page_by_page() {
    let server = serve_helpdesk().await;
    for text in ["one", "two", "three"] {
        rpc(
            &server,
            "alice",
            "SendMessage",
            json!({"message": user_message(text)}),
        )
        .await;
    }
    rpc(
        &server,
        "bob",
        "SendMessage",
        json!({"message": user_message("bob's")}),
    )
    .await;
    let first = rpc(&server, "alice", "ListTasks", json!({"pageSize": 2})).await;
    let page = &first["result"];
    assert_eq!(page["tasks"].as_array().map(Vec::len), Some(2), "{first}");
    assert_eq!(page["totalSize"], 3, "bob's task is not alice's: {first}");
    let token = page["nextPageToken"].as_str().unwrap().to_string();
    let second = rpc(
        &server,
        "alice",
        "ListTasks",
        json!({"pageSize": 2, "pageToken": token}),
    )
    .await;
    assert_eq!(
        second["result"]["tasks"].as_array().map(Vec::len),
        Some(1),
        "{second}"
    );
    assert!(
        second["result"]
            .get("nextPageToken")
            .is_none_or(|t| t == ""),
        "{second}"
    );
    let forged = rpc(&server, "alice", "ListTasks", json!({"pageToken": "x"})).await;
    assert!(forged.get("error").is_some(), "{forged}");
}
