use agents_kt::prelude::*;

#[before_turn]
fn filter(messages: Vec<Message>) -> Decision<Vec<Message>, String> {
    let _ = messages;
    Decision::Proceed
}

fn main() {}
