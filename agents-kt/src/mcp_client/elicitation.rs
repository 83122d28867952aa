//! A server asking a person for input in the middle of a tool call (`elicitation/create`, form
//! mode): answered by the application's handler, or put to an [`ApprovalDesk`] so a person
//! answers from its inbox. Without either, the client does not offer elicitation and servers
//! must not ask. An accepted answer is checked against the schema the server asked with before
//! it is sent: a person's typo is an error the server sees, never data it did not ask for.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures::FutureExt;
use futures::future::BoxFuture;
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Map, Value};

use crate::{ApprovalAnswer, ApprovalDesk, ApprovalRequest};

/// What a server asks a person (form mode): read by an
/// [`on_elicitation`](crate::McpHttp::on_elicitation) handler.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Elicitation {
    /// The server asking (its URL or command line).
    pub server: String,
    /// What it asks, for a person to read.
    pub message: String,
    /// The JSON Schema of the answer: an object of strings, numbers, integers, booleans and
    /// enums, each possibly with a `default`.
    pub schema: Value,
}

impl Elicitation {
    /// The answer made of the schema's defaults (properties without one left out).
    ///
    /// ```
    /// # use agents_kt::mcp::Elicitation;
    /// # fn check(asked: &Elicitation) {
    /// let accept_as_proposed = agents_kt::mcp::ElicitationAnswer::accept(asked.defaults());
    /// # let _ = accept_as_proposed; }
    /// ```
    pub fn defaults(&self) -> Value {
        let defaults = self.schema["properties"]
            .as_object()
            .map(|properties| {
                properties
                    .iter()
                    .filter_map(|(name, property)| {
                        property
                            .get("default")
                            .map(|value| (name.clone(), value.clone()))
                    })
                    .collect::<Map<_, _>>()
            })
            .unwrap_or_default();
        Value::Object(defaults)
    }
}

/// How a person answered an [`Elicitation`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationAnswer {
    /// They gave this content (a JSON object fitting the schema).
    Accept(Value),
    /// They said no.
    Decline,
    /// They dismissed the question without choosing.
    Cancel,
}

impl ElicitationAnswer {
    /// Accept with `content`.
    pub fn accept(content: Value) -> Self {
        ElicitationAnswer::Accept(content)
    }
}

/// The application's answerer.
#[derive(Clone)]
pub(crate) struct Elicit(
    Arc<dyn Fn(Elicitation) -> BoxFuture<'static, ElicitationAnswer> + Send + Sync>,
);

impl std::fmt::Debug for Elicit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Elicit(..)")
    }
}

impl Elicit {
    pub(crate) fn handler<F, Fut>(handler: F) -> Self
    where
        F: Fn(Elicitation) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ElicitationAnswer> + Send + 'static,
    {
        Elicit(Arc::new(move |asked| handler(asked).boxed()))
    }

    /// Every question put to `desk` as an approval of the tool `mcp_elicitation` whose
    /// arguments are `{server, message, schema, content}` (`content`: the schema's defaults).
    /// Approve accepts `content` as shown, an edit accepts its `content`, a denial declines.
    pub(crate) fn desk(desk: ApprovalDesk) -> Self {
        let asked = Arc::new(AtomicU64::new(0));
        Elicit::handler(move |question: Elicitation| {
            let desk = desk.clone();
            let number = asked.fetch_add(1, Ordering::Relaxed) + 1;
            async move {
                let args = serde_json::json!({
                    "server": question.server,
                    "message": question.message,
                    "schema": question.schema,
                    "content": question.defaults(),
                });
                let request = ApprovalRequest::for_elicitation(number, args.clone());
                let answer = desk.ask(request).await;
                match serde_json::from_value::<ApprovalAnswer>(answer) {
                    Ok(ApprovalAnswer::Approve { .. }) => {
                        ElicitationAnswer::Accept(args["content"].clone())
                    }
                    Ok(ApprovalAnswer::Edit { args, .. }) => {
                        ElicitationAnswer::Accept(args.get("content").cloned().unwrap_or(args))
                    }
                    _ => ElicitationAnswer::Decline,
                }
            }
        })
    }

    /// Answers `request` from `server`: a form question goes to the answerer and its content
    /// is checked; a URL-mode one (not offered) is declined.
    pub(crate) async fn answer(
        &self,
        server: &str,
        request: ElicitRequestParams,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
        let question = Elicitation {
            server: server.to_string(),
            message,
            schema: schema.clone(),
        };
        Ok(match (self.0)(question).await {
            ElicitationAnswer::Accept(content) => {
                fits(&content, &schema).map_err(|reason| {
                    rmcp::ErrorData::invalid_params(
                        format!("the answer does not fit the requested schema: {reason}"),
                        None,
                    )
                })?;
                ElicitResult::new(ElicitationAction::Accept).with_content(content)
            }
            ElicitationAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitationAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        })
    }
}

/// Whether `content` is an object whose every field the schema names, with the property's type
/// (and one of its `enum` or `oneOf` values), and with every required field present.
fn fits(content: &Value, schema: &Value) -> Result<(), String> {
    let Some(fields) = content.as_object() else {
        return Err(format!("expected an object, got {content}"));
    };
    let properties = schema["properties"].as_object();
    for (name, value) in fields {
        let Some(property) = properties.and_then(|properties| properties.get(name)) else {
            return Err(format!("`{name}` was not asked for"));
        };
        let typed = match property["type"].as_str() {
            Some("string") => value.is_string(),
            Some("number") => value.is_number(),
            Some("integer") => value.is_i64() || value.is_u64(),
            Some("boolean") => value.is_boolean(),
            Some("array") => value.is_array(),
            _ => true,
        };
        if !typed {
            return Err(format!("`{name}` must be a {}", property["type"]));
        }
        if let Some(choices) = property["enum"].as_array()
            && !choices.contains(value)
        {
            return Err(format!(
                "`{name}` must be one of {}",
                Value::Array(choices.clone())
            ));
        }
    }
    for required in schema["required"].as_array().into_iter().flatten() {
        if let Some(name) = required.as_str()
            && !fields.contains_key(name)
        {
            return Err(format!("`{name}` is required"));
        }
    }
    Ok(())
}
