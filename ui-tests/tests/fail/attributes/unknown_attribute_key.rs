use agents_kt::prelude::*;

/// Current weather for a city.
#[tool(title = "weather")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
