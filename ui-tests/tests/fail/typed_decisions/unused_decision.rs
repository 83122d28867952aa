#![deny(unused_must_use)]
use agents_kt::prelude::*;

#[before_skill]
fn forgetful(skill: &str) -> Decision<String, String> {
    if skill == "refund" {
        Decision::<String, String>::deny("refunds are closed");
    }
    Decision::Proceed
}

fn main() {}
