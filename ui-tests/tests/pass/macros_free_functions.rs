//! Every macro on free functions, sync and async, registered on one agent.

use agents_kt::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Weather {
    pub celsius: i32,
}

/// Current weather for a city.
#[tool(params(city = "The city, e.g. Paris"))]
async fn get_weather(city: String, unit: Option<String>, ctx: &ToolContext) -> Result<Weather, String> {
    ctx.emit("looking up");
    let _ = unit;
    if city.is_empty() { Err("no city".into()) } else { Ok(Weather { celsius: 20 }) }
}

/// Adds two numbers.
#[tool(name = "add")]
fn add_numbers(a: i64, b: i64) -> i64 {
    a + b
}

#[before_tool_call(get_weather)]
fn no_mars(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, Weather> {
    if args.city == "Mars" { Decision::Substitute(Weather { celsius: -60 }) } else { Decision::Proceed }
}

#[before_tool_call(get_weather)]
async fn capitalize(args: &GetWeatherArgs) -> Result<Decision<GetWeatherArgs, Weather>, String> {
    Ok(Decision::ProceedWith(GetWeatherArgs { city: args.city.to_uppercase(), unit: args.unit.clone() }))
}

#[before_tool_call]
fn audit(name: &str, args: &serde_json::Value) -> Decision<serde_json::Value, serde_json::Value> {
    let _ = (name, args);
    Decision::Proceed
}

#[before_turn]
async fn no_injection(messages: &[Message]) -> Decision<Vec<Message>, String> {
    if messages.iter().any(|m| m.content.contains("ignore previous")) {
        Decision::deny("possible prompt injection")
    } else {
        Decision::Proceed
    }
}

#[before_skill]
fn open_hours(skill: &str) -> Decision<String, String> {
    let _ = skill;
    Decision::Proceed
}

/// Plans a trip.
#[skill]
async fn plan(city: String, days: u32, ctx: SkillContext<String>) -> Result<String, SkillError> {
    let weather = ctx.call_tool(GetWeatherArgs { city: city.clone(), unit: None }).await?;
    Ok(format!("{days} days in {city} at {}C", weather.celsius))
}

fn main() {
    let _agent: Result<Agent<PlanInput, String>, _> = Agent::builder("trips")
        .model(ScriptedModel::default())
        .tool(GetWeather)
        .tool(AddNumbers)
        .skill(Plan)
        .before_tool_call(no_mars)
        .before_tool_call(capitalize)
        .on_before_tool_call(audit)
        .on_before_turn(no_injection)
        .on_before_skill(open_hours)
        .build();
}
