//! What the model reads of a tool's result does not depend on who else listens: results are
//! serialized straight to text when nobody observes, and through a JSON value as well when
//! someone does; both must give the model the same text.

use std::borrow::Cow;

use agents_kt::{Agent, ChatRequest, Reply, ScriptedModel, Tool, ToolContext, ToolError};
use agents_kt_tests::Log;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct ReportArgs {
    kind: String,
}

/// Fields deliberately out of alphabetical order: a JSON value would sort them.
#[derive(Debug, Deserialize, Serialize)]
#[serde(untagged)]
enum Report {
    Reading { zone: String, celsius: i32 },
    Text(String),
    Level(Level),
}

#[derive(Debug, Deserialize, Serialize)]
enum Level {
    Calm,
}

struct Observe;

impl Tool for Observe {
    const NAME: &'static str = "observe";
    type Args = ReportArgs;
    type Output = Report;
    fn description(&self) -> Cow<'static, str> {
        "Observe the weather.".into()
    }
    async fn call(&self, args: ReportArgs, _: &ToolContext) -> Result<Report, ToolError> {
        Ok(match args.kind.as_str() {
            "reading" => Report::Reading {
                zone: "north".into(),
                celsius: 4,
            },
            "text" => Report::Text("sunny \"and\" dry".into()),
            _ => Report::Level(Level::Calm),
        })
    }
}

fn script() -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_calls([
            ("observe", json!({"kind": "reading"})),
            ("observe", json!({"kind": "text"})),
            ("observe", json!({"kind": "level"})),
        ]),
        Reply::text("done"),
    ])
}

/// The tool messages of the second request, as the model read them.
fn tool_answers(requests: &[ChatRequest]) -> Vec<String> {
    let messages = &requests[1].messages;
    messages[messages.len() - 3..]
        .iter()
        .map(|message| message.content.clone())
        .collect()
}

const EXPECTED: [&str; 3] = [
    r#"{"zone":"north","celsius":4}"#,
    r#"sunny "and" dry"#,
    "Calm",
];

#[tokio::test]
async fn the_model_reads_the_same_result_text_with_or_without_observers() {
    let unobserved = script();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(unobserved.clone())
        .tool(Observe)
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();

    let observed = script();
    let seen = Log::new();
    let record = seen.clone();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(observed.clone())
        .tool(Observe)
        .on_tool_use(move |_, _, output: &Value| record.push(output.clone()))
        .build()
        .unwrap();
    let mut pipeline = agent.observe();
    agent.run("x".into()).await.unwrap();

    let streamed = script();
    let agent: Agent<String, String> = Agent::builder("a")
        .model(streamed.clone())
        .tool(Observe)
        .build()
        .unwrap();
    let mut session = agent.session("x".into());
    let _events: Vec<_> = session.events().collect().await;
    session.await.unwrap();

    assert_eq!(tool_answers(&unobserved.requests()), EXPECTED);
    assert_eq!(tool_answers(&observed.requests()), EXPECTED);
    assert_eq!(tool_answers(&streamed.requests()), EXPECTED);
    // Observers get the JSON value, strings as JSON strings.
    assert_eq!(
        seen.entries(),
        vec![
            json!({"zone": "north", "celsius": 4}),
            json!("sunny \"and\" dry"),
            json!("Calm"),
        ]
    );
    drop(agent);
    let used = pipeline
        .by_ref()
        .take_while(|event| {
            std::future::ready(!matches!(
                event,
                agents_kt::PipelineEvent::RunCompleted { .. }
            ))
        })
        .filter(|event| {
            std::future::ready(matches!(event, agents_kt::PipelineEvent::ToolUsed { .. }))
        })
        .count()
        .await;
    assert_eq!(used, 3);
}
