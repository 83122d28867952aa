//! The FastMCP ledger server (`tests/mcp-servers/ledger_server.py`, PyPI `mcp` 1.x), started over
//! stdio for the `McpToolset` tests; it logs every tool call it receives, so a test can prove
//! what reached it and what never did.

use agents_kt::McpToolset;
use serde_json::Value;

/// The PyPI `mcp` install, or `None` (after saying why) when it is not there;
/// `AGENTS_KT_REQUIRE_MCP_CLIENTS=1` makes its absence a failure.
pub fn python_path() -> Option<String> {
    match std::env::var("MCP_PYTHONPATH") {
        Ok(dir) => Some(dir),
        Err(_) => {
            let required = std::env::var("AGENTS_KT_REQUIRE_MCP_CLIENTS").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "AGENTS_KT_REQUIRE_MCP_CLIENTS=1 but MCP_PYTHONPATH is not set"
            );
            eprintln!("skipping: run `eval \"$(scripts/mcp-clients.sh)\"` for the FastMCP server");
            None
        }
    }
}

/// The ledger server, connected; and the file where it logs every call it receives.
pub async fn ledger(python_path: &str) -> (McpToolset, std::path::PathBuf) {
    ledger_with(python_path, |stdio| stdio).await
}

/// The ledger server, with `settings` applied to its toolset before it connects.
pub async fn ledger_with(
    python_path: &str,
    settings: impl FnOnce(agents_kt::McpStdio) -> agents_kt::McpStdio,
) -> (McpToolset, std::path::PathBuf) {
    let calls = std::env::temp_dir().join(format!(
        "agents-kt-ledger-{}-{}.jsonl",
        std::process::id(),
        rand_suffix()
    ));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/mcp-servers/ledger_server.py");
    let stdio = McpToolset::stdio("python3")
        .arg(script)
        .arg(calls.display().to_string())
        .env("PYTHONPATH", python_path);
    let set = settings(stdio)
        .connect()
        .await
        .expect("the ledger server starts and lists its tools");
    (set, calls)
}

/// A suffix that makes a temporary name unique.
pub fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

/// What the server received, in order.
pub fn received(calls: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(calls)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}
