//! Real MCP clients we did not write — the PyPI `mcp` client and the npm
//! `@modelcontextprotocol/sdk` Client — drive `examples/mcp_server` over stdio: listing, a call
//! that proceeds, one denied (exact isError text), one substituted, one with mutated arguments,
//! one refused by client policy, then bad requests, checking the server still answers; progress
//! and logging notifications. The npm client also drives `examples/mcp_gateway` in front of the
//! npm filesystem server, end to end: a denied write never touches the disk. The
//! scripts live in `tests/mcp-clients/`; `scripts/mcp-clients.sh` installs the clients and
//! exports `MCP_PYTHONPATH` and `MCP_NODE_DIR`.
//!
//! Without those variables the tests say so and do nothing, unless
//! `AGENTS_KT_REQUIRE_MCP_CLIENTS=1` (set by CI), which makes their absence a failure.

use std::path::PathBuf;
use std::process::Command;

/// The example server binary, built by `cargo test` beside this test's own binary.
fn server_binary() -> PathBuf {
    example_binary("mcp_server")
}

/// An example's binary, built (once) beside this test's own.
fn example_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let debug = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>");
    let binary = debug
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !binary.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--example", name])
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building examples/{name} failed");
    }
    binary
}

fn client_dir(variable: &str) -> Option<String> {
    match std::env::var(variable) {
        Ok(dir) => Some(dir),
        Err(_) => {
            let required = std::env::var("AGENTS_KT_REQUIRE_MCP_CLIENTS").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "AGENTS_KT_REQUIRE_MCP_CLIENTS=1 but {variable} is not set"
            );
            eprintln!(
                "skipping: run `eval \"$(scripts/mcp-clients.sh)\"` to test with real MCP clients"
            );
            None
        }
    }
}

fn script(name: &str) -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/mcp-clients/").to_string() + name
}

fn assert_passed(client: &str, output: std::process::Output) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success() && stdout.contains("all checks passed"),
        "the {client} client's checks failed:\n{stdout}\n{stderr}"
    );
}

#[test]
fn the_python_mcp_client_sees_every_decision_and_the_client_policy() {
    let Some(python_path) = client_dir("MCP_PYTHONPATH") else {
        return;
    };
    let output = Command::new("python3")
        .arg(script("python_client.py"))
        .arg(server_binary())
        .env("PYTHONPATH", python_path)
        .output()
        .expect("python3 runs");
    assert_passed("Python", output);
}

#[test]
fn the_npm_mcp_sdk_client_sees_every_decision_and_the_client_policy() {
    let Some(node_dir) = client_dir("MCP_NODE_DIR") else {
        return;
    };
    let output = Command::new("node")
        .arg(script("node_client.cjs"))
        .arg(server_binary())
        .arg(node_dir)
        .output()
        .expect("node runs");
    assert_passed("npm SDK", output);
}

/// `examples/mcp_server --http 127.0.0.1:0`, killed when dropped.
struct HttpServer {
    child: std::process::Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_http_server() -> HttpServer {
    let mut command = Command::new(server_binary());
    command.args(["--http", "127.0.0.1:0"]);
    spawn_listening(command)
}

/// `command` started, once it says `listening on <url>` on stderr; killed when dropped.
fn spawn_listening(mut command: Command) -> HttpServer {
    use std::io::{BufRead, BufReader};
    let mut child = command
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the example server starts");
    let stderr = child.stderr.take().expect("its stderr");
    let mut lines = BufReader::new(stderr).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| line.strip_prefix("listening on ").map(str::to_string))
        .expect("the server says where it listens");
    // Keep draining its stderr (audit lines) so it never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    HttpServer { child, url }
}

#[test]
fn the_npm_mcp_sdk_client_over_streamable_http_authenticates_and_sees_every_decision() {
    let Some(node_dir) = client_dir("MCP_NODE_DIR") else {
        return;
    };
    let server = start_http_server();
    let output = Command::new("node")
        .arg(script("node_client.cjs"))
        .arg(&server.url)
        .arg(node_dir)
        .output()
        .expect("node runs");
    assert_passed("npm SDK (HTTP)", output);
}

/// The npm client → `examples/mcp_gateway` (stdio, or streamable HTTP) → the npm filesystem
/// server: the gateway's gate keeps writes inside one directory and its after-tool interceptor
/// removes secret lines. The client sees the denials; the disk proves the denied writes never
/// happened.
fn gateway_end_to_end(http: bool) {
    let Some(node_dir) = client_dir("MCP_NODE_DIR") else {
        return;
    };
    let root = std::env::temp_dir().join(format!(
        "agents-kt-gateway-{}-{}",
        std::process::id(),
        if http { "http" } else { "stdio" }
    ));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("notes")).expect("a directory to serve");
    let root = root.canonicalize().expect("the directory's real path");
    let filesystem =
        format!("{node_dir}/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    let mut gateway = Command::new(example_binary("mcp_gateway"));
    gateway.arg("--writes-in").arg(root.join("notes"));
    if http {
        gateway.args(["--http", "127.0.0.1:0"]);
    }
    gateway.arg("--").arg("node").arg(&filesystem).arg(&root);
    let (target, _server) = if http {
        let server = spawn_listening(gateway);
        (server.url.clone(), Some(server))
    } else {
        let line: Vec<String> = std::iter::once(gateway.get_program())
            .chain(gateway.get_args())
            .map(|part| part.to_string_lossy().into_owned())
            .collect();
        (
            serde_json::to_string(&line).expect("a JSON command line"),
            None,
        )
    };
    let output = Command::new("node")
        .arg(script("gateway_client.cjs"))
        .arg(&target)
        .arg(&root)
        .arg(&node_dir)
        .output()
        .expect("node runs");
    assert_passed("npm SDK → gateway", output);
    assert!(
        root.join("notes/plan.txt").exists(),
        "the allowed write happened"
    );
    for denied in ["outside.txt", "escape.txt", "notes/../escape2.txt"] {
        assert!(
            !root.join(denied).exists(),
            "the denied write of {denied} never touched the disk"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_npm_client_through_the_gateway_over_stdio_a_denied_write_never_touches_the_disk() {
    gateway_end_to_end(false);
}

#[test]
fn the_npm_client_through_the_gateway_over_http_a_denied_write_never_touches_the_disk() {
    gateway_end_to_end(true);
}
