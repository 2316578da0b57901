//! A scripted agent server for tests: OpenAI-compatible chat completions and an A2A 0.3
//! agent on loopback, answering from a script of replies with configurable delays, HTTP
//! errors, malformed bodies and CORS headers. The native tests start it in-process; the
//! browser tests talk to `netpress mock-agent`, which serves the same thing.
//!
//! Scripts live in namespaces so that concurrent tests do not share replies: requests to
//! `/s/NAME/…` use namespace `NAME`, other paths the root namespace (the `--script` file).
//!
//! | request | answer |
//! |---|---|
//! | `POST …/chat/completions` | the next `openai` reply |
//! | `GET …/.well-known/agent-card.json` (or `agent.json`) | an agent card whose `url` is `…/a2a` |
//! | `POST` any other path | A2A JSON-RPC: `message/send` takes the next `a2a` reply; `tasks/get` |
//! | `PUT` or `POST /_mock/NAME` | loads a script (JSON) into namespace `NAME`, clearing its log |
//! | `GET /_mock/NAME/requests` | the requests namespace `NAME` received, as JSON (`/_mock/requests`: the root's) |
//! | `OPTIONS` any path | a CORS preflight answer |
//!
//! When a namespace's replies run out it answers HTTP 410 with an explanation.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tiny_http::{Header, Method, Request, Response, Server};

/// What a namespace answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Send CORS headers (`Access-Control-Allow-Origin: *` and friends). Default true.
    #[serde(default = "yes")]
    pub cors: bool,
    /// Replies to chat-completion requests, in order.
    #[serde(default)]
    pub openai: Vec<Reply>,
    /// Replies to A2A `message/send` requests, in order.
    #[serde(default)]
    pub a2a: Vec<Reply>,
    /// Fields that replace the default agent card's.
    #[serde(default)]
    pub card: Option<Value>,
}

impl Default for Script {
    fn default() -> Self {
        Script { cors: true, openai: Vec::new(), a2a: Vec::new(), card: None }
    }
}

fn yes() -> bool {
    true
}

/// One scripted answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// The reply text (chat `content`, A2A text part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A chat refusal (`content: null`, `refusal: …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    /// `[prompt_tokens, completion_tokens]` reported in `usage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<[u64; 2]>,
    /// An HTTP status other than 200 (the body is `body` or an OpenAI-style error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// A raw body sent instead of a well-formed answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Extra response headers, e.g. `{"retry-after": "0"}`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Wait this long before answering.
    #[serde(default)]
    pub delay_ms: u64,
    /// How an A2A reply is wrapped (default `artifact`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a2a: Option<A2aShape>,
    /// A2A: answer `tasks/get` polls with `working` this many times before the reply.
    #[serde(default)]
    pub working_polls: u32,
    /// A2A: a JSON-RPC error `[code, message]` instead of a result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpc_error: Option<(i64, String)>,
}

impl Reply {
    /// A plain successful reply.
    pub fn text(text: impl Into<String>) -> Self {
        Reply { text: Some(text.into()), ..Default::default() }
    }
}

/// How an A2A reply comes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum A2aShape {
    /// A `Message` result.
    Message,
    /// A completed `Task` with the text in an artifact.
    Artifact,
    /// A completed `Task` with the text in its status message.
    Status,
    /// A `failed` task whose status message holds the text.
    Failed,
}

/// A request a namespace received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Logged {
    pub method: String,
    pub path: String,
    /// Header names in lower case.
    pub headers: BTreeMap<String, String>,
    pub body: String,
}

#[derive(Default)]
struct Namespace {
    script: Script,
    next_openai: usize,
    next_a2a: usize,
    /// Unfinished A2A tasks: the reply and the polls left before it.
    tasks: BTreeMap<String, (Reply, u32)>,
    log: Vec<Logged>,
}

type State = Arc<Mutex<BTreeMap<String, Namespace>>>;

/// A running mock server; stops when dropped.
pub struct MockServer {
    server: Arc<Server>,
    url: String,
    state: State,
    accept: Option<std::thread::JoinHandle<()>>,
}

impl MockServer {
    /// Listens on `addr` (`127.0.0.1:0` picks a free port) with `script` in the root namespace.
    pub fn start(addr: &str, script: Script) -> std::io::Result<Self> {
        let server =
            Server::http(addr).map_err(|e| std::io::Error::other(format!("cannot listen on {addr}: {e}")))?;
        let local =
            server.server_addr().to_ip().ok_or_else(|| std::io::Error::other("not an IP listener"))?;
        let server = Arc::new(server);
        let state: State = Arc::default();
        state.lock().expect("fresh lock").insert(String::new(), Namespace { script, ..Default::default() });
        let (s, st) = (server.clone(), state.clone());
        let accept = std::thread::Builder::new().name("netpress-mock".into()).spawn(move || {
            for request in s.incoming_requests() {
                let st = st.clone();
                let _ = std::thread::Builder::new().spawn(move || handle(request, &st));
            }
        })?;
        Ok(MockServer { server, url: format!("http://{local}"), state, accept: Some(accept) })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Loads a script into a namespace (its base is `{url}/s/{name}`), clearing its log.
    pub fn set_script(&self, name: &str, script: Script) {
        lock(&self.state).insert(name.to_string(), Namespace { script, ..Default::default() });
    }

    /// The requests a namespace received (`""` for the root).
    pub fn requests(&self, name: &str) -> Vec<Logged> {
        lock(&self.state).get(name).map(|ns| ns.log.clone()).unwrap_or_default()
    }

    /// Serves until the process ends (the CLI's `mock-agent`).
    pub fn wait(mut self) {
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn lock(state: &State) -> std::sync::MutexGuard<'_, BTreeMap<String, Namespace>> {
    state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A response about to be sent: status, JSON or raw body, headers, delay.
struct Answer {
    status: u16,
    body: String,
    headers: BTreeMap<String, String>,
    delay_ms: u64,
    cors: bool,
}

impl Answer {
    fn json(status: u16, body: Value, cors: bool) -> Self {
        Answer { status, body: body.to_string(), headers: BTreeMap::new(), delay_ms: 0, cors }
    }

    fn preflight(cors: bool) -> Self {
        Answer { status: 204, body: String::new(), headers: BTreeMap::new(), delay_ms: 0, cors }
    }
}

fn handle(mut request: Request, state: &State) {
    let mut body = String::new();
    let _ = request.as_reader().take(64 * 1024 * 1024).read_to_string(&mut body);
    let host = header(&request, "host").unwrap_or_else(|| "127.0.0.1".into());
    let path = request.url().split('?').next().unwrap_or_default().to_string();
    let answer = route(&request, &path, &host, body, state);
    if answer.delay_ms > 0 {
        std::thread::sleep(std::time::Duration::from_millis(answer.delay_ms));
    }
    let mut response = Response::from_string(answer.body).with_status_code(answer.status);
    let mut headers = answer.headers;
    headers.entry("content-type".into()).or_insert_with(|| "application/json".into());
    if answer.cors {
        headers.insert("access-control-allow-origin".into(), "*".into());
        headers.insert("access-control-allow-headers".into(), "authorization, content-type, accept".into());
        headers.insert("access-control-allow-methods".into(), "GET, POST, PUT, OPTIONS".into());
        headers.insert("access-control-expose-headers".into(), "retry-after".into());
        headers.insert("access-control-max-age".into(), "600".into());
    }
    for (k, v) in headers {
        if let Ok(h) = Header::from_bytes(k.as_bytes(), v.as_bytes()) {
            response.add_header(h);
        }
    }
    let _ = request.respond(response);
}

fn header(request: &Request, name: &'static str) -> Option<String> {
    request.headers().iter().find(|h| h.field.equiv(name)).map(|h| h.value.as_str().to_string())
}

fn route(request: &Request, path: &str, host: &str, body: String, state: &State) -> Answer {
    let method = request.method().clone();
    if let Some(rest) = path.strip_prefix("/_mock/") {
        return control(&method, rest, &body, state);
    }
    let (name, rest) = match path.strip_prefix("/s/") {
        Some(r) => r.split_once('/').map_or((r, ""), |(n, rest)| (n, rest)),
        None => ("", path),
    };
    let mut all = lock(state);
    let Some(ns) = all.get_mut(name) else {
        return Answer::json(
            404,
            json!({"error": {"message": format!("no mock script named {name:?}")}}),
            true,
        );
    };
    let cors = ns.script.cors;
    if method == Method::Options {
        return Answer::preflight(cors);
    }
    let headers =
        request.headers().iter().map(|h| (h.field.to_string().to_ascii_lowercase(), h.value.to_string()));
    let logged =
        Logged { method: method.to_string(), path: path.to_string(), headers: headers.collect(), body };
    ns.log.push(logged.clone());
    let body = &logged.body;
    let base = if name.is_empty() { format!("http://{host}") } else { format!("http://{host}/s/{name}") };
    let mut answer = match (&method, rest) {
        (Method::Post, r) if r.ends_with("chat/completions") => next_openai(ns),
        (Method::Get, r)
            if r.ends_with(".well-known/agent-card.json") || r.ends_with(".well-known/agent.json") =>
        {
            Answer::json(200, card(&base, ns.script.card.as_ref()), cors)
        }
        (Method::Post, _) => a2a(ns, body),
        _ => Answer::json(
            404,
            json!({"error": {"message": format!("no mock route for {method} {path}")}}),
            cors,
        ),
    };
    answer.cors = cors;
    answer
}

fn control(method: &Method, rest: &str, body: &str, state: &State) -> Answer {
    match (method, rest.split_once('/')) {
        (Method::Options, _) => Answer::preflight(true),
        (Method::Put | Method::Post, None) => match serde_json::from_str::<Script>(body) {
            Ok(script) => {
                lock(state).insert(rest.to_string(), Namespace { script, ..Default::default() });
                Answer::json(200, json!({"ok": true}), true)
            }
            Err(e) => Answer::json(400, json!({"error": {"message": format!("bad script: {e}")}}), true),
        },
        (Method::Get, None) if rest == "requests" => log_of(state, ""),
        (Method::Get, Some((name, "requests"))) => log_of(state, name),
        _ => Answer::json(404, json!({"error": {"message": "unknown control request"}}), true),
    }
}

fn log_of(state: &State, name: &str) -> Answer {
    let log = lock(state).get(name).map(|ns| ns.log.clone()).unwrap_or_default();
    Answer::json(200, serde_json::to_value(log).unwrap_or_default(), true)
}

fn exhausted(kind: &str, n: usize) -> Answer {
    let message = format!("mock script exhausted: {n} {kind} replies were scripted");
    Answer::json(410, json!({"error": {"message": message}}), true)
}

/// The reply's status, headers and delay with `body`, or its raw body if it has one.
fn shaped(reply: &Reply, body: Value) -> Answer {
    let status = reply.status.unwrap_or(200);
    let body = match (&reply.body, reply.status) {
        (Some(raw), _) => raw.clone(),
        (None, Some(s)) if s >= 300 => {
            json!({"error": {"message": format!("scripted HTTP {s}")}}).to_string()
        }
        _ => body.to_string(),
    };
    Answer { status, body, headers: reply.headers.clone(), delay_ms: reply.delay_ms, cors: true }
}

fn next_openai(ns: &mut Namespace) -> Answer {
    let Some(reply) = ns.script.openai.get(ns.next_openai).cloned() else {
        return exhausted("openai", ns.script.openai.len());
    };
    ns.next_openai += 1;
    let message = match &reply.refusal {
        Some(r) => json!({"role": "assistant", "content": null, "refusal": r}),
        None => json!({"role": "assistant", "content": reply.text.clone().unwrap_or_default()}),
    };
    let mut body = json!({
        "id": format!("chatcmpl-mock-{}", ns.next_openai),
        "object": "chat.completion",
        "model": "mock",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    });
    if let Some([p, c]) = reply.usage {
        body["usage"] = json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c});
    }
    shaped(&reply, body)
}

fn card(base: &str, overrides: Option<&Value>) -> Value {
    let mut card = json!({
        "name": "netpress-mock-agent",
        "description": "Scripted A2A agent for NetPress tests.",
        "url": format!("{base}/a2a"),
        "version": "1.0.0",
        "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC",
        "capabilities": {"streaming": false},
        "defaultInputModes": ["text"],
        "defaultOutputModes": ["text"],
        "skills": [],
    });
    if let (Some(Value::Object(o)), Value::Object(c)) = (overrides, &mut card) {
        c.extend(o.clone());
    }
    card
}

fn a2a(ns: &mut Namespace, body: &str) -> Answer {
    let request: Value = serde_json::from_str(body).unwrap_or_default();
    let id = request["id"].clone();
    let rpc_error = |code: i64, message: &str| {
        Answer::json(
            200,
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
            true,
        )
    };
    match request["method"].as_str() {
        Some("message/send") => {
            let Some(reply) = ns.script.a2a.get(ns.next_a2a).cloned() else {
                return exhausted("a2a", ns.script.a2a.len());
            };
            ns.next_a2a += 1;
            let task_id = format!("task-{}", ns.next_a2a);
            let result = if reply.working_polls > 0 {
                ns.tasks.insert(task_id.clone(), (reply.clone(), reply.working_polls));
                json!({"kind": "task", "id": task_id, "contextId": "ctx", "status": {"state": "working"}})
            } else {
                a2a_result(&reply, &task_id)
            };
            respond_rpc(&reply, &id, result)
        }
        Some("tasks/get") => {
            let task_id = request["params"]["id"].as_str().unwrap_or_default().to_string();
            let Some((reply, left)) = ns.tasks.get_mut(&task_id) else {
                return rpc_error(-32001, "Task not found");
            };
            *left = left.saturating_sub(1);
            let result = if *left > 0 {
                json!({"kind": "task", "id": task_id, "contextId": "ctx", "status": {"state": "working"}})
            } else {
                a2a_result(reply, &task_id)
            };
            Answer::json(200, json!({"jsonrpc": "2.0", "id": id, "result": result}), true)
        }
        Some(other) => rpc_error(-32601, &format!("Method not found: {other}")),
        None => rpc_error(-32600, "Invalid Request"),
    }
}

fn respond_rpc(reply: &Reply, id: &Value, result: Value) -> Answer {
    let envelope = match &reply.rpc_error {
        Some((code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
        None => json!({"jsonrpc": "2.0", "id": id, "result": result}),
    };
    shaped(reply, envelope)
}

fn a2a_result(reply: &Reply, task_id: &str) -> Value {
    let text = reply.text.clone().unwrap_or_default();
    let parts = json!([{"kind": "text", "text": text}]);
    let agent_message =
        json!({"kind": "message", "role": "agent", "messageId": format!("{task_id}-reply"), "parts": parts});
    let task = |state: &str, status_message: Option<&Value>, artifacts: Value| {
        let mut status = json!({"state": state});
        if let Some(m) = status_message {
            status["message"] = m.clone();
        }
        json!({"kind": "task", "id": task_id, "contextId": "ctx", "status": status, "artifacts": artifacts})
    };
    match reply.a2a.unwrap_or(A2aShape::Artifact) {
        A2aShape::Message => agent_message,
        A2aShape::Artifact => {
            task("completed", None, json!([{"artifactId": "a1", "name": "reply", "parts": parts}]))
        }
        A2aShape::Status => task("completed", Some(&agent_message), json!([])),
        A2aShape::Failed => task("failed", Some(&agent_message), json!([])),
    }
}
