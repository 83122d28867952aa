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

/// Wait until `n` questions wait.
async fn waiting(inbox: &ApprovalInbox, n: usize) -> Vec<ApprovalRequest> {
    for _ in 0..500 {
        let pending = inbox.pending();
        if pending.len() == n {
            return pending;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{n} questions never waited at once: {:?}", inbox.pending());
}

#[tokio::test]
async fn two_runs_and_a_child_wait_at_once_and_are_answered_out_of_order() {
    let (desk, inbox) = ApprovalDesk::new();
    let mut changes = inbox.changes();
    let ran = GetWeather::default();
    let forecaster = |model: &ScriptedModel| {
        Agent::<String, String>::builder("forecaster")
            .model(model.clone())
            .tool(ran.clone())
            .approvals(desk.clone())
            .grant(Grant::confirm::<GetWeather>())
            .build()
            .unwrap()
    };
    let (oslo, bergen) = (weather("Oslo"), weather("Bergen"));
    let (first, second) = (forecaster(&oslo), forecaster(&bergen));
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
        assert_eq!(inbox.pending().len(), 1);
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
    let agent = Agent::<String, String>::builder("forecaster")
        .model(model.clone())
        .tool(GetWeather::default())
        .approvals(desk.clone())
        .grant(Grant::confirm::<GetWeather>())
        .build()
        .unwrap();
    // A run given up while it waits: its question is withdrawn.
    let run = agent.run("weather?".into());
    assert!(
        tokio::time::timeout(Duration::from_millis(200), run)
            .await
            .is_err()
    );
    assert!(inbox.pending().is_empty(), "{:?}", inbox.pending());
    let kinds: Vec<InboxChange> =
        vec![changes.next().await.unwrap(), changes.next().await.unwrap()];
    assert!(matches!(kinds[0], InboxChange::Asked { .. }));
    assert!(matches!(kinds[1], InboxChange::Withdrawn { .. }));

    // Every inbox dropped: the next question is denied at once, saying why.
    drop((inbox, changes));
    let model = weather("Oslo");
    let agent = Agent::<String, String>::builder("forecaster")
        .model(model.clone())
        .tool(GetWeather::default())
        .approvals(desk)
        .grant(Grant::confirm::<GetWeather>())
        .build()
        .unwrap();
    agent.run("weather?".into()).await.unwrap();
    assert!(
        last_message(&model, 1).contains("nobody reads the approval desk"),
        "{}",
        last_message(&model, 1)
    );
}
