//! The MCP server over HTTP keeps the agent's guarantees: a session belongs to the principal that
//! opened it, an exposed skill's `tools/call` passes the tool chain and gates first, the
//! interceptor context names the principal, and non-object arguments are invalid params.

use std::net::SocketAddr;

use agents_kt::prelude::*;
use agents_kt::{InterceptContext, McpHttpServer, McpServer, Verdict};
use agents_kt_tests::{GetWeather, Log, drain};
use serde_json::{Value, json};

struct Server {
    http: McpHttpServer,
    agent: Agent<String, String>,
    /// `tool principal session` for every guarded call the interceptors saw.
    seen: Log<String>,
}

async fn start() -> Server {
    let seen = Log::<String>::new();
    let (a, b) = (seen.clone(), seen.clone());
    let agent: Agent<String, String> = Agent::builder("desk")
        .model(ScriptedModel::new([Reply::text("summary")]))
        .tool(GetWeather::default())
        .skill(Skill::agentic("summarize"))
        .on_before_tool_call(move |name: &str, args: &Value, ctx: &InterceptContext| {
            a.push(format!(
                "{name} {} {}",
                ctx.client().unwrap_or("-"),
                ctx.ids().session_id
            ));
            if args.get("input").and_then(Value::as_str) == Some("secret") {
                Decision::deny("no secrets")
            } else {
                Decision::Proceed
            }
        })
        .on_gate_tool_call(move |name: &str, args: &Value| {
            b.push(format!("gate {name}"));
            if args.get("input").and_then(Value::as_str) == Some("gated") {
                Verdict::deny("closed")
            } else {
                Verdict::Allow
            }
        })
        .on_after_tool_call(
            |_: &str, _: &Value, result: &Value| match result["city"].as_str() {
                Some("Oslo") => {
                    let mut result = result.clone();
                    result["city"] = json!("[redacted]");
                    Decision::ProceedWith(result)
                }
                Some("Bergen") => Decision::deny("Bergen is secret"),
                _ => Decision::Proceed,
            },
        )
        .build()
        .unwrap();
    let http = McpServer::builder(agent.clone())
        .expose_tool::<GetWeather>()
        .expose_skill("summarize")
        .authenticator(|authorization| match authorization {
            "Bearer alice-token" => Some("alice".to_string()),
            "Bearer bob-token" => Some("bob".to_string()),
            _ => None,
        })
        .build()
        .unwrap()
        .bind_http(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap();
    Server { http, agent, seen }
}

/// One HTTP exchange: status, the session header of the response, and every JSON-RPC message in
/// the body (plain JSON or server-sent events).
async fn send(
    server: &Server,
    method: reqwest::Method,
    token: &str,
    session: Option<&str>,
    body: Option<Value>,
    extra: &[(&str, &str)],
) -> (u16, Option<String>, Vec<Value>) {
    let url = format!("http://{}/mcp", server.http.local_addr());
    let mut request = reqwest::Client::new()
        .request(method, url)
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {token}"));
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    let response = tokio::time::timeout(std::time::Duration::from_secs(10), request.send())
        .await
        .expect("the server answers")
        .unwrap();
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = response.text().await.unwrap_or_default();
    let messages = text
        .lines()
        .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .collect();
    (status, session, messages)
}

/// Open a session as `token`'s principal; its id.
async fn open(server: &Server, token: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}
    }});
    let (status, session, _) = send(
        server,
        reqwest::Method::POST,
        token,
        None,
        Some(initialize),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    let session = session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, _) = send(
        server,
        reqwest::Method::POST,
        token,
        Some(&session),
        Some(initialized),
        &[],
    )
    .await;
    assert_eq!(status, 202);
    session
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[tokio::test]
async fn a_session_serves_only_the_principal_that_opened_it_and_refusals_are_audited() {
    let server = start().await;
    let mut pipeline = server.agent.observe();
    let alice = open(&server, "alice-token").await;
    let weather = call(1, "get_weather", json!({"city": "Oslo"}));
    for (method, body, extra) in [
        (reqwest::Method::POST, Some(weather.clone()), vec![]),
        (reqwest::Method::GET, None, vec![("last-event-id", "0")]),
        (reqwest::Method::DELETE, None, vec![]),
    ] {
        let (status, _, messages) = send(
            &server,
            method.clone(),
            "bob-token",
            Some(&alice),
            body,
            &extra,
        )
        .await;
        assert_eq!(status, 404, "{method}: bob must not use alice's session");
        assert!(messages.is_empty(), "{method}: {messages:?}");
    }
    let refused = drain(&mut pipeline)
        .into_iter()
        .filter(|e| matches!(e, PipelineEvent::ToolRejected { reason, ids, .. }
            if reason.contains("another principal's MCP session") && ids.session_id.ends_with("/mcp-client/bob")))
        .count();
    assert_eq!(refused, 3, "every refusal is audited");
    // Alice's own session still works, and her call reached the tool.
    let (status, _, messages) = send(
        &server,
        reqwest::Method::POST,
        "alice-token",
        Some(&alice),
        Some(weather),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        messages[0]["result"]["isError"],
        json!(false),
        "{messages:?}"
    );
    server.http.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_skill_call_passes_the_tool_chain_and_gates_first_and_names_the_principal() {
    let server = start().await;
    let session = open(&server, "alice-token").await;
    let mut answers = Vec::new();
    for (id, input) in [(1, "secret"), (2, "gated"), (3, "hello")] {
        let (status, _, messages) = send(
            &server,
            reqwest::Method::POST,
            "alice-token",
            Some(&session),
            Some(call(id, "summarize", json!({"input": input}))),
            &[],
        )
        .await;
        assert_eq!(status, 200);
        answers.push(messages[0]["result"].clone());
    }
    assert_eq!(answers[0]["isError"], json!(true));
    assert_eq!(
        answers[0]["content"][0]["text"],
        "ERROR: Tool 'summarize' denied by policy: no secrets"
    );
    assert_eq!(
        answers[1]["content"][0]["text"],
        "ERROR: Tool 'summarize' denied by policy: closed"
    );
    assert_eq!(answers[2]["content"][0]["text"], "summary");
    assert_eq!(
        server.seen.entries(),
        [
            "summarize alice desk/mcp-client/alice",
            "summarize alice desk/mcp-client/alice",
            "gate summarize",
            "summarize alice desk/mcp-client/alice",
            "gate summarize",
        ]
    );
    server.http.shutdown().await.unwrap();
}

#[tokio::test]
async fn after_tool_interceptors_clean_or_withhold_what_an_mcp_client_receives() {
    let server = start().await;
    let session = open(&server, "alice-token").await;
    let mut results = Vec::new();
    for (id, city) in [(1, "Oslo"), (2, "Bergen")] {
        let (_, _, messages) = send(
            &server,
            reqwest::Method::POST,
            "alice-token",
            Some(&session),
            Some(call(id, "get_weather", json!({"city": city}))),
            &[],
        )
        .await;
        results.push(messages[0]["result"].clone());
    }
    assert_eq!(results[0]["isError"], json!(false));
    assert_eq!(results[0]["structuredContent"]["city"], json!("[redacted]"));
    assert!(!results[0].to_string().contains("Oslo"), "{}", results[0]);
    assert_eq!(results[1]["isError"], json!(true));
    assert_eq!(
        results[1]["content"][0]["text"],
        "ERROR: Tool 'get_weather' result withheld by policy: Bergen is secret"
    );
    server.http.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_tool_call_context_names_the_principal() {
    let server = start().await;
    let session = open(&server, "bob-token").await;
    let (_, _, messages) = send(
        &server,
        reqwest::Method::POST,
        "bob-token",
        Some(&session),
        Some(call(1, "get_weather", json!({"city": "Oslo"}))),
        &[],
    )
    .await;
    assert_eq!(messages[0]["result"]["isError"], json!(false));
    assert_eq!(
        server.seen.entries(),
        ["get_weather bob desk/mcp-client/bob", "gate get_weather"]
    );
    server.http.shutdown().await.unwrap();
}

#[tokio::test]
async fn non_object_arguments_are_invalid_params() {
    let server = start().await;
    let session = open(&server, "alice-token").await;
    for arguments in [json!("Oslo"), json!([1, 2]), json!(7)] {
        let (status, _, messages) = send(
            &server,
            reqwest::Method::POST,
            "alice-token",
            Some(&session),
            Some(call(9, "get_weather", arguments.clone())),
            &[],
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(messages[0]["id"], json!(9), "{arguments}");
        assert_eq!(
            messages[0]["error"]["code"],
            json!(-32602),
            "{arguments}: {messages:?}"
        );
    }
    server.http.shutdown().await.unwrap();
}
