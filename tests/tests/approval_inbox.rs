//! The approvals inbox: one desk serving several runs and a sub-agent at once; `pending()`
//! lists what waits (run, agent, depth, tool, arguments, fingerprint, manifest, since);
//! `answer(..)` answers any of it out of band, in any order; an unknown or already answered
//! fingerprint is a clear error; `changes()` streams asked / answered / withdrawn.

use std::time::Duration;

use agents_kt::{
    Agent, ApprovalAnswer, ApprovalDesk, ApprovalInbox, ApprovalRequest, Grant, InboxChange,
    InboxError, Reply, ScriptedModel,
};
use agents_kt_tests::{GetWeather, GetWeatherArgs, last_message};
use futures::StreamExt;
use serde_json::json;

fn weather(city: &str) -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_call("get_weather", json!({ "city": city })),
        Reply::text("done"),
    ])
}

/// An agent `name` on `model` whose every `get_weather` call (logged in `ran`) waits for an
/// approval at `desk`.
fn forecaster(
    name: &str,
    model: &ScriptedModel,
    ran: &GetWeather,
    desk: &ApprovalDesk,
) -> Agent<String, String> {
    Agent::<String, String>::builder(name)
        .model(model.clone())
        .tool(ran.clone())
        .approvals(desk.clone())
        .grant(Grant::confirm::<GetWeather>())
        .build()
        .unwrap()
}

/// Wait until `n` questions wait.
async fn waiting(inbox: &ApprovalInbox, n: usize) -> Vec<ApprovalRequest> {
    for _ in 0..500 {
        let pending = inbox.pending().unwrap();
        if pending.len() == n {
            return pending;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "{n} questions never waited at once: {:?}",
        inbox.pending().unwrap()
    );
}

#[tokio::test]
async fn two_runs_and_a_child_wait_at_once_and_are_answered_out_of_order() {
    let (desk, inbox) = ApprovalDesk::new();
    let mut changes = inbox.changes();
    let ran = GetWeather::default();
    let (oslo, bergen) = (weather("Oslo"), weather("Bergen"));
    let (first, second) = (
        forecaster("forecaster", &oslo, &ran, &desk),
        forecaster("forecaster", &bergen, &ran, &desk),
    );
    // A parent whose child has no desk: the child asks the parent's.
    let child_model = weather("Tromsø");
    let child = Agent::<String, String>::builder("looker")
        .model(child_model.clone())
        .tool(ran.clone())
        .build()
        .unwrap();
    let parent = Agent::<String, String>::builder("planner")
        .model(ScriptedModel::new([
            Reply::tool_call("look_up", json!({"input": "north"})),
            Reply::text("planned"),
        ]))
        .sub_agent(child.as_tool("look_up", "Looks up."))
        .approvals(desk.clone())
        .grant(Grant::allow_named("look_up"))
        .grant(Grant::confirm::<GetWeather>())
        .build()
        .unwrap();

    let human = async {
        let pending = waiting(&inbox, 3).await;
        let by_city = |city: &str| {
            pending
                .iter()
                .find(|r| r.args["city"] == city)
                .cloned()
                .unwrap_or_else(|| panic!("no question about {city}: {pending:?}"))
        };
        let (oslo_q, bergen_q, north_q) = (by_city("Oslo"), by_city("Bergen"), by_city("Tromsø"));
        // What a page would show: who asks, how deep, under which permissions, since when.
        assert_eq!((north_q.agent.as_str(), north_q.depth), ("looker", 1));
        assert_eq!((oslo_q.agent.as_str(), oslo_q.depth), ("forecaster", 0));
        assert_eq!(north_q.manifest.as_deref(), Some(parent.manifest().hash()));
        assert!(oslo_q.since_ms > 0);
        assert_ne!(oslo_q.fingerprint, bergen_q.fingerprint);
        let typed: GetWeatherArgs = serde_json::from_value(north_q.args.clone()).unwrap();
        assert_eq!(typed.city, "Tromsø");
        let as_json = serde_json::to_value(&oslo_q).unwrap();
        assert_eq!(as_json["tool"], "get_weather");

        // Answered last-asked first, each on its own.
        inbox
            .answer(ApprovalAnswer::approve(&north_q.fingerprint))
            .unwrap();
        inbox
            .answer(ApprovalAnswer::deny(&bergen_q.fingerprint, "not Bergen"))
            .unwrap();
        assert_eq!(inbox.pending().unwrap().len(), 1);
        inbox
            .answer(ApprovalAnswer::approve(&oslo_q.fingerprint))
            .unwrap();
        // The same answer again, and one nobody asked for.
        assert!(matches!(
            inbox.answer(ApprovalAnswer::approve(&oslo_q.fingerprint)),
            Err(InboxError::AlreadyAnswered { .. })
        ));
        let unknown = inbox.answer(ApprovalAnswer::approve("0000")).unwrap_err();
        assert!(matches!(unknown, InboxError::NotWaiting { .. }));
        assert!(unknown.to_string().contains("stale"), "{unknown}");
    };
    let (a, b, c, ()) = tokio::join!(
        first.run("weather?".into()),
        second.run("weather?".into()),
        parent.run("plan".into()),
        human
    );
    assert_eq!(
        (a.unwrap(), b.unwrap(), c.unwrap()),
        ("done".into(), "done".into(), "planned".into())
    );
    let mut cities: Vec<String> = ran.ran.entries().into_iter().map(|a| a.city).collect();
    cities.sort();
    assert_eq!(
        cities,
        ["Oslo", "Tromsø"],
        "each approved call ran once, the denied one not"
    );
    assert!(
        last_message(&bergen, 1).ends_with("not Bergen"),
        "{}",
        last_message(&bergen, 1)
    );

    // The changes: three asked, three answered.
    drop((desk, first, second, parent));
    let changes: Vec<InboxChange> = tokio::time::timeout(Duration::from_secs(5), async {
        let mut seen = Vec::new();
        while seen.len() < 6 {
            match changes.next().await {
                Some(change) => seen.push(change),
                None => break,
            }
        }
        seen
    })
    .await
    .expect("the changes arrive");
    let kinds: Vec<&str> = changes
        .iter()
        .map(|c| match c {
            InboxChange::Asked { .. } => "asked",
            InboxChange::Answered { .. } => "answered",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "asked").count(),
        3,
        "{kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|k| **k == "answered").count(),
        3,
        "{kinds:?}"
    );
    let json = serde_json::to_value(&changes[0]).unwrap();
    assert_eq!(json["change"], "asked");
}

#[tokio::test]
async fn a_question_whose_run_ended_is_withdrawn_and_nobody_left_to_answer_denies() {
    let (desk, inbox) = ApprovalDesk::new();
    let mut changes = inbox.changes();
    let model = weather("Oslo");
    let agent = forecaster("forecaster", &model, &GetWeather::default(), &desk);
    // A run given up while it waits: its question is withdrawn.
    let run = agent.run("weather?".into());
    assert!(
        tokio::time::timeout(Duration::from_millis(200), run)
            .await
            .is_err()
    );
    assert!(
        inbox.pending().unwrap().is_empty(),
        "{:?}",
        inbox.pending().unwrap()
    );
    let kinds: Vec<InboxChange> =
        vec![changes.next().await.unwrap(), changes.next().await.unwrap()];
    assert!(matches!(kinds[0], InboxChange::Asked { .. }));
    assert!(matches!(kinds[1], InboxChange::Withdrawn { .. }));

    // Every inbox dropped: the next question is denied at once, saying why.
    drop((inbox, changes));
    let model = weather("Oslo");
    let agent = forecaster("forecaster", &model, &GetWeather::default(), &desk);
    drop(desk);
    agent.run("weather?".into()).await.unwrap();
    assert!(
        last_message(&model, 1).contains("nobody reads the approval desk"),
        "{}",
        last_message(&model, 1)
    );
}

/// The environment variable that turns this test binary, re-run, into the asking process.
const INBOX_FILE: &str = "AGENTS_KT_INBOX_FILE";
/// The line the asking process prints its outcome on.
const OUTCOME: &str = "ASKER-OUTCOME ";

/// The asking process: two agents on the SQLite inbox at `AGENTS_KT_INBOX_FILE` each ask to call
/// `get_weather` (Oslo, Bergen) and wait; prints what each model was told and what ran.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the second process of the SQLite inbox tests: they run it themselves"]
async fn asking_process_of_the_sqlite_inbox_tests() {
    let Some(file) = std::env::var_os(INBOX_FILE) else {
        return;
    };
    let (desk, _inbox) = ApprovalDesk::sqlite(file).unwrap();
    let ran = GetWeather::default();
    let (oslo, bergen) = (weather("Oslo"), weather("Bergen"));
    let (first, second) = (
        forecaster("oslo-desk", &oslo, &ran, &desk),
        forecaster("bergen-desk", &bergen, &ran, &desk),
    );
    let (a, b) = tokio::join!(first.run("weather?".into()), second.run("weather?".into()));
    let outcome = json!({
        "outputs": [a.unwrap(), b.unwrap()],
        "oslo_told": last_message(&oslo, 1),
        "bergen_told": last_message(&bergen, 1),
        "ran": ran.ran.entries().into_iter().map(|args| args.city).collect::<Vec<_>>(),
    });
    println!("{OUTCOME}{outcome}");
}

/// Start the asking process on `file`.
fn asking_process(file: &std::path::Path) -> tokio::process::Child {
    tokio::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "asking_process_of_the_sqlite_inbox_tests",
            "--ignored",
            "--nocapture",
        ])
        .env(INBOX_FILE, file)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

/// Wait until `n` questions wait in the file's inbox.
async fn waiting_in_file(inbox: &ApprovalInbox, n: usize) -> Vec<ApprovalRequest> {
    for _ in 0..600 {
        let pending = inbox.pending().unwrap();
        if pending.len() == n {
            return pending;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{n} questions never waited: {:?}", inbox.pending());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_inbox_is_shared_by_two_processes_and_answered_out_of_order() {
    let scratch = agents_kt_tests::scratch::Scratch::new("inbox");
    let file = scratch.0.join("approvals.db");
    let (_desk, mut inbox) = ApprovalDesk::sqlite(&file).unwrap();
    let mut changes = inbox.changes();
    let asker = asking_process(&file);

    let pending = waiting_in_file(&inbox, 2).await;
    let about = |city: &str| {
        pending
            .iter()
            .find(|r| r.args["city"] == city)
            .cloned()
            .unwrap_or_else(|| panic!("no question about {city}: {pending:?}"))
    };
    let (oslo, bergen) = (about("Oslo"), about("Bergen"));
    assert_eq!(
        (oslo.agent.as_str(), oslo.tool.as_str()),
        ("oslo-desk", "get_weather")
    );
    assert_ne!(oslo.run_id, bergen.run_id);
    assert!(oslo.since_ms > 0 && oslo.manifest.is_some());
    // The question asked in the other process also arrives on this inbox's stream.
    let streamed = tokio::time::timeout(Duration::from_secs(10), inbox.next())
        .await
        .expect("the question is streamed")
        .expect("a question");
    assert!(pending.contains(streamed.request()));

    // Answered last-asked first, from this process.
    inbox
        .answer(ApprovalAnswer::deny(&bergen.fingerprint, "not Bergen"))
        .unwrap();
    inbox
        .answer(ApprovalAnswer::approve(&oslo.fingerprint))
        .unwrap();
    assert!(matches!(
        inbox.answer(ApprovalAnswer::approve(&oslo.fingerprint)),
        Err(InboxError::AlreadyAnswered { .. })
    ));

    let output = tokio::time::timeout(Duration::from_secs(60), asker.wait_with_output())
        .await
        .expect("the asking process finishes")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let outcome: serde_json::Value = stdout
        .lines()
        .find_map(|line| line.strip_prefix(OUTCOME))
        .map(|line| serde_json::from_str(line).unwrap())
        .unwrap_or_else(|| panic!("no outcome from the asking process:\n{stdout}"));
    assert_eq!(outcome["outputs"], json!(["done", "done"]));
    assert_eq!(
        outcome["ran"],
        json!(["Oslo"]),
        "the approved call ran once, the denied one not"
    );
    let bergen_told = outcome["bergen_told"].as_str().unwrap();
    assert!(bergen_told.ends_with("not Bergen"), "{bergen_told}");
    assert!(inbox.pending().unwrap().is_empty());

    // Both processes' changes, in order, on one stream.
    let kinds: Vec<&str> = tokio::time::timeout(Duration::from_secs(10), async {
        let mut kinds = Vec::new();
        while kinds.len() < 4 {
            kinds.push(match changes.next().await.expect("a change") {
                InboxChange::Asked { .. } => "asked",
                InboxChange::Answered { .. } => "answered",
                _ => "other",
            });
        }
        kinds
    })
    .await
    .expect("the four changes arrive");
    assert_eq!(kinds, ["asked", "asked", "answered", "answered"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_question_of_a_killed_process_is_withdrawn_and_cannot_be_approved() {
    let scratch = agents_kt_tests::scratch::Scratch::new("inbox-killed");
    let file = scratch.0.join("approvals.db");
    let (_desk, inbox) = ApprovalDesk::sqlite(&file).unwrap();
    let mut changes = inbox.changes();
    let mut asker = asking_process(&file);
    let pending = waiting_in_file(&inbox, 2).await;
    asker.kill().await.unwrap();

    // No heartbeat any more: within the stale time the questions stop waiting.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !inbox.pending().unwrap().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the dead process's questions still wait"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let refused = inbox
        .answer(ApprovalAnswer::approve(&pending[0].fingerprint))
        .unwrap_err();
    assert!(
        matches!(refused, InboxError::NotWaiting { .. }),
        "{refused}"
    );
    let withdrawn = tokio::time::timeout(Duration::from_secs(10), async {
        let mut withdrawn = 0;
        while withdrawn < 2 {
            if let InboxChange::Withdrawn { .. } = changes.next().await.expect("a change") {
                withdrawn += 1;
            }
        }
        withdrawn
    })
    .await
    .expect("both questions are withdrawn");
    assert_eq!(withdrawn, 2);
}
