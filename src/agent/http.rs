//! HTTP exchanges as state machines without I/O.
//!
//! An agent call is one or more HTTP requests: the chat request and its retries, or an A2A
//! `message/send` followed by `tasks/get` polls. The protocol modules ([`super::openai`],
//! [`super::a2a`]) describe a call as an [`Exchange`]: which request to send, and what to do
//! with the response or the transport failure (retry after a delay, poll, or finish). Two
//! transports drive exchanges: the CLI's blocking `ureq` client ([`super::native`]) and the
//! browser's `fetch` (`web::endpoint`). So every retry, classification and parsing rule lives
//! here once and is the same natively and in the browser.

use std::fmt;

use super::AgentError;

/// HTTP method of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// One request for a transport to send.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    /// Header names in lower case. May hold a bearer key: never log a request with `{:?}`
    /// expecting to see it (the `Debug` impl redacts it).
    pub headers: Vec<(String, String)>,
    /// A JSON body, sent as is (the exact bytes are part of the determinism contract).
    pub body: Option<String>,
    /// The transport gives up on this request after this long and reports
    /// [`TransportError::Timeout`].
    pub timeout_ms: u64,
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), if k == "authorization" { "[redacted]" } else { v.as_str() }))
            .collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &redact_url(&self.url))
            .field("headers", &headers)
            .field("body_bytes", &self.body.as_ref().map(String::len))
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

/// What came back from the server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    /// The `Retry-After` header, if any.
    pub retry_after: Option<String>,
    /// The `Location` header of a redirect, if any.
    pub location: Option<String>,
    pub body: String,
}

/// A request that got no HTTP response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// No complete answer within the request's timeout.
    Timeout,
    /// No connection could be made: refused, unknown host, no route; in a browser, `fetch`'s
    /// network failure (which also covers a CORS refusal). Retried once only: an endpoint
    /// that is not there now will not be there in a few seconds either.
    Unreachable(String),
    /// Any other failure without a response: TLS, a reset mid-answer, …
    Network(String),
    /// The user (or a run-wide error) cancelled the run.
    Cancelled,
}

/// What the transport does next.
#[derive(Debug)]
pub enum Step<T> {
    /// Waits `delay_ms`, then sends `request`. `retry` is true when the previous attempt
    /// failed, so the latency measurement restarts with this attempt.
    Send {
        request: HttpRequest,
        delay_ms: u64,
        retry: bool,
    },
    Done(Result<T, CallError>),
}

/// One agent call (or agent-card fetch) as a sequence of requests.
pub trait Exchange {
    type Output;
    /// The first request.
    fn start(&mut self) -> HttpRequest;
    /// Handles the response to the last request sent.
    fn on_response(&mut self, response: HttpResponse) -> Step<Self::Output>;
    /// Handles a request that got no response.
    fn on_failure(&mut self, error: TransportError) -> Step<Self::Output>;
}

/// How far a failed call's consequences reach; this is the runner's stated rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// This call failed (timeout, network, 5xx after retries, bad body): a failed turn; the
    /// runner stops the episode after three in a row.
    Turn,
    /// This episode cannot go on (the request itself is rejected, e.g. context too long).
    Episode,
    /// The endpoint or key is wrong (HTTP 401/403/404, redirect): every episode would fail
    /// the same way, so the whole run stops.
    Run,
    /// The run was cancelled.
    Cancelled,
}

/// A failed agent call with a message meant for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    pub message: String,
    pub scope: Scope,
}

impl CallError {
    pub fn new(scope: Scope, message: impl Into<String>) -> Self {
        CallError { message: message.into(), scope }
    }

    /// The error of a call made after the run was cancelled.
    pub fn cancelled(reason: Option<&str>) -> Self {
        let message = match reason {
            Some(r) => format!("cancelled: {r}"),
            None => "cancelled".to_string(),
        };
        CallError::new(Scope::Cancelled, message)
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<CallError> for AgentError {
    fn from(e: CallError) -> Self {
        match e.scope {
            Scope::Turn => AgentError::retryable(e.message),
            Scope::Episode | Scope::Run | Scope::Cancelled => AgentError::fatal(e.message),
        }
    }
}

/// A URL safe to show and store: no user info, query or fragment (where keys hide).
pub fn redact_url(url: &str) -> String {
    let cut = url.find(['?', '#']).unwrap_or(url.len());
    let url = &url[..cut];
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host_end = rest.find('/').unwrap_or(rest.len());
            let host = &rest[..host_end];
            let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
            format!("{scheme}://{host}{}", &rest[host_end..])
        }
        None => url.to_string(),
    }
}

/// Replaces every occurrence of `secret` in `text` (servers sometimes echo the key).
pub fn scrub(text: &str, secret: Option<&str>) -> String {
    match secret {
        Some(s) if s.len() >= 4 => text.replace(s, "[redacted]"),
        _ => text.to_string(),
    }
}

/// The first `max` characters of a body on one line, for error messages.
pub fn snippet(body: &str, max: usize) -> String {
    let one_line: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

/// The human message of an error body: OpenAI's `{"error": {"message"}}`, Ollama and LM
/// Studio's `{"error": "…"}`, vLLM's `{"message"}`, FastAPI's `{"detail"}`, else a snippet.
pub fn server_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let candidates =
            [&v["error"]["message"], &v["error"], &v["message"], &v["detail"], &v["error"]["detail"]];
        if let Some(s) = candidates.iter().find_map(|c| c.as_str()).filter(|s| !s.trim().is_empty()) {
            return snippet(s, 300);
        }
    }
    let s = snippet(body, 200);
    if s.is_empty() { "(empty body)".to_string() } else { s }
}

/// The standard reason phrase of common statuses, for messages.
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        410 => "Gone",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        425 => "Too Early",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_credentials_and_queries() {
        assert_eq!(redact_url("https://u:sk-1@h.example:8080/v1?key=sk-1#x"), "https://h.example:8080/v1");
        assert_eq!(redact_url("http://127.0.0.1:1234/v1"), "http://127.0.0.1:1234/v1");
        assert_eq!(redact_url("h/x?k"), "h/x");
    }

    #[test]
    fn debug_hides_the_key() {
        let req = HttpRequest {
            method: Method::Post,
            url: "https://h/v1/chat/completions?api-key=sk-secret".into(),
            headers: vec![("authorization".into(), "Bearer sk-secret".into())],
            body: Some("{}".into()),
            timeout_ms: 1,
        };
        let shown = format!("{req:?}");
        assert!(!shown.contains("sk-secret"), "{shown}");
        assert!(shown.contains("[redacted]"));
    }

    #[test]
    fn server_messages_from_each_dialect() {
        assert_eq!(server_message(r#"{"error":{"message":"bad key","type":"x"}}"#), "bad key");
        assert_eq!(server_message(r#"{"error":"model not found"}"#), "model not found");
        assert_eq!(server_message(r#"{"object":"error","message":"too long"}"#), "too long");
        assert_eq!(server_message(r#"{"detail":"nope"}"#), "nope");
        assert_eq!(server_message("<html>\n  <b>502</b></html>"), "<html> <b>502</b></html>");
        assert_eq!(server_message(""), "(empty body)");
        assert_eq!(snippet(&"é".repeat(10), 3), "ééé…");
    }

    #[test]
    fn scrub_replaces_the_secret() {
        assert_eq!(scrub("bad key sk-abcd!", Some("sk-abcd")), "bad key [redacted]!");
        assert_eq!(scrub("x", None), "x");
    }

    #[test]
    fn scopes_map_to_agent_errors() {
        assert!(!AgentError::from(CallError::new(Scope::Turn, "t")).fatal);
        assert!(AgentError::from(CallError::new(Scope::Episode, "e")).fatal);
        assert!(AgentError::from(CallError::cancelled(Some("Ctrl-C"))).fatal);
        assert_eq!(CallError::cancelled(Some("Ctrl-C")).message, "cancelled: Ctrl-C");
    }
}
