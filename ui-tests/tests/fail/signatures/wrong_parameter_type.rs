use agents_kt::prelude::*;

/// Current weather for a city.
#[tool]
fn get_weather(city: String) -> String {
    city
}

/// Writes a file.
#[tool]
fn write_file(path: String) -> String {
    path
}

#[before_tool_call(get_weather)]
fn no_mars(args: &WriteFileArgs) -> Decision<GetWeatherArgs, String> {
    let _ = args;
    Decision::Proceed
}

fn main() {}
