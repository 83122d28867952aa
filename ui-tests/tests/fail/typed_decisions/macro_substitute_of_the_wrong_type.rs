use agents_kt::prelude::*;

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Weather {
    pub celsius: i32,
}

/// Current weather for a city.
#[tool]
fn get_weather(city: String) -> Weather {
    let _ = city;
    Weather { celsius: 20 }
}

#[before_tool_call(get_weather)]
fn cached(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, String> {
    let _ = args;
    Decision::Substitute("sunny".to_string())
}

fn main() {}
