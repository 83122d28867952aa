//! Any bytes as the body of a request to an `A2aServer` — its JSON-RPC binding or one of its
//! HTTP+JSON routes, through the admission layer, the official routers and our handler: an
//! answer (a JSON-RPC error for a bad request), never a panic, and the server still answers a
//! well-formed request after it.
//!
//! Input: a byte choosing the route, then the body.
#![no_main]

use agents_kt::__fuzz_a2a_server::a2a_request;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [route, body @ ..] = data else {
        return;
    };
    a2a_request(body, *route);
});
