//! An interceptor returning `bool` is one error saying what to return instead.
use agents_kt::prelude::*;

/// Current weather for a city.
#[tool]
fn get_weather(city: String) -> String {
    city
}

#[before_tool_call(get_weather)]
fn no_mars(args: &GetWeatherArgs) -> bool {
    args.city != "Mars"
}

fn main() {
    let _ = Agent::<String, String>::builder("weather")
        .tool(GetWeather)
        .before_tool_call(no_mars);
}
