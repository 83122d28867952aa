use agents_kt::prelude::*;

/// Current weather for a city.
#[tool]
fn get_weather(city: String) -> String {
    city
}

fn main() {
    // `GetWeatherArgs` is the tool's argument type, not the tool.
    let _: Skill<String, String> = Skill::agentic("s").tools::<(GetWeather, GetWeatherArgs)>();
}
