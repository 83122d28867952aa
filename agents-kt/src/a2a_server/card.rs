//! The agent card (`/.well-known/agent-card.json`): the agent's name, description, skills, the
//! two bindings it is served on, what it can do (streaming; no push notifications), and the
//! JSON schemas of its input and output as an extension, so a typed client can check that they
//! match its own types before it sends anything.

use std::collections::HashMap;

use a2a::{
    AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill,
    HttpAuthSecurityScheme, SecurityScheme, TRANSPORT_PROTOCOL_HTTP_JSON,
    TRANSPORT_PROTOCOL_JSONRPC,
};
use schemars::JsonSchema;
use serde_json::Value;

use crate::{Agent, AgentInput, AgentOutput};

use crate::IO_SCHEMAS_EXTENSION;

/// The card's name for the bearer scheme an authenticating server requires.
const BEARER: &str = "bearer";

/// Where the HTTP+JSON binding is mounted, under the server's base URL.
pub(super) const REST_PATH: &str = "/rest";

/// The capabilities the card announces, and the only place they are set.
pub(super) fn capabilities(input: Value, output: Value) -> AgentCapabilities {
    let params = HashMap::from([("input".to_string(), input), ("output".to_string(), output)]);
    AgentCapabilities {
        streaming: Some(true),
        push_notifications: Some(false),
        extensions: Some(vec![AgentExtension {
            uri: IO_SCHEMAS_EXTENSION.to_string(),
            description: Some("JSON schemas of the agent's input and output".to_string()),
            required: Some(false),
            params: Some(params),
        }]),
        extended_agent_card: Some(false),
    }
}

/// The card of `agent` served at `base_url` (JSON-RPC at the base, HTTP+JSON under `/rest`);
/// `bearer`: the server authenticates, and the card says a bearer token is required.
pub(super) fn card<IN, OUT>(
    agent: &Agent<IN, OUT>,
    description: &str,
    version: &str,
    base_url: &str,
    bearer: bool,
) -> AgentCard
where
    IN: AgentInput + JsonSchema,
    OUT: AgentOutput,
{
    let schema = |schema: schemars::Schema| serde_json::to_value(schema).unwrap_or(Value::Null);
    let modes = vec!["text/plain".to_string(), "application/json".to_string()];
    let skills = agent
        .skill_descriptions()
        .into_iter()
        .map(|(name, about)| AgentSkill {
            id: name.to_string(),
            name: name.to_string(),
            description: if about.is_empty() {
                name.to_string()
            } else {
                about.to_string()
            },
            tags: vec![agent.name().to_string()],
            examples: None,
            input_modes: None,
            output_modes: None,
            security_requirements: None,
        })
        .collect();
    let base = base_url.trim_end_matches('/');
    AgentCard {
        name: agent.name().to_string(),
        description: description.to_string(),
        version: version.to_string(),
        supported_interfaces: vec![
            AgentInterface::new(base, TRANSPORT_PROTOCOL_JSONRPC),
            AgentInterface::new(format!("{base}{REST_PATH}"), TRANSPORT_PROTOCOL_HTTP_JSON),
        ],
        capabilities: capabilities(
            schema(schemars::schema_for!(IN)),
            schema(schemars::schema_for!(OUT)),
        ),
        default_input_modes: modes.clone(),
        default_output_modes: modes,
        skills,
        provider: None,
        documentation_url: None,
        icon_url: None,
        security_schemes: bearer.then(|| {
            let scheme = HttpAuthSecurityScheme {
                scheme: "Bearer".to_string(),
                description: Some(
                    "the server's authenticator reads the Authorization header".to_string(),
                ),
                bearer_format: None,
            };
            HashMap::from([(BEARER.to_string(), SecurityScheme::HttpAuth(scheme))])
        }),
        security_requirements: bearer
            .then(|| vec![HashMap::from([(BEARER.to_string(), Vec::new())])]),
        signatures: None,
    }
}
