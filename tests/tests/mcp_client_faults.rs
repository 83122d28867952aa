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
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}
