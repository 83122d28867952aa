//! `#[agent(grants(..))]` leaving out one of the block's tools: one error, at that tool's name.
use agents_kt::prelude::*;

pub struct Notes;

#[agent(grants(allow(read_notes)))]
impl Notes {
    /// Reads the notes.
    #[tool]
    fn read_notes(&self) -> String {
        String::new()
    }

    /// Writes the notes.
    #[tool]
    fn write_notes(&self, text: String) -> String {
        text
    }
}

fn main() {}
