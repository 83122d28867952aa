//! An interceptor with no return type is one error at its signature.
use agents_kt::prelude::*;

#[before_turn]
fn log_turn(messages: &[Message]) {
    let _ = messages;
}

fn main() {
    let _ = Agent::<String, String>::builder("weather").on_before_turn(log_turn);
}
