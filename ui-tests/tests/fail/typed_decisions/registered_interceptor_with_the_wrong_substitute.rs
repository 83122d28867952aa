//! A wrong substitute type in a free interceptor's declared return type is one error, at that
//! type; registering the function by hand adds none (the function returns the point's own
//! decision type, its body checked against the type as written).
use agents_kt::prelude::*;

/// Current weather for a city.
#[tool]
fn get_weather(city: String) -> String {
    city
}

#[before_tool_call(get_weather)]
fn no_mars(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, u32> {
    let _ = args;
    Decision::Proceed
}

fn main() {
    let _ = Agent::<String, String>::builder("weather")
        .tool(GetWeather)
        .before_tool_call(no_mars);
}
