//! The struct-like variants of `ChatChunk` are `#[non_exhaustive]`: a stream builds them with
//! `ChatChunk::tool_call_delta` and `ChatChunk::finished`, so a field added later breaks none.

fn main() {
    let _ = agents_kt::ChatChunk::Finished {
        model: None,
        finish_reason: Some("stop".into()),
    };
}
