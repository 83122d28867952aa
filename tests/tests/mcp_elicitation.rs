//! A server asking a person in the middle of a tool call (`elicitation/create`), against npm
//! `@modelcontextprotocol/server-everything` over stdio: its `trigger-elicitation-request` tool
//! is offered only to a client that offers elicitation, asks for a form (a required `name`,
//! fields with defaults, enums), and returns what the person answered. Skipped without
//! `MCP_NODE_DIR`, unless `AGENTS_KT_REQUIRE_MCP_CLIENTS=1`.

use agents_kt::mcp::{Elicitation, ElicitationAnswer};
use agents_kt::prelude::*;
use agents_kt::{ApprovalDesk, McpStdio, McpToolset, Role};
use futures::StreamExt;
use serde_json::json;

const ASKING_TOOL: &str = "trigger-elicitation-request";

fn everything() -> Option<McpStdio> {
    let server = agents_kt_tests::npm::npm_package(
        "@modelcontextprotocol/server-everything",
        "dist/index.js",
    )?;
    Some(McpToolset::stdio("node").args([server.as_str(), "stdio"]))
}

/// Runs an agent that calls the asking tool once; what the model was told of its result.
async fn told_after_asking(set: McpToolset) -> String {
    let model = ScriptedModel::new([
        Reply::tool_call(ASKING_TOOL, json!({})),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("asker")
        .model(model.clone())
        .toolset(set.only([ASKING_TOOL]))
        .build()
        .unwrap();
    assert_eq!(agent.run("go".into()).await.unwrap(), "done");
    model.requests()[1]
        .messages
        .iter()
        .rfind(|m| m.role == Role::Tool)
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_servers_question_goes_to_the_approval_desk_and_the_persons_edit_is_the_answer() {
    let Some(server) = everything() else {
        return;
    };
    let (desk, mut inbox) = ApprovalDesk::new();
    let set = server.elicitation_desk(desk).connect().await.unwrap();
    let person = tokio::spawn(async move {
        let question = inbox
            .next()
            .await
            .expect("the server's question reaches the inbox");
        let asked = question.request().clone();
        let mut content = asked.args["content"].clone();
        content["name"] = json!("Ada Lovelace");
        question
            .edit(&json!({ "content": content }))
            .expect("the edit serializes");
        asked
    });
    let told = told_after_asking(set).await;
    let asked = person.await.unwrap();
    assert_eq!(asked.tool, "mcp_elicitation");
    assert_eq!(
        asked.args["message"],
        "Please provide inputs for the following fields:"
    );
    assert_eq!(
        asked.args["content"]["firstLine"], "It was a dark and stormy night.",
        "the person is shown the schema's defaults"
    );
    assert!(asked.args["schema"]["properties"]["name"].is_object());
    assert!(told.contains("- Name: Ada Lovelace"), "{told}");
    assert!(told.contains("- Favorite Integer: 42"), "{told}");
}

#[tokio::test]
async fn a_denied_question_is_declined() {
    let Some(server) = everything() else {
        return;
    };
    let (desk, mut inbox) = ApprovalDesk::new();
    let set = server.elicitation_desk(desk).connect().await.unwrap();
    tokio::spawn(async move {
        if let Some(question) = inbox.next().await {
            question.deny("not sharing that");
        }
    });
    let told = told_after_asking(set).await;
    assert!(told.contains("declined"), "{told}");
}

#[tokio::test]
async fn an_answer_that_does_not_fit_the_schema_is_not_sent() {
    let Some(server) = everything() else {
        return;
    };
    let set = server
        .on_elicitation(|asked: Elicitation| async move {
            let mut content = asked.defaults();
            content["name"] = json!("Ada");
            // Not one of the enum's values.
            content["untitledSingleSelectEnum"] = json!("Gunther");
            ElicitationAnswer::accept(content)
        })
        .connect()
        .await
        .unwrap();
    let told = told_after_asking(set).await;
    assert!(told.starts_with("ERROR: Tool"), "{told}");
    assert!(told.contains("untitledSingleSelectEnum"), "{told}");
    assert!(
        !told.contains("Gunther\""),
        "the answer never reached the server: {told}"
    );
}

#[tokio::test]
async fn a_handler_accepting_the_defaults_and_a_name_answers_the_server() {
    let Some(server) = everything() else {
        return;
    };
    let set = server
        .on_elicitation(|asked: Elicitation| async move {
            assert!(asked.server.contains("stdio"), "{}", asked.server);
            let mut content = asked.defaults();
            content["name"] = json!("Grace Hopper");
            ElicitationAnswer::accept(content)
        })
        .connect()
        .await
        .unwrap();
    let told = told_after_asking(set).await;
    assert!(told.contains("- Name: Grace Hopper"), "{told}");
}

#[tokio::test]
async fn without_an_answerer_the_client_offers_no_elicitation() {
    let Some(server) = everything() else {
        return;
    };
    let set = server.connect().await.unwrap();
    assert!(
        !set.names().iter().any(|name| name == ASKING_TOOL),
        "the server offers its asking tool only to a client that can answer"
    );
}
