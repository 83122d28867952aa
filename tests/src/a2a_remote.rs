//! Fixtures for the A2A client tests: the remote agents (a triage agent with typed input and
//! output, a refunds agent that reports the conversation it was handed), a loopback proxy that
//! counts the bytes a client sends, and the official Python and JavaScript SDKs' servers
//! (`tests/a2a-peers/a2a_server.py`, `a2a_server.mjs`) as processes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use agents_kt::{ChatChunk, ChatRequest, ChatResponse, ChatStream, ModelClient, ModelError, Role};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// A model answering as a function of the conversation it is sent: one text per request.
pub struct TextModel(pub fn(&ChatRequest) -> String);

impl ModelClient for TextModel {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let text = (self.0)(request);
        Box::pin(async move { Ok(ChatResponse::text(text)) })
    }

    fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a> {
        let text = (self.0)(request);
        Box::pin(futures::stream::iter([Ok(ChatChunk::Text(text))]))
    }
}

/// The triage model: routes the ticket (`{"text": …}`) in the last user message (printers to
/// `hardware`) as `{"queue": …, "ticket": <its text>}`.
pub fn triage_model() -> TextModel {
    TextModel(|request| {
        let last = request
            .messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.clone())
            .unwrap_or_default();
        // A ticket arrives as its JSON (`{"text": …}`).
        let ticket: Value = serde_json::from_str(&last).unwrap_or(Value::String(last));
        let text = ticket["text"].as_str().unwrap_or_default().to_string();
        let queue = match text.contains("printer") {
            true => "hardware",
            false => "general",
        };
        json!({ "queue": queue, "ticket": text }).to_string()
    })
}

/// The refunds model: says every user message it was sent, in order.
pub fn refunds_model() -> TextModel {
    TextModel(|request| {
        let said: Vec<&str> = request
            .messages
            .iter()
            .filter(|m| m.role == Role::User)
            .map(|m| m.content.as_str())
            .collect();
        format!("refunds saw: {}", said.join(" | "))
    })
}

/// A loopback TCP proxy that counts every byte clients send through it: listening first (so a
/// server can announce its URL), forwarding once [`CountingProxy::forward_to`] names the target.
pub struct CountingProxy {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    sent: Arc<AtomicUsize>,
    target: Arc<std::sync::OnceLock<String>>,
    /// Whether the next connection's answers are held back (read from the server, never
    /// forwarded).
    mute_next: Arc<AtomicBool>,
}

impl CountingProxy {
    /// Listen on a free port.
    pub async fn listen() -> CountingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let sent = Arc::new(AtomicUsize::new(0));
        let target = Arc::new(std::sync::OnceLock::<String>::new());
        let mute_next = Arc::new(AtomicBool::new(false));
        let (counter, to, muting) = (
            Arc::clone(&sent),
            Arc::clone(&target),
            Arc::clone(&mute_next),
        );
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Some(target) = to.get().cloned() else {
                    continue;
                };
                let muted = muting.swap(false, Ordering::SeqCst);
                let counter = Arc::clone(&counter);
                tokio::spawn(async move {
                    let Ok(server) = TcpStream::connect(target).await else {
                        return;
                    };
                    let (mut client_read, mut client_write) = client.into_split();
                    let (mut server_read, mut server_write) = server.into_split();
                    let upstream = async move {
                        let mut buffer = [0u8; 8192];
                        loop {
                            match client_read.read(&mut buffer).await {
                                Ok(0) | Err(_) => break,
                                Ok(n) => {
                                    counter.fetch_add(n, Ordering::SeqCst);
                                    if server_write.write_all(&buffer[..n]).await.is_err() {
                                        break;
                                    }
                                }
                            }
                        }
                    };
                    let downstream = async move {
                        match muted {
                            true => tokio::io::copy(&mut server_read, &mut tokio::io::sink()).await,
                            false => tokio::io::copy(&mut server_read, &mut client_write).await,
                        }
                    };
                    let _ = tokio::join!(upstream, downstream);
                });
            }
        });
        CountingProxy {
            url,
            sent,
            target,
            mute_next,
        }
    }

    /// Hold back every answer on the next connection a client opens: its requests reach the
    /// server, nothing comes back.
    pub fn mute_next_connection(&self) {
        self.mute_next.store(true, Ordering::SeqCst);
    }

    /// Forward every connection to `target` (`host:port`) from now on.
    pub fn forward_to(&self, target: std::net::SocketAddr) {
        let _ = self.target.set(target.to_string());
    }

    /// Bytes clients have sent so far.
    pub fn sent(&self) -> usize {
        self.sent.load(Ordering::SeqCst)
    }
}

/// An SDK's A2A server (the Python or the JavaScript one), listening; killed when dropped.
pub struct PeerServer {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    _child: tokio::process::Child,
}

/// A free loopback port (free when asked; the peer binds it right after).
fn free_port() -> u16 {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    probe.local_addr().unwrap().port()
}

/// Start `command` (given the port as its last argument) and wait for its `ready` line.
async fn start_peer(mut command: tokio::process::Command, port: u16, what: &str) -> PeerServer {
    command
        .arg(port.to_string())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("{what} starts: {e}"));
    let stdout = child.stdout.take().expect("piped");
    let mut lines = BufReader::new(stdout).lines();
    let ready = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap_or_else(|_| panic!("{what} is ready within 30 s"))
        .expect("its stdout reads");
    assert_eq!(ready.as_deref(), Some("ready"), "{what}");
    PeerServer {
        url: format!("http://127.0.0.1:{port}"),
        _child: child,
    }
}

/// Start `tests/a2a-peers/a2a_server.py` with the Python SDK at `python_path`; `env` is added
/// to its environment.
pub async fn python_server(python_path: &str, env: &[(&str, &str)]) -> PeerServer {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/a2a-peers/a2a_server.py");
    let mut command = tokio::process::Command::new("python3");
    command.arg(script).env("PYTHONPATH", python_path);
    for (key, value) in env {
        command.env(key, value);
    }
    start_peer(command, free_port(), "the Python SDK's A2A server").await
}

/// Start `tests/a2a-peers/a2a_server.mjs` with the JavaScript SDK installed in `node_dir`
/// (copied there: an ES module resolves its imports from where it lies).
pub async fn node_server(node_dir: &str) -> PeerServer {
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/a2a-peers/a2a_server.mjs");
    let script = std::path::Path::new(node_dir)
        .join(format!("agents-kt-a2a-server-{}.mjs", std::process::id()));
    std::fs::copy(source, &script).expect("the server script copies into the SDK's directory");
    let mut command = tokio::process::Command::new("node");
    command.arg(&script);
    start_peer(command, free_port(), "the JavaScript SDK's A2A server").await
}

/// The value of `json` at `pointer`, for assertions.
pub fn at<'a>(json: &'a Value, pointer: &str) -> &'a Value {
    json.pointer(pointer).unwrap_or(&Value::Null)
}
