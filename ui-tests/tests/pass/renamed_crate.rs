//! With the runtime under another name, `crate = path` points generated code at it. (That no
//! generated path still names `agents_kt` is checked by the macro crate's unit tests.)

extern crate agents_kt as renamed_agents;

use renamed_agents::{Agent, Decision, ScriptedModel};

/// Current weather for a city.
#[renamed_agents::tool(crate = ::renamed_agents)]
fn get_weather(city: String) -> String {
    city
}

#[renamed_agents::before_tool_call(get_weather, crate = ::renamed_agents)]
async fn approve(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, String> {
    let _ = args;
    Decision::Proceed
}

/// Echoes.
#[renamed_agents::skill(crate = ::renamed_agents)]
fn echo(text: String) -> String {
    text
}

pub struct Desk;

#[renamed_agents::agent(crate = ::renamed_agents)]
impl Desk {
    /// The time.
    #[tool]
    fn now(&self) -> String {
        "noon".into()
    }

    #[before_turn]
    fn turns(&self, messages: &[renamed_agents::Message]) -> Decision<Vec<renamed_agents::Message>, String> {
        let _ = messages;
        Decision::Proceed
    }
}

fn main() {
    let _: Result<Agent<String, String>, _> = Desk
        .agent_builder("desk")
        .model(ScriptedModel::default())
        .tool(GetWeather)
        .skill(Echo)
        .before_tool_call(approve)
        .build();
}
