//! The byte-stream transport's guard (stdio, pipes): between the client and rmcp, one line per
//! JSON-RPC message, checked and paced.
//!
//! - A line that is not JSON is answered `-32700 Parse error`, one that is not a JSON-RPC message
//!   (a batch, no `jsonrpc: "2.0"`, no method) `-32600 Invalid Request` — rmcp would drop both
//!   without a word — and both are logged.
//! - Back-pressure: at most [`MAX_OUTSTANDING`] requests are being answered at once. When the
//!   client stops reading replies, replies stop being written, so requests stop being read: the
//!   client's writes block instead of the server's memory growing.

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::{Semaphore, mpsc};

use super::jsonrpc::Envelope;

/// Requests read but not yet answered, at most.
pub(crate) const MAX_OUTSTANDING: usize = 64;

/// The longest line read (a request larger than this is answered `-32600` and skipped).
const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// Put the guard between `client` (what the client writes, where it reads) and rmcp: returns
/// the pair rmcp serves.
pub(crate) fn guard<R, W>(client: (R, W)) -> (DuplexStream, DuplexStream)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (input, output) = client;
    let (to_rmcp, rmcp_reads) = tokio::io::duplex(64 * 1024);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(64 * 1024);
    let outstanding = Arc::new(Semaphore::new(MAX_OUTSTANDING));
    let (refusals, refused) = mpsc::channel::<String>(16);
    tokio::spawn(read_requests(
        input,
        to_rmcp,
        refusals,
        Arc::clone(&outstanding),
    ));
    tokio::spawn(write_replies(from_rmcp, refused, output, outstanding));
    (rmcp_reads, rmcp_writes)
}

/// Client → rmcp: checked lines, a request only when a slot for its answer is free.
async fn read_requests<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: DuplexStream,
    refusals: mpsc::Sender<String>,
    outstanding: Arc<Semaphore>,
) {
    let mut lines = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut lines)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if line.len() > MAX_LINE_BYTES && !line.ends_with(b"\n") {
            // Skip the rest of the oversized line.
            let mut rest = Vec::new();
            let _ = lines.read_until(b'\n', &mut rest).await;
            refuse(
                &refusals,
                Value::Null,
                -32600,
                "Invalid Request: line too long",
            )
            .await;
            continue;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // The envelope only (params' values skipped unread): this runs on every message.
        let message = match Envelope::check(&line) {
            Ok(message) => message,
            Err(refusal) => {
                tracing::warn!(code = refusal.code, reason = %refusal.message, "MCP message on stdio refused");
                refuse(&refusals, refusal.id, refusal.code, &refusal.message).await;
                continue;
            }
        };
        if message.request_id().is_some() {
            // A request: wait until fewer than MAX_OUTSTANDING are being answered.
            match outstanding.acquire().await {
                Ok(permit) => permit.forget(),
                Err(_) => return,
            }
        }
        if to_rmcp.write_all(&line).await.is_err() {
            return;
        }
        if !line.ends_with(b"\n") && to_rmcp.write_all(b"\n").await.is_err() {
            return;
        }
    }
}

async fn refuse(refusals: &mpsc::Sender<String>, id: Value, code: i64, message: &str) {
    let reply = serde_json::json!({
        "jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message},
    });
    let _ = refusals.send(reply.to_string()).await;
}

/// rmcp and refusals → client, one line at a time; each answer written frees a slot.
async fn write_replies<W: AsyncWrite + Unpin>(
    from_rmcp: DuplexStream,
    mut refused: mpsc::Receiver<String>,
    mut output: W,
    outstanding: Arc<Semaphore>,
) {
    let mut replies = BufReader::new(from_rmcp).lines();
    loop {
        // A refusal answers a request that never took a slot; only rmcp's answers free one.
        let (line, from_rmcp) = tokio::select! {
            reply = replies.next_line() => match reply {
                Ok(Some(reply)) => (reply, true),
                _ => return,
            },
            Some(refusal) = refused.recv() => (refusal, false),
        };
        if output.write_all(line.as_bytes()).await.is_err()
            || output.write_all(b"\n").await.is_err()
            || output.flush().await.is_err()
        {
            return;
        }
        if from_rmcp && is_answer(&line) {
            outstanding.add_permits(1);
        }
    }
}

/// Whether a line from rmcp answers a request (a response, not a notification or a request of
/// its own).
fn is_answer(line: &str) -> bool {
    serde_json::from_str::<Envelope>(line).is_ok_and(|message| message.is_answer())
}
