//! Server-sent events (parsed by the `eventsource-stream` crate) turned into [`ChatChunk`]s by a
//! provider-specific decoder, with an idle timeout. A stream that ends before the provider's end
//! marker is a broken stream, never a short answer.

use std::time::Duration;

use eventsource_stream::{Event, Eventsource};
use futures::{StreamExt, stream};
use reqwest::Response;

use crate::error_chain::error_chain;
use crate::{ChatChunk, ChatStream, ModelError};

/// What one event means.
pub(crate) struct Step {
    pub chunks: Vec<ChatChunk>,
    /// The provider's end marker arrived: the answer is complete.
    pub done: bool,
}

/// Turns a provider's events into chunks.
pub(crate) trait Decoder: Send + 'static {
    fn decode(&mut self, event: &Event) -> Result<Step, ModelError>;
}

struct State<S, D> {
    events: S,
    decoder: D,
    idle: Duration,
    finished: bool,
}

/// Decode `response`'s event stream with `decoder`.
pub(crate) fn chunks<D: Decoder>(
    response: Response,
    idle: Duration,
    decoder: D,
) -> ChatStream<'static> {
    chunks_of(response.bytes_stream(), idle, decoder)
}

/// Decode an event stream arriving as `bytes` (a response body, or a fuzzer's pieces).
pub(crate) fn chunks_of<B, E, D>(bytes: B, idle: Duration, decoder: D) -> ChatStream<'static>
where
    B: futures::Stream<Item = Result<bytes::Bytes, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
    D: Decoder,
{
    let events = bytes.eventsource();
    let state = State {
        events: Box::pin(events),
        decoder,
        idle,
        finished: false,
    };
    stream::unfold(state, |mut state| async move {
        if state.finished {
            return None;
        }
        let next = match tokio::time::timeout(state.idle, state.events.next()).await {
            Err(_) => Err(ModelError::StreamBroken(format!(
                "no event for {:?} (idle timeout)",
                state.idle
            ))),
            Ok(None) => Err(ModelError::StreamBroken(
                "the stream ended before the answer was complete".to_string(),
            )),
            Ok(Some(Err(error))) => Err(ModelError::StreamBroken(error_chain(&error))),
            Ok(Some(Ok(event))) => state.decoder.decode(&event),
        };
        let items: Vec<Result<ChatChunk, ModelError>> = match next {
            Ok(step) => {
                state.finished = step.done;
                step.chunks.into_iter().map(Ok).collect()
            }
            Err(error) => {
                state.finished = true;
                vec![Err(error)]
            }
        };
        Some((stream::iter(items), state))
    })
    .flatten()
    .boxed()
}
