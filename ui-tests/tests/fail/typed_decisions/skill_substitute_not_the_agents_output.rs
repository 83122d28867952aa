use agents_kt::prelude::*;

pub struct Desk;

#[agent(output = String)]
impl Desk {
    #[before_skill]
    fn cached(&self, skill: &str) -> Decision<String, Vec<String>> {
        let _ = skill;
        Decision::Substitute(vec![])
    }
}

fn main() {}
