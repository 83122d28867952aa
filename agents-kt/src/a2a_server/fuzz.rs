//! Entry point for `cargo fuzz` (feature `fuzzing`, not part of the API): arbitrary bytes as the
//! body of a request to an `A2aServer` — its JSON-RPC binding or one of its HTTP+JSON routes,
//! through the admission layer, the official routers and our handler — answered, never a panic;
//! and the server still answers a well-formed request after it.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use tower::ServiceExt;

use super::A2aServer;
use crate::{Agent, Reply, ScriptedModel};

/// The routes a fuzzed body goes to (by `route`, modulo their number).
const ROUTES: [&str; 4] = [
    "/",
    "/rest/message:send",
    "/rest/message:stream",
    "/rest/tasks/t-1:cancel",
];

/// A well-formed request the server must still answer (a task it does not have).
const PROBE: &str =
    r#"{"jsonrpc":"2.0","id":"probe","method":"GetTask","params":{"id":"no-such-task"}}"#;

/// Send `bytes` to the route `route` names, then the probe.
pub fn a2a_request(bytes: &[u8], route: u8) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let agent = Agent::<String, String>::builder("fuzz")
            .model(ScriptedModel::new([Reply::text("ok")]))
            .build()
            .expect("the agent builds");
        let server = A2aServer::builder(agent)
            .build()
            .expect("the server builds");
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], 9));
        let router = server
            .into_router(address)
            .expect("the routes are built")
            .router;
        let path = ROUTES[usize::from(route) % ROUTES.len()];
        let (status, _) = send(&router, path, bytes.to_vec()).await;
        assert!(
            status != StatusCode::INTERNAL_SERVER_ERROR || path != "/",
            "a JSON-RPC request is answered with a JSON-RPC error, not a 500: {:?}",
            String::from_utf8_lossy(bytes)
        );
        let (status, answer) = send(&router, "/", PROBE.as_bytes().to_vec()).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert_eq!(answer["id"], "probe", "the server still answers: {answer}");
        assert!(answer.get("error").is_some(), "{answer}");
    });
}

/// POST `body` to `path`: the status and the answer (JSON, or null), read within 10 s.
async fn send(router: &axum::Router, path: &str, body: Vec<u8>) -> (StatusCode, Value) {
    let request = Request::post(path)
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .body(Body::from(body))
        .expect("a request");
    let answered = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        let response = router
            .clone()
            .oneshot(request)
            .await
            .expect("the router answers");
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 20).await;
        let answer = body
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or(Value::Null);
        (status, answer)
    })
    .await;
    answered.expect("the server answered within 10 s")
}
