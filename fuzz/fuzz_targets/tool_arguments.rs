//! A `#[tool]`'s arguments as the model wrote them — any bytes — through the agent loop: the run
//! never fails or panics over them (the model is told what was wrong), an interceptor sees them,
//! and the tool body runs exactly when they are valid arguments.
#![no_main]

use std::sync::atomic::{AtomicUsize, Ordering};

use agents_kt::prelude::*;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

static RAN: AtomicUsize = AtomicUsize::new(0);

/// Books a stay.
#[tool]
fn book(city: String, nights: u8, guests: Option<Vec<String>>) -> String {
    RAN.fetch_add(1, Ordering::SeqCst);
    format!(
        "{city}: {nights} nights for {}",
        guests.map_or(1, |g| g.len())
    )
}

fuzz_target!(|arguments: &[u8]| {
    let text = String::from_utf8_lossy(arguments).into_owned();
    RAN.store(0, Ordering::SeqCst);
    let agent = Agent::<String, String>::builder("fuzz")
        .model(ScriptedModel::new([
            Reply::raw_tool_calls([("book", text.clone())]),
            Reply::text("ok"),
        ]))
        .tool(Book)
        .on_before_tool_call(|_: &str, args: &Value| {
            std::hint::black_box(args.to_string());
            Decision::<Value, Value>::Proceed
        })
        .build()
        .expect("the agent builds");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let output = runtime.block_on(agent.run("book".into()));
    assert_eq!(output.expect("bad arguments never end the run"), "ok");
    let valid = text.len() <= Budget::default().max_tool_args_bytes
        && serde_json::from_str::<BookArgs>(if text.trim().is_empty() { "{}" } else { &text })
            .is_ok();
    assert_eq!(
        RAN.load(Ordering::SeqCst),
        usize::from(valid),
        "ran iff valid: {text:?}"
    );
});
