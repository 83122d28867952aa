//! Entry point for `cargo fuzz` (cargo feature `fuzzing`, not part of the API): what a remote A2A
//! agent answers — arbitrary bytes as its event stream, in two pieces — read by the client's
//! real decoder and task follower, which must end with an output or an error, never a panic.

use futures::StreamExt;

use super::task::{Outcome, follow};
use super::wire::events_of;

/// Read `bytes` (split at `split`) as a remote's stream of task events; `resumed`: as the
/// answer to our reply to a question.
pub fn a2a_answer(bytes: &[u8], split: usize, resumed: bool) {
    let (head, tail) = bytes.split_at(split.min(bytes.len()));
    let pieces = [head.to_vec(), tail.to_vec()]
        .map(|piece| Ok::<_, std::io::Error>(bytes::Bytes::from(piece)));
    let events = events_of(futures::stream::iter(pieces), 1 << 20, "fuzz".to_string());
    futures::executor::block_on(async {
        let mut task = None;
        let Ok(seen) = follow(events.boxed(), resumed, &|_| {}, &mut task).await else {
            return;
        };
        let known = seen.task.clone();
        match seen.outcome() {
            Outcome::Ended(Ok(output)) => drop(output),
            Outcome::Ended(Err(error)) | Outcome::Unsettled(error) => {
                assert!(!error.to_string().is_empty())
            }
            Outcome::Asked(question) => drop(question),
        }
        assert_eq!(
            task, known,
            "the task to cancel is the one the events named"
        );
    });
}
