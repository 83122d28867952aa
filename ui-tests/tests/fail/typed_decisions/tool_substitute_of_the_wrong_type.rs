//! A typed tool interceptor's Substitute must be the tool's Output: a String for a Weather tool is
//! rejected at compile time.

use std::borrow::Cow;

use agents_kt::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct GetWeatherArgs {
    pub city: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Weather {
    pub celsius: i32,
}

pub struct GetWeather;

impl Tool for GetWeather {
    const NAME: &'static str = "get_weather";
    type Args = GetWeatherArgs;
    type Output = Weather;

    fn description(&self) -> Cow<'static, str> {
        "Current weather for a city.".into()
    }

    async fn call(&self, _args: GetWeatherArgs, _ctx: &ToolContext) -> Result<Weather, ToolError> {
        Ok(Weather { celsius: 20 })
    }
}

fn main() {
    let _ = ToolInterceptor::<GetWeather>::new(|_args: &GetWeatherArgs| {
        Decision::<GetWeatherArgs, String>::Substitute("sunny".to_string())
    });
}
