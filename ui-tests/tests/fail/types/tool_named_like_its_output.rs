use agents_kt::prelude::*;

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Weather {
    pub celsius: i32,
}

/// Current weather.
#[tool]
fn weather(city: String) -> Weather {
    let _ = city;
    Weather { celsius: 1 }
}

fn main() {}
