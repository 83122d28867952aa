//! A handoff's receiving agent gives the caller's final output: an agent whose output is `u32`
//! cannot take over from one whose output is `String`.

use agents_kt::{Agent, BuildError};

fn main() -> Result<(), BuildError> {
    let counter = Agent::<String, u32>::builder("counter").build()?;
    let _triage = Agent::<String, String>::builder("triage")
        .handoff(counter)
        .build()?;
    Ok(())
}
