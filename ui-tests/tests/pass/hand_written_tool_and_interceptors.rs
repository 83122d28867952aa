//! A hand-written tool with typed and dynamic interceptors, sync and async, on an agent: the
//! whole public surface a user touches without macros must compile.

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

    async fn call(&self, _args: GetWeatherArgs, ctx: &ToolContext) -> Result<Weather, ToolError> {
        ctx.emit("looking it up");
        Ok(Weather { celsius: 20 })
    }
}

fn main() {
    let _agent: Result<Agent<String, String>, _> = Agent::builder("weather")
        .model(ScriptedModel::default())
        .tool(GetWeather)
        .before_tool_call(ToolInterceptor::<GetWeather>::new(|args: &GetWeatherArgs| {
            if args.city == "Mars" {
                Decision::Substitute(Weather { celsius: -60 })
            } else {
                Decision::Proceed
            }
        }))
        .before_tool_call(ToolInterceptor::<GetWeather>::new(|args: &GetWeatherArgs| {
            let city = args.city.clone();
            async move {
                Ok::<_, std::io::Error>(Decision::ProceedWith(GetWeatherArgs { city }))
            }
        }))
        .on_before_tool_call(|_name: &str, _args: &serde_json::Value| Decision::Proceed)
        .on_before_turn(|_messages: &[Message]| Decision::Proceed)
        .on_before_skill(|name: &str| {
            let name = name.to_string();
            async move { Decision::<String, String>::ProceedWith(name) }
        })
        .build();
}
