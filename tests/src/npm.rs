//! The npm packages `scripts/mcp-clients.sh` installs into `MCP_NODE_DIR`, found by the tests
//! that run them (the official conformance suite, the reference servers).

/// The file `entry` of the npm package `package` in `MCP_NODE_DIR`, or `None` (after saying
/// why) when the packages are not installed — a failure instead when
/// `AGENTS_KT_REQUIRE_MCP_CLIENTS=1` (CI), so a missing install never passes silently.
pub fn npm_package(package: &str, entry: &str) -> Option<String> {
    match std::env::var("MCP_NODE_DIR") {
        Ok(dir) => Some(format!("{dir}/node_modules/{package}/{entry}")),
        Err(_) => {
            let required = std::env::var("AGENTS_KT_REQUIRE_MCP_CLIENTS").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "AGENTS_KT_REQUIRE_MCP_CLIENTS=1 but MCP_NODE_DIR is not set"
            );
            eprintln!("skipping: run `eval \"$(scripts/mcp-clients.sh)\"` to install {package}");
            None
        }
    }
}

/// The official MCP conformance suite's command line entry point.
pub fn conformance_suite() -> Option<String> {
    npm_package("@modelcontextprotocol/conformance", "dist/index.js")
}
