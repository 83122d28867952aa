//! `#[agent]` on an impl block: method tools, skills and interceptors (sync and async, with and
//! without `self`), under `#![deny(missing_docs)]`, registered in source order.
#![deny(missing_docs)]
//! Crate docs.

use agents_kt::prelude::*;
use serde::{Deserialize, Serialize};

/// A forecast.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Forecast {
    /// Degrees.
    pub celsius: i32,
}

/// The weather desk.
pub struct WeatherDesk {
    stations: Vec<String>,
}

#[agent(input = String, output = String)]
impl WeatherDesk {
    /// Current weather for a city.
    #[tool]
    pub async fn get_weather(&self, city: String) -> Result<Forecast, String> {
        if self.stations.contains(&city) { Ok(Forecast { celsius: 12 }) } else { Err(format!("no station in {city}")) }
    }

    /// Lists the stations.
    #[tool]
    pub fn list_stations(&self) -> Vec<String> {
        self.stations.clone()
    }

    /// The time in a zone.
    #[tool]
    pub fn time_in(zone: String, ctx: &ToolContext) -> String {
        format!("noon in {zone} ({})", ctx.call_id())
    }

    #[before_tool_call(get_weather)]
    fn no_mars(&self, args: &GetWeatherArgs) -> Decision<GetWeatherArgs, Forecast> {
        if args.city == "Mars" { Decision::deny("no station on Mars") } else { Decision::Proceed }
    }

    #[before_tool_call(get_weather)]
    async fn approve(&self, args: &GetWeatherArgs) -> Result<Decision<GetWeatherArgs, Forecast>, String> {
        let _ = (&self.stations, args);
        Ok(Decision::Proceed)
    }

    #[before_tool_call]
    fn audit(name: &str, args: &serde_json::Value) -> Decision<serde_json::Value, serde_json::Value> {
        let _ = (name, args);
        Decision::Proceed
    }

    #[before_turn]
    async fn no_injection(&self, messages: &[Message]) -> Decision<Vec<Message>, String> {
        if messages.is_empty() { Decision::Substitute("nothing to say".into()) } else { Decision::Proceed }
    }

    #[before_skill]
    fn route(&self, skill: &str) -> Decision<String, String> {
        let _ = skill;
        Decision::Proceed
    }

    /// Reports the weather.
    #[skill]
    async fn report(&self, city: String, ctx: SkillContext<String>) -> Result<String, SkillError> {
        let forecast = ctx.call_tool(GetWeatherArgs { city }).await?;
        Ok(format!("{}C", forecast.celsius))
    }
}

fn main() {
    let desk = WeatherDesk { stations: vec!["Oslo".into()] };
    let _agent: Result<Agent<String, String>, _> =
        desk.agent_builder("desk").model(ScriptedModel::default()).build();
}
