//! Endpoint agents independent of transport: what the user configures ([`EndpointConfig`]),
//! the connected [`Client`] that builds each turn's [`Exchange`], and the rule that turns a
//! failed call into the runner's error and, for run-wide errors, a cancel.

use serde::{Deserialize, Serialize};

use super::a2a::{A2aConfig, A2aSession};
use super::http::{CallError, Exchange, Scope, scrub};
use super::openai::OpenAiConfig;
use super::{AgentError, AgentInfo, AgentReply, Message};
use crate::conversation::transcript;
use crate::run::Cancel;

/// An endpoint as the user configures it (CLI flags, the web app's Endpoint form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "protocol", rename_all = "snake_case")]
pub enum EndpointConfig {
    Openai(OpenAiConfig),
    A2a(A2aConfig),
}

/// A ready endpoint: OpenAI needs nothing more; A2A has read its agent card.
#[derive(Debug, Clone, PartialEq)]
pub enum Client {
    OpenAi(OpenAiConfig),
    A2a(A2aSession),
}

/// One turn's exchange, whatever the protocol.
pub type TurnExchange = Box<dyn Exchange<Output = AgentReply> + Send>;

impl Client {
    pub fn info(&self) -> AgentInfo {
        match self {
            Client::OpenAi(c) => c.info(),
            Client::A2a(s) => s.info(),
        }
    }

    /// The key or token sent to the endpoint, to scrub from messages.
    pub fn secret(&self) -> Option<&str> {
        match self {
            Client::OpenAi(c) => c.api_key.as_deref(),
            Client::A2a(s) => s.config.bearer.as_deref(),
        }
    }

    /// The exchange of one turn: chat endpoints get the message list, A2A agents the
    /// transcript in one text part. `message_id` must be unique per call (A2A).
    pub fn exchange(&self, messages: &[Message], message_id: &str) -> TurnExchange {
        match self {
            Client::OpenAi(c) => Box::new(c.exchange(messages)),
            Client::A2a(s) => Box::new(s.exchange(&transcript(messages), message_id)),
        }
    }

    /// Applies the failure rule to a failed call: run-wide errors cancel the run; the key is
    /// scrubbed from the message.
    pub fn failure(&self, error: CallError, cancel: &Cancel) -> AgentError {
        let error = CallError { message: scrub(&error.message, self.secret()), ..error };
        if error.scope == Scope::Run {
            cancel.cancel(error.message.clone());
        }
        error.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_errors_cancel_the_run_and_keys_are_scrubbed() {
        let mut c = OpenAiConfig::new("http://h/v1", "m");
        c.api_key = Some("sk-live-1".into());
        let client = Client::OpenAi(c);
        let cancel = Cancel::new();
        let e = client.failure(CallError::new(Scope::Turn, "echo sk-live-1"), &cancel);
        assert_eq!((e.message.as_str(), e.fatal, cancel.is_cancelled()), ("echo [redacted]", false, false));
        let e = client.failure(CallError::new(Scope::Run, "HTTP 401"), &cancel);
        assert!(e.fatal);
        assert_eq!(cancel.reason().as_deref(), Some("HTTP 401"));
    }

    #[test]
    fn configs_round_trip_without_secrets() {
        let mut a = A2aConfig::new("http://h:9");
        a.bearer = Some("tok".into());
        let json = serde_json::to_string(&EndpointConfig::A2a(a)).unwrap();
        assert!(json.starts_with(r#"{"protocol":"a2a","url":"http://h:9""#), "{json}");
        assert!(!json.contains("tok"));
        let back: EndpointConfig = serde_json::from_str(&json).unwrap();
        assert!(matches!(back, EndpointConfig::A2a(c) if c.bearer.is_none()));
    }

    #[test]
    fn a2a_turns_carry_the_transcript() {
        let card = serde_json::json!({"name": "p", "url": "http://h/"});
        let session =
            A2aSession::from_card(&A2aConfig::new("http://h"), "http://h/.well-known/agent-card.json", &card);
        let client = Client::A2a(session.unwrap());
        let messages = [Message::user("prompt"), Message::assistant("a"), Message::user("obs")];
        let body = client.exchange(&messages, "id-1").start().body.unwrap();
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["params"]["message"]["parts"][0]["text"], transcript(&messages));
    }
}
