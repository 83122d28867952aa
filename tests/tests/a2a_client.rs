//! `A2aAgent`, our typed A2A client, against our own `A2aServer` on loopback: a remote agent as a
//! typed tool whose interceptors rewrite and substitute before anything is sent, a parent's gate
//! that stops a call before a byte leaves (counted by a proxy), the card check refusing types
//! that do not fit, the remote's approval asked of the local desk, a remote failure told to the
//! model, a timeout canceling the remote task and its tool, a handoff carrying the conversation,
//! the remote's progress in the parent's events, a journaled call not sent again on replay, a
//! refused connection retried but a request that may have arrived never resent, a parent session
//! dropped mid-call canceling the remote task, and an answer
//! past the size cap refused.

use std::time::Duration;

use agents_kt::prelude::*;
use agents_kt::{
    A2aAgent, A2aClientError, A2aHttpServer, A2aServer, AgentEvent, ApprovalDesk, Extensions,
    Grant, MemoryJournal,
};
use agents_kt_tests::GetWeather;
use agents_kt_tests::a2a::{DeskModel, SlowReport};
use agents_kt_tests::a2a_remote::{CountingProxy, refunds_model, triage_model};
use futures::StreamExt;
use serde_json::{Value, json};

/// A support ticket: the triage agent's input.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Ticket {
    /// What the customer wrote.
    pub text: String,
}

/// Where a ticket goes: the triage agent's output.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Routing {
    /// The queue.
    pub queue: String,
    /// The ticket's text as the remote read it.
    pub ticket: String,
}

agents_kt::a2a_tool! {
    /// Sends a ticket to the triage team's agent.
    pub struct Triage("triage"): Ticket => Routing;
}

/// Card numbers never leave the process; spam is answered here.
#[before_tool_call(Triage)]
fn redact(ticket: &Ticket) -> Decision<Ticket, Routing> {
    if ticket.text.contains("spam") {
        Decision::Substitute(Routing {
            queue: "discard".into(),
            ticket: String::new(),
        })
    } else if ticket.text.contains("4111") {
        Decision::ProceedWith(Ticket {
            text: ticket.text.replace("4111", "****"),
        })
    } else {
        Decision::Proceed
    }
}

async fn serve<IN, OUT>(agent: Agent<IN, OUT>, public_url: Option<&str>) -> A2aHttpServer
where
    IN: agents_kt::AgentInput + serde::de::DeserializeOwned + schemars::JsonSchema + Sync,
    OUT: agents_kt::AgentOutput + serde::Serialize + Sync,
{
    let mut builder = A2aServer::builder(agent).description("A remote agent for the tests.");
    if let Some(url) = public_url {
        builder = builder.public_url(url);
    }
    builder
        .build()
        .unwrap()
        .bind("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

fn triage() -> Agent<Ticket, Routing> {
    Agent::<Ticket, Routing>::builder("triage")
        .model(triage_model())
        .build()
        .unwrap()
}

/// The triage agent served behind a proxy counting what clients send it.
async fn triage_behind_proxy() -> (A2aHttpServer, CountingProxy) {
    let proxy = CountingProxy::listen().await;
    let server = serve(triage(), Some(&proxy.url)).await;
    proxy.forward_to(server.local_addr());
    (server, proxy)
}

/// The tool result the model read in its `n`th request.
fn tool_result(model: &ScriptedModel, n: usize) -> String {
    model.requests()[n].messages.last().unwrap().content.clone()
}

async fn eventually(mut done: impl FnMut() -> bool) {
    for _ in 0..100 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(done(), "did not happen within 5 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_remote_tool_is_rewritten_and_substituted_before_anything_is_sent() {
    let (_server, proxy) = triage_behind_proxy().await;
    let remote = A2aAgent::<Ticket, Routing>::connect(&proxy.url)
        .await
        .unwrap();
    assert_eq!(remote.name(), "triage");
    let model = ScriptedModel::new([
        Reply::tool_call("triage", json!({"text": "my printer ate card 4111"})),
        Reply::text("routed"),
        Reply::tool_call("triage", json!({"text": "buy spam now"})),
        Reply::text("discarded"),
    ]);
    let desk = Agent::<String, String>::builder("desk")
        .model(model.clone())
        .tool(Triage::new(remote))
        .before_tool_call(redact)
        .build()
        .unwrap();
    assert_eq!(desk.run("a ticket".into()).await.unwrap(), "routed");
    let routed: Routing = serde_json::from_str(&tool_result(&model, 1)).unwrap();
    assert_eq!(
        routed,
        Routing {
            queue: "hardware".into(),
            ticket: "my printer ate card ****".into()
        },
        "the remote received the rewritten ticket"
    );
    let sent = proxy.sent();
    assert_eq!(desk.run("spam".into()).await.unwrap(), "discarded");
    let substituted: Routing = serde_json::from_str(&tool_result(&model, 3)).unwrap();
    assert_eq!(substituted.queue, "discard");
    assert_eq!(proxy.sent(), sent, "a substituted call sends nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parents_gate_denies_before_any_byte_is_sent() {
    let (_server, proxy) = triage_behind_proxy().await;
    let remote = A2aAgent::<Ticket, Routing>::connect(&proxy.url)
        .await
        .unwrap();
    let model = ScriptedModel::new([
        Reply::tool_call("ask_triage", json!({"text": "printer"})),
        Reply::text("could not ask"),
    ]);
    let desk = Agent::<String, String>::builder("desk")
        .model(model.clone())
        .sub_agent(remote.as_tool("ask_triage", "Routes a ticket."))
        .on_gate_tool_call(|name: &str, _: &Value| match name {
            "ask_triage" => Verdict::deny("no outside calls today"),
            _ => Verdict::Allow,
        })
        .build()
        .unwrap();
    let sent = proxy.sent();
    assert!(sent > 0, "connect read the card through the proxy");
    assert_eq!(desk.run("a ticket".into()).await.unwrap(), "could not ask");
    assert!(tool_result(&model, 1).contains("no outside calls today"));
    assert_eq!(proxy.sent(), sent, "not one byte reached the remote");
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct NumberedRouting {
    queue: u32,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_refuses_types_that_do_not_fit_the_card() {
    let server = serve(triage(), None).await;
    let error = A2aAgent::<Ticket, NumberedRouting>::connect(server.url())
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, A2aClientError::Mismatch { .. }), "{text}");
    assert!(
        text.contains("`queue`") && text.contains("integer"),
        "{text}"
    );
    let error = A2aAgent::<String, Routing>::connect(server.url())
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`String` is string, but the remote agent's input is object"),
        "{error}"
    );
    let error = A2aAgent::<Ticket, Routing>::connect("http://127.0.0.1:9")
        .await
        .unwrap_err();
    assert!(matches!(error, A2aClientError::Card { .. }), "{error}");
}

/// A remote agent whose one tool takes a minute (and logs `dropped` when it is canceled),
/// served.
async fn serve_slow_reporter() -> (A2aHttpServer, SlowReport) {
    let slow = SlowReport::default();
    let reporter = Agent::<String, String>::builder("reporter")
        .model(DeskModel)
        .tool(slow.clone())
        .build()
        .unwrap();
    (serve(reporter, None).await, slow)
}

/// A remote help desk whose weather lookups need approval.
fn careful(weather: &GetWeather) -> Agent<String, String> {
    Agent::<String, String>::builder("careful")
        .model(DeskModel)
        .tool(weather.clone())
        .grant(Grant::confirm::<GetWeather>())
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_remotes_approval_is_asked_of_the_local_desk_approved_or_denied() {
    let weather = GetWeather::default();
    let server = serve(careful(&weather), None).await;
    let remote = A2aAgent::<String, String>::connect(server.url())
        .await
        .unwrap();
    let (approvals, mut inbox) = ApprovalDesk::new();
    let model = ScriptedModel::new([
        Reply::tool_call("weather_desk", json!({"input": "weather in Lima"})),
        Reply::text("asked"),
        Reply::tool_call("weather_desk", json!({"input": "weather in Oslo"})),
        Reply::text("asked again"),
    ]);
    let planner = Agent::<String, String>::builder("planner")
        .model(model.clone())
        .sub_agent(remote.as_tool("weather_desk", "Answers weather questions."))
        .approvals(approvals)
        .build()
        .unwrap();
    let run = tokio::spawn({
        let planner = planner.clone();
        async move { planner.run("plan".into()).await }
    });
    let question = inbox.next().await.unwrap();
    let request = question.request().clone();
    assert_eq!(request.tool, "weather_desk");
    assert_eq!(request.agent, "planner");
    assert_eq!(request.args["remote_agent"], "careful", "{}", request.args);
    assert_eq!(request.args["tool"], "get_weather", "{}", request.args);
    assert_eq!(request.args["args"], json!({"city": "Lima"}));
    question.approve();
    assert_eq!(run.await.unwrap().unwrap(), "asked");
    assert!(
        tool_result(&model, 1).contains("Lima"),
        "{}",
        tool_result(&model, 1)
    );
    assert_eq!(weather.ran.len(), 1);

    let run = tokio::spawn({
        let planner = planner.clone();
        async move { planner.run("plan".into()).await }
    });
    inbox.next().await.unwrap().deny("not Oslo");
    assert_eq!(run.await.unwrap().unwrap(), "asked again");
    let told = tool_result(&model, 3);
    assert!(told.contains("not Oslo"), "{told}");
    assert_eq!(weather.ran.len(), 1, "the denied lookup never ran remotely");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_approver_the_remotes_question_fails_the_call() {
    let weather = GetWeather::default();
    let server = serve(careful(&weather), None).await;
    let remote = A2aAgent::<String, String>::connect(server.url())
        .await
        .unwrap();
    let error = remote.send("weather in Lima".into()).await.unwrap_err();
    assert!(
        matches!(error, A2aClientError::InputNotGiven { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("nobody can answer"), "{error}");
    assert!(weather.ran.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_failure_is_the_tools_error_the_model_reads() {
    let closed = Agent::<String, String>::builder("closed")
        .model(DeskModel)
        .gate_skill(|_: &str| Verdict::deny("closed for the holidays"))
        .build()
        .unwrap();
    let server = serve(closed, None).await;
    let remote = A2aAgent::<String, String>::connect(server.url())
        .await
        .unwrap();
    let model = ScriptedModel::new([
        Reply::tool_call("closed", json!({"input": "hello"})),
        Reply::text("the desk is closed"),
    ]);
    let planner = Agent::<String, String>::builder("planner")
        .model(model.clone())
        .sub_agent(remote.as_tool("closed", "A closed desk."))
        .build()
        .unwrap();
    assert_eq!(
        planner.run("go".into()).await.unwrap(),
        "the desk is closed"
    );
    let told = tool_result(&model, 1);
    assert!(
        told.contains("remote agent 'closed': the remote task failed")
            && told.contains("closed for the holidays"),
        "{told}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_cancels_the_remote_task_and_its_tool_in_flight() {
    let (server, slow) = serve_slow_reporter().await;
    let remote = A2aAgent::<String, String>::builder(server.url())
        .timeout(Duration::from_millis(1500))
        .connect()
        .await
        .unwrap();
    let error = remote.send("slowly".into()).await.unwrap_err();
    assert!(
        matches!(error, A2aClientError::Timeout { after_ms: 1500 }),
        "{error}"
    );
    eventually(|| slow.log.entries().contains(&"dropped".to_string())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handoff_to_a_remote_agent_carries_the_conversation_and_ends_the_run() {
    let refunds = Agent::<String, String>::builder("refunds")
        .model(refunds_model())
        .build()
        .unwrap();
    let server = serve(refunds, None).await;
    let remote = A2aAgent::<String, String>::connect(server.url())
        .await
        .unwrap();
    let model = ScriptedModel::new([Reply::tool_call(
        "transfer_to_refunds",
        json!({"input": "order 42"}),
    )]);
    let triage = Agent::<String, String>::builder("triage")
        .model(model.clone())
        .handoff(remote)
        .build()
        .unwrap();
    let output = triage.run("I want my money back".into()).await.unwrap();
    assert_eq!(output, "refunds saw: I want my money back | order 42");
}

/// A handoff to a remote agent is a call like any other: a gate that forbids it stops it before
/// one byte reaches the remote, and the caller's model is told why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gate_forbids_a_remote_handoff_before_any_byte_is_sent() {
    let refunds = Agent::<String, String>::builder("refunds")
        .model(refunds_model())
        .build()
        .unwrap();
    let proxy = CountingProxy::listen().await;
    let server = serve(refunds, Some(&proxy.url)).await;
    proxy.forward_to(server.local_addr());
    let remote = A2aAgent::<String, String>::connect(&proxy.url)
        .await
        .unwrap();
    let model = ScriptedModel::new([
        Reply::tool_call("transfer_to_refunds", json!({"input": "refund everything"})),
        Reply::text("I cannot hand you over"),
    ]);
    let triage = Agent::<String, String>::builder("triage")
        .model(model.clone())
        .handoff(remote)
        .on_gate_tool_call(|name: &str, args: &Value| {
            let everything = args["input"]
                .as_str()
                .is_some_and(|input| input.contains("everything"));
            match name.starts_with("transfer_to_") && everything {
                true => Verdict::deny("refunds of everything need a manager"),
                false => Verdict::Allow,
            }
        })
        .build()
        .unwrap();
    let sent = proxy.sent();
    let output = triage.run("I want my money back".into()).await.unwrap();
    assert_eq!(output, "I cannot hand you over");
    assert!(
        tool_result(&model, 1).contains("refunds of everything need a manager"),
        "{}",
        tool_result(&model, 1)
    );
    assert_eq!(proxy.sent(), sent, "not one byte reached the remote");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_remotes_progress_reaches_the_parents_events() {
    let server = serve(
        Agent::<String, String>::builder("helpdesk")
            .model(DeskModel)
            .tool(GetWeather::default())
            .build()
            .unwrap(),
        None,
    )
    .await;
    let remote = A2aAgent::<String, String>::connect(server.url())
        .await
        .unwrap();
    let planner = Agent::<String, String>::builder("planner")
        .model(ScriptedModel::new([
            Reply::tool_call("helpdesk", json!({"input": "weather in Rome"})),
            Reply::text("done"),
        ]))
        .sub_agent(remote.as_tool("helpdesk", "Answers weather questions."))
        .build()
        .unwrap();
    let mut session = planner.session("go".into());
    let mut progress = Vec::new();
    let mut events = session.events();
    while let Some(event) = events.next().await {
        if let AgentEvent::ToolCallProgress { progress: p, .. } = event {
            progress.push(p);
        }
    }
    assert_eq!(session.output().await.unwrap(), "done");
    assert!(
        progress
            .iter()
            .any(|p| p["remote_status"] == "calling tool 'get_weather'"),
        "{progress:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journaled_remote_call_is_not_sent_again_on_replay() {
    let (_server, proxy) = triage_behind_proxy().await;
    let remote = A2aAgent::<Ticket, Routing>::connect(&proxy.url)
        .await
        .unwrap();
    let desk = |model: ScriptedModel| {
        Agent::<String, String>::builder("desk")
            .model(model)
            .tool(Triage::new(remote.clone()))
            .build()
            .unwrap()
    };
    let script = || {
        ScriptedModel::new([
            Reply::tool_call("triage", json!({"text": "printer"})),
            Reply::text("routed"),
        ])
    };
    let journal = std::sync::Arc::new(MemoryJournal::new("ticket-run"));
    let first = desk(script());
    let done = first.run_journaled("t".into(), Extensions::new(), journal.clone());
    assert_eq!(done.await.unwrap(), "routed");
    let sent = proxy.sent();
    let replay = std::sync::Arc::new(MemoryJournal::replaying("ticket-run", journal.entries()));
    let replayed = desk(script());
    let done = replayed.run_journaled("t".into(), Extensions::new(), replay);
    assert_eq!(done.await.unwrap(), "routed");
    assert_eq!(proxy.sent(), sent, "the replay read the recorded answer");
}

/// A free loopback port (free when asked).
fn free_port() -> u16 {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    probe.local_addr().unwrap().port()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_connection_is_retried_but_a_request_that_may_have_arrived_is_not_resent() {
    // The card names an endpoint where nothing listens yet; it comes up 150 ms later.
    let port = free_port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let card_server = serve(triage(), Some(&endpoint)).await;
    let remote =
        A2aAgent::<Ticket, Routing>::builder(format!("http://{}", card_server.local_addr()))
            .retries(3)
            .connect()
            .await
            .unwrap();
    let late = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        A2aServer::builder(triage())
            .build()
            .unwrap()
            .bind(format!("127.0.0.1:{port}").parse().unwrap())
            .await
            .unwrap()
    });
    let routed = remote
        .send(Ticket {
            text: "printer".into(),
        })
        .await
        .unwrap();
    assert_eq!(routed.queue, "hardware", "sent once the endpoint listened");
    let _late_server = late.await.unwrap();

    // An endpoint that takes the request and hangs up: the request may have arrived, so it is
    // not sent again — it is sent once, the call fails, and what it may have started is looked
    // for by the call's context, to be canceled.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let rude = format!("http://{}", listener.local_addr().unwrap());
    let accepted = agents_kt_tests::Log::<String>::new();
    let counted = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            counted.push(method_of(&mut stream).await);
            drop(stream);
        }
    });
    let card_server = serve(triage(), Some(&rude)).await;
    let remote =
        A2aAgent::<Ticket, Routing>::builder(format!("http://{}", card_server.local_addr()))
            .retries(3)
            .connect()
            .await
            .unwrap();
    let error = remote
        .send(Ticket {
            text: "printer".into(),
        })
        .await
        .unwrap_err();
    assert!(matches!(error, A2aClientError::Transport { .. }), "{error}");
    eventually(|| accepted.entries().contains(&"ListTasks".to_string())).await;
    let sent = accepted.entries();
    let sends = sent.iter().filter(|method| method.starts_with("Send"));
    assert_eq!(sends.count(), 1, "the request was not sent again: {sent:?}");
}

/// The JSON-RPC method of the request arriving on `stream` (read until it pauses or ends).
async fn method_of(stream: &mut tokio::net::TcpStream) -> String {
    let mut request = Vec::new();
    let mut buffer = [0u8; 4096];
    while let Ok(Ok(read @ 1..)) = tokio::time::timeout(
        Duration::from_millis(200),
        tokio::io::AsyncReadExt::read(stream, &mut buffer),
    )
    .await
    {
        request.extend_from_slice(&buffer[..read]);
    }
    let text = String::from_utf8_lossy(&request);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
    let request: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    request["method"].as_str().unwrap_or("?").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_past_the_size_cap_is_a_clear_error() {
    // An endpoint that answers every request with 2 MiB of JSON whitespace.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let flood = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut buffer = [0u8; 4096];
                let _ = stream.read(&mut buffer).await;
                let body = vec![b' '; 2 << 20];
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(&body).await;
            });
        }
    });
    let card_server = serve(triage(), Some(&flood)).await;
    let remote =
        A2aAgent::<Ticket, Routing>::builder(format!("http://{}", card_server.local_addr()))
            .max_response_bytes(1 << 20)
            .connect()
            .await
            .unwrap();
    let error = remote
        .send(Ticket {
            text: "printer".into(),
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&error, A2aClientError::Protocol { reason } if reason.contains("exceeds 1048576 bytes")),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parent_session_dropped_mid_call_cancels_the_remote_task() {
    let (server, slow) = serve_slow_reporter().await;
    let remote = A2aAgent::<String, String>::connect(server.url())
        .await
        .unwrap();
    let planner = Agent::<String, String>::builder("planner")
        .model(ScriptedModel::new([Reply::tool_call(
            "reporter",
            json!({"input": "slowly"}),
        )]))
        .sub_agent(remote.as_tool("reporter", "Writes slow reports."))
        .build()
        .unwrap();
    let session = planner.session("report".into());
    eventually(|| slow.log.entries().contains(&"started".to_string())).await;
    drop(session);
    eventually(|| slow.log.entries().contains(&"dropped".to_string())).await;
}

/// The remote's answers never arrive (a proxy holds them back), so the client never learns the
/// task's id: dropped, the call still finds its task by the call's own context and cancels it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_dropped_before_the_remote_named_its_task_still_cancels_it() {
    let slow = SlowReport::default();
    let reporter = Agent::<String, String>::builder("reporter")
        .model(DeskModel)
        .tool(slow.clone())
        .build()
        .unwrap();
    let proxy = CountingProxy::listen().await;
    let server = serve(reporter, Some(&proxy.url)).await;
    proxy.forward_to(server.local_addr());
    // A connection per request: the muted one carries the call alone.
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let remote = A2aAgent::<String, String>::builder(&proxy.url)
        .http_client(http)
        .connect()
        .await
        .unwrap();
    proxy.mute_next_connection();
    let call = tokio::spawn(async move { remote.send("slowly".into()).await });
    eventually(|| slow.log.entries().contains(&"started".to_string())).await;
    call.abort();
    eventually(|| slow.log.entries().contains(&"dropped".to_string())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gate_above_in_the_tree_stops_a_childs_remote_call_before_any_byte_is_sent() {
    let (_server, proxy) = triage_behind_proxy().await;
    let remote = A2aAgent::<Ticket, Routing>::connect(&proxy.url)
        .await
        .unwrap();
    let child_model = ScriptedModel::new([
        Reply::tool_call("ask_triage", json!({"text": "printer"})),
        Reply::text("could not ask"),
    ]);
    let child = Agent::<String, String>::builder("clerk")
        .model(child_model.clone())
        .sub_agent(remote.as_tool("ask_triage", "Routes a ticket."))
        .build()
        .unwrap();
    let root = Agent::<String, String>::builder("office")
        .model(ScriptedModel::new([
            Reply::tool_call("clerk", json!({"input": "file it"})),
            Reply::text("filed"),
        ]))
        .sub_agent(child.as_tool("clerk", "Files tickets."))
        .on_gate_tool_call(|name: &str, _: &Value| match name {
            "ask_triage" => Verdict::deny("no outside calls from this office"),
            _ => Verdict::Allow,
        })
        .build()
        .unwrap();
    let sent = proxy.sent();
    assert_eq!(root.run("a ticket".into()).await.unwrap(), "filed");
    assert!(
        tool_result(&child_model, 1).contains("no outside calls from this office"),
        "{}",
        tool_result(&child_model, 1)
    );
    assert_eq!(proxy.sent(), sent, "not one byte reached the remote");
}
