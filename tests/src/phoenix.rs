//! A real Arize Phoenix trace backend (`PHOENIX`, installed by `scripts/phoenix.sh`) on loopback
//! ports of its own, with a working directory of its own; it stops on drop. Spans are read back
//! through Phoenix's own REST API.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::scratch::{Scratch, free_port};

/// The `phoenix` command, or `None` (the test then skips) — unless `AGENTS_KT_REQUIRE_PHOENIX=1`,
/// as in CI, where a missing backend fails the test.
pub fn phoenix_binary() -> Option<PathBuf> {
    match std::env::var("PHOENIX") {
        Ok(path) if Path::new(&path).exists() => Some(PathBuf::from(path)),
        _ if std::env::var("AGENTS_KT_REQUIRE_PHOENIX").is_ok_and(|v| v == "1") => {
            panic!("PHOENIX is not set (run `eval \"$(scripts/phoenix.sh)\"`)")
        }
        _ => {
            eprintln!("skipping: PHOENIX is not set");
            None
        }
    }
}

/// A running Phoenix: `url` takes OTLP over HTTP (`{url}/v1/traces`) and serves the REST API.
pub struct Phoenix {
    child: Child,
    pub url: String,
    dir: Scratch,
    http: reqwest::Client,
}

impl Phoenix {
    /// Start one and wait until it answers, or `None` when it is not installed.
    pub async fn start() -> Option<Self> {
        let binary = phoenix_binary()?;
        let dir = Scratch::new("phoenix");
        let port = free_port();
        let log = std::fs::File::create(dir.0.join("phoenix.log")).expect("a log file");
        let child = Command::new(binary)
            .arg("serve")
            .env("PHOENIX_WORKING_DIR", &dir.0)
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", port.to_string())
            .env("PHOENIX_GRPC_PORT", free_port().to_string())
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the log file"))
            .stderr(log)
            .spawn()
            .expect("phoenix starts");
        let mut phoenix = Phoenix {
            child,
            url: format!("http://127.0.0.1:{port}"),
            dir,
            http: reqwest::Client::new(),
        };
        phoenix.wait_ready().await;
        Some(phoenix)
    }

    async fn wait_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(180);
        loop {
            let health = self.http.get(format!("{}/healthz", self.url)).send().await;
            if health.is_ok_and(|response| response.status().is_success()) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "phoenix exited ({status}) before it was ready:\n{}",
                    self.log()
                );
            }
            assert!(
                Instant::now() < deadline,
                "phoenix was not ready within 180 s:\n{}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// The end of Phoenix's own output, for a failure's message.
    pub fn log(&self) -> String {
        let text = std::fs::read_to_string(self.dir.0.join("phoenix.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    /// Every span of `project` Phoenix has stored, through its REST API (all pages).
    pub async fn spans(&self, project: &str) -> Vec<Value> {
        let mut spans = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut url = format!("{}/v1/projects/{project}/spans?limit=500", self.url);
            if let Some(cursor) = &cursor {
                // Cursors are base64: escape what a query string would misread.
                let cursor = cursor
                    .replace('+', "%2B")
                    .replace('/', "%2F")
                    .replace('=', "%3D");
                url.push_str(&format!("&cursor={cursor}"));
            }
            let response = self.http.get(url).send().await.expect("phoenix answers");
            if response.status() == reqwest::StatusCode::NOT_FOUND {
                return spans; // the project does not exist until its first span arrives
            }
            let page: Value = response.json().await.expect("a JSON page of spans");
            spans.extend(page["data"].as_array().cloned().unwrap_or_default());
            match page["next_cursor"].as_str() {
                Some(next) => cursor = Some(next.to_string()),
                None => return spans,
            }
        }
    }

    /// The spans of `project` once at least `count` have arrived (ingestion is asynchronous).
    pub async fn spans_when(&self, project: &str, count: usize) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let spans = self.spans(project).await;
            if spans.len() >= count || Instant::now() > deadline {
                return spans;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
