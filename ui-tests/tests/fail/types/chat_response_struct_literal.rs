//! `ChatResponse` is `#[non_exhaustive]`: a struct literal outside the crate does not compile, so
//! no user's `ModelClient` can depend on its exact fields (build it with `ChatResponse::text`
//! and the `with_*` methods).

fn main() {
    let _ = agents_kt::ChatResponse {
        content: "Sunny.".into(),
        tool_calls: Vec::new(),
        usage: None,
        model: None,
        finish_reason: None,
    };
}
