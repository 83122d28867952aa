//! A skill the model chooses: one short structured call that names a skill from the skills'
//! names and descriptions. The call is a model turn like any other — the turn's interceptors and
//! gates judge it and it counts toward `max_turns` — and the name it gives is what the skill
//! chain then sees (the seed runs `onBeforeSkill` after resolution), free to reroute or deny.

use serde_json::{Value, json};

use super::run::{Run, Turn};
use super::{Agent, AgentInput, AgentOutput};
use crate::{AgentError, ChatRequest, Message};

/// What the model's choice came to.
pub(crate) enum Chosen<OUT> {
    /// The skill named.
    Skill(String),
    /// A turn interceptor substituted the run's output: no skill runs.
    Output(OUT),
}

impl<IN: AgentInput, OUT: AgentOutput> Agent<IN, OUT> {
    /// Ask the model which skill fits `input`; a name that fits no skill is sent back once with
    /// the list, then is [`AgentError::SkillChoice`].
    pub(crate) async fn model_choice(
        &self,
        input: &str,
        run: &Run<OUT>,
    ) -> Result<Chosen<OUT>, AgentError> {
        let skills = &self.inner.skills;
        let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
        let listing: String = skills
            .iter()
            .map(|skill| match skill.description.as_str() {
                "" => format!("- {}\n", skill.name),
                description => format!("- {}: {description}\n", skill.name),
            })
            .collect();
        let prompt = format!(
            "Choose the one skill that should handle the user's request. The skills:\n{listing}\
             Answer with JSON only: {{\"skill\": \"<name>\"}}."
        );
        let mut request = ChatRequest {
            messages: vec![Message::system(prompt), Message::user(input)],
            tools: Vec::new(),
            response_format: Some(json!({
                "type": "object",
                "properties": { "skill": { "type": "string", "enum": names } },
                "required": ["skill"],
                "additionalProperties": false,
            })),
        };
        let available = names.join(", ");
        let mut asked_again = false;
        loop {
            let answer = match run.turn(&mut request).await? {
                Turn::Substituted(output) => return Ok(Chosen::Output(output)),
                Turn::Answered(response) => response.content,
            };
            let reason = match chosen_name(&answer) {
                Some(name) if names.contains(&name.as_str()) => return Ok(Chosen::Skill(name)),
                Some(name) => format!("'{name}' is not one of its skills"),
                None => format!("'{}' names no skill", shortened(&answer)),
            };
            if asked_again {
                return Err(AgentError::SkillChoice { reason, available });
            }
            asked_again = true;
            tracing::warn!(%reason, "the model's skill choice fits no skill; asking once more");
            request
                .messages
                .push(Message::assistant(answer, Vec::new()));
            request.messages.push(Message::user(format!(
                "{reason}. Choose one of: {available}. Answer with JSON only: {{\"skill\": \"<name>\"}}."
            )));
        }
    }
}

/// The name in a choice: `{"skill": "x"}`, or a bare name (a model that ignored the format).
fn chosen_name(answer: &str) -> Option<String> {
    let answer = answer.trim();
    match serde_json::from_str::<Value>(answer) {
        Ok(Value::Object(fields)) => fields
            .get("skill")?
            .as_str()
            .map(|name| name.trim().to_string()),
        Ok(Value::String(name)) => Some(name.trim().to_string()),
        _ if !answer.is_empty() && !answer.contains(char::is_whitespace) => {
            Some(answer.to_string())
        }
        _ => None,
    }
}

/// At most 80 characters of an answer, for an error.
fn shortened(answer: &str) -> String {
    let mut short: String = answer.chars().take(80).collect();
    if short.len() < answer.len() {
        short.push('…');
    }
    short
}

#[cfg(test)]
mod tests {
    use super::chosen_name;

    #[test]
    fn a_choice_is_read_from_json_or_a_bare_name() {
        assert_eq!(
            chosen_name(r#"{"skill": "refunds"}"#).as_deref(),
            Some("refunds")
        );
        assert_eq!(chosen_name(r#""refunds""#).as_deref(), Some("refunds"));
        assert_eq!(chosen_name(" refunds\n").as_deref(), Some("refunds"));
        assert_eq!(chosen_name("I think refunds"), None);
        assert_eq!(chosen_name(r#"{"other": 1}"#), None);
    }
}
