//! `#[tool]` on an associated function of a plain impl block: one error saying where it belongs.
use agents_kt::prelude::*;

pub struct Desk;

impl Desk {
    /// The time.
    #[tool]
    fn now() -> String {
        String::new()
    }
}

fn main() {}
