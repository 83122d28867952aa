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

use super::jsonrpc::{Envelope, answers_a_request};

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
                tracing::warn!(
                    code = refusal.code,
                    reason = %refusal.message,
                    "MCP message on stdio refused"
                );
                refuse(&refusals, refusal.id, refusal.code, &refusal.message).await;
                continue;
            }
        };
        if message.is_request() {
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
    // A whole line, as rmcp's replies are.
    let mut line = reply.to_string();
    line.push('\n');
    let _ = refusals.send(line).await;
}

/// rmcp and refusals → client, one line at a time; each answer written frees a slot.
async fn write_replies<W: AsyncWrite + Unpin>(
    from_rmcp: DuplexStream,
    mut refused: mpsc::Receiver<String>,
    mut output: W,
    outstanding: Arc<Semaphore>,
) {
    let mut replies = BufReader::new(from_rmcp);
    // One buffer for rmcp's every reply. `read_until` may be interrupted by a refusal with part
    // of a line read: the part stays here, and the next read finishes the line.
    let mut reply = Vec::new();
    loop {
        // A refusal answers a request that never took a slot; only rmcp's answers free one.
        let written = tokio::select! {
            read = replies.read_until(b'\n', &mut reply) => match read {
                Ok(read) if read > 0 => {
                    if !reply.ends_with(b"\n") {
                        reply.push(b'\n');
                    }
                    let written = write_line(&mut output, &reply).await;
                    if written && answers_a_request(&reply) {
                        outstanding.add_permits(1);
                    }
                    reply.clear();
                    written
                }
                _ => return,
            },
            Some(refusal) = refused.recv() => {
                write_line(&mut output, refusal.as_bytes()).await
            }
        };
        if !written {
            return;
        }
    }
}

/// Write `bytes` and flush: false when the client is gone.
async fn write_line<W: AsyncWrite + Unpin>(output: &mut W, bytes: &[u8]) -> bool {
    output.write_all(bytes).await.is_ok() && output.flush().await.is_ok()
}
