//! A real `llama-server` for the tests that need one (built by `scripts/llama-server.sh`, whose
//! paths `scripts/test.sh` exports as `LLAMA_SERVER` and `LLAMA_MODEL`), and a recording proxy in
//! front of it, so a test can read the exact bytes the server sent.

use std::net::TcpListener;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The paths of the server and model, or `None` (after saying why) when they are not set —
/// unless `AGENTS_KT_REQUIRE_LLAMA=1` (set by CI), which makes their absence a failure.
pub fn locate() -> Option<(String, String)> {
    match (std::env::var("LLAMA_SERVER"), std::env::var("LLAMA_MODEL")) {
        (Ok(server), Ok(model)) => Some((server, model)),
        _ => {
            let required = std::env::var("AGENTS_KT_REQUIRE_LLAMA").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "AGENTS_KT_REQUIRE_LLAMA=1 but LLAMA_SERVER / LLAMA_MODEL are not set"
            );
            eprintln!(
                "skipping: run `eval \"$(scripts/llama-server.sh)\"` to test against a real llama-server"
            );
            None
        }
    }
}

/// A running `llama-server`; killed when dropped, whatever happened.
pub struct LlamaServer {
    child: tokio::process::Child,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

impl LlamaServer {
    /// Start `binary` serving `model` on a free loopback port with `extra` arguments, and wait
    /// until it is healthy.
    pub async fn start(binary: &str, model: &str, extra: &[&str]) -> LlamaServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .expect("a free port")
            .local_addr()
            .expect("its address")
            .port();
        let child = tokio::process::Command::new(binary)
            .args([
                "-m",
                model,
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
            ])
            .args([
                "--ctx-size",
                "2048",
                "--threads",
                "2",
                "--parallel",
                "1",
                "--metrics",
            ])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("llama-server starts");
        let server = LlamaServer {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let healthy = reqwest::get(format!("{}/health", server.base))
                .await
                .is_ok_and(|r| r.status().is_success());
            if healthy {
                return server;
            }
            assert!(
                Instant::now() < deadline,
                "llama-server did not become healthy in 120 s"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
}

/// The tool-call chat template (see the file for why it is needed and how it works).
pub const TOOL_TEMPLATE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/llama-tools.jinja");

/// How the server renders tools.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tools {
    /// The model's own template: no tools.
    None,
    /// The tool-call template, demonstrating one call.
    One,
    /// The tool-call template, demonstrating two calls in one answer.
    Parallel,
}

/// The server with greedy sampling (the same request gets the same answer, so the tests are not
/// luck), and with the tool-call template as `tools` says.
pub async fn greedy_server(binary: &str, model: &str, tools: Tools) -> LlamaServer {
    let mut args = vec!["--temp", "0", "--seed", "7"];
    if tools != Tools::None {
        args.extend(["--chat-template-file", TOOL_TEMPLATE]);
    }
    if tools == Tools::Parallel {
        args.extend(["--chat-template-kwargs", r#"{"parallel_demo": true}"#]);
    }
    LlamaServer::start(binary, model, &args).await
}

/// A small model on two cores is slow: give each request time.
pub fn patient() -> agents_kt::HttpSettings {
    agents_kt::HttpSettings::default().request_timeout(Duration::from_secs(180))
}

/// One exchange the proxy saw: the request body, the response status and body, as bytes.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The path asked for.
    pub path: String,
    /// The request body.
    pub request: Vec<u8>,
    /// The upstream's status code.
    pub status: u16,
    /// The upstream's body, whole (a stream is passed on once it has ended).
    pub response: Vec<u8>,
}

/// A loopback HTTP proxy recording every POST it forwards to `upstream`.
pub struct Recorder {
    /// `http://127.0.0.1:<port>`: point the client here.
    pub base: String,
    exchanges: Arc<Mutex<Vec<Exchange>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Recorder {
    /// Start recording in front of `upstream`.
    pub async fn start(upstream: &str) -> Recorder {
        use axum::body::Bytes;
        use axum::extract::State;
        use axum::http::{StatusCode, Uri};
        let exchanges = Arc::new(Mutex::new(Vec::new()));
        let state = (upstream.to_string(), Arc::clone(&exchanges));
        let forward = |State((upstream, log)): State<(String, Arc<Mutex<Vec<Exchange>>>)>,
                       uri: Uri,
                       body: Bytes| async move {
            let reply = reqwest::Client::new()
                .post(format!("{upstream}{}", uri.path()))
                .header("content-type", "application/json")
                .body(body.to_vec())
                .send()
                .await;
            let (status, content_type, response) = match reply {
                Ok(reply) => {
                    let status = reply.status().as_u16();
                    let content_type = reply
                        .headers()
                        .get("content-type")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("application/json")
                        .to_string();
                    (
                        status,
                        content_type,
                        reply.bytes().await.unwrap_or_default().to_vec(),
                    )
                }
                Err(error) => (502, "text/plain".into(), error.to_string().into_bytes()),
            };
            log.lock().expect("recorder lock").push(Exchange {
                path: uri.path().to_string(),
                request: body.to_vec(),
                status,
                response: response.clone(),
            });
            (
                StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY),
                [("content-type", content_type)],
                response,
            )
        };
        let router = axum::Router::new()
            .fallback(axum::routing::post(forward))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port");
        let base = format!("http://{}", listener.local_addr().expect("its address"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Recorder {
            base,
            exchanges,
            task,
        }
    }

    /// Every exchange so far, in order.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.exchanges.lock().expect("recorder lock").clone()
    }
}
