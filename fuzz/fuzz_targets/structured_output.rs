//! The model's final text — anything — parsed into an agent's typed output: the run ends with
//! the output or `AgentError::Output`, never a panic; text that is the output's JSON is taken.
#![no_main]

use agents_kt::AgentError;
use agents_kt::prelude::*;
use libfuzzer_sys::fuzz_target;

#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Booking {
    city: String,
    nights: u8,
    confirmed: bool,
}

fuzz_target!(|text: &[u8]| {
    let text = String::from_utf8_lossy(text).into_owned();
    let agent = Agent::<String, Booking>::builder("fuzz")
        .model(ScriptedModel::new([Reply::text(text.clone())]))
        .budget(Budget::default().max_output_repairs(0))
        .build()
        .expect("the agent builds");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let output = runtime.block_on(agent.run("book".into()));
    if let Ok(expected) = serde_json::from_str::<Booking>(&text) {
        assert_eq!(output.expect("valid JSON is the output"), expected);
    } else if let Err(error) = output {
        assert!(matches!(error, AgentError::Output { .. }), "{error:?}");
    }
});
