//! An `#[agent]` gate returning a `Decision`: one error, saying a gate returns a `Verdict`.
use agents_kt::prelude::*;

pub struct Desk;

#[agent]
impl Desk {
    #[gate_turn]
    fn no_secrets(&self, messages: &[Message]) -> Decision<Vec<Message>, String> {
        let _ = messages;
        Decision::Proceed
    }
}

fn main() {}
