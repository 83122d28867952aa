use agents_kt::prelude::*;

pub struct Desk;

#[agent(input = String, output = String)]
impl Desk {
    /// Counts words.
    #[skill]
    async fn count(&self, text: String) -> usize {
        text.split_whitespace().count()
    }
}

fn main() {}
