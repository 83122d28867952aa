//! `A2aAgent` against servers built with the official SDKs — Python (PyPI `a2a-sdk` 1.x,
//! `tests/a2a-peers/a2a_server.py`) and JavaScript (npm `@a2a-js/sdk` 1.x, `a2a_server.mjs`): a
//! typed call and a text call over their streaming JSON-RPC binding (and the blocking one when a
//! card says it does not stream), the remote's failure, its
//! `input-required` answered through the local desk (and refused without one), and a timeout
//! canceling the remote task.
//!
//! Needs `A2A_PYTHONPATH` and `A2A_NODE_DIR` (`eval "$(scripts/a2a-peers.sh)"`, which
//! `scripts/test.sh` runs).

use std::time::Duration;

use agents_kt::prelude::*;
use agents_kt::{A2aAgent, A2aClientError, ApprovalAnswer, ApprovalDesk};
use agents_kt_tests::a2a::{node_dir, python_path};
use agents_kt_tests::a2a_remote::{node_server, python_server};
use futures::StreamExt;
use serde_json::json;

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct City {
    pub city: String,
}

#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Forecast {
    pub city: String,
    pub forecast: String,
    pub celsius: f64,
}

agents_kt::a2a_tool! {
    /// The Python weather agent.
    pub struct PythonWeather("python_weather"): City => Forecast;
}

/// Send `ask` to the agent at `url` with a desk, and answer its question with `reply`: what the
/// local approver was shown, and the call's output.
async fn ask_and_reply(url: &str, reply: &str) -> (serde_json::Value, String) {
    let (desk, mut inbox) = ApprovalDesk::new();
    let remote = A2aAgent::<String, String>::builder(url)
        .approvals(desk)
        .connect()
        .await
        .unwrap();
    let call = tokio::spawn(async move { remote.send("ask".into()).await });
    let question = inbox.next().await.unwrap();
    let asked = question.request().args.clone();
    let fingerprint = question.request().fingerprint.clone();
    question
        .answer(ApprovalAnswer::edit(fingerprint, json!({ "reply": reply })))
        .unwrap();
    (asked, call.await.unwrap().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_and_a_text_call_reach_the_python_sdks_agent() {
    let Some(python) = python_path() else { return };
    let server = python_server(&python, &[]).await;
    let weather = A2aAgent::<City, Forecast>::connect(&server.url)
        .await
        .unwrap();
    assert_eq!(weather.name(), "python-weather");
    let forecast = weather
        .send(City {
            city: "Oslo".into(),
        })
        .await
        .unwrap();
    assert_eq!(
        forecast,
        Forecast {
            city: "Oslo".into(),
            forecast: "sunny".into(),
            celsius: 21.0
        }
    );
    let echo = A2aAgent::<String, String>::connect(&server.url)
        .await
        .unwrap();
    assert_eq!(
        echo.send("hello".into()).await.unwrap(),
        "python echo: hello"
    );

    // As a typed tool of a local agent: the model reads the Python agent's forecast.
    let model = ScriptedModel::new([
        Reply::tool_call("python_weather", json!({"city": "Lima"})),
        Reply::text("sunny in Lima"),
    ]);
    let planner = Agent::<String, String>::builder("planner")
        .model(model.clone())
        .tool(PythonWeather::new(weather))
        .build()
        .unwrap();
    assert_eq!(
        planner.run("weather?".into()).await.unwrap(),
        "sunny in Lima"
    );
    let read = model.requests()[1].messages.last().unwrap().content.clone();
    assert!(read.contains("\"forecast\":\"sunny\""), "{read}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_agents_failure_is_a_failed_task_with_its_words() {
    let Some(python) = python_path() else { return };
    let server = python_server(&python, &[]).await;
    let remote = A2aAgent::<String, String>::connect(&server.url)
        .await
        .unwrap();
    let error = remote.send("fail".into()).await.unwrap_err();
    match &error {
        A2aClientError::TaskFailed { state, message } => {
            assert_eq!(state, "failed");
            assert_eq!(message, "the python agent cannot do that");
        }
        other => panic!("{other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_agents_question_is_answered_through_the_local_desk() {
    let Some(python) = python_path() else { return };
    let server = python_server(&python, &[]).await;
    let unanswered = A2aAgent::<String, String>::connect(&server.url)
        .await
        .unwrap();
    let error = unanswered.send("ask".into()).await.unwrap_err();
    assert!(
        error.to_string().contains("What is your account number?"),
        "{error}"
    );

    let (asked, output) = ask_and_reply(&server.url, "12345").await;
    assert_eq!(asked["question"], "What is your account number?");
    assert_eq!(asked["remote_agent"], "python-weather");
    assert_eq!(output, "account 12345 noted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_cancels_the_python_agents_task() {
    let Some(python) = python_path() else { return };
    let mark = std::env::temp_dir().join(format!("a2a-canceled-{}", std::process::id()));
    let _ = std::fs::remove_file(&mark);
    let server = python_server(&python, &[("CANCELED_MARK", mark.to_str().unwrap())]).await;
    let remote = A2aAgent::<String, String>::builder(&server.url)
        .timeout(Duration::from_millis(1500))
        .connect()
        .await
        .unwrap();
    let error = remote.send("slow".into()).await.unwrap_err();
    assert!(matches!(error, A2aClientError::Timeout { .. }), "{error}");
    for _ in 0..100 {
        if mark.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(mark.exists(), "the Python agent's task was canceled");
    let _ = std::fs::remove_file(&mark);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_javascript_sdks_agent_answers_typed_fails_and_asks() {
    let Some(node) = node_dir() else { return };
    let server = node_server(&node).await;
    let weather = A2aAgent::<City, Forecast>::connect(&server.url)
        .await
        .unwrap();
    assert_eq!(weather.name(), "javascript-weather");
    let forecast = weather
        .send(City {
            city: "Bergen".into(),
        })
        .await
        .unwrap();
    assert_eq!(
        forecast,
        Forecast {
            city: "Bergen".into(),
            forecast: "rain".into(),
            celsius: 9.0
        }
    );
    let text = A2aAgent::<String, String>::connect(&server.url)
        .await
        .unwrap();
    assert_eq!(text.send("hi".into()).await.unwrap(), "javascript echo: hi");
    let error = text.send("fail".into()).await.unwrap_err();
    assert!(
        matches!(&error, A2aClientError::TaskFailed { state, message }
            if state == "failed" && message == "the javascript agent cannot do that"),
        "{error}"
    );
    let (asked, output) = ask_and_reply(&server.url, "42").await;
    assert_eq!(asked["question"], "Which order?");
    assert_eq!(output, "order 42 found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_agent_that_does_not_stream_is_called_with_blocking_send_message() {
    let Some(python) = python_path() else { return };
    let server = python_server(&python, &[("A2A_NO_STREAMING", "1")]).await;
    let card: serde_json::Value =
        reqwest::get(format!("{}/.well-known/agent-card.json", server.url))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_ne!(card["capabilities"]["streaming"], true, "{card}");
    let weather = A2aAgent::<City, Forecast>::connect(&server.url)
        .await
        .unwrap();
    let forecast = weather
        .send(City {
            city: "Rome".into(),
        })
        .await
        .unwrap();
    assert_eq!(forecast.forecast, "sunny");
    let (_, output) = ask_and_reply(&server.url, "777").await;
    assert_eq!(output, "account 777 noted");
}
