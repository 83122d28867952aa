//! A wrong substitute type in a free interceptor's declared return type is an error at that type;
//! registering the function by hand is a second error, at the registration, naming what
//! `.before_tool_call` expects. (In an `#[agent]` block the registration is generated and
//! converts the result through the same check, so there it is one error.)
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
