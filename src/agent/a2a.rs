//! The A2A 0.3 client protocol, as NetArena's purple agents expect it.
//!
//! Connecting fetches the agent card (`/.well-known/agent-card.json`, falling back to the
//! 0.2 name `agent.json`) and takes its JSON-RPC URL. Each turn is one `message/send` with one
//! text part holding the whole transcript and no context id (every turn stands alone, as in
//! NetArena). The reply is read like NetArena's client does: a `Message` result's parts, or
//! a `Task`'s last artifact with text, else its status message, else the last agent message
//! of its history. A task still `submitted`/`working` is polled with `tasks/get`. Pure: the
//! transports in `native` and `web::endpoint` send what this module builds.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::http::{
    CallError, Exchange, HttpRequest, HttpResponse, Method, Scope, Step, TransportError, redact_url, snippet,
};
use super::retry::{Retries, RetryPolicy, seconds};
use super::{AgentInfo, AgentReply};

/// Where A2A 0.3 agents publish their card.
pub const CARD_PATH: &str = "/.well-known/agent-card.json";
/// Where A2A 0.2 agents published it.
pub const LEGACY_CARD_PATH: &str = "/.well-known/agent.json";
/// Default wait for one turn (NetArena's client waits 60 s; agents that think need more).
pub const DEFAULT_TIMEOUT_MS: u64 = 300_000;
/// Default interval between `tasks/get` polls of an unfinished task.
pub const DEFAULT_POLL_MS: u64 = 1000;

/// What the user configures: the agent's base URL (or its card's URL).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct A2aConfig {
    pub url: String,
    /// Sent as `Authorization: Bearer …` when set; never serialised.
    #[serde(skip)]
    pub bearer: Option<String>,
    pub timeout_ms: u64,
    pub retry: RetryPolicy,
    pub poll_ms: u64,
}

impl std::fmt::Debug for A2aConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2aConfig")
            .field("url", &redact_url(&self.url))
            .field("bearer", &self.bearer.as_ref().map(|_| "[redacted]"))
            .field("timeout_ms", &self.timeout_ms)
            .finish_non_exhaustive()
    }
}

impl A2aConfig {
    pub fn new(url: &str) -> Self {
        A2aConfig {
            url: url.to_string(),
            bearer: None,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            retry: RetryPolicy::default(),
            poll_ms: DEFAULT_POLL_MS,
        }
    }

    /// The card URLs to try in order.
    pub fn card_urls(&self) -> Vec<String> {
        let url = self.url.trim();
        if url.ends_with(".json") {
            return vec![url.to_string()];
        }
        let base = url.trim_end_matches('/');
        vec![format!("{base}{CARD_PATH}"), format!("{base}{LEGACY_CARD_PATH}")]
    }

    /// Fetches the card and yields a session.
    pub fn card_exchange(&self) -> CardExchange {
        CardExchange {
            config: self.clone(),
            urls: self.card_urls(),
            next: 0,
            retries: Retries::new(self.retry),
        }
    }

    fn headers(&self, post: bool) -> Vec<(String, String)> {
        let mut headers = vec![("accept".to_string(), "application/json".to_string())];
        if post {
            headers.push(("content-type".to_string(), "application/json".to_string()));
        }
        if let Some(token) = self.bearer.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            headers.push(("authorization".to_string(), format!("Bearer {token}")));
        }
        headers
    }
}

/// A connected agent: its JSON-RPC URL and what its card says.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct A2aSession {
    pub config: A2aConfig,
    pub card_url: String,
    pub rpc_url: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
}

impl std::fmt::Debug for A2aSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2aSession")
            .field("config", &self.config)
            .field("rpc_url", &redact_url(&self.rpc_url))
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl A2aSession {
    /// Reads an agent card fetched from `card_url`.
    pub fn from_card(config: &A2aConfig, card_url: &str, card: &Value) -> Result<Self, CallError> {
        let run = |m: String| CallError::new(Scope::Run, m);
        if !card.is_object() {
            return Err(run(format!("the agent card at {} is not a JSON object", redact_url(card_url))));
        }
        let preferred = card["preferredTransport"].as_str().unwrap_or("JSONRPC");
        let url = if preferred.eq_ignore_ascii_case("JSONRPC") {
            card["url"].as_str()
        } else {
            let interfaces = card["additionalInterfaces"].as_array().map(Vec::as_slice).unwrap_or_default();
            let jsonrpc = interfaces.iter().find(|i| i["transport"].as_str() == Some("JSONRPC"));
            Some(jsonrpc.and_then(|i| i["url"].as_str()).ok_or_else(|| {
                run(format!(
                    "the agent offers only the {preferred} transport; NetPress speaks A2A over JSON-RPC"
                ))
            })?)
        };
        let base = card_url.find("/.well-known/").map_or(card_url, |i| &card_url[..i]);
        let rpc_url = match url.map(str::trim).filter(|u| !u.is_empty()) {
            Some(u) if u.starts_with("http://") || u.starts_with("https://") => {
                fix_wildcard_host(u, card_url)
            }
            Some(u) => {
                return Err(run(format!("the agent card's url {:?} is not an http(s) URL", snippet(u, 80))));
            }
            None => format!("{base}/"),
        };
        let text = |k: &str| card[k].as_str().map(str::to_string);
        Ok(A2aSession {
            config: config.clone(),
            card_url: card_url.to_string(),
            rpc_url,
            name: text("name").filter(|n| !n.trim().is_empty()).unwrap_or_else(|| "a2a-agent".into()),
            version: text("version"),
            protocol_version: text("protocolVersion"),
        })
    }

    /// The description stored in results.
    pub fn info(&self) -> AgentInfo {
        let mut settings = serde_json::Map::new();
        if let Some(v) = &self.version {
            settings.insert("agent_version".into(), Value::from(v.clone()));
        }
        if let Some(v) = &self.protocol_version {
            settings.insert("protocol_version".into(), Value::from(v.clone()));
        }
        AgentInfo {
            kind: "a2a".into(),
            name: self.name.clone(),
            model: None,
            endpoint: Some(redact_url(&self.rpc_url)),
            settings: if settings.is_empty() { Value::Null } else { Value::Object(settings) },
        }
    }

    /// The `message/send` body: one user message with one text part.
    pub fn send_body(&self, text: &str, message_id: &str) -> String {
        json!({
            "jsonrpc": "2.0",
            "id": message_id,
            "method": "message/send",
            "params": {
                "message": {
                    "kind": "message",
                    "role": "user",
                    "messageId": message_id,
                    "parts": [{"kind": "text", "text": text}],
                },
                "configuration": {"blocking": true},
            },
        })
        .to_string()
    }

    fn post(&self, body: String) -> HttpRequest {
        HttpRequest {
            method: Method::Post,
            url: self.rpc_url.clone(),
            headers: self.config.headers(true),
            body: Some(body),
            timeout_ms: self.config.timeout_ms,
        }
    }

    /// One turn: send `text`, poll until the agent's task ends.
    pub fn exchange(&self, text: &str, message_id: &str) -> SendExchange {
        let send = self.post(self.send_body(text, message_id));
        let polls_left = (self.config.timeout_ms / self.config.poll_ms.max(1)).max(1);
        SendExchange {
            session: self.clone(),
            message_id: message_id.to_string(),
            current: send,
            polls: 0,
            polls_left,
            retries: Retries::new(self.config.retry),
        }
    }
}

/// Agents bound to `0.0.0.0` often advertise it; such a URL means "the host you reached me on".
fn fix_wildcard_host(url: &str, card_url: &str) -> String {
    let host_of = |u: &str| {
        let rest = u.split_once("://").map_or(u, |(_, r)| r);
        rest[..rest.find('/').unwrap_or(rest.len())].to_string()
    };
    let host = host_of(url);
    if host == "0.0.0.0" || host.starts_with("0.0.0.0:") {
        let reached = host_of(card_url);
        let reached_host = reached.rsplit_once(':').map_or(reached.as_str(), |(h, _)| h);
        let port = host.strip_prefix("0.0.0.0").unwrap_or_default();
        return url.replacen(&host, &format!("{reached_host}{port}"), 1);
    }
    url.to_string()
}

/// What a JSON-RPC answer says.
#[derive(Debug, Clone, PartialEq)]
pub enum RpcOutcome {
    /// The agent's reply text.
    Reply(String),
    /// A task that has not finished; poll it by id.
    Pending(String),
    Failed(CallError),
}

/// Reads a `message/send` or `tasks/get` answer.
pub fn interpret(body: &str) -> RpcOutcome {
    let fail = |scope, m: String| RpcOutcome::Failed(CallError::new(scope, m));
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return fail(
            Scope::Turn,
            format!("the agent answered with a body that is not JSON ({:?})", snippet(body, 60)),
        );
    };
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        return rpc_error(err);
    }
    let result = &v["result"];
    if !result.is_object() {
        return fail(Scope::Turn, "the agent's answer has neither a result nor an error".to_string());
    }
    match result["kind"].as_str() {
        Some("message") => RpcOutcome::Reply(parts_text(&result["parts"])),
        Some("task") => task_outcome(result),
        _ if result.get("status").is_some() => task_outcome(result),
        _ if result.get("parts").is_some() => RpcOutcome::Reply(parts_text(&result["parts"])),
        _ => fail(Scope::Turn, "the agent's result is neither a message nor a task".to_string()),
    }
}

fn rpc_error(err: &Value) -> RpcOutcome {
    let code = err["code"].as_i64().unwrap_or(0);
    let message =
        err["message"].as_str().map(|m| snippet(m, 300)).unwrap_or_else(|| snippet(&err.to_string(), 200));
    let scope = match code {
        // Method not found, unsupported operation, content type not supported.
        -32601 | -32004 | -32005 => Scope::Run,
        // Parse error, invalid request, invalid params: this request is the problem.
        -32700 | -32600 | -32602 => Scope::Episode,
        _ => Scope::Turn,
    };
    RpcOutcome::Failed(CallError::new(
        scope,
        format!("the agent answered with JSON-RPC error {code}: {message}"),
    ))
}

fn task_outcome(task: &Value) -> RpcOutcome {
    let state = task["status"]["state"].as_str().unwrap_or("unknown");
    let status_text = parts_text(&task["status"]["message"]["parts"]);
    let because = if status_text.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", snippet(&status_text, 300))
    };
    match state {
        "completed" | "input-required" => RpcOutcome::Reply(task_reply(task)),
        "submitted" | "working" => match task["id"].as_str() {
            Some(id) => RpcOutcome::Pending(id.to_string()),
            None => RpcOutcome::Failed(CallError::new(
                Scope::Turn,
                format!("the agent's task is {state} but has no id"),
            )),
        },
        "rejected" => RpcOutcome::Failed(CallError::new(
            Scope::Episode,
            format!("the agent rejected the task{because}"),
        )),
        "auth-required" => RpcOutcome::Failed(CallError::new(
            Scope::Run,
            format!("the agent requires authentication{because}"),
        )),
        "failed" | "canceled" => RpcOutcome::Failed(CallError::new(
            Scope::Turn,
            format!("the agent's task ended {state}{because}"),
        )),
        other => {
            RpcOutcome::Failed(CallError::new(Scope::Turn, format!("the agent's task is in state {other:?}")))
        }
    }
}

/// A finished task's reply: the last artifact with text, else the status message, else the
/// last agent message of the history.
fn task_reply(task: &Value) -> String {
    let artifacts = task["artifacts"].as_array().map(Vec::as_slice).unwrap_or_default();
    let history = task["history"].as_array().map(Vec::as_slice).unwrap_or_default();
    let from_artifacts = artifacts.iter().rev().map(|a| parts_text(&a["parts"]));
    let from_status = std::iter::once(parts_text(&task["status"]["message"]["parts"]));
    let from_history = history.iter().rev().filter(|m| m["role"] == "agent").map(|m| parts_text(&m["parts"]));
    from_artifacts.chain(from_status).chain(from_history).find(|t| !t.is_empty()).unwrap_or_default()
}

/// Text parts as they are and data parts as indented JSON, joined by newlines.
pub fn parts_text(parts: &Value) -> String {
    let parts = parts.as_array().map(Vec::as_slice).unwrap_or_default();
    let texts: Vec<String> = parts
        .iter()
        .filter_map(|p| match (p["text"].as_str(), p.get("data")) {
            (Some(t), _) => Some(t.to_string()),
            (None, Some(d)) if p["kind"] == "data" || p.get("kind").is_none() => {
                Some(serde_json::to_string_pretty(d).unwrap_or_default())
            }
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// Fetches an agent card, trying each known path.
#[derive(Debug)]
pub struct CardExchange {
    config: A2aConfig,
    urls: Vec<String>,
    next: usize,
    retries: Retries,
}

impl CardExchange {
    fn request(&self) -> HttpRequest {
        HttpRequest {
            method: Method::Get,
            url: self.urls[self.next].clone(),
            headers: self.config.headers(false),
            body: None,
            timeout_ms: self.config.timeout_ms.min(60_000),
        }
    }
}

impl Exchange for CardExchange {
    type Output = A2aSession;

    fn start(&mut self) -> HttpRequest {
        self.request()
    }

    fn on_response(&mut self, response: HttpResponse) -> Step<A2aSession> {
        let url = &self.urls[self.next];
        if response.status == 404 && self.next + 1 < self.urls.len() {
            self.next += 1;
            return Step::Send { request: self.request(), delay_ms: 0, retry: false };
        }
        if !(200..300).contains(&response.status) {
            return match self.retries.on_error_status(&self.request(), &response) {
                Step::Done(Err(e)) => {
                    Step::Done(Err(CallError::new(Scope::Run, format!("no agent card: {}", e.message))))
                }
                other => other,
            };
        }
        Step::Done(match serde_json::from_str::<Value>(&response.body) {
            Ok(card) => A2aSession::from_card(&self.config, url, &card),
            Err(_) => Err(CallError::new(
                Scope::Run,
                format!(
                    "the agent card at {} is not JSON ({:?})",
                    redact_url(url),
                    snippet(&response.body, 60)
                ),
            )),
        })
    }

    fn on_failure(&mut self, error: TransportError) -> Step<A2aSession> {
        match self.retries.on_failure(&self.request(), error) {
            Step::Done(Err(e)) if e.scope == Scope::Turn => {
                Step::Done(Err(CallError::new(Scope::Run, e.message)))
            }
            other => other,
        }
    }
}

/// One turn: `message/send`, then `tasks/get` polls while the task is unfinished.
#[derive(Debug)]
pub struct SendExchange {
    session: A2aSession,
    message_id: String,
    current: HttpRequest,
    polls: u64,
    polls_left: u64,
    retries: Retries,
}

impl SendExchange {
    fn poll(&mut self, task_id: &str) -> Step<AgentReply> {
        if self.polls_left == 0 {
            let waited = seconds(self.session.config.timeout_ms);
            let message = format!("the agent's task {task_id} was still working after {waited} (timeout)");
            return Step::Done(Err(CallError::new(Scope::Turn, message)));
        }
        self.polls_left -= 1;
        self.polls += 1;
        let body = json!({
            "jsonrpc": "2.0",
            "id": format!("{}-poll{}", self.message_id, self.polls),
            "method": "tasks/get",
            "params": {"id": task_id},
        });
        self.current = self.session.post(body.to_string());
        Step::Send { request: self.current.clone(), delay_ms: self.session.config.poll_ms, retry: false }
    }
}

impl Exchange for SendExchange {
    type Output = AgentReply;

    fn start(&mut self) -> HttpRequest {
        self.current.clone()
    }

    fn on_response(&mut self, response: HttpResponse) -> Step<AgentReply> {
        if !(200..300).contains(&response.status) {
            return self.retries.on_error_status(&self.current, &response);
        }
        match interpret(&response.body) {
            RpcOutcome::Reply(text) => Step::Done(Ok(AgentReply { text, latency_ms: None, tokens: None })),
            RpcOutcome::Pending(task_id) => self.poll(&task_id),
            RpcOutcome::Failed(e) => Step::Done(Err(e)),
        }
    }

    fn on_failure(&mut self, error: TransportError) -> Step<AgentReply> {
        self.retries.on_failure(&self.current, error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> A2aSession {
        let card = json!({"name": "purple", "url": "http://0.0.0.0:9010/", "version": "1.0.0", "protocolVersion": "0.3.0"});
        A2aSession::from_card(
            &A2aConfig::new("http://10.0.0.5:9010"),
            "http://10.0.0.5:9010/.well-known/agent-card.json",
            &card,
        )
        .unwrap()
    }

    #[test]
    fn card_urls_and_session() {
        assert_eq!(
            A2aConfig::new("http://h:1/").card_urls(),
            vec!["http://h:1/.well-known/agent-card.json", "http://h:1/.well-known/agent.json"]
        );
        assert_eq!(A2aConfig::new("http://h/x/card.json").card_urls(), vec!["http://h/x/card.json"]);
        let s = session();
        assert_eq!(s.rpc_url, "http://10.0.0.5:9010/", "0.0.0.0 means the host we reached");
        let info = s.info();
        assert_eq!(info.label(), "a2a:purple");
        assert_eq!(info.settings, json!({"agent_version": "1.0.0", "protocol_version": "0.3.0"}));
    }

    #[test]
    fn card_transports_and_defaults() {
        let c = A2aConfig::new("http://h");
        let url = "http://h/.well-known/agent-card.json";
        let s = A2aSession::from_card(&c, url, &json!({})).unwrap();
        assert_eq!((s.rpc_url.as_str(), s.name.as_str()), ("http://h/", "a2a-agent"));
        let grpc = json!({"preferredTransport": "GRPC", "url": "h:1",
            "additionalInterfaces": [{"transport": "JSONRPC", "url": "http://h/rpc"}]});
        assert_eq!(A2aSession::from_card(&c, url, &grpc).unwrap().rpc_url, "http://h/rpc");
        let only_grpc = json!({"preferredTransport": "GRPC", "url": "h:1"});
        assert_eq!(A2aSession::from_card(&c, url, &only_grpc).unwrap_err().scope, Scope::Run);
        assert!(A2aSession::from_card(&c, url, &json!([1])).is_err());
        assert!(A2aSession::from_card(&c, url, &json!({"url": "ftp://x"})).is_err());
    }

    #[test]
    fn send_body_is_one_text_part() {
        let body: Value = serde_json::from_str(&session().send_body("the prompt", "m-1")).unwrap();
        assert_eq!(body["method"], "message/send");
        assert_eq!(body["params"]["message"]["parts"], json!([{"kind": "text", "text": "the prompt"}]));
        assert_eq!(body["params"]["message"]["role"], "user");
        assert_eq!(body["params"]["message"]["messageId"], "m-1");
        assert!(body["params"]["message"].get("contextId").is_none());
    }

    #[test]
    fn replies_from_messages_artifacts_status_and_history() {
        let reply =
            |result: Value| interpret(&json!({"jsonrpc": "2.0", "id": 1, "result": result}).to_string());
        let msg = json!({"kind": "message", "role": "agent", "parts": [{"kind": "text", "text": "a"}, {"kind": "data", "data": {"k": 1}}]});
        assert_eq!(reply(msg), RpcOutcome::Reply("a\n{\n  \"k\": 1\n}".into()));
        let task = json!({"kind": "task", "id": "t", "status": {"state": "completed",
            "message": {"role": "agent", "parts": [{"kind": "text", "text": "status"}]}},
            "artifacts": [{"parts": [{"kind": "text", "text": "first"}]}, {"parts": [{"kind": "text", "text": "last"}]}, {"parts": []}]});
        assert_eq!(reply(task), RpcOutcome::Reply("last".into()));
        let task = json!({"kind": "task", "id": "t", "status": {"state": "input-required",
            "message": {"role": "agent", "parts": [{"kind": "text", "text": "status"}]}}});
        assert_eq!(reply(task), RpcOutcome::Reply("status".into()));
        let task = json!({"kind": "task", "id": "t", "status": {"state": "completed"},
            "history": [{"role": "agent", "parts": [{"text": "old"}]}, {"role": "agent", "parts": [{"text": "new"}]}, {"role": "user", "parts": [{"text": "q"}]}]});
        assert_eq!(reply(task), RpcOutcome::Reply("new".into()));
        assert_eq!(
            reply(json!({"kind": "task", "id": "t9", "status": {"state": "working"}})),
            RpcOutcome::Pending("t9".into())
        );
    }

    #[test]
    fn failures_are_classified() {
        let scope = |body: &str| match interpret(body) {
            RpcOutcome::Failed(e) => (e.scope, e.message),
            other => panic!("{other:?}"),
        };
        let (s, m) =
            scope(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#);
        assert_eq!(
            (s, m.as_str()),
            (Scope::Run, "the agent answered with JSON-RPC error -32601: Method not found")
        );
        assert_eq!(scope(r#"{"error":{"code":-32602,"message":"bad"}}"#).0, Scope::Episode);
        assert_eq!(scope(r#"{"error":{"code":-32603}}"#).0, Scope::Turn);
        assert_eq!(scope("nope").0, Scope::Turn);
        assert_eq!(scope(r#"{"result":null}"#).0, Scope::Turn);
        let (s, m) = scope(
            r#"{"result":{"kind":"task","id":"t","status":{"state":"failed","message":{"parts":[{"text":"LLM down"}]}}}}"#,
        );
        assert_eq!((s, m.as_str()), (Scope::Turn, "the agent's task ended failed: LLM down"));
        assert_eq!(scope(r#"{"result":{"kind":"task","status":{"state":"rejected"}}}"#).0, Scope::Episode);
        assert_eq!(scope(r#"{"result":{"kind":"task","status":{"state":"auth-required"}}}"#).0, Scope::Run);
        assert_eq!(scope(r#"{"result":{"kind":"task","status":{"state":"working"}}}"#).0, Scope::Turn);
    }

    #[test]
    fn exchange_polls_until_done_or_budget() {
        let mut s = session();
        s.config.timeout_ms = 2000;
        s.config.poll_ms = 1000;
        let mut ex = s.exchange("hi", "m");
        assert!(ex.start().body.unwrap().contains("message/send"));
        let ok = |result: Value| HttpResponse {
            status: 200,
            body: json!({"jsonrpc": "2.0", "id": "m", "result": result}).to_string(),
            ..Default::default()
        };
        let working = json!({"kind": "task", "id": "t1", "status": {"state": "working"}});
        match ex.on_response(ok(working.clone())) {
            Step::Send { request, delay_ms: 1000, retry: false } => {
                assert!(request.body.unwrap().contains(r#""method":"tasks/get","params":{"id":"t1"}"#))
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(ex.on_response(ok(working.clone())), Step::Send { .. }));
        match ex.on_response(ok(working)) {
            Step::Done(Err(e)) => assert!(e.message.contains("still working after 2 s"), "{}", e.message),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn card_exchange_falls_back_to_the_legacy_path() {
        let mut ex = A2aConfig::new("http://h").card_exchange();
        assert!(ex.start().url.ends_with("agent-card.json"));
        match ex.on_response(HttpResponse { status: 404, ..Default::default() }) {
            Step::Send { request, .. } => assert!(request.url.ends_with("/agent.json")),
            other => panic!("{other:?}"),
        }
        match ex.on_response(HttpResponse { status: 404, ..Default::default() }) {
            Step::Done(Err(e)) => assert_eq!(e.scope, Scope::Run),
            other => panic!("{other:?}"),
        }
        let mut ex = A2aConfig::new("http://h").card_exchange();
        let card = HttpResponse {
            status: 200,
            body: r#"{"name":"p","url":"http://h/rpc"}"#.into(),
            ..Default::default()
        };
        match ex.on_response(card) {
            Step::Done(Ok(s)) => assert_eq!(s.rpc_url, "http://h/rpc"),
            other => panic!("{other:?}"),
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn interpret_never_panics(body in ".{0,200}") {
            let _ = super::interpret(&body);
        }

        #[test]
        fn interpret_never_panics_on_task_shapes(state in "[a-z-]{0,14}", parts in prop_oneof![
            Just("null"), Just("[]"), Just("[1]"), Just("[{\"kind\":\"data\"}]"), Just("[{\"text\":3}]")
        ]) {
            let body = format!(
                r#"{{"result":{{"kind":"task","id":"t","status":{{"state":"{state}","message":{{"parts":{parts}}}}},"artifacts":[{{"parts":{parts}}}]}}}}"#
            );
            let _ = super::interpret(&body);
        }
    }
}
