use agents_kt::prelude::*;

pub struct Desk;

#[agent]
impl Desk {
    /// Current weather for a city.
    #[tool(name = "weather")]
    fn get_weather(&self, city: String) -> String {
        city
    }

    /// Forecast for a city.
    #[tool(name = "weather")]
    fn get_forecast(&self, city: String) -> String {
        city
    }
}

fn main() {}
