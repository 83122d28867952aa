//! Compile time of 200 tools: the same 200 tools written with agents-kt's `#[tool]` (free
//! functions, registered on an agent) and with rmcp's `#[tool]` inside one `#[tool_router]` impl
//! (the parameter structs written out, as rmcp needs them), and the same 200 agents-kt tools each
//! with a typed interceptor of its own. Targets: ≤ 1.5× rmcp's build time and LLVM IR; ≤ 2.5×
//! with the interceptors.
//!
//! Not a criterion bench: it generates a workspace of two crates under
//! `target/compile-time-bench/`, builds their dependencies once, then times `cargo build` of
//! each generated crate alone from clean (dev profile, `ROUNDS` rounds, median), times one fully
//! cold build of each (dependencies included, in a target directory of its own), and counts the
//! lines of each crate's macro expansion (`-Zunpretty=expanded`, through `RUSTC_BOOTSTRAP` on the
//! stable toolchain). Takes several minutes.
//!
//! `cargo bench -p agents-kt --bench compile_time`; see BENCHMARKS.md for the numbers.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TOOLS: usize = 200;
const ROUNDS: usize = 3;

/// `agents-kt`: each tool is a documented function; `#[tool]` writes its arguments struct.
/// `checked`: each tool also has a typed interceptor of its own, registered on the builder.
fn with_agents_kt(checked: bool) -> String {
    let mut code =
        String::from("//! 200 tools written with agents-kt.\n\nuse agents_kt::prelude::*;\n");
    for n in 0..TOOLS {
        write!(
            code,
            r#"
/// Tool {n}: joins a label to a number.
#[tool(params(count = "How many.", label = "What to call it."))]
pub async fn tool_{n}(count: i64, label: String) -> String {{
    format!("{{label}}: {{}}", count + {n})
}}
"#
        )
        .expect("writing to a String cannot fail");
        if checked {
            write!(
                code,
                r#"
/// Tool {n}'s check: no negative counts.
fn check_{n}(args: &Tool{n}Args) -> Decision<Tool{n}Args, String> {{
    if args.count < 0 {{ Decision::deny("negative") }} else {{ Decision::Proceed }}
}}
"#
            )
            .expect("writing to a String cannot fail");
        }
    }
    code.push_str(
        "\n/// An agent with every tool.\npub fn agent() -> Agent<String, String> {\n    Agent::builder(\"generated\")\n        .model(ScriptedModel::default())\n",
    );
    for n in 0..TOOLS {
        writeln!(code, "        .tool(Tool{n})").expect("writing to a String cannot fail");
        if checked {
            writeln!(code, "        .before_tool_call(check_{n})")
                .expect("writing to a String cannot fail");
        }
    }
    code.push_str("        .build()\n        .expect(\"the agent builds\")\n}\n");
    code
}

/// rmcp: each tool is a method of one `#[tool_router]` impl, taking its parameter struct.
fn with_rmcp() -> String {
    let mut code = String::from(
        "//! 200 tools written with rmcp's macros.\n\nuse rmcp::handler::server::router::tool::ToolRouter;\nuse rmcp::handler::server::wrapper::Parameters;\nuse rmcp::{ServerHandler, tool, tool_handler, tool_router};\n",
    );
    for n in 0..TOOLS {
        write!(
            code,
            r#"
/// Parameters of tool {n}.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Tool{n}Args {{
    /// How many.
    pub count: i64,
    /// What to call it.
    pub label: String,
}}
"#
        )
        .expect("writing to a String cannot fail");
    }
    code.push_str(
        "\n/// A server with every tool.\n#[derive(Clone)]\npub struct Server {\n    tool_router: ToolRouter<Self>,\n}\n\n#[tool_router]\nimpl Server {\n    /// The server.\n    pub fn new() -> Self {\n        Server { tool_router: Self::tool_router() }\n    }\n",
    );
    for n in 0..TOOLS {
        write!(
            code,
            r#"
    /// Tool {n}: joins a label to a number.
    #[tool(description = "Tool {n}: joins a label to a number.")]
    async fn tool_{n}(&self, Parameters(args): Parameters<Tool{n}Args>) -> String {{
        format!("{{}}: {{}}", args.label, args.count + {n})
    }}
"#
        )
        .expect("writing to a String cannot fail");
    }
    code.push_str(
        "}\n\n#[tool_handler(router = self.tool_router)]\nimpl ServerHandler for Server {}\n",
    );
    code
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("the bench directory can be created");
    }
    std::fs::write(path, text).expect("the generated file can be written");
}

/// Lay out the workspace; our lockfile pins the same versions the project builds with.
fn generate(root: &Path, runtime: &Path) {
    let runtime = runtime.display();
    write(
        &root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"with-agents-kt\", \"with-agents-kt-checked\", \"with-rmcp\"]\nresolver = \"3\"\n",
    );
    for (package, checked) in [("with-agents-kt", false), ("with-agents-kt-checked", true)] {
        write(
            &root.join(format!("{package}/Cargo.toml")),
            &format!(
                "[package]\nname = \"{package}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nagents-kt = {{ path = \"{runtime}\", default-features = false }}\n"
            ),
        );
        write(
            &root.join(format!("{package}/src/lib.rs")),
            &with_agents_kt(checked),
        );
    }
    write(
        &root.join("with-rmcp/Cargo.toml"),
        "[package]\nname = \"with-rmcp\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nrmcp = { version = \"3\", default-features = false, features = [\"server\", \"macros\"] }\nserde = { version = \"1\", features = [\"derive\"] }\nschemars = \"1\"\n",
    );
    write(&root.join("with-rmcp/src/lib.rs"), &with_rmcp());
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    if let Ok(lock) = std::fs::read_to_string(lock) {
        write(&root.join("Cargo.lock"), &lock);
    }
}

fn cargo(root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(root).args(args);
    // The outer `cargo bench` sets these for itself; the generated workspace builds on its own.
    for variable in ["CARGO_TARGET_DIR", "RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS"] {
        command.env_remove(variable);
    }
    command
}

fn run(mut command: Command) -> String {
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo runs");
    assert!(output.status.success(), "{command:?} failed");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Build `package` alone from clean, its dependencies already built.
fn timed_build(root: &Path, package: &str) -> Duration {
    run(cargo(root, &["clean", "-p", package]));
    let started = Instant::now();
    run(cargo(root, &["build", "-p", package]));
    started.elapsed()
}

/// Build `package` with everything it depends on, from an empty target directory of its own.
fn cold_build(root: &Path, package: &str) -> Duration {
    let target = root.join(format!("target-cold-{package}"));
    // A target directory left by an earlier run would make it warm; it may also not exist.
    let _ = std::fs::remove_dir_all(&target);
    let mut command = cargo(root, &["build", "-p", package]);
    command.env("CARGO_TARGET_DIR", &target);
    let started = Instant::now();
    run(command);
    let elapsed = started.elapsed();
    let _ = std::fs::remove_dir_all(&target);
    elapsed
}

/// Lines of `package`'s source after macro expansion.
fn expanded_lines(root: &Path, package: &str) -> usize {
    let mut command = cargo(
        root,
        &[
            "rustc",
            "-p",
            package,
            "--lib",
            "--profile",
            "check",
            "--",
            "-Zunpretty=expanded",
        ],
    );
    command.env("RUSTC_BOOTSTRAP", "1");
    run(command)
        .lines()
        .filter(|line| !line.trim().is_empty())
        .count()
}

/// Lines of LLVM IR generated for `package` (`cargo llvm-lines`, when installed: `scripts/bench.sh`
/// installs it into the cache), the count of what codegen has to compile.
fn llvm_lines(root: &Path, package: &str) -> Option<u64> {
    let output = cargo(root, &["llvm-lines", "-p", package, "--lib"])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find(|line| line.contains("(TOTAL)"))
        .and_then(|line| line.split_whitespace().next())
        .and_then(|total| total.parse().ok())
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    // `cargo bench --no-run` only compiles this; `cargo bench` with a filter that is not ours
    // (criterion's) skips it.
    let filter = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    if filter.is_some_and(|filter| !"compile_time".contains(filter.as_str())) {
        return;
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.join("../target/compile-time-bench");
    generate(&root, &manifest);
    eprintln!("building the dependencies of both generated crates (not timed)…");
    run(cargo(&root, &["build", "--workspace"]));
    let (mut ours, mut checked, mut rmcp) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=ROUNDS {
        eprintln!("round {round} of {ROUNDS}…");
        ours.push(timed_build(&root, "with-agents-kt"));
        checked.push(timed_build(&root, "with-agents-kt-checked"));
        rmcp.push(timed_build(&root, "with-rmcp"));
    }
    let (ours, checked, rmcp) = (median(ours), median(checked), median(rmcp));
    eprintln!("fully cold builds, dependencies included…");
    let ours_cold = cold_build(&root, "with-agents-kt");
    let rmcp_cold = cold_build(&root, "with-rmcp");
    let ours_lines = expanded_lines(&root, "with-agents-kt");
    let rmcp_lines = expanded_lines(&root, "with-rmcp");
    eprintln!("LLVM IR lines (cargo llvm-lines, when installed)…");
    let ours_ir = llvm_lines(&root, "with-agents-kt");
    let checked_ir = llvm_lines(&root, "with-agents-kt-checked");
    let rmcp_ir = llvm_lines(&root, "with-rmcp");
    // For scripts/bench.sh's table.
    let result = format!(
        "{{\"tools\": {TOOLS}, \"rounds\": {ROUNDS}, \"ours_s\": {:.3}, \"checked_s\": {:.3}, \"rmcp_s\": {:.3}, \"ours_cold_s\": {:.3}, \"rmcp_cold_s\": {:.3}, \"ours_expanded\": {ours_lines}, \"rmcp_expanded\": {rmcp_lines}, \"ours_ir\": {}, \"checked_ir\": {}, \"rmcp_ir\": {}}}\n",
        ours.as_secs_f64(),
        checked.as_secs_f64(),
        rmcp.as_secs_f64(),
        ours_cold.as_secs_f64(),
        rmcp_cold.as_secs_f64(),
        ours_ir.map_or("null".to_string(), |n| n.to_string()),
        checked_ir.map_or("null".to_string(), |n| n.to_string()),
        rmcp_ir.map_or("null".to_string(), |n| n.to_string()),
    );
    write(&root.join("result.json"), &result);
    println!("compile_time/{TOOLS} tools, dev build of the crate alone, median of {ROUNDS}:");
    println!(
        "  rmcp #[tool]/#[tool_router] (baseline): {:.2} s",
        rmcp.as_secs_f64()
    );
    println!(
        "  agents-kt #[tool]:                      {:.2} s",
        ours.as_secs_f64()
    );
    println!(
        "  ratio: {:.2}× (target ≤ 1.50×)",
        ours.as_secs_f64() / rmcp.as_secs_f64()
    );
    println!(
        "  agents-kt, a typed interceptor per tool: {:.2} s",
        checked.as_secs_f64()
    );
    println!(
        "  ratio: {:.2}× (target ≤ 2.50×)",
        checked.as_secs_f64() / rmcp.as_secs_f64()
    );
    println!("compile_time/{TOOLS} tools, fully cold dev build, dependencies included, one run:");
    println!(
        "  rmcp (features server, macros) (baseline): {:.2} s",
        rmcp_cold.as_secs_f64()
    );
    println!(
        "  agents-kt (default features off):          {:.2} s",
        ours_cold.as_secs_f64()
    );
    println!(
        "  ratio: {:.2}×",
        ours_cold.as_secs_f64() / rmcp_cold.as_secs_f64()
    );
    println!("compile_time/expanded lines (non-empty):");
    println!("  rmcp:      {rmcp_lines}");
    println!("  agents-kt: {ours_lines}");
    println!("  ratio: {:.2}×", ours_lines as f64 / rmcp_lines as f64);
    if let (Some(ours_ir), Some(rmcp_ir)) = (ours_ir, rmcp_ir) {
        println!("compile_time/LLVM IR lines (cargo llvm-lines):");
        println!("  rmcp:      {rmcp_ir}");
        println!("  agents-kt: {ours_ir}");
        println!(
            "  ratio: {:.2}× (target ≤ 1.50×)",
            ours_ir as f64 / rmcp_ir as f64
        );
        if let Some(checked_ir) = checked_ir {
            println!("  agents-kt, a typed interceptor per tool: {checked_ir}");
            println!("  ratio: {:.2}×", checked_ir as f64 / rmcp_ir as f64);
        }
    }
}
