//! A user's own `ModelClient`, written with the message types' constructors only (no struct
//! literals: those types are `#[non_exhaustive]`, so a field added later cannot break this
//! file). It answers with a tool call and then with text, whole (`run`) and streamed
//! (`session`), and an agent runs it through its tool's interceptor on both paths.

use std::borrow::Cow;

use agents_kt::prelude::*;
use agents_kt::{
    ChatChunk, ChatRequest, ChatResponse, ChatStream, ModelClient, ModelError, ModelInfo, Role,
    ToolCall, Usage,
};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use serde::{Deserialize, Serialize};

/// Asks for the weather of the city the user named, then reports the tool's answer.
struct WeatherModel;

impl WeatherModel {
    fn tool_result(request: &ChatRequest) -> Option<&str> {
        let last = request.messages.last()?;
        (last.role == Role::Tool).then_some(last.content.as_str())
    }

    fn city(request: &ChatRequest) -> String {
        let asked = request.messages.iter().rev().find(|m| m.role == Role::User);
        asked.map(|m| m.content.clone()).unwrap_or_default()
    }
}

impl ModelClient for WeatherModel {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let response = match Self::tool_result(request) {
            Some(result) => ChatResponse::text(format!("It is {result}."))
                .with_finish_reason("stop")
                .with_model("weather-model-1")
                .with_usage(Usage::new(30, 6)),
            None => {
                let arguments = serde_json::json!({ "city": Self::city(request) }).to_string();
                ChatResponse::default()
                    .with_tool_calls(vec![ToolCall::new("call-1", "get_weather", arguments)])
                    .with_finish_reason("tool_calls")
                    .with_usage(Usage::new(20, 9))
            }
        };
        async move { Ok(response) }.boxed()
    }

    fn chat_stream<'a>(&'a self, request: &'a ChatRequest) -> ChatStream<'a> {
        let chunks = match Self::tool_result(request) {
            Some(result) => vec![
                ChatChunk::Text("It is ".into()),
                ChatChunk::Text(format!("{result}.")),
                ChatChunk::Usage(Usage::new(30, 6)),
                ChatChunk::finished(Some("weather-model-1".into()), Some("stop".into())),
            ],
            None => {
                let city = serde_json::to_string(&Self::city(request)).unwrap_or_default();
                vec![
                    ChatChunk::tool_call_delta(0, Some("call-1".into()), Some("get_weather".into()), ""),
                    ChatChunk::tool_call_delta(0, None, None, format!(r#"{{"city": {city}}}"#)),
                    ChatChunk::finished(None, Some("tool_calls".into())),
                ]
            }
        };
        futures::stream::iter(chunks.into_iter().map(Ok)).boxed()
    }

    fn info(&self) -> ModelInfo {
        ModelInfo::new("weather-co").model("weather-model-1")
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct GetWeatherArgs {
    pub city: String,
}

pub struct GetWeather;

impl Tool for GetWeather {
    const NAME: &'static str = "get_weather";
    type Args = GetWeatherArgs;
    type Output = String;

    fn description(&self) -> Cow<'static, str> {
        "Current weather for a city.".into()
    }

    async fn call(&self, args: GetWeatherArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("sunny in {}", args.city))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let agent: Agent<String, String> = Agent::builder("weather")
        .model(WeatherModel)
        .tool(GetWeather)
        .before_tool_call(ToolInterceptor::<GetWeather>::new(|args: &GetWeatherArgs| {
            // The interceptor sees the arguments the model wrote, on both paths.
            Decision::ProceedWith(GetWeatherArgs { city: args.city.to_uppercase() })
        }))
        .build()
        .expect("the agent builds");

    let answer = agent.run("Oslo".into()).await.expect("the run answers");
    assert_eq!(answer, "It is sunny in OSLO.");

    let streamed = agent.session("Bergen".into()).await.expect("the session answers");
    assert_eq!(streamed, "It is sunny in BERGEN.");
}
