//! `McpToolset` against a misbehaving MCP server (`tests/mcp-servers/misbehaving_server.py`,
//! plain Python): garbage on its stdout, an answer cut off mid-frame by the server's exit, and
//! a server that never answers — each is a clear outcome for the model or the run, never a hang
//! or a panic, and the agent keeps working.

use std::time::{Duration, Instant};

use agents_kt::prelude::*;
use agents_kt::{AgentError, BudgetLimit, McpToolset};
use serde_json::json;

async fn server(mode: &str) -> McpToolset {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/mcp-servers/misbehaving_server.py"
    );
    McpToolset::stdio("python3")
        .arg(script)
        .arg(mode)
        .connect()
        .await
        .expect("the server initializes and lists its tools")
}

/// An agent whose model looks up `keys` one turn each, then says "done"; what the model read
/// after each call is in `model.requests()`.
fn agent(set: McpToolset, keys: &[&str]) -> (Agent<String, String>, ScriptedModel) {
    let mut replies: Vec<Reply> = keys
        .iter()
        .map(|key| Reply::tool_call("lookup", json!({ "key": key })))
        .collect();
    replies.push(Reply::text("done"));
    let model = ScriptedModel::new(replies);
    let agent = Agent::<String, String>::builder("client")
        .model(model.clone())
        .toolset(set)
        .budget(Budget::default().per_tool_timeout(Duration::from_secs(2)))
        .build()
        .unwrap();
    (agent, model)
}

/// The tool message the model read after each call.
fn tool_results(model: &ScriptedModel) -> Vec<String> {
    model
        .requests()
        .iter()
        .skip(1)
        .map(|request| request.messages.last().unwrap().content.clone())
        .collect()
}

#[tokio::test]
async fn garbage_lines_on_the_servers_stdout_do_not_hang_or_break_the_run() {
    let (agent, model) = agent(server("garbage").await, &["a", "b"]);
    let started = Instant::now();
    assert_eq!(agent.run("look up".into()).await.unwrap(), "done");
    // The lines that are not JSON-RPC are skipped; the answers behind them arrive.
    assert_eq!(tool_results(&model), ["value of a", "value of b"]);
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn an_answer_cut_off_by_the_servers_exit_fails_the_call_and_the_next_call_reconnects() {
    let (agent, model) = agent(server("truncated").await, &["a", "b"]);
    assert_eq!(agent.run("look up".into()).await.unwrap(), "done");
    // Both calls reached a server (the second a new one) and both were cut off.
    assert_eq!(
        tool_results(&model),
        ["ERROR: Tool 'lookup' failed: the MCP server closed the connection before answering (the next call reconnects)";
            2]
    );
}

#[tokio::test]
async fn a_server_that_never_answers_is_cut_off_at_the_tool_timeout() {
    let (agent, _) = agent(server("silent").await, &["a"]);
    let started = Instant::now();
    let error = agent.run("look up".into()).await.unwrap_err();
    assert_cut_off_at_the_tool_timeout(&error);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

/// A streamable-HTTP MCP server written by hand that initializes and lists its tool properly and
/// answers `tools/call` as `mode` says: `garbage` (a 200 whose body is not JSON-RPC),
/// `truncated` (an event stream cut off mid-message), `error` (a 500), `silent` (never).
async fn http_server(mode: &'static str) -> (String, tokio::task::JoinHandle<()>) {
    use axum::body::Body;
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::Response;
    let handler = move |headers: HeaderMap, body: String| async move {
        let _ = headers;
        let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let id = request["id"].clone();
        let json = |value: serde_json::Value| {
            Response::builder()
                .status(StatusCode::OK)
                .header("content-type", "application/json")
                .header("mcp-session-id", "s-1")
                .body(Body::from(value.to_string()))
                .unwrap()
        };
        match request["method"].as_str().unwrap_or_default() {
            "initialize" => json(json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "misbehaving-http", "version": "1"}
            }})),
            "tools/list" => json(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [{
                "name": "lookup", "description": "Looks a key up.",
                "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}}
            }]}})),
            "tools/call" => match mode {
                "garbage" => Response::builder()
                    .status(StatusCode::OK)
                    .header("content-type", "application/json")
                    .body(Body::from("<html>this is not JSON-RPC</html>"))
                    .unwrap(),
                "truncated" => Response::builder()
                    .status(StatusCode::OK)
                    .header("content-type", "text/event-stream")
                    .body(Body::from(format!(
                        "event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"resu"
                    )))
                    .unwrap(),
                "error" => Response::builder()
                    .status(StatusCode::INTERNAL_SERVER_ERROR)
                    .body(Body::from("upstream exploded"))
                    .unwrap(),
                _ => futures::future::pending().await,
            },
            _ => Response::builder()
                .status(StatusCode::ACCEPTED)
                .body(Body::empty())
                .unwrap(),
        }
    };
    let router = axum::Router::new().route(
        "/mcp",
        axum::routing::post(handler).get(|| async { StatusCode::METHOD_NOT_ALLOWED }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (url, task)
}

#[tokio::test]
async fn over_http_a_garbage_cut_off_or_failed_answer_fails_only_that_call() {
    let cut_off = "ERROR: Tool 'lookup' failed: the MCP server closed the connection before \
                   answering (the next call reconnects)";
    for (mode, expected) in [
        (
            "garbage",
            "ERROR: Tool 'lookup' failed: the MCP server did not answer the call: the server at \
             {url} answered with something else than MCP: could not parse JSON response as \
             ServerJsonRpcMessage: expected value at line 1 column 1: <html>this is not \
             JSON-RPC</html>",
        ),
        ("truncated", cut_off),
        (
            "error",
            "ERROR: Tool 'lookup' failed: the MCP server did not answer the call: HTTP 500",
        ),
    ] {
        let (url, server) = http_server(mode).await;
        let set = McpToolset::http(&url).connect().await.expect("connects");
        let (agent, model) = agent(set, &["a", "b"]);
        let started = Instant::now();
        assert_eq!(agent.run("look up".into()).await.unwrap(), "done", "{mode}");
        let expected = expected.replace("{url}", &url);
        assert_eq!(tool_results(&model), [expected.as_str(); 2], "{mode}");
        assert!(started.elapsed() < Duration::from_secs(10), "{mode}");
        server.abort();
    }
}

#[tokio::test]
async fn over_http_a_server_that_never_answers_is_cut_off_at_the_tool_timeout() {
    let (url, server) = http_server("silent").await;
    let set = McpToolset::http(&url).connect().await.expect("connects");
    let (agent, _) = agent(set, &["a"]);
    let started = Instant::now();
    let error = agent.run("look up".into()).await.unwrap_err();
    assert_cut_off_at_the_tool_timeout(&error);
    assert!(started.elapsed() < Duration::from_secs(10));
    server.abort();
}

fn assert_cut_off_at_the_tool_timeout(error: &AgentError) {
    assert!(
        matches!(
            error,
            AgentError::BudgetExceeded {
                limit: BudgetLimit::PerToolTimeout,
                ..
            }
        ),
        "{error:?}"
    );
}
