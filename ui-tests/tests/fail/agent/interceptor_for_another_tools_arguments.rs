//! An `#[agent]` interceptor naming one tool but taking another's arguments: one error, at the
//! parameter's type.
use agents_kt::prelude::*;

pub struct Desk;

#[agent]
impl Desk {
    /// Current weather for a city.
    #[tool]
    fn get_weather(&self, city: String) -> String {
        city
    }

    /// Writes a file.
    #[tool]
    fn write_file(&self, path: String) -> String {
        path
    }

    #[before_tool_call(get_weather)]
    fn no_mars(&self, args: &WriteFileArgs) -> Decision<GetWeatherArgs, String> {
        let _ = args;
        Decision::Proceed
    }
}

fn main() {}
