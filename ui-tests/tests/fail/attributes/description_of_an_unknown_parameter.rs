use agents_kt::prelude::*;

/// Current weather for a city.
#[tool(params(town = "the town"))]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
