//! A streamed answer — any bytes, cut into pieces of any size — through the real SSE parser,
//! the provider's stream decoder and the answer assembler: an answer or an error, never a
//! panic, and the same outcome however the bytes were cut.
//!
//! Input: a flags byte (bit 0: Anthropic, else OpenAI; bit 1: a structured answer was asked
//! for), a byte choosing the piece size (1–64), then the body.
#![no_main]

use agents_kt::__fuzz::{Wire, stream};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [flags, size, body @ ..] = data else {
        return;
    };
    let wire = if flags & 1 == 1 {
        Wire::Anthropic
    } else {
        Wire::OpenAi
    };
    let structured = flags & 2 == 2;
    let pieces: Vec<Vec<u8>> = body
        .chunks(1 + usize::from(*size) % 64)
        .map(<[u8]>::to_vec)
        .collect();
    let cut = stream(wire, structured, pieces);
    let whole = stream(wire, structured, vec![body.to_vec()]);
    match (&cut, &whole) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the answer depends on where the bytes were cut"),
        (Err(_), Err(_)) => {}
        _ => panic!("cut: {cut:?}, whole: {whole:?}"),
    }
});
