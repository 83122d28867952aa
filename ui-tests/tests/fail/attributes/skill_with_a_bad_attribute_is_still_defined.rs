//! A mistake in `#[skill(..)]` is one error: the skill's type is still generated, so using it
//! reports nothing more.
use agents_kt::prelude::*;

/// Echoes.
#[skill(colour = "red")]
fn echo(text: String) -> String {
    text
}

fn main() {
    let _ = Agent::<String, String>::builder("echo").skill(Echo);
}
