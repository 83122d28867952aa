//! Call constraints, counted across the whole tree of one run: `max_calls` over a parent and its
//! children, `never_after` stopping the exfiltration sequence across agents, `only_after`
//! ordering, and exactly `n` of many parallel calls let through `max_calls(n)`.

use std::borrow::Cow;
use std::time::Duration;

use agents_kt::{Agent, Constraint, Policy, Reply, ScriptedModel, Tool, ToolContext, ToolError};
use agents_kt_tests::{GetWeather, Log, last_message};
use serde_json::json;

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct NoArgs {}

/// A tool that takes a moment (so parallel calls overlap) and logs each run.
macro_rules! logged_tool {
    ($ty:ident, $name:literal) => {
        #[derive(Clone, Default)]
        struct $ty(Log<String>);

        impl Tool for $ty {
            const NAME: &'static str = $name;
            type Args = NoArgs;
            type Output = String;

            fn description(&self) -> Cow<'static, str> {
                concat!("The ", $name, " tool.").into()
            }

            async fn call(&self, _: NoArgs, ctx: &ToolContext) -> Result<String, ToolError> {
                tokio::time::sleep(Duration::from_millis(5)).await;
                self.0.push(ctx.call_id().to_string());
                Ok(concat!($name, " done").to_string())
            }
        }
    };
}

logged_tool!(ReadSecrets, "read_secrets");
logged_tool!(SendEmail, "send_email");
logged_tool!(RunTests, "run_tests");
logged_tool!(Deploy, "deploy");

fn call(tool: &str) -> Reply {
    Reply::tool_call(tool, json!({}))
}

#[tokio::test]
async fn max_calls_counts_a_parent_and_two_children_as_one_run() {
    let weather = GetWeather::default();
    let child = |name: &str, model: &ScriptedModel| {
        Agent::<String, String>::builder(name)
            .model(model.clone())
            .tool(weather.clone())
            .build()
            .unwrap()
    };
    let oslo = || Reply::tool_call("get_weather", json!({"city": "Oslo"}));
    let (first_model, second_model) = (
        ScriptedModel::new([oslo(), Reply::text("first done")]),
        ScriptedModel::new([oslo(), Reply::text("second done")]),
    );
    let parent = Agent::<String, String>::builder("planner")
        .model(ScriptedModel::new([
            oslo(),
            Reply::tool_call("first", json!({"input": "a"})),
            Reply::tool_call("second", json!({"input": "b"})),
            Reply::text("planned"),
        ]))
        .tool(weather.clone())
        .sub_agent(child("first", &first_model).as_tool("first", "First."))
        .sub_agent(child("second", &second_model).as_tool("second", "Second."))
        .constraint(Constraint::max_calls::<GetWeather>(2))
        .build()
        .unwrap();
    assert_eq!(parent.run("plan".into()).await.unwrap(), "planned");
    assert_eq!(
        weather.ran.len(),
        2,
        "the parent's call and the first child's"
    );
    assert_eq!(
        last_message(&second_model, 1),
        "ERROR: Tool 'get_weather' denied by policy: tool 'get_weather' may be called at most 2 times in a run (or remembered conversation); it was called 2 times (max_calls, declared by 'planner')"
    );
    // A new run counts afresh.
    let weather_before = weather.ran.len();
    let again = Agent::<String, String>::builder("again")
        .model(ScriptedModel::new([oslo(), Reply::text("ok")]))
        .tool(weather.clone())
        .constraint(Constraint::max_calls::<GetWeather>(1))
        .build()
        .unwrap();
    again.run("x".into()).await.unwrap();
    assert_eq!(weather.ran.len(), weather_before + 1);
}

#[tokio::test]
async fn never_after_blocks_the_exfiltration_sequence_across_agents() {
    let (secrets, email) = (ReadSecrets::default(), SendEmail::default());
    let reader = Agent::<String, String>::builder("reader")
        .model(ScriptedModel::new([
            call("read_secrets"),
            Reply::text("read"),
        ]))
        .tool(secrets.clone())
        .build()
        .unwrap();
    let mailer_model = ScriptedModel::new([call("send_email"), Reply::text("could not send")]);
    let mailer = Agent::<String, String>::builder("mailer")
        .model(mailer_model.clone())
        .tool(email.clone())
        .build()
        .unwrap();
    // The policy on the root: the two halves of the sequence run in two different children.
    let policy = Policy::builder("no-exfiltration")
        .constraint(Constraint::never_after::<SendEmail, ReadSecrets>())
        .build();
    let root = Agent::<String, String>::builder("root")
        .model(ScriptedModel::new([
            Reply::tool_call("read", json!({"input": "go"})),
            Reply::tool_call("mail", json!({"input": "go"})),
            Reply::text("done"),
        ]))
        .sub_agent(reader.as_tool("read", "Reads."))
        .sub_agent(mailer.as_tool("mail", "Mails."))
        .policy(&policy)
        .build()
        .unwrap();
    assert_eq!(root.run("go".into()).await.unwrap(), "done");
    assert_eq!(secrets.0.len(), 1);
    assert!(
        email.0.is_empty(),
        "mail went out after the secrets were read"
    );
    assert_eq!(
        last_message(&mailer_model, 1),
        "ERROR: Tool 'send_email' denied by policy: tool 'send_email' may not run once 'read_secrets' has run (never_after, declared by 'root')"
    );
    // Mail before any secret is read is fine.
    let email = SendEmail::default();
    let fine = Agent::<String, String>::builder("fine")
        .model(ScriptedModel::new([
            call("send_email"),
            Reply::text("sent"),
        ]))
        .tool(email.clone())
        .tool(ReadSecrets::default())
        .policy(&policy)
        .build()
        .unwrap();
    assert_eq!(fine.run("go".into()).await.unwrap(), "sent");
    assert_eq!(email.0.len(), 1);
}

#[tokio::test]
async fn only_after_lets_a_tool_run_once_the_other_has_succeeded() {
    let (tests, deploy) = (RunTests::default(), Deploy::default());
    let model = ScriptedModel::new([
        call("deploy"),
        call("run_tests"),
        call("deploy"),
        Reply::text("shipped"),
    ]);
    let agent = Agent::<String, String>::builder("release")
        .model(model.clone())
        .tool(tests.clone())
        .tool(deploy.clone())
        .constraint(Constraint::only_after::<Deploy, RunTests>())
        .build()
        .unwrap();
    assert_eq!(agent.run("ship".into()).await.unwrap(), "shipped");
    assert_eq!(
        last_message(&model, 1),
        "ERROR: Tool 'deploy' denied by policy: tool 'deploy' may run only after 'run_tests' has succeeded (only_after, declared by 'release')"
    );
    assert_eq!((tests.0.len(), deploy.0.len()), (1, 1));
}

#[tokio::test]
async fn eight_parallel_calls_against_max_calls_three_run_exactly_three() {
    for _ in 0..5 {
        let email = SendEmail::default();
        let model = ScriptedModel::new([
            Reply::tool_calls((0..8).map(|_| ("send_email", json!({})))),
            Reply::text("sent some"),
        ]);
        let agent = Agent::<String, String>::builder("bulk")
            .model(model.clone())
            .tool(email.clone())
            .tool_concurrency(8)
            .constraint(Constraint::max_calls::<SendEmail>(3))
            .build()
            .unwrap();
        assert_eq!(agent.run("mail all".into()).await.unwrap(), "sent some");
        assert_eq!(email.0.len(), 3, "exactly three ran");
        let answers: Vec<String> = model.requests()[1]
            .messages
            .iter()
            .filter(|m| m.role == agents_kt::Role::Tool)
            .map(|m| m.content.clone())
            .collect();
        assert_eq!(answers.len(), 8);
        assert_eq!(
            answers
                .iter()
                .filter(|a| a.as_str() == "send_email done")
                .count(),
            3
        );
        assert_eq!(
            answers
                .iter()
                .filter(|a| a.contains("may be called at most 3 times"))
                .count(),
            5
        );
    }
}

#[tokio::test]
async fn max_calls_counts_across_the_runs_of_a_remembered_conversation() {
    let send = SendEmail::default();
    let turn = || [call("send_email"), Reply::text("sent")];
    let model = ScriptedModel::new(turn().into_iter().cycle().take(8).collect::<Vec<_>>());
    let agent = Agent::<String, String>::builder("mailer")
        .model(model.clone())
        .tool(send.clone())
        .constraint(Constraint::max_calls::<SendEmail>(2))
        .build()
        .unwrap();
    let store = agents_kt::InMemoryStore::new();
    for _ in 0..2 {
        agent.run_in(&store, "conv-1", "mail".into()).await.unwrap();
    }
    assert_eq!(send.0.len(), 2);
    // The third run of the conversation, on the stream path: its call is the third.
    let third = agent.session_in(&store, "conv-1", "mail".into()).await;
    assert_eq!(third.unwrap(), "sent");
    assert_eq!(send.0.len(), 2, "the conversation's third call was denied");
    let told = last_message(&model, 5);
    assert!(
        told.contains("at most 2 times") && told.contains("called 2 times"),
        "{told}"
    );
    // Another conversation counts from zero.
    agent.run_in(&store, "conv-2", "mail".into()).await.unwrap();
    assert_eq!(send.0.len(), 3);
}

#[tokio::test]
async fn never_after_stays_shut_in_a_later_run_of_the_conversation_even_in_another_process() {
    let scratch = agents_kt_tests::scratch::Scratch::new("constraints-memory");
    let file = scratch.0.join("memory.db");
    let (read, send) = (ReadSecrets::default(), SendEmail::default());
    // Each run builds its agent anew on the same file, as another process would; `locked`
    // denies every read.
    let agent = |model: &ScriptedModel, locked: bool| {
        Agent::<String, String>::builder("assistant")
            .model(model.clone())
            .tool(read.clone())
            .tool(send.clone())
            .constraint(Constraint::never_after::<SendEmail, ReadSecrets>())
            .on_gate_tool_call(move |name: &str, _: &serde_json::Value| {
                if locked && name == "read_secrets" {
                    agents_kt::Verdict::deny("locked")
                } else {
                    agents_kt::Verdict::Allow
                }
            })
            .build()
            .unwrap()
    };
    let store = agents_kt::SqliteStore::open(&file).unwrap();
    let first = ScriptedModel::new([call("read_secrets"), Reply::text("read")]);
    agent(&first, false)
        .run_in(&store, "conv-1", "read".into())
        .await
        .unwrap();
    let store = agents_kt::SqliteStore::open(&file).unwrap();
    let second = ScriptedModel::new([call("send_email"), Reply::text("tried")]);
    agent(&second, false)
        .run_in(&store, "conv-1", "mail it".into())
        .await
        .unwrap();
    assert!(send.0.is_empty(), "no mail once the secrets were read");
    let told = last_message(&second, 1);
    assert!(
        told.contains("may not run once 'read_secrets' has run"),
        "{told}"
    );

    // A read denied in an earlier run does not shut it: only calls that got past their guard
    // count.
    let denied = ScriptedModel::new([call("read_secrets"), Reply::text("refused")]);
    agent(&denied, true)
        .run_in(&store, "conv-2", "read".into())
        .await
        .unwrap();
    let third = ScriptedModel::new([call("send_email"), Reply::text("sent")]);
    agent(&third, false)
        .run_in(&store, "conv-2", "mail".into())
        .await
        .unwrap();
    assert_eq!(read.0.len(), 1, "only conv-1's read ran");
    assert_eq!(send.0.len(), 1);
}

#[tokio::test]
async fn max_calls_is_not_fooled_by_two_children_sharing_a_name_and_call_ids() {
    // Two agents built apart under one name: the same run ids ("worker/run-1"), and models
    // numbering their calls alike ("call-1").
    let weather = GetWeather::default();
    let worker = || {
        Agent::<String, String>::builder("worker")
            .model(ScriptedModel::new([
                Reply::tool_call("get_weather", json!({"city": "Oslo"})),
                Reply::text("looked"),
            ]))
            .tool(weather.clone())
            .build()
            .unwrap()
    };
    let parent = Agent::<String, String>::builder("planner")
        .model(ScriptedModel::new([
            Reply::tool_call("first", json!({"input": "a"})),
            Reply::tool_call("second", json!({"input": "b"})),
            Reply::text("planned"),
        ]))
        .sub_agent(worker().as_tool("first", "First."))
        .sub_agent(worker().as_tool("second", "Second."))
        .constraint(Constraint::max_calls::<GetWeather>(1))
        .build()
        .unwrap();
    assert_eq!(parent.run("plan".into()).await.unwrap(), "planned");
    assert_eq!(
        weather.ran.len(),
        1,
        "the second worker's call was the second"
    );
}
