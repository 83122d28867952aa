use agents_kt::prelude::*;

pub struct Desk;

impl Desk {
    /// Current weather for a city.
    #[tool]
    fn get_weather(&self, city: String) -> String {
        city
    }
}

fn main() {}
