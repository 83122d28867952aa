//! A dynamic (name, JSON) interceptor handed to `.before_tool_call`: the error names
//! `.on_before_tool_call`.
use agents_kt::prelude::*;

fn main() {
    let _ = Agent::<String, String>::builder("weather")
        .before_tool_call(|_name: &str, _args: &serde_json::Value| Decision::Proceed);
}
