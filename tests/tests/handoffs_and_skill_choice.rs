//! Handoffs (`transfer_to_<name>`: a tool call through the caller's guard, then the receiving
//! agent's chains) and the skill the model chooses (a guarded turn whose answer the skill chain
//! sees), on both paths.

use agents_kt::{
    Agent, AgentError, Decision, InterceptContext, Message, Reply, ScriptedModel, Skill, Verdict,
};
use agents_kt_tests::{Log, PATHS, drive, last_message};
use serde_json::{Value, json};

fn refunds(model: &ScriptedModel, seen: &Log<String>) -> Agent<String, String> {
    let (skill_seen, turn_seen) = (seen.clone(), seen.clone());
    Agent::<String, String>::builder("refunds")
        .model(model.clone())
        .system_prompt("You are the refunds desk.")
        .on_before_skill(move |name: &str, ctx: &InterceptContext| {
            let parent = ctx.parent().map_or("-", |p| p.agent());
            skill_seen.push(format!("refunds skill {name} from {parent}"));
            Decision::Proceed
        })
        .on_before_turn(move |messages: &[Message]| {
            turn_seen.push(format!("refunds turn {} messages", messages.len()));
            Decision::Proceed
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_handoff_ends_the_run_with_the_receiving_agents_output_after_its_own_chains() {
    for path in PATHS {
        let seen = Log::new();
        let refunds_model = ScriptedModel::new([Reply::text("Refunded order 42.")]);
        let triage_model = ScriptedModel::new([Reply::tool_call(
            "transfer_to_refunds",
            json!({"input": "refund order 42"}),
        )]);
        let triage = Agent::<String, String>::builder("triage")
            .model(triage_model.clone())
            .system_prompt("You are triage.")
            .handoff(refunds(&refunds_model, &seen))
            .build()
            .unwrap();
        let (output, _) = drive(&triage, "My order 42 arrived broken", path).await;
        assert_eq!(output.unwrap(), "Refunded order 42.", "{path:?}");
        // The receiving agent's skill and turn chains ran.
        assert_eq!(
            seen.entries(),
            [
                "refunds skill default from triage",
                "refunds turn 3 messages"
            ]
        );
        // It read its own system prompt, then the conversation so far (not triage's system prompt,
        // nor the transfer call, which has no answer to go with it),
        // then the input the transfer carried.
        let request = &refunds_model.requests()[0];
        let texts: Vec<&str> = request
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(texts[0], "You are the refunds desk.");
        assert_eq!(texts[1], "My order 42 arrived broken");
        assert_eq!(texts.last(), Some(&"refund order 42"));
        assert!(!texts.contains(&"You are triage."));
        // Triage's model was asked once: the handoff ended its loop.
        assert_eq!(triage_model.request_count(), 1);
        let tools: Vec<_> = triage_model.requests()[0]
            .tools
            .iter()
            .map(|t| t.name.clone())
            .collect();
        assert_eq!(tools, ["transfer_to_refunds"]);
    }
}

#[tokio::test]
async fn a_gate_forbids_a_handoff_and_the_conversation_goes_on_with_the_caller() {
    for path in PATHS {
        let seen = Log::new();
        let refunds_model = ScriptedModel::new([]);
        let triage_model = ScriptedModel::new([
            Reply::tool_call("transfer_to_refunds", json!({"input": "refund everything"})),
            Reply::text("I cannot hand you over; how else can I help?"),
        ]);
        let triage = Agent::<String, String>::builder("triage")
            .model(triage_model.clone())
            .handoff(refunds(&refunds_model, &seen))
            .on_gate_tool_call(|name: &str, args: &Value| {
                if name.starts_with("transfer_to_")
                    && args["input"]
                        .as_str()
                        .is_some_and(|i| i.contains("everything"))
                {
                    Verdict::deny("refunds of everything need a manager")
                } else {
                    Verdict::Allow
                }
            })
            .build()
            .unwrap();
        let (output, _) = drive(&triage, "refund", path).await;
        assert_eq!(
            output.unwrap(),
            "I cannot hand you over; how else can I help?"
        );
        assert!(seen.is_empty(), "{path:?}: the receiving agent ran");
        assert_eq!(refunds_model.request_count(), 0);
        assert_eq!(
            last_message(&triage_model, 1),
            "ERROR: Tool 'transfer_to_refunds' denied by policy: refunds of everything need a manager"
        );
    }
}

#[tokio::test]
async fn a_failed_handoff_is_told_to_the_callers_model() {
    let refunds = Agent::<String, String>::builder("refunds")
        .model(ScriptedModel::new([Reply::text("ok")]))
        .on_before_turn(|_: &[Message]| Decision::deny("refunds desk closed"))
        .build()
        .unwrap();
    let triage_model = ScriptedModel::new([
        Reply::tool_call("transfer_to_refunds", json!({"input": "refund"})),
        Reply::text("The refunds desk is closed."),
    ]);
    let triage = Agent::<String, String>::builder("triage")
        .model(triage_model.clone())
        .handoff(refunds)
        .build()
        .unwrap();
    assert_eq!(
        triage.run("refund".into()).await.unwrap(),
        "The refunds desk is closed."
    );
    assert_eq!(
        last_message(&triage_model, 1),
        "ERROR: Tool 'transfer_to_refunds' failed: agent 'refunds' failed: Turn denied by interceptor: refunds desk closed"
    );
}

fn desk(model: &ScriptedModel) -> agents_kt::AgentBuilder<String, String> {
    Agent::<String, String>::builder("desk")
        .model(model.clone())
        .skill(Skill::agentic("orders").description("Answers questions about orders."))
        .skill(Skill::agentic("refunds").description("Starts refunds."))
        .model_chooses_skill()
}

#[tokio::test]
async fn the_model_chosen_skill_is_what_before_skill_sees_and_may_reroute() {
    for path in PATHS {
        let model = ScriptedModel::new([
            Reply::text(r#"{"skill": "refunds"}"#),
            Reply::text("Orders desk here."),
        ]);
        let seen = Log::new();
        let log = seen.clone();
        let agent = desk(&model)
            .on_before_skill(move |name: &str| {
                log.push(name.to_string());
                match name {
                    "refunds" => Decision::ProceedWith("orders".to_string()),
                    _ => Decision::Proceed,
                }
            })
            .build()
            .unwrap();
        let (output, _) = drive(&agent, "Refund order 42", path).await;
        assert_eq!(output.unwrap(), "Orders desk here.", "{path:?}");
        assert_eq!(seen.entries(), ["refunds"]);
        // The choice was one structured call listing the skills with their descriptions.
        let choice = &model.requests()[0];
        assert!(
            choice.messages[0]
                .content
                .contains("- refunds: Starts refunds.")
        );
        assert_eq!(
            choice.response_format.as_ref().unwrap()["properties"]["skill"]["enum"],
            json!(["orders", "refunds"])
        );
        assert!(choice.tools.is_empty());
    }
}

#[tokio::test]
async fn an_invalid_choice_is_repaired_once_then_fails_clearly() {
    let model = ScriptedModel::new([
        Reply::text(r#"{"skill": "shipping"}"#),
        Reply::text("refunds"),
        Reply::text("Refund started."),
    ]);
    let agent = desk(&model).build().unwrap();
    assert_eq!(agent.run("refund".into()).await.unwrap(), "Refund started.");
    assert!(
        last_message(&model, 1)
            .starts_with("'shipping' is not one of its skills. Choose one of: orders, refunds.")
    );

    let model = ScriptedModel::new([
        Reply::text(r#"{"skill": "shipping"}"#),
        Reply::text("I would rather not say"),
    ]);
    let agent = desk(&model).build().unwrap();
    let error = agent.run("refund".into()).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::SkillChoice { reason, available, .. }
            if reason == "'I would rather not say' names no skill" && available == "orders, refunds"),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the model chose no skill of this agent: 'I would rather not say' names no skill (skills: orders, refunds)"
    );
}

#[tokio::test]
async fn the_choice_is_a_guarded_turn() {
    let model = ScriptedModel::new([Reply::text(r#"{"skill": "refunds"}"#)]);
    let agent = desk(&model)
        .gate_turn(|_: &[Message]| Verdict::deny("no model today"))
        .build()
        .unwrap();
    let error = agent.run("refund".into()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "Turn denied by interceptor: no model today"
    );
    assert_eq!(model.request_count(), 0);
}
