//! What a newcomer reads when something is wrong: the error a `main` returning
//! `Result<(), Box<dyn Error>>` prints is the sentence saying what to do, and an agent run outside
//! a Tokio runtime says it needs one and how to get one.

use agents_kt::prelude::*;
use agents_kt::{BuildError, McpToolset};

#[test]
fn an_error_returned_from_main_prints_its_sentence_not_its_fields() {
    let Err(error) = Agent::<String, String>::builder("a").build() else {
        panic!("an agent without a model is refused");
    };
    let error: Box<dyn std::error::Error> = error.into();
    // What `fn main() -> Result<(), Box<dyn Error>>` prints after "Error: ".
    let printed = format!("{error:?}");
    assert_eq!(
        printed,
        "skill 'default' calls the model, but the agent has none: add `.model(..)`"
    );
    assert!(!printed.contains("NoModel {"), "{printed}");
}

#[tokio::test]
async fn an_mcp_error_from_main_says_what_happened_with_its_causes() {
    let error = McpToolset::http("http://127.0.0.1:9/mcp")
        .connect()
        .await
        .expect_err("nothing listens on port 9");
    let printed = format!("{error:?}");
    assert!(
        printed.contains("connection refused at http://127.0.0.1:9/mcp"),
        "{printed}"
    );
    assert_eq!(
        printed.matches("connection refused").count(),
        1,
        "{printed}"
    );
    assert!(!printed.contains("WorkerTransport"), "{printed}");
}

#[test]
fn a_build_error_matches_on_its_variant_as_before() {
    let error = Agent::<String, String>::builder("a").build().err();
    assert!(matches!(error, Some(BuildError::NoModel { .. })));
}

#[test]
fn a_run_outside_a_tokio_runtime_says_agents_kt_needs_one_and_how_to_get_one() {
    let agent = Agent::<String, String>::builder("outside")
        .model(ScriptedModel::new([Reply::text("hi")]))
        .build()
        .unwrap();
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        futures::executor::block_on(agent.run("hello".into()))
    }))
    .expect_err("no runtime");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.starts_with(
            "agents-kt needs a Tokio runtime, and `Agent::run` was called outside one"
        ),
        "{message}"
    );
    assert!(message.contains("#[tokio::main]"), "{message}");
}

/// A writer into a shared buffer, for reading what `tracing` logged.
#[derive(Clone, Default)]
struct Logged(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Logged {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Reads the forecast.
#[tool]
fn forecast(city: String) -> String {
    format!("sunny in {city}")
}

/// Has a bug.
#[before_tool_call(forecast)]
fn buggy_check(args: &ForecastArgs) -> Decision<ForecastArgs, String> {
    match args.city.as_str() {
        "" => Decision::Proceed,
        _ => panic!("index out of bounds in buggy_check"),
    }
}

#[test]
fn a_panicking_interceptor_denies_with_its_text_and_the_log_names_it() {
    agents_kt_tests::quiet_scripted_panics();
    let logged = Logged::default();
    let writer = logged.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let model = ScriptedModel::new([
        Reply::tool_call("forecast", serde_json::json!({"city": "Oslo"})),
        Reply::text("done"),
    ]);
    let decided = agents_kt_tests::Log::new();
    let seen = decided.clone();
    let agent = Agent::<String, String>::builder("buggy")
        .model(model.clone())
        .tool(Forecast)
        .before_tool_call(buggy_check)
        .on_tool_denied(move |_, _, reason| seen.push(reason.to_string()))
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    tracing::subscriber::with_default(subscriber, || {
        tracing::callsite::rebuild_interest_cache();
        runtime.block_on(agent.run("weather?".into())).unwrap();
    });
    assert_eq!(
        agents_kt_tests::last_message(&model, 1),
        "ERROR: Tool 'forecast' denied by policy: index out of bounds in buggy_check"
    );
    assert_eq!(decided.entries(), ["index out of bounds in buggy_check"]);
    let log = String::from_utf8(logged.0.lock().unwrap().clone()).unwrap();
    let line = log
        .lines()
        .find(|line| line.contains("an interceptor panicked"))
        .unwrap_or_else(|| panic!("the panic is logged: {log}"));
    assert!(line.contains("interceptor=buggy_check"), "{line}");
    assert!(
        line.contains("index out of bounds in buggy_check"),
        "{line}"
    );
}

/// A gate with a bug whose panic text holds a secret.
#[gate(forecast)]
fn leaky_gate(args: &ForecastArgs) -> Verdict {
    match args.city.as_str() {
        "" => Verdict::Allow,
        _ => panic!("db password hunter2 rejected"),
    }
}

#[tokio::test]
async fn hidden_panics_give_the_model_a_fixed_reason_and_keep_the_text_in_the_decision() {
    agents_kt_tests::quiet_scripted_panics();
    for (interceptor, expected) in [(true, "an interceptor failed"), (false, "a gate failed")] {
        let model = ScriptedModel::new([
            Reply::tool_call("forecast", serde_json::json!({"city": "Oslo"})),
            Reply::text("done"),
        ]);
        let decisions = agents_kt_tests::Log::new();
        let seen = decisions.clone();
        let builder = Agent::<String, String>::builder("discreet")
            .model(model.clone())
            .tool(Forecast)
            .hide_interceptor_panics(true)
            .on_interceptor_decision(move |d| {
                seen.push((d.name.clone(), d.reason.clone().unwrap_or_default()))
            });
        let agent = match interceptor {
            true => builder.before_tool_call(buggy_check),
            false => builder.gate_tool_call(leaky_gate),
        }
        .build()
        .unwrap();
        agent.run("weather?".into()).await.unwrap();
        let told = agents_kt_tests::last_message(&model, 1);
        assert_eq!(
            told,
            format!("ERROR: Tool 'forecast' denied by policy: {expected}")
        );
        assert!(
            !told.contains("hunter2") && !told.contains("index out"),
            "{told}"
        );
        let (name, reason) = decisions.entries().remove(0);
        let (want_name, want_text) = match interceptor {
            true => ("buggy_check", "index out of bounds in buggy_check"),
            false => ("leaky_gate", "db password hunter2 rejected"),
        };
        assert_eq!((name.as_str(), reason.as_str()), (want_name, want_text));
    }
}
