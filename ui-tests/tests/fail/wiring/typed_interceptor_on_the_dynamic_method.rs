//! A typed interceptor handed to `.on_before_tool_call`: the error names `.before_tool_call`.
use agents_kt::prelude::*;

/// Current weather for a city.
#[tool]
fn get_weather(city: String) -> String {
    city
}

#[before_tool_call(get_weather)]
fn no_mars(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, String> {
    let _ = args;
    Decision::Proceed
}

fn main() {
    let _ = Agent::<String, String>::builder("weather")
        .tool(GetWeather)
        .on_before_tool_call(no_mars);
}
