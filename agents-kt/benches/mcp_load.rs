//! MCP under load, the way MCP users compare servers: 50 concurrent clients on streamable HTTP,
//! each with its own kept-alive session, each calling `get_weather` in a loop for a fixed time.
//! Reported per server: requests per second, p50 and p99 latency, and the server's peak RSS.
//! The servers are `McpServer` with 8 Proceed interceptors on the tool and a bare rmcp
//! `StreamableHttpService` serving the same tool with rmcp's own macros — each in a process of its
//! own (this binary, started again with `--serve`), so its peak RSS is its own; the client is the
//! same in both runs. Rounds alternate bare, ours, bare, ours, so a drift of the machine falls on
//! both; each server's best round is compared.
//!
//! `cargo bench -p agents-kt --bench mcp_load --features mcp,openai` (about a minute);
//! `-- --seconds N --clients N --rounds N` to change the load. BENCHMARKS.md has the numbers.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/mcp_http_client.rs"]
mod mcp_http_client;
#[path = "support/mcp_servers.rs"]
mod mcp_servers;
#[path = "support/weather.rs"]
mod weather;
use mcp_http_client::Session;

/// The two servers compared.
#[derive(Clone, Copy, PartialEq)]
enum Server {
    Bare,
    Ours,
}

impl Server {
    fn flag(self) -> &'static str {
        match self {
            Server::Bare => "bare",
            Server::Ours => "ours",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Server::Bare => "bare rmcp StreamableHttpService (baseline)",
            Server::Ours => "agents-kt McpServer, 8 interceptors",
        }
    }
}

/// What one round of load measured.
struct Round {
    calls: usize,
    elapsed: Duration,
    p50: Duration,
    p99: Duration,
    peak_rss_kib: u64,
}

impl Round {
    fn rate(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|arg| arg == "--serve") {
        let server = match args.get(at + 1).map(String::as_str) {
            Some("bare") => Server::Bare,
            Some("ours") => Server::Ours,
            other => panic!("--serve bare|ours, not {other:?}"),
        };
        serve(server);
        return;
    }
    let number = |name: &str, default: u64| {
        args.iter()
            .position(|arg| arg == name)
            .and_then(|at| args.get(at + 1))
            .map_or(default, |value| {
                value
                    .parse()
                    .unwrap_or_else(|_| panic!("{name} takes a number"))
            })
    };
    let seconds = Duration::from_secs(number("--seconds", 10));
    let clients = number("--clients", 50) as usize;
    let rounds = number("--rounds", 2);
    let mut best: Vec<(Server, Round)> = Vec::new();
    for round in 0..rounds {
        for server in [Server::Bare, Server::Ours] {
            let measured = load(server, clients, seconds);
            eprintln!(
                "[mcp_load] round {}: {:<44} {:>8.0} calls/s  p50 {:>7.2} ms  p99 {:>7.2} ms  peak RSS {:>7} KiB",
                round + 1,
                server.label(),
                measured.rate(),
                ms(measured.p50),
                ms(measured.p99),
                measured.peak_rss_kib,
            );
            match best.iter_mut().find(|(kind, _)| *kind == server) {
                Some((_, kept)) if kept.rate() >= measured.rate() => {}
                Some((_, kept)) => *kept = measured,
                None => best.push((server, measured)),
            }
        }
    }
    report(&best, clients, seconds);
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// The table: each server's best round, ours against the baseline.
fn report(best: &[(Server, Round)], clients: usize, seconds: Duration) {
    let of = |server| {
        best.iter()
            .find(|(kind, _)| *kind == server)
            .map(|(_, round)| round)
            .expect("both servers were measured")
    };
    let (bare, ours) = (of(Server::Bare), of(Server::Ours));
    println!(
        "MCP under load: {clients} clients, one session each, {} s per round, best round of each",
        seconds.as_secs()
    );
    println!("| server | calls/s | p50 | p99 | peak RSS |");
    println!("|---|---|---|---|---|");
    for (server, round) in [(Server::Bare, bare), (Server::Ours, ours)] {
        println!(
            "| {} | {:.0} | {:.2} ms | {:.2} ms | {} KiB |",
            server.label(),
            round.rate(),
            ms(round.p50),
            ms(round.p99),
            round.peak_rss_kib
        );
    }
    println!(
        "| ours / bare | {:.2}× | {:.2}× | {:.2}× | {:.2}× |",
        ours.rate() / bare.rate(),
        ms(ours.p50) / ms(bare.p50),
        ms(ours.p99) / ms(bare.p99),
        ours.peak_rss_kib as f64 / bare.peak_rss_kib as f64
    );
}

/// Start `server` in a process of its own, load it with `clients` sessions for `seconds`, and
/// read its peak RSS before stopping it.
fn load(server: Server, clients: usize, seconds: Duration) -> Round {
    let (mut child, address) = spawn(server);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let (calls, elapsed, mut latencies) = runtime.block_on(async {
        let mut sessions = Vec::with_capacity(clients);
        for _ in 0..clients {
            sessions.push(Session::open(address).await);
        }
        // A second of warm-up, unmeasured, then the measured time.
        drive(&sessions, Duration::from_secs(1)).await;
        let started = Instant::now();
        let latencies = drive(&sessions, seconds).await;
        (latencies.len(), started.elapsed(), latencies)
    });
    let peak_rss_kib = peak_rss_kib(child.id());
    let _ = child.kill();
    let _ = child.wait();
    latencies.sort_unstable();
    let at = |quantile: f64| latencies[((latencies.len() - 1) as f64 * quantile) as usize];
    Round {
        calls,
        elapsed,
        p50: at(0.50),
        p99: at(0.99),
        peak_rss_kib,
    }
}

/// Every session calls in a loop until `time` is up; each call's latency.
async fn drive(sessions: &[Session], time: Duration) -> Vec<Duration> {
    let until = Instant::now() + time;
    let each = sessions.iter().map(|session| async move {
        let mut latencies = Vec::new();
        while Instant::now() < until {
            let started = Instant::now();
            session.call().await;
            latencies.push(started.elapsed());
        }
        latencies
    });
    futures::future::join_all(each)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// This binary again, serving `server`; its address, read from the first line it prints.
fn spawn(server: Server) -> (Child, std::net::SocketAddr) {
    let exe = std::env::current_exe().expect("this binary's path");
    let mut child = Command::new(exe)
        .args(["--serve", server.flag()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let stdout = child.stdout.take().expect("its stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the server prints its address");
    let address = line.trim().parse().expect("an address");
    (child, address)
}

/// The server side: serve on loopback, print the address, serve until killed (or until the
/// parent closes stdin).
fn serve(server: Server) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let (address, _held) = match server {
            Server::Bare => (mcp_servers::serve_bare_http().await, None),
            Server::Ours => {
                let bound = mcp_servers::guarded_server()
                    .bind_http("127.0.0.1:0".parse().expect("an address"))
                    .await
                    .expect("the server listens");
                (bound.local_addr(), Some(bound))
            }
        };
        println!("{address}");
        // Serve until the parent goes away.
        let _ = tokio::task::spawn_blocking(|| {
            let mut sink = String::new();
            while std::io::stdin()
                .read_line(&mut sink)
                .is_ok_and(|read| read > 0)
            {}
        })
        .await;
    });
}

/// A process's peak resident set (`VmHWM`), in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
