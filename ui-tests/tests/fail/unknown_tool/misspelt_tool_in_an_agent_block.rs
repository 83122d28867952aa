use agents_kt::prelude::*;

pub struct Desk;

#[agent]
impl Desk {
    /// Current weather for a city.
    #[tool]
    fn get_weather(&self, city: String) -> String {
        city
    }

    #[before_tool_call(get_wether)]
    fn no_mars(&self, args: &GetWeatherArgs) -> Decision<GetWeatherArgs, String> {
        let _ = args;
        Decision::Proceed
    }
}

fn main() {}
