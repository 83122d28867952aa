//! An MCP client built from `McpToolset`, for the official conformance suite's client
//! scenarios (`conformance client --command <this> --scenario <name>`): the suite appends its
//! server's URL, and says which scenario runs in `MCP_CONFORMANCE_SCENARIO` and what the
//! client may know beforehand (a pre-registered client, a signing key) in
//! `MCP_CONFORMANCE_CONTEXT`.
//!
//! The client connects, then an agent calls every listed tool through the agent's pipeline
//! (the scripted model asks for each with arguments made from its schema). The scenario only
//! picks the OAuth settings; what happens on the wire is the toolset's own doing.
//!
//! With `TOKENS_FILE` set (an authorization-code scenario), the tokens are kept in that file,
//! and a second toolset — a restarted application — connects with them and calls the tools
//! again; asking the person a second time fails it.

use agents_kt::mcp::{Elicitation, ElicitationAnswer};
use agents_kt::prelude::*;
use agents_kt::{FileTokens, McpOAuth, McpToolset};
use serde_json::{Map, Value, json};

/// The redirect the suite's authorization server sends the code to. Nothing listens there: the
/// authorization URL is fetched without following redirects, and the redirect read.
const REDIRECT_URI: &str = "http://localhost:3000/callback";

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(error) = run().await {
        eprintln!("conformance client: {error}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().next_back().ok_or("no server URL")?;
    let tokens = std::env::var("TOKENS_FILE").ok();
    call_every_tool(&url, tokens.as_deref(), false).await?;
    if tokens.is_some() {
        call_every_tool(&url, tokens.as_deref(), true).await?;
        println!("restarted with the kept tokens, without asking again");
    }
    Ok(())
}

/// Connects as the scenario says and has an agent call every tool; `restarted`: the person
/// may not be asked.
async fn call_every_tool(
    url: &str,
    tokens: Option<&str>,
    restarted: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    let text = |key: &str| context[key].as_str().map(str::to_string);
    let mut http = McpToolset::http(url)
        .client_info("agents-kt-conformance", "1.0.0")
        .protocol_version("2025-11-25");
    if scenario.starts_with("elicitation") {
        // A person who accepts what the server proposes.
        http = http.on_elicitation(|asked: Elicitation| async move {
            ElicitationAnswer::accept(asked.defaults())
        });
    }
    if scenario.starts_with("auth/") {
        let oauth = match (scenario.as_str(), text("client_id"), text("client_secret")) {
            ("auth/client-credentials-jwt", Some(id), _) => McpOAuth::client_credentials_jwt(
                id,
                text("private_key_pem").unwrap_or_default(),
                &text("signing_algorithm").unwrap_or_else(|| "ES256".to_string()),
            )?,
            ("auth/client-credentials-basic", Some(id), Some(secret)) => {
                McpOAuth::client_credentials(id, secret)
            }
            (_, id, secret) => {
                let mut oauth = if restarted {
                    McpOAuth::authorization_code(REDIRECT_URI, |_| async {
                        Err::<String, _>("asked again after a restart".to_string())
                    })
                } else {
                    McpOAuth::authorization_code(REDIRECT_URI, headless)
                };
                oauth = oauth
                    .client_name("agents-kt-conformance")
                    .client_metadata_url("https://conformance-test.local/client-metadata.json");
                if let Some(id) = id {
                    oauth = oauth.client_id(id);
                }
                if let Some(secret) = secret {
                    oauth = oauth.client_secret(secret);
                }
                match tokens {
                    Some(path) => oauth.token_store(FileTokens::new(path)),
                    None => oauth,
                }
            }
        };
        http = http.oauth(oauth);
    }
    let tools = http.connect().await?;
    let calls: Vec<(String, Value)> = tools
        .names()
        .into_iter()
        .map(|name| {
            let arguments = arguments_for(tools.input_schema(&name).unwrap_or(&Value::Null));
            (name, arguments)
        })
        .collect();
    let mut replies: Vec<Reply> = calls
        .iter()
        .map(|(name, arguments)| Reply::tool_call(name.clone(), arguments.clone()))
        .collect();
    replies.push(Reply::text("done"));
    let agent = Agent::<String, String>::builder("conformance")
        .model(ScriptedModel::new(replies))
        .toolset(tools)
        .build()?;
    let answer = agent.run("call every tool".to_string()).await?;
    println!("{answer}");
    Ok(())
}

/// The person's part of the authorization-code flow, headless: the suite's authorization
/// server approves at once and redirects; the redirect is the answer.
async fn headless(authorization_url: String) -> Result<String, String> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|error| error.to_string())?;
    let response = client
        .get(&authorization_url)
        .send()
        .await
        .map_err(|error| error.to_string())?;
    response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|location| location.to_str().ok())
        .map(str::to_string)
        .ok_or_else(|| {
            format!(
                "no redirect from the authorization server ({})",
                response.status()
            )
        })
}

/// Arguments that fit `schema`: each property of an object gets a value of its type.
fn arguments_for(schema: &Value) -> Value {
    let mut arguments = Map::new();
    if let Some(properties) = schema["properties"].as_object() {
        for (name, property) in properties {
            let value = match property["type"].as_str() {
                Some("number") | Some("integer") => json!(1),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!("test"),
            };
            arguments.insert(name.clone(), value);
        }
    }
    Value::Object(arguments)
}
