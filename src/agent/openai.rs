//! The OpenAI-compatible chat-completions protocol: `POST {base}/chat/completions`.
//!
//! Works with OpenAI, vLLM, Ollama, LM Studio and llama.cpp's server, which all accept the
//! same request and answer `choices[0].message.content` (plus `usage` token counts when they
//! count). Pure: the request bytes are built here, identically natively and in the browser.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::http::{
    CallError, Exchange, HttpRequest, HttpResponse, Method, Scope, Step, TransportError, redact_url, snippet,
};
use super::retry::{Retries, RetryPolicy};
use super::{AgentInfo, AgentReply, Message, Tokens};

/// Default wait for one chat completion: long answers from local models take minutes.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// Settings of an OpenAI-compatible endpoint. The key is never serialised or shown.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenAiConfig {
    /// The API base, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    pub model: String,
    #[serde(skip)]
    pub api_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    pub timeout_ms: u64,
    pub retry: RetryPolicy,
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &redact_url(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("timeout_ms", &self.timeout_ms)
            .field("retry", &self.retry)
            .finish()
    }
}

/// The request body, with fields in a fixed order.
#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: &'a [Message],
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
}

impl OpenAiConfig {
    /// A config with default timeout and retries and no sampling settings.
    pub fn new(base_url: &str, model: &str) -> Self {
        OpenAiConfig {
            base_url: base_url.to_string(),
            model: model.to_string(),
            api_key: None,
            temperature: None,
            max_tokens: None,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            retry: RetryPolicy::default(),
        }
    }

    /// `{base}/chat/completions`; a base that already ends with it is taken as is.
    pub fn chat_url(&self) -> String {
        let base = self.base_url.trim().trim_end_matches('/');
        let base = base.strip_suffix("/chat/completions").unwrap_or(base);
        format!("{base}/chat/completions")
    }

    /// The exact request body for a conversation.
    pub fn body(&self, messages: &[Message]) -> String {
        let request = ChatRequest {
            model: &self.model,
            messages,
            temperature: self.temperature,
            max_tokens: self.max_tokens,
        };
        serde_json::to_string(&request).expect("chat requests serialise")
    }

    pub fn request(&self, messages: &[Message]) -> HttpRequest {
        let mut headers = vec![
            ("content-type".to_string(), "application/json".to_string()),
            ("accept".to_string(), "application/json".to_string()),
        ];
        if let Some(key) = self.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
            headers.push(("authorization".to_string(), format!("Bearer {key}")));
        }
        HttpRequest {
            method: Method::Post,
            url: self.chat_url(),
            headers,
            body: Some(self.body(messages)),
            timeout_ms: self.timeout_ms,
        }
    }

    /// The description stored in results: model, endpoint without credentials, settings.
    pub fn info(&self) -> AgentInfo {
        let mut settings = serde_json::Map::new();
        if let Some(t) = self.temperature {
            settings.insert("temperature".into(), Value::from(t));
        }
        if let Some(m) = self.max_tokens {
            settings.insert("max_tokens".into(), Value::from(m));
        }
        AgentInfo {
            kind: "openai".into(),
            name: self.model.clone(),
            model: Some(self.model.clone()),
            endpoint: Some(redact_url(self.base_url.trim())),
            settings: if settings.is_empty() { Value::Null } else { Value::Object(settings) },
        }
    }

    /// One chat call with this conversation.
    pub fn exchange(&self, messages: &[Message]) -> ChatExchange {
        ChatExchange { request: self.request(messages), retries: Retries::new(self.retry) }
    }
}

/// Parses a 2xx chat-completions body into the reply text and token counts.
///
/// `content` may be a string, an array of text parts, or null with a `refusal` string (the
/// refusal becomes the reply, so the episode records it and answers with its parse error).
/// An empty reply is not an error here: the episode sees it like any unparseable reply.
pub fn parse_response(body: &str) -> Result<AgentReply, CallError> {
    let turn = |m: String| CallError::new(Scope::Turn, m);
    let v: Value = serde_json::from_str(body).map_err(|_| {
        turn(format!(
            "the endpoint answered with a body that is not JSON ({}); is the base URL right (it usually ends in /v1)?",
            if body.trim().is_empty() { "empty".to_string() } else { format!("starts {:?}", snippet(body, 60)) }
        ))
    })?;
    if !v["error"].is_null() {
        return Err(turn(format!(
            "the endpoint answered with an error: {}",
            super::http::server_message(body)
        )));
    }
    let message = v["choices"]
        .get(0)
        .map(|c| &c["message"])
        .filter(|m| m.is_object())
        .ok_or_else(|| turn("the response has no choices[0].message".to_string()))?;
    let text = match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(""),
        _ => message["refusal"].as_str().unwrap_or_default().to_string(),
    };
    Ok(AgentReply { text, latency_ms: None, tokens: usage(&v["usage"]) })
}

/// Token counts from `usage`, when the endpoint reports them.
fn usage(u: &Value) -> Option<Tokens> {
    let prompt = u["prompt_tokens"].as_u64();
    let completion = u["completion_tokens"].as_u64();
    (prompt.is_some() || completion.is_some())
        .then(|| Tokens { prompt: prompt.unwrap_or(0), completion: completion.unwrap_or(0) })
}

/// One chat call: the request, retried on 429/5xx and network errors.
#[derive(Debug)]
pub struct ChatExchange {
    request: HttpRequest,
    retries: Retries,
}

impl Exchange for ChatExchange {
    type Output = AgentReply;

    fn start(&mut self) -> HttpRequest {
        self.request.clone()
    }

    fn on_response(&mut self, response: HttpResponse) -> Step<AgentReply> {
        if (200..300).contains(&response.status) {
            Step::Done(parse_response(&response.body))
        } else {
            self.retries.on_error_status(&self.request, &response)
        }
    }

    fn on_failure(&mut self, error: TransportError) -> Step<AgentReply> {
        self.retries.on_failure(&self.request, error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> OpenAiConfig {
        let mut c = OpenAiConfig::new("http://127.0.0.1:11434/v1/", "llama3.2");
        c.temperature = Some(0.0);
        c.max_tokens = Some(512);
        c
    }

    #[test]
    fn request_bytes_are_fixed() {
        let c = config();
        let body = c.body(&[Message::user("fix \"r0\"\n"), Message::assistant("ok")]);
        assert_eq!(
            body,
            r#"{"model":"llama3.2","messages":[{"role":"user","content":"fix \"r0\"\n"},{"role":"assistant","content":"ok"}],"temperature":0.0,"max_tokens":512}"#
        );
        let req = c.request(&[]);
        assert_eq!(req.url, "http://127.0.0.1:11434/v1/chat/completions");
        assert!(req.headers.iter().all(|(k, _)| k != "authorization"));
        let bare = OpenAiConfig::new("https://x/v1/chat/completions", "m");
        assert_eq!(bare.body(&[]), r#"{"model":"m","messages":[]}"#);
        assert_eq!(bare.chat_url(), "https://x/v1/chat/completions");
    }

    #[test]
    fn key_goes_only_into_the_header() {
        let mut c = config();
        c.api_key = Some(" sk-test-123 ".into());
        let req = c.request(&[Message::user("hi")]);
        assert!(req.headers.contains(&("authorization".into(), "Bearer sk-test-123".into())));
        for shown in
            [serde_json::to_string(&c).unwrap(), format!("{c:?}"), serde_json::to_string(&c.info()).unwrap()]
        {
            assert!(!shown.contains("sk-test"), "{shown}");
        }
        let back: OpenAiConfig = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(back.api_key, None);
    }

    #[test]
    fn info_has_no_secrets() {
        let c = OpenAiConfig::new("https://user:pw@h/v1?key=k", "gpt");
        let info = c.info();
        assert_eq!(info.endpoint.as_deref(), Some("https://h/v1"));
        assert_eq!(info.label(), "openai:gpt");
        assert_eq!(config().info().settings, serde_json::json!({"temperature": 0.0, "max_tokens": 512}));
    }

    #[test]
    fn parses_content_usage_parts_and_refusals() {
        let r = parse_response(
            r#"{"choices":[{"message":{"role":"assistant","content":"ip route"},"finish_reason":"stop"}],
                "usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#,
        )
        .unwrap();
        assert_eq!((r.text.as_str(), r.tokens), ("ip route", Some(Tokens { prompt: 12, completion: 3 })));
        let r = parse_response(r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#)
            .unwrap();
        assert_eq!((r.text.as_str(), r.tokens), ("ab", None));
        let r = parse_response(r#"{"choices":[{"message":{"content":null,"refusal":"I can't help."}}]}"#)
            .unwrap();
        assert_eq!(r.text, "I can't help.");
        let r =
            parse_response(r#"{"choices":[{"message":{"content":""},"finish_reason":"length"}]}"#).unwrap();
        assert_eq!(r.text, "");
    }

    #[test]
    fn malformed_bodies_fail_the_turn_clearly() {
        let msg = |b: &str| parse_response(b).unwrap_err().message;
        assert!(msg("<!DOCTYPE html><p>hi").contains(r#"not JSON (starts "<!DOCTYPE html><p>hi")"#));
        assert!(msg("").contains("not JSON (empty)"));
        assert_eq!(msg(r#"{"choices":[]}"#), "the response has no choices[0].message");
        assert_eq!(msg(r#"{"error":{"message":"quota"}}"#), "the endpoint answered with an error: quota");
        assert_eq!(parse_response("[1]").unwrap_err().scope, Scope::Turn);
    }

    #[test]
    fn exchange_retries_then_succeeds() {
        let mut c = config();
        c.retry = RetryPolicy { retries: 1, base_ms: 7, max_ms: 7 };
        let mut ex = c.exchange(&[Message::user("p")]);
        let first = ex.start();
        let step = ex.on_response(HttpResponse { status: 502, ..Default::default() });
        match step {
            Step::Send { request, delay_ms: 7, retry: true } => assert_eq!(request, first),
            other => panic!("{other:?}"),
        }
        let ok = r#"{"choices":[{"message":{"content":"x"}}]}"#;
        match ex.on_response(HttpResponse { status: 200, body: ok.into(), ..Default::default() }) {
            Step::Done(Ok(r)) => assert_eq!(r.text, "x"),
            other => panic!("{other:?}"),
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn parse_never_panics(body in ".{0,200}") {
            let _ = super::parse_response(&body);
        }

        #[test]
        fn parse_never_panics_on_json_shapes(content in prop_oneof![
            Just("null".to_string()), Just("1".to_string()), Just("[1,{}]".to_string()),
            ".{0,20}".prop_map(|s| serde_json::to_string(&s).unwrap())
        ], usage in prop_oneof![Just("null"), Just("{\"prompt_tokens\":-1}"), Just("{\"completion_tokens\":2}")]) {
            let body = format!(r#"{{"choices":[{{"message":{{"content":{content}}}}}],"usage":{usage}}}"#);
            let _ = super::parse_response(&body);
        }
    }
}
