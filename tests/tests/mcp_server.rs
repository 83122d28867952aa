//! `McpServer` with the official Rust SDK's client over an in-process transport: listing, each
//! decision on `tools/call`, per-client policy, bad requests, and observers on this path.

use agents_kt::prelude::*;
use agents_kt::{McpServer, PipelineEvent};
use agents_kt_tests::{Forever, GetWeather, GetWeatherArgs, Seen, WriteFile, WriteFileArgs, drain};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};

fn agent(seen: &Seen) -> Agent<String, String> {
    seen.watch(Agent::builder("desk"))
        .model(ScriptedModel::default())
        .tool(GetWeather::default())
        .tool(WriteFile::default())
        .tool(agents_kt_tests::FetchAccount::default())
        .before_tool_call(ToolInterceptor::<GetWeather>::new(
            |args: &GetWeatherArgs| match args.city.as_str() {
                "Mars" => Decision::deny("no station on Mars"),
                "Moon" => Decision::Substitute(json!({"city": "Moon", "celsius": -170})),
                "paris" => Decision::ProceedWith(GetWeatherArgs {
                    city: "Paris".into(),
                }),
                _ => Decision::Proceed,
            },
        ))
        .before_tool_call(ToolInterceptor::<WriteFile>::new(|args: &WriteFileArgs| {
            if args.path.starts_with("/etc/") {
                Decision::deny("system paths are off-limits")
            } else {
                Decision::Proceed
            }
        }))
        .skill(Skill::code(
            "echo",
            |input: String, _: SkillContext<String>| async move {
                Ok::<_, SkillError>(format!("echo: {input}"))
            },
        ))
        .build()
        .unwrap()
}

async fn connect(
    agent: Agent<String, String>,
    client: &str,
) -> RunningService<RoleClient, ClientConfig> {
    let server = McpServer::builder(agent)
        .expose_tool::<GetWeather>()
        .expose_tool::<WriteFile>()
        .expose_skill("echo")
        .client_policy(|client, tool| client.name != "intern" || tool != "writeFile")
        .build()
        .unwrap();
    serve_to(server, client).await
}

/// `server` on an in-process pipe, and rmcp's client named `client` connected to it.
async fn serve_to(
    server: McpServer<String, String>,
    client: &str,
) -> RunningService<RoleClient, ClientConfig> {
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(server.serve(tokio::io::split(server_side)));
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(client, "1.0"),
    )
    .serve(tokio::io::split(client_side))
    .await
    .expect("the client connects")
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

async fn call(
    client: &RunningService<RoleClient, ClientConfig>,
    tool: &str,
    arguments: Value,
) -> (String, bool) {
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args(arguments)))
        .await
        .expect("a tool result");
    let text = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("");
    (text, result.is_error.unwrap_or(false))
}

#[tokio::test]
async fn tools_list_shows_exposed_tools_and_skills_with_their_schemas() {
    let client = connect(agent(&Seen::default()), "trusted").await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(
        names,
        vec!["get_weather", "writeFile", "echo"],
        "fetchAccount is not exposed"
    );
    assert_eq!(tools[0].input_schema["required"], json!(["city"]));
    assert_eq!(
        tools[2].input_schema["properties"]["input"]["type"],
        "string"
    );
}

#[tokio::test]
async fn tools_call_passes_the_agents_tool_chain() {
    let seen = Seen::default();
    let agent = agent(&seen);
    let mut pipeline = agent.observe();
    let client = connect(agent, "trusted").await;
    assert_eq!(
        call(&client, "get_weather", json!({"city": "Oslo"})).await,
        (r#"{"celsius":18,"city":"Oslo"}"#.into(), false)
    );
    assert_eq!(
        call(&client, "get_weather", json!({"city": "Mars"})).await,
        (
            "ERROR: Tool 'get_weather' denied by policy: no station on Mars".into(),
            true
        )
    );
    assert_eq!(
        call(&client, "get_weather", json!({"city": "Moon"})).await,
        (r#"{"celsius":-170,"city":"Moon"}"#.into(), false)
    );
    assert_eq!(
        call(&client, "get_weather", json!({"city": "paris"})).await,
        (r#"{"celsius":18,"city":"Paris"}"#.into(), false)
    );
    assert_eq!(
        call(&client, "echo", json!({"input": "hi"})).await,
        ("echo: hi".into(), false)
    );
    assert_eq!(
        seen.lines("tool_denied").len(),
        1,
        "on_tool_denied fires on the MCP path"
    );
    assert_eq!(
        seen.lines("tool_use").len(),
        3,
        "on_tool_use sees ran and substituted calls"
    );
    assert!(
        seen.lines("tool_use")[2].contains(r#"{"city":"Paris"}"#),
        "on_tool_use sees the replacement"
    );
    let events = drain(&mut pipeline);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, PipelineEvent::ToolDenied { .. }))
    );
    let ids = events
        .iter()
        .find(|e| matches!(e, PipelineEvent::ToolUsed { .. }))
        .unwrap()
        .ids()
        .clone();
    assert_eq!(ids.session_id, "desk/mcp-client/trusted");
}

#[tokio::test]
async fn the_client_policy_refuses_and_filters_per_client_and_hides_what_exists() {
    let agent = agent(&Seen::default());
    let mut pipeline = agent.observe();
    let intern = connect(agent, "intern").await;
    let names: Vec<_> = intern
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, vec!["get_weather", "echo"]);
    let refused = intern
        .call_tool(
            CallToolRequestParams::new("writeFile")
                .with_arguments(args(json!({"path": "/tmp/x", "contents": "y"}))),
        )
        .await
        .unwrap_err();
    // No existence oracle: a hidden tool is refused exactly as a tool that does not exist.
    let missing = intern
        .call_tool(
            CallToolRequestParams::new("writeFyle")
                .with_arguments(args(json!({"path": "/tmp/x", "contents": "y"}))),
        )
        .await
        .unwrap_err();
    assert_eq!(
        refused.to_string().replace("writeFile", "NAME"),
        missing.to_string().replace("writeFyle", "NAME"),
        "a hidden tool and a missing one read the same"
    );
    assert!(!refused.to_string().contains("intern"), "{refused}");
    let audited = drain(&mut pipeline)
        .into_iter()
        .any(|e| matches!(&e, PipelineEvent::ToolRejected { tool, reason, .. } if tool == "writeFile" && reason.contains("intern")));
    assert!(audited, "the refusal is audited");
    assert!(
        !call(&intern, "get_weather", json!({"city": "Oslo"}))
            .await
            .1,
        "the intern may still call the rest"
    );
}

#[tokio::test]
async fn bad_requests_get_errors_and_the_server_keeps_serving() {
    let client = connect(agent(&Seen::default()), "trusted").await;
    let unknown = client
        .call_tool(CallToolRequestParams::new("launch_missiles"))
        .await
        .unwrap_err();
    assert!(
        unknown
            .to_string()
            .contains("unknown tool 'launch_missiles'"),
        "{unknown}"
    );
    let unexposed = client
        .call_tool(CallToolRequestParams::new("fetchAccount"))
        .await
        .unwrap_err();
    assert!(
        unexposed
            .to_string()
            .contains("unknown tool 'fetchAccount'"),
        "{unexposed}"
    );
    let (text, is_error) = call(&client, "get_weather", json!({"town": 3})).await;
    assert!(
        is_error
            && text.starts_with(
                "ERROR: Invalid arguments for tool 'get_weather': missing field `city`"
            ),
        "{text}"
    );
    let bad_skill = client
        .call_tool(CallToolRequestParams::new("echo").with_arguments(args(json!({"input": 5}))))
        .await
        .unwrap_err();
    assert!(
        bad_skill
            .to_string()
            .contains("invalid input for skill 'echo'"),
        "{bad_skill}"
    );
    assert!(
        !call(&client, "get_weather", json!({"city": "Oslo"}))
            .await
            .1,
        "still serving"
    );
}

/// Counts how many of its calls run at once, and the most ever seen.
#[derive(Clone, Default)]
struct Gauge {
    now: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    most: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct HoldArgs {}

impl Tool for Gauge {
    const NAME: &'static str = "hold";
    type Args = HoldArgs;
    type Output = String;
    fn description(&self) -> std::borrow::Cow<'static, str> {
        "Holds a slot for a moment.".into()
    }
    async fn call(&self, _: HoldArgs, _: &ToolContext) -> Result<String, ToolError> {
        use std::sync::atomic::Ordering::SeqCst;
        let running = self.now.fetch_add(1, SeqCst) + 1;
        self.most.fetch_max(running, SeqCst);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        self.now.fetch_sub(1, SeqCst);
        Ok("held".into())
    }
}

async fn most_concurrent(cap: usize) -> usize {
    let gauge = Gauge::default();
    let agent: Agent<String, String> = Agent::builder("gauge")
        .model(ScriptedModel::default())
        .tool(gauge.clone())
        .build()
        .unwrap();
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    let server = McpServer::builder(agent)
        .expose_tool::<Gauge>()
        .max_concurrent_calls(cap)
        .build()
        .unwrap();
    tokio::spawn(server.serve(tokio::io::split(server_side)));
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("load", "1"),
    )
    .serve(tokio::io::split(client_side))
    .await
    .unwrap();
    let calls = (0..6).map(|_| client.call_tool(CallToolRequestParams::new("hold")));
    for result in futures::future::join_all(calls).await {
        assert_eq!(result.unwrap().is_error, Some(false));
    }
    gauge.most.load(std::sync::atomic::Ordering::SeqCst)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_are_capped() {
    assert_eq!(
        most_concurrent(1).await,
        1,
        "a cap of one serves calls one at a time"
    );
    assert!(
        most_concurrent(3).await > 1,
        "without a tight cap calls do overlap (the gauge works)"
    );
}

/// A forecast.
#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Outlook {
    city: String,
    celsius: i32,
}

/// Forecast for a city.
#[tool]
fn forecast(city: String) -> Outlook {
    Outlook { city, celsius: 9 }
}

#[tokio::test]
async fn a_typed_object_output_is_listed_as_output_schema_and_returned_as_structured_content() {
    let agent: Agent<String, String> = Agent::builder("typed")
        .model(ScriptedModel::default())
        .tool(Forecast)
        .tool(GetWeather::default())
        .build()
        .unwrap();
    let server = McpServer::builder(agent)
        .expose_tool::<Forecast>()
        .expose_tool::<GetWeather>()
        .build()
        .unwrap();
    let client = serve_to(server, "typed").await;
    let tools = client.list_all_tools().await.unwrap();
    let schema = tools[0]
        .output_schema
        .as_ref()
        .expect("an outputSchema for a typed object output");
    assert_eq!(schema["properties"]["celsius"]["type"], "integer");
    assert!(
        tools[1].output_schema.is_none(),
        "an untyped JSON output has none"
    );
    let result = client
        .call_tool(
            CallToolRequestParams::new("forecast").with_arguments(args(json!({"city": "Oslo"}))),
        )
        .await
        .unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"city": "Oslo", "celsius": 9}))
    );
}

#[tokio::test]
async fn a_call_past_the_per_tool_timeout_is_an_error_result_and_the_server_keeps_serving() {
    let agent: Agent<String, String> = Agent::builder("slow")
        .model(ScriptedModel::default())
        .tool(agents_kt_tests::Sleep)
        .budget(Budget::default().per_tool_timeout(std::time::Duration::from_millis(20)))
        .build()
        .unwrap();
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    let server = McpServer::builder(agent)
        .expose_tool::<agents_kt_tests::Sleep>()
        .build()
        .unwrap();
    tokio::spawn(server.serve(tokio::io::split(server_side)));
    let client = ClientConfig::new(ClientCapabilities::default(), Implementation::new("c", "1"))
        .serve(tokio::io::split(client_side))
        .await
        .unwrap();
    let (text, is_error) = call(&client, "sleep", json!({"millis": 10_000})).await;
    assert!(is_error, "{text}");
    assert!(
        text.contains("per_tool_timeout") && text.contains("tool 'sleep' ran longer than 20ms"),
        "{text}"
    );
    assert_eq!(
        call(&client, "sleep", json!({"millis": 1})).await,
        ("slept".to_string(), false)
    );
}

#[tokio::test]
async fn a_call_the_client_cancels_is_dropped_and_the_server_keeps_serving() {
    let forever = Forever::default();
    let agent: Agent<String, String> = Agent::builder("desk")
        .model(ScriptedModel::default())
        .tool(forever.clone())
        .tool(GetWeather::default())
        .build()
        .unwrap();
    let server = McpServer::builder(agent)
        .expose_tool::<Forever>()
        .expose_tool::<GetWeather>()
        .build()
        .unwrap();
    let client = serve_to(server, "canceller").await;
    let handle = client
        .peer()
        .send_cancellable_request(
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
                CallToolRequestParams::new("forever"),
            )),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    forever.started.notified().await;
    handle.cancel(Some("changed my mind".into())).await.unwrap();
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        forever.dropped.notified(),
    )
    .await
    .expect("the tool's future is dropped once the client cancels");
    let (text, is_error) = call(&client, "get_weather", json!({"city": "Oslo"})).await;
    assert!(!is_error && text.contains("Oslo"), "still serving: {text}");
}

#[tokio::test]
#[allow(deprecated)] // rmcp marks logging deprecated (SEP-2577); clients still send it.
async fn logging_is_offered_unless_turned_off_and_then_set_level_is_an_unknown_method() {
    let seen = Seen::default();
    let offered = connect(agent(&seen), "trusted").await;
    let capabilities = offered.peer_info().map(|info| info.capabilities.clone());
    assert!(capabilities.is_some_and(|c| c.logging.is_some()));
    offered
        .peer()
        .set_level(rmcp::model::SetLevelRequestParams::new(
            rmcp::model::LoggingLevel::Info,
        ))
        .await
        .expect("logging/setLevel is answered");

    let server = McpServer::builder(agent(&seen))
        .expose_tool::<GetWeather>()
        .client_logging(false)
        .build()
        .unwrap();
    let refused = serve_to(server, "trusted").await;
    let capabilities = refused.peer_info().map(|info| info.capabilities.clone());
    assert!(capabilities.is_some_and(|c| c.logging.is_none()));
    let error = refused
        .peer()
        .set_level(rmcp::model::SetLevelRequestParams::new(
            rmcp::model::LoggingLevel::Info,
        ))
        .await
        .expect_err("logging is not offered");
    assert!(
        error.to_string().contains("-32601") || error.to_string().contains("not offered"),
        "{error}"
    );
}

/// One policy: no writes under /etc (typed), no skill calls named `echo` over any path (JSON).
fn org_policy() -> agents_kt::Policy {
    agents_kt::Policy::builder("org")
        .gate_tool_call(
            |args: &WriteFileArgs| match args.path.starts_with("/etc/") {
                true => Verdict::deny("system paths are off-limits"),
                false => Verdict::Allow,
            },
        )
        .on_gate_tool_call(|name: &str, _: &Value| match name {
            "echo" => Verdict::deny("no echoes"),
            _ => Verdict::Allow,
        })
        .build()
}

/// An agent without gates of its own, holding `writeFile` and an `echo` skill.
fn plain_desk(model: ScriptedModel, writes: &WriteFile) -> agents_kt::AgentBuilder<String, String> {
    Agent::<String, String>::builder("plain-desk")
        .model(model)
        .tool(writes.clone())
}

#[tokio::test]
async fn the_same_policy_on_an_agent_and_on_an_mcp_server_denies_the_same_call_with_the_same_text()
{
    let policy = org_policy();
    let passwd = json!({"path": "/etc/passwd", "contents": "x"});

    // Locally: the policy on the agent.
    let writes = WriteFile::default();
    let model = ScriptedModel::new([
        Reply::tool_call("writeFile", passwd.clone()),
        Reply::text("done"),
    ]);
    let local = plain_desk(model.clone(), &writes)
        .policy(&policy)
        .build()
        .unwrap();
    local.run("write".into()).await.unwrap();
    let told_locally = agents_kt_tests::last_message(&model, 1);

    // Over MCP: the policy on the server, the agent without it.
    let served = plain_desk(ScriptedModel::default(), &writes)
        .skill(Skill::code(
            "echo",
            |input: String, _: SkillContext<String>| async move {
                Ok::<_, SkillError>(format!("echo: {input}"))
            },
        ))
        .build()
        .unwrap();
    let server = McpServer::builder(served)
        .expose_tool::<WriteFile>()
        .expose_skill("echo")
        .policy(&policy)
        .build()
        .unwrap();
    let client = serve_to(server, "trusted").await;
    let (told_over_mcp, is_error) = call(&client, "writeFile", passwd).await;

    assert_eq!(
        told_locally,
        "ERROR: Tool 'writeFile' denied by policy: system paths are off-limits"
    );
    assert_eq!(
        (told_over_mcp.as_str(), is_error),
        (told_locally.as_str(), true)
    );
    assert!(writes.ran.is_empty(), "a denied write ran");

    // The server's policy judges an exposed skill's call too, and lets the rest through.
    assert_eq!(
        call(&client, "echo", json!({"input": "hi"})).await,
        (
            "ERROR: Tool 'echo' denied by policy: no echoes".into(),
            true
        )
    );
    let (ok, is_error) = call(
        &client,
        "writeFile",
        json!({"path": "/tmp/x", "contents": "x"}),
    )
    .await;
    assert!(!is_error, "{ok}");
    assert_eq!(writes.ran.len(), 1);
}

#[tokio::test]
async fn a_policy_attached_to_two_agents_guards_both_and_flows_down_from_each() {
    let policy = org_policy();
    let passwd = json!({"path": "/etc/passwd", "contents": "x"});
    for name in ["first", "second"] {
        let writes = WriteFile::default();
        let child_model = ScriptedModel::new([
            Reply::tool_call("writeFile", passwd.clone()),
            Reply::text("child done"),
        ]);
        let child = plain_desk(child_model.clone(), &writes).build().unwrap();
        let parent = Agent::<String, String>::builder(name)
            .model(ScriptedModel::new([
                Reply::tool_call("delegate", json!({"input": "write"})),
                Reply::text("done"),
            ]))
            .sub_agent(child.as_tool("delegate", "Writes."))
            .policy(&policy)
            .build()
            .unwrap();
        parent.run("go".into()).await.unwrap();
        assert!(writes.ran.is_empty(), "{name}: the child's write ran");
        assert_eq!(
            agents_kt_tests::last_message(&child_model, 1),
            "ERROR: Tool 'writeFile' denied by policy: system paths are off-limits"
        );
    }
}

/// Holds its call open until the test lets it go, counting how many are held.
#[derive(Clone)]
struct Latch {
    open: std::sync::Arc<tokio::sync::Semaphore>,
    held: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct LatchArgs {
    /// Whether to wait for the latch (a quick call does not).
    wait: bool,
}

impl Tool for Latch {
    const NAME: &'static str = "latch";
    type Args = LatchArgs;
    type Output = String;
    fn description(&self) -> std::borrow::Cow<'static, str> {
        "Waits until let go.".into()
    }
    async fn call(&self, args: LatchArgs, _: &ToolContext) -> Result<String, ToolError> {
        if !args.wait {
            return Ok("quick".into());
        }
        self.held.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let _go = self.open.acquire().await;
        self.held.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        Ok("released".into())
    }
}

/// `server` served over HTTP on a free loopback port, and its MCP endpoint's URL.
async fn on_loopback(server: McpServer<String, String>) -> (agents_kt::McpHttpServer, String) {
    let server = server
        .bind_http(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", server.local_addr().port());
    (server, url)
}

async fn http_client(url: &str, name: &str) -> RunningService<RoleClient, ClientConfig> {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(name, "1.0"),
    )
    .serve(rmcp::transport::StreamableHttpClientTransport::from_uri(
        url.to_string(),
    ))
    .await
    .expect("the client connects")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_holding_its_share_of_calls_does_not_make_another_wait() {
    let latch = Latch {
        open: std::sync::Arc::new(tokio::sync::Semaphore::new(0)),
        held: std::sync::Arc::default(),
    };
    let agent: Agent<String, String> = Agent::builder("shared")
        .model(ScriptedModel::default())
        .tool(latch.clone())
        .build()
        .unwrap();
    let (server, url) = on_loopback(
        McpServer::builder(agent)
            .expose_tool::<Latch>()
            .max_concurrent_calls(4)
            .max_concurrent_calls_per_client(2)
            .build()
            .unwrap(),
    )
    .await;
    let hog = http_client(&url, "hog").await;
    let other = http_client(&url, "other").await;
    let held = tokio::spawn(async move {
        let calls = (0..4).map(|_| {
            hog.call_tool(
                CallToolRequestParams::new("latch").with_arguments(args(json!({"wait": true}))),
            )
        });
        futures::future::join_all(calls).await
    });
    while latch.held.load(std::sync::atomic::Ordering::SeqCst) < 2 {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    // The server has 4 slots and the hog asked for 4: only its share of 2 runs, so the other
    // client is served now. (Without shares it would wait for the latch, which never opens
    // until it is served: the bound below turns that hang into a failure.)
    let quick = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        other.call_tool(
            CallToolRequestParams::new("latch").with_arguments(args(json!({"wait": false}))),
        ),
    )
    .await
    .expect("another client is served while one holds its share")
    .unwrap();
    assert_eq!(quick.is_error, Some(false));
    assert_eq!(
        latch.held.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "the hog's other two calls wait for its own share"
    );
    latch.open.add_permits(4);
    for result in held.await.unwrap() {
        assert_eq!(result.unwrap().is_error, Some(false));
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_ending_its_session_cancels_its_calls_and_frees_their_slots() {
    let forever = Forever::default();
    let agent: Agent<String, String> = Agent::builder("hangup")
        .model(ScriptedModel::default())
        .tool(forever.clone())
        .build()
        .unwrap();
    let (server, url) = on_loopback(
        McpServer::builder(agent)
            .expose_tool::<Forever>()
            .max_concurrent_calls(1)
            .build()
            .unwrap(),
    )
    .await;
    let leaving = http_client(&url, "leaving").await;
    let peer = leaving.peer().clone();
    let pending =
        tokio::spawn(async move { peer.call_tool(CallToolRequestParams::new("forever")).await });
    forever.started.notified().await;
    // The client ends its session (HTTP DELETE) with its call in flight.
    leaving.cancel().await.unwrap();
    let _ = pending.await;
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        forever.dropped.notified(),
    )
    .await
    .expect("the call is dropped when its session ends");
    // Its slot (the only one) is free: the next client is served.
    let next = http_client(&url, "next").await;
    let listed = tokio::time::timeout(std::time::Duration::from_secs(10), next.list_all_tools())
        .await
        .expect("the server still answers")
        .unwrap();
    assert_eq!(listed.len(), 1);
    server.shutdown().await.unwrap();
}
