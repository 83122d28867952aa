//! Fixtures for the durable-run tests: a real Restate server (`RESTATE_SERVER`, installed by
//! `scripts/restate-server.sh`) on loopback ports of its own, and the `durable_ledger` service as
//! a process that tests kill (SIGKILL) and start again. Both stop on drop.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub use crate::scratch::{Scratch, free_port};

/// The Restate server binary, or `None` (the test then skips) — unless
/// `AGENTS_KT_REQUIRE_RESTATE=1`, as in CI, where a missing server fails the test.
pub fn restate_binary() -> Option<PathBuf> {
    match std::env::var("RESTATE_SERVER") {
        Ok(path) if Path::new(&path).exists() => Some(PathBuf::from(path)),
        _ if std::env::var("AGENTS_KT_REQUIRE_RESTATE").is_ok_and(|v| v == "1") => {
            panic!("RESTATE_SERVER is not set (run `eval \"$(scripts/restate-server.sh)\"`)")
        }
        _ => {
            eprintln!("skipping: RESTATE_SERVER is not set");
            None
        }
    }
}

/// A Restate server on its own loopback ports and data directory.
pub struct RestateServer {
    binary: PathBuf,
    child: Option<Child>,
    pub ingress: String,
    pub admin: String,
    ports: [u16; 4],
    data: Scratch,
    http: reqwest::Client,
}

impl RestateServer {
    /// Start one, or `None` when the binary is not installed (see [`restate_binary`]).
    pub async fn start() -> Option<Self> {
        let binary = restate_binary()?;
        let ports = [free_port(), free_port(), free_port(), free_port()];
        let mut server = RestateServer {
            binary,
            child: None,
            ingress: format!("http://127.0.0.1:{}", ports[0]),
            admin: format!("http://127.0.0.1:{}", ports[1]),
            ports,
            data: Scratch::new("restate"),
            http: reqwest::Client::new(),
        };
        server.launch().await;
        Some(server)
    }

    async fn launch(&mut self) {
        let [ingress, admin, fabric, pgsql] = self.ports;
        let log = std::fs::File::create(self.data.0.join("server.log")).expect("a log file");
        let child = Command::new(&self.binary)
            .args([
                "--no-logo",
                "--listen-mode",
                "tcp",
                "--node-name",
                "agents-kt-test",
            ])
            .arg("--bind-address")
            .arg(format!("127.0.0.1:{fabric}"))
            .arg("--base-dir")
            .arg(self.data.0.join("data"))
            .env("RESTATE_DISABLE_TELEMETRY", "true")
            .env(
                "RESTATE_INGRESS__BIND_ADDRESS",
                format!("127.0.0.1:{ingress}"),
            )
            .env("RESTATE_ADMIN__BIND_ADDRESS", format!("127.0.0.1:{admin}"))
            .env(
                "RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS",
                format!("127.0.0.1:{pgsql}"),
            )
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("a log file"))
            .stderr(log)
            .spawn()
            .expect("the Restate server starts");
        self.child = Some(child);
        self.wait_ready().await;
    }

    async fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let admin = self.http.get(format!("{}/health", self.admin)).send().await;
            let ingress = self
                .http
                .get(format!("{}/restate/health", self.ingress))
                .send()
                .await;
            if admin.is_ok_and(|r| r.status().is_success())
                && ingress.is_ok_and(|r| r.status().is_success())
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the Restate server did not become ready: {}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The server's own log so far (for assertion messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.data.0.join("server.log")).unwrap_or_default()
    }

    /// SIGKILL the server, then start it again on the same ports and data.
    pub async fn kill_and_restart(&mut self) {
        self.kill();
        self.launch().await;
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Register the service deployment at `uri` (its handlers are discovered over HTTP/2).
    pub async fn register(&self, uri: &str) {
        let response = self
            .http
            .post(format!("{}/deployments", self.admin))
            .json(&json!({ "uri": uri, "force": true }))
            .send()
            .await
            .expect("the admin API answers");
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        assert!(status.is_success(), "registering {uri}: {status} {body}");
    }

    /// POST `body` to a handler of the run `key` of the workflow `AgentRun`: status and body.
    pub async fn call(&self, key: &str, handler: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = self
            .http
            .post(format!("{}/AgentRun/{key}/{handler}", self.ingress))
            .timeout(Duration::from_secs(60));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("the ingress answers");
        let status = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body)
    }

    /// Start the run `key` on `input` without waiting for it.
    pub async fn start_run(&self, key: &str, input: &str) {
        let (status, body) = self.call(key, "run/send", Some(json!(input))).await;
        assert!(
            (200..300).contains(&status),
            "starting {key}: {status} {body}"
        );
    }

    /// Wait for the run `key`'s output (its JSON).
    pub async fn output(&self, key: &str) -> (u16, Value) {
        let response = self
            .http
            .get(format!(
                "{}/restate/workflow/AgentRun/{key}/attach",
                self.ingress
            ))
            .timeout(Duration::from_secs(90))
            .send()
            .await
            .expect("the ingress answers");
        let status = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// The last failure Restate recorded for the run `key`'s `run` invocation, once there is one
    /// that `wanted` accepts (from the admin API's SQL introspection); the last one seen if none
    /// came within a minute.
    pub async fn run_failure(&self, key: &str, wanted: impl Fn(&str) -> bool) -> String {
        let query = format!(
            "SELECT last_failure FROM sys_invocation WHERE target_service_key = '{key}' AND target_handler_name = 'run'"
        );
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut seen = String::new();
        while Instant::now() < deadline {
            let response = self
                .http
                .post(format!("{}/query", self.admin))
                .header("accept", "application/json")
                .json(&json!({ "query": query }))
                .send()
                .await;
            if let Ok(response) = response {
                let body: Value = response.json().await.unwrap_or(Value::Null);
                if let Some(failure) = body["rows"][0]["last_failure"].as_str() {
                    if wanted(failure) {
                        return failure.to_string();
                    }
                    seen = failure.to_string();
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        seen
    }

    /// Poll the run's `status` until an approval is pending; its request.
    pub async fn pending_approval(&self, key: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (status, body) = self.call(key, "status", None).await;
            if status == 200 && !body["pending"].is_null() {
                return body["pending"].clone();
            }
            assert!(
                Instant::now() < deadline,
                "no approval became pending: {status} {body}\n{}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

impl Drop for RestateServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The `durable_ledger` service as a process, with its ledger directory.
pub struct LedgerService {
    binary: PathBuf,
    child: Option<Child>,
    pub address: String,
    pub dir: PathBuf,
    /// Owns the directory when this service created it.
    _scratch: Option<Scratch>,
    crash_after_append: bool,
    worker: String,
    unguarded: bool,
    nested: bool,
    hang_after_approval: bool,
    a2a: bool,
}

impl LedgerService {
    /// The service, not yet started, in a fresh directory of its own.
    fn fresh(binary: &str) -> Self {
        let scratch = Scratch::new("ledger");
        LedgerService {
            binary: PathBuf::from(binary),
            child: None,
            address: format!("127.0.0.1:{}", free_port()),
            dir: scratch.0.clone(),
            _scratch: Some(scratch),
            crash_after_append: false,
            worker: "a".to_string(),
            unguarded: false,
            nested: false,
            hang_after_approval: false,
            a2a: false,
        }
    }

    /// The service as a durable A2A server (its tasks in `tasks.db` of its directory).
    pub async fn start_a2a(binary: &str, nested: bool) -> Self {
        let mut service = Self::fresh(binary);
        service.a2a = true;
        service.nested = nested;
        service.launch().await;
        service
    }

    /// The service whose served agent is a front desk calling the ledger agent as a sub-agent
    /// (`bookkeeper`): the approval is asked inside the sub-agent's run.
    pub async fn start_nested(binary: &str) -> Self {
        let mut service = Self::fresh(binary);
        service.nested = true;
        service.launch().await;
        service
    }

    /// Start the service binary (`env!("CARGO_BIN_EXE_durable_ledger")` in a test).
    pub async fn start(binary: &str, crash_after_append: bool) -> Self {
        let mut service = Self::fresh(binary);
        service.crash_after_append = crash_after_append;
        service.launch().await;
        service
    }

    /// The service whose gate hangs once right after an approval arrives, before the call
    /// (`hung.txt` says when): kill it then to kill it between the answer and the call.
    pub async fn start_hanging_after_approval(binary: &str) -> Self {
        let mut service = Self::fresh(binary);
        service.hang_after_approval = true;
        service.launch().await;
        service
    }

    /// A second worker of the same service, sharing `first`'s ledger (as workers share a
    /// database), named `worker` in `workers.txt`.
    pub async fn another(first: &LedgerService, worker: &str) -> Self {
        let mut service = LedgerService {
            binary: first.binary.clone(),
            child: None,
            address: format!("127.0.0.1:{}", free_port()),
            dir: first.dir.clone(),
            _scratch: None,
            crash_after_append: false,
            worker: worker.to_string(),
            unguarded: false,
            nested: first.nested,
            hang_after_approval: false,
            a2a: first.a2a,
        };
        service.launch().await;
        service
    }

    pub fn uri(&self) -> String {
        format!("http://{}", self.address)
    }

    async fn launch(&mut self) {
        let mut command = Command::new(&self.binary);
        command
            .env("LISTEN", &self.address)
            .env("LEDGER_DIR", &self.dir)
            .env("WORKER", &self.worker)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        if self.crash_after_append {
            command.env("CRASH_AFTER_APPEND", "1");
        }
        if self.unguarded {
            command.env("UNGUARDED", "1");
        }
        if self.nested {
            command.env("NESTED", "1");
        }
        if self.hang_after_approval {
            command.env("HANG_AFTER_APPROVAL", "1");
        }
        if self.a2a {
            command.env("A2A", "1");
        }
        self.child = Some(command.spawn().expect("the ledger service starts"));
        let deadline = Instant::now() + Duration::from_secs(30);
        while tokio::net::TcpStream::connect(&self.address).await.is_err() {
            assert!(
                Instant::now() < deadline,
                "the ledger service did not listen"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGKILL the process: nothing it held in memory survives.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Start it again at the same address.
    pub async fn restart(&mut self) {
        self.kill();
        self.launch().await;
    }

    /// Start it again with changed code: appends no longer ask for approval.
    pub async fn restart_unguarded(&mut self) {
        self.unguarded = true;
        self.restart().await;
    }

    /// Whether the process has exited (it aborts itself in the crash test).
    pub fn exited(&mut self) -> bool {
        self.child
            .as_mut()
            .is_none_or(|child| child.try_wait().ok().flatten().is_some())
    }

    /// The lines of one of its files.
    pub fn lines(&self, file: &str) -> Vec<String> {
        std::fs::read_to_string(self.dir.join(file))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

impl Drop for LedgerService {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One address in front of several workers, as a load balancer is: each new connection goes to
/// the worker chosen now. Restate pins a run to its deployment's address, so workers behind one
/// address are how a run moves to another process.
pub struct Balancer {
    pub address: String,
    target: std::sync::Arc<std::sync::Mutex<String>>,
    task: tokio::task::JoinHandle<()>,
}

impl Balancer {
    pub async fn new(first: &str) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let address = listener.local_addr().expect("bound").to_string();
        let target = std::sync::Arc::new(std::sync::Mutex::new(first.to_string()));
        let chosen = std::sync::Arc::clone(&target);
        let task = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let to = chosen.lock().map(|t| t.clone()).unwrap_or_default();
                tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(&to).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        Balancer {
            address,
            target,
            task,
        }
    }

    pub fn uri(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Send new connections to `worker`.
    pub fn switch_to(&self, worker: &str) {
        if let Ok(mut target) = self.target.lock() {
            *target = worker.to_string();
        }
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        self.task.abort();
    }
}
