use agents_kt::prelude::*;

pub struct Desk;

#[agent(output = String)]
impl Desk {
    #[before_turn]
    fn cached(&self, messages: &[Message]) -> Decision<Vec<Message>, u32> {
        let _ = messages;
        Decision::Substitute(42)
    }
}

fn main() {}
