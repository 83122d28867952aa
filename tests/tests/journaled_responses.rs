//! A journaled run goes on with the model's response its step produced, not with the copy the
//! journal recorded: the same response only if every response reads back from its recorded JSON
//! equal to itself, which these properties check — directly, and through a run and its replay.

use std::sync::Arc;

use agents_kt::{Agent, ChatResponse, MemoryJournal, Reply, ScriptedModel, ToolCall, Usage};
use proptest::prelude::*;
use serde_json::json;

/// Entries as the code before journal steps became text wrote them (`Value` objects, keys
/// sorted) replay unchanged: the model is not asked again.
#[tokio::test]
async fn entries_recorded_before_steps_became_text_still_replay() {
    let model = ScriptedModel::new(Vec::<Reply>::new());
    let agent = Agent::<String, String>::builder("journaled")
        .model(model.clone())
        .build()
        .expect("the agent builds");
    let recorded = vec![json!({
        "manifest": "0f3e",
        "step": "turn#1",
        "value": {"content": "from the journal", "tool_calls": [], "usage": null}
    })];
    let replay = Arc::new(MemoryJournal::replaying("run-1", recorded));
    let output = agent
        .run_journaled("hi".into(), Default::default(), replay)
        .await
        .expect("the replay answers from the journal");
    assert_eq!(output, "from the journal");
    assert!(model.requests().is_empty());
}

/// Text as models write it: quotes, escapes, non-ASCII letters, emoji, control characters.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("\"".to_string()),
            Just("\\".to_string()),
            Just("\n".to_string()),
            Just("\u{7}".to_string()),
            Just("Reykjavík".to_string()),
            Just("🌧".to_string()),
            "[a-z ]{0,8}",
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

fn response() -> impl Strategy<Value = ChatResponse> {
    (
        text(),
        prop::collection::vec((text(), text(), text()), 0..3),
        prop::option::of((any::<u64>(), any::<u64>())),
        prop::option::of(text()),
        prop::option::of(text()),
    )
        .prop_map(|(content, calls, usage, model, finish_reason)| {
            let calls = calls
                .into_iter()
                .map(|(id, name, arguments)| ToolCall::new(id, name, arguments))
                .collect();
            let mut response = ChatResponse::text(content).with_tool_calls(calls);
            if let Some((read, written)) = usage {
                response = response.with_usage(Usage::new(read, written));
            }
            if let Some(model) = model {
                response = response.with_model(model);
            }
            if let Some(reason) = finish_reason {
                response = response.with_finish_reason(reason);
            }
            response
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_model_response_reads_back_from_its_json_equal_to_itself(response in response()) {
        let recorded = serde_json::to_value(&response).expect("a response is JSON");
        let text = serde_json::to_string(&recorded).expect("a value is text");
        let read: ChatResponse = serde_json::from_str(&text).expect("the text reads back");
        prop_assert_eq!(read, response);
    }

    #[test]
    fn a_journaled_run_and_its_replay_answer_alike(answer in text()) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let (first, replayed) = runtime.block_on(async {
            let model = ScriptedModel::new([Reply::text(answer.clone())]);
            let agent = Agent::<String, String>::builder("journaled")
                .model(model)
                .build()
                .expect("the agent builds");
            let journal = Arc::new(MemoryJournal::new("run-1"));
            let first = agent
                .run_journaled("hi".into(), Default::default(), journal.clone())
                .await
                .expect("the first run answers");
            let replay = Arc::new(MemoryJournal::replaying("run-1", journal.entries()));
            let replayed = agent
                .run_journaled("hi".into(), Default::default(), replay)
                .await
                .expect("the replay answers");
            (first, replayed)
        });
        prop_assert_eq!(&first, &answer);
        prop_assert_eq!(first, replayed);
    }
}
