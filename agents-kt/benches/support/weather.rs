//! The tool and the check every bench measures: a weather forecast behind `allowed`.

use std::borrow::Cow;

use agents_kt::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct WeatherArgs {
    pub city: String,
    pub days: u32,
}

#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Weather {
    pub city: String,
    pub celsius: i32,
}

/// The tool body, called directly by the baselines.
pub fn forecast(args: WeatherArgs) -> Weather {
    Weather {
        celsius: 10 + args.days as i32,
        city: args.city,
    }
}

/// The tool as an agents-kt tool.
#[derive(Clone)]
pub struct GetWeather;

impl Tool for GetWeather {
    const NAME: &'static str = "get_weather";
    type Args = WeatherArgs;
    type Output = Weather;
    fn description(&self) -> Cow<'static, str> {
        "Weather forecast for a city.".into()
    }
    fn output_schema(&self) -> Option<serde_json::Value> {
        serde_json::to_value(schemars::schema_for!(Weather)).ok()
    }
    async fn call(&self, args: WeatherArgs, _: &ToolContext) -> Result<Weather, ToolError> {
        Ok(forecast(args))
    }
}

/// The check every interceptor (and tower layer) makes.
pub fn allowed(args: &WeatherArgs) -> bool {
    args.city.len() < 64 && args.days < 30
}

/// That check as an interceptor.
pub fn check(args: &WeatherArgs) -> Decision<WeatherArgs, Weather> {
    if allowed(args) {
        Decision::Proceed
    } else {
        Decision::deny("out of range")
    }
}

/// `n` interceptors making that check, each proceeding, registered at run time.
pub fn interceptors(n: usize) -> Vec<ToolInterceptor<GetWeather>> {
    (0..n)
        .map(|_| ToolInterceptor::<GetWeather>::new(check))
        .collect()
}

/// Model turns in the loop benches.
#[allow(dead_code)] // the loop benches' only
pub const TURNS: usize = 50;

/// The loop benches' model: `TURNS - 1` answers asking for the weather twice, then a text.
#[allow(dead_code)] // the loop benches' only
pub fn loop_script() -> ScriptedModel {
    let mut replies: Vec<Reply> = (0..TURNS - 1)
        .map(|_| {
            Reply::tool_calls([
                (
                    "get_weather",
                    serde_json::json!({"city": "Oslo", "days": 1}),
                ),
                (
                    "get_weather",
                    serde_json::json!({"city": "Bergen", "days": 2}),
                ),
            ])
        })
        .collect();
    replies.push(Reply::text("done"));
    // The record would copy the whole history on every turn: model cost, not the framework's.
    ScriptedModel::new(replies).without_recording()
}
