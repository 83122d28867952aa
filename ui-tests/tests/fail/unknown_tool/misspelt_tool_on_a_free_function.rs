use agents_kt::prelude::*;

/// Current weather for a city.
#[tool]
fn get_weather(city: String) -> String {
    city
}

#[before_tool_call(get_wether)]
fn no_mars(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, String> {
    let _ = args;
    Decision::Proceed
}

fn main() {}
