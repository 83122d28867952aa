use agents_kt::prelude::*;

pub struct Desk;

#[agent]
impl Desk {
    /// Consumes the desk.
    #[tool]
    fn close(self, reason: String) -> String {
        reason
    }
}

fn main() {}
