//! `netpress serve --a2a-assessor`: the server as an A2A 0.3 "green" agent, the assessor a
//! leaderboard scenario (AgentBeats) starts beside the participant ("purple") agent.
//!
//! A client sends one message whose text (or data part) is an `EvalRequest`; the assessor
//! plays the queries it names against the participant with the crate's A2A client and runner
//! (`eval`), and reports as NetArena's green agents do: a `working` status update "Query n
//! processed" and one artifact with a data part (the query's leaderboard dict) per query, then
//! an artifact "Result" with the averages and the task `completed`. `message/stream` sends those
//! as server-sent events, `message/send` answers the finished task (or, with `blocking: false`,
//! the task at once, for `tasks/get`). Tasks are kept in memory, the newest [`KEEP`].
//!
//! The assessor is the one part of the server that connects out: to the participant URL the
//! request names, which is what an assessor is for. docs/env.md ("A2A assessor") says more.

mod eval;

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::sync::Mutex;

use axum::body::Body;
use axum::extract::State as Axum;
use axum::http::header;
use axum::response::{IntoResponse, Json, Response};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::Shared;
use crate::registry::Registry;
use eval::Update;

pub use eval::{MAX_QUERIES, plan};

/// Tasks kept for `tasks/get`.
pub const KEEP: usize = 256;

/// How the assessor presents itself.
#[derive(Debug, Clone, Default)]
pub struct AssessorConfig {
    /// The URL clients reach the server at, put in the agent card (default: the bound address).
    pub card_url: Option<String>,
}

/// Assessment tasks by id, oldest first.
#[derive(Default)]
pub struct Tasks {
    inner: Mutex<(BTreeMap<String, Value>, VecDeque<String>)>,
}

impl Tasks {
    fn insert(&self, task: Value) {
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let (tasks, order) = &mut *guard;
        let id = task["id"].as_str().unwrap_or_default().to_string();
        order.push_back(id.clone());
        tasks.insert(id, task);
        while order.len() > KEEP {
            if let Some(old) = order.pop_front() {
                tasks.remove(&old);
            }
        }
    }

    fn get(&self, id: &str) -> Option<Value> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).0.get(id).cloned()
    }

    /// Applies a status or artifact event to its task.
    fn apply(&self, event: &Value) {
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let Some(task) = guard.0.get_mut(event["taskId"].as_str().unwrap_or_default()) else { return };
        if event["kind"] == "artifact-update" {
            push(&mut task["artifacts"], event["artifact"].clone());
        } else {
            task["status"] = event["status"].clone();
            if !event["status"]["message"].is_null() {
                push(&mut task["history"], event["status"]["message"].clone());
            }
        }
    }
}

fn push(list: &mut Value, item: Value) {
    match list.as_array_mut() {
        Some(items) => items.push(item),
        None => *list = json!([item]),
    }
}

/// The agent card, at the A2A 0.3 path and the 0.2 one.
pub(super) async fn card(Axum(state): Axum<Shared>) -> Response {
    let url = state.assessor().card_url.clone().unwrap_or_else(|| format!("http://{}/", state.addr));
    let app = state.config.defaults.app.as_deref().unwrap_or("any application (from the participant's role)");
    Json(json!({
        "name": "NetPress assessor",
        "description": format!("Scores one participant agent on NetPress tasks of {app}: send an EvalRequest \
            {{participants: {{role: url}}, config}} as the message text."),
        "url": url,
        "version": crate::VERSION,
        "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC",
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text"],
        "defaultOutputModes": ["text"],
        "skills": [{"id": "assess", "name": "Assess a network operator agent", "tags": ["benchmark", "network"],
            "description": "Plays NetPress episodes against the participant and reports correctness, safety and turns."}],
    }))
    .into_response()
}

/// JSON-RPC over `POST /`.
pub(super) async fn rpc(Axum(state): Axum<Shared>, body: Body) -> Response {
    let request = match axum::body::to_bytes(body, state.config.limits.max_body).await {
        Ok(bytes) => serde_json::from_slice::<Value>(&bytes).ok(),
        Err(_) => return rpc_error(&Value::Null, -32600, "the request is larger than the body limit"),
    };
    let Some(request) = request.filter(Value::is_object) else {
        return rpc_error(&Value::Null, -32700, "Parse error: the body is not a JSON object");
    };
    let id = request["id"].clone();
    let params = &request["params"];
    match request["method"].as_str().unwrap_or_default() {
        "message/send" | "message/stream" if !params["message"].is_object() => {
            rpc_error(&id, -32602, "Invalid params: no message")
        }
        "message/send" => send(&state, &id, params).await,
        "message/stream" => stream(&state, id, params),
        "tasks/get" => match state.tasks.get(params["id"].as_str().unwrap_or_default()) {
            Some(task) => rpc_result(&id, task),
            None => rpc_error(&id, -32001, "Task not found"),
        },
        "tasks/cancel" => rpc_error(&id, -32002, "Task cannot be canceled"),
        other => rpc_error(&id, -32601, &format!("Method not found: {other:?}")),
    }
}

fn rpc_result(id: &Value, result: Value) -> Response {
    Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response()
}

fn rpc_error(id: &Value, code: i64, message: &str) -> Response {
    Json(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})).into_response()
}

async fn send(state: &Shared, id: &Value, params: &Value) -> Response {
    let (task, mut events) = match start(state, &params["message"]) {
        Ok(started) => started,
        Err(message) => return rpc_error(id, -32602, &format!("Invalid params: {message}")),
    };
    let task_id = task["id"].as_str().unwrap_or_default().to_string();
    if params["configuration"]["blocking"] != false {
        while events.recv().await.is_some() {}
    }
    rpc_result(id, state.tasks.get(&task_id).unwrap_or(task))
}

/// The task, then every event as it happens, as server-sent events of JSON-RPC responses.
fn stream(state: &Shared, id: Value, params: &Value) -> Response {
    let (task, events) = match start(state, &params["message"]) {
        Ok(started) => started,
        Err(message) => return rpc_error(&id, -32602, &format!("Invalid params: {message}")),
    };
    let first = futures::stream::iter([task]);
    let rest = futures::stream::unfold(events, |mut rx| async move { rx.recv().await.map(|e| (e, rx)) });
    let frames = futures::StreamExt::map(futures::StreamExt::chain(first, rest), move |event| {
        Ok::<_, Infallible>(format!("data: {}\n\n", json!({"jsonrpc": "2.0", "id": id, "result": event})))
    });
    let mut response = Body::from_stream(frames).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, header::HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-cache"));
    response
}

/// Reads the request from `message`, stores a new task and starts its run on a thread of its
/// own (an assessment waits on the participant for minutes; it must not hold a worker).
fn start(state: &Shared, message: &Value) -> Result<(Value, mpsc::UnboundedReceiver<Value>), String> {
    let request = eval_request(message)?;
    let plan = plan(state.registry, &request, state.config.defaults.app.as_deref(), state.pool.is_some())?;
    let context = message["contextId"].as_str().map_or_else(crate::cli::random_id, str::to_string);
    let task_id = crate::cli::random_id();
    let task = json!({"kind": "task", "id": task_id, "contextId": context, "status": {"state": "submitted"},
        "history": [message], "artifacts": []});
    state.tasks.insert(task.clone());
    let (tx, rx) = mpsc::unbounded_channel();
    let (registry, shared) = (state.registry, state.clone());
    let run = move || {
        let mut emit = |update: Update| {
            let event = event(&task_id, &context, update);
            shared.tasks.apply(&event);
            let _ = tx.send(event);
        };
        run_guarded(registry, shared.pool.as_ref(), &plan, &mut emit);
    };
    std::thread::Builder::new()
        .name("netpress-assess".into())
        .spawn(run)
        .map_err(|e| format!("cannot start the assessment: {e}"))?;
    Ok((task, rx))
}

/// Runs an assessment; a panic fails the task instead of leaving it working forever.
fn run_guarded(
    registry: &Registry,
    pool: Option<&crate::env::SandboxPool>,
    plan: &eval::Plan,
    emit: &mut dyn FnMut(Update),
) {
    let failed =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| eval::assess(registry, pool, plan, emit)));
    if failed.is_err() {
        emit(Update::Failed("the assessment panicked (a bug in NetPress)".into()));
    }
}

/// The `EvalRequest` a message carries: its text parts as JSON, else its first data part.
fn eval_request(message: &Value) -> Result<Value, String> {
    let parts = message["parts"].as_array().map(Vec::as_slice).unwrap_or_default();
    let text: String = parts.iter().filter_map(|p| p["text"].as_str()).collect();
    if !text.trim().is_empty() {
        return serde_json::from_str(&text)
            .map_err(|e| format!("the message is not an EvalRequest (JSON): {e}"));
    }
    parts
        .iter()
        .find_map(|p| p.get("data").filter(|d| d.is_object()).cloned())
        .ok_or_else(|| "the message holds no EvalRequest".into())
}

/// An update as an A2A event of task `task` in context `context`.
fn event(task: &str, context: &str, update: Update) -> Value {
    let status = |state: &str, text: String, last: bool| {
        let message = json!({"kind": "message", "role": "agent", "messageId": crate::cli::random_id(),
            "taskId": task, "contextId": context, "parts": [{"kind": "text", "text": text}]});
        json!({"kind": "status-update", "taskId": task, "contextId": context,
            "status": {"state": state, "message": message}, "final": last})
    };
    match update {
        Update::Status(text) => status("working", text, false),
        Update::Completed(text) => status("completed", text, true),
        Update::Failed(text) => status("failed", text, true),
        Update::Artifact { name, data } => {
            json!({"kind": "artifact-update", "taskId": task, "contextId": context,
            "artifact": {"artifactId": crate::cli::random_id(), "name": name, "parts": [{"kind": "data", "data": data}]},
            "append": false, "lastChunk": true})
        }
    }
}
