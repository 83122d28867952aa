use agents_kt::prelude::*;

#[tool]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
