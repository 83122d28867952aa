//! A whole (non-streamed) answer body — any bytes — through the provider's parser: an answer or
//! a clear error, never a panic.
//!
//! Input: a flags byte (bit 0: Anthropic, else OpenAI; bit 1: a structured answer was asked
//! for), then the body.
#![no_main]

use agents_kt::__fuzz::{Wire, whole};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [flags, body @ ..] = data else {
        return;
    };
    let wire = if flags & 1 == 1 {
        Wire::Anthropic
    } else {
        Wire::OpenAi
    };
    if let Err(error) = whole(wire, flags & 2 == 2, body) {
        assert!(!error.to_string().is_empty());
    }
});
