//! What a remote A2A agent streams back — any bytes, cut at any point — through the client's
//! real SSE and JSON-RPC decoding and its task follower: an output, a question or an error,
//! never a panic, and the task it would cancel is the one the events named.
//!
//! Input: a flags byte (bit 0: the answer to our reply to a question), a byte choosing where the
//! body is cut, then the body.
#![no_main]

use agents_kt::__fuzz_a2a::a2a_answer;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [flags, cut, body @ ..] = data else {
        return;
    };
    let split = usize::from(*cut) * body.len() / 256;
    a2a_answer(body, split, flags & 1 == 1);
});
