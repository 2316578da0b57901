//! The HTTP routes and the guard in front of every route (header size, Host, Origin, token).

use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{Query, Request, State as Axum};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Json, Response};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::Shared;
use super::deadline;
use super::sessions::lock;
use crate::env::{Action, Code, EnvError, Reason, ResetParams, Session, guarded};

/// A protocol error as FastAPI (and so OpenEnv) words it: `{"detail": {code, reason, message}}`.
pub(super) fn fail(e: &EnvError) -> Response {
    let status = StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, Json(json!({ "detail": e }))).into_response();
    if e.http_status() == 503 {
        response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    }
    response
}

fn answer(result: Result<Value, EnvError>) -> Response {
    match result {
        Ok(v) => Json(v).into_response(),
        Err(e) => fail(&e),
    }
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// Reads a body of at most `max` bytes as JSON of type `T`.
async fn body<T: DeserializeOwned>(body: Body, max: usize, what: &str) -> Result<T, EnvError> {
    let bytes: Bytes = axum::body::to_bytes(body, max)
        .await
        .map_err(|_| EnvError::new(Reason::BodyTooLarge, format!("the body is larger than {max} bytes")))?;
    let text =
        std::str::from_utf8(&bytes).map_err(|_| EnvError::new(Reason::NotUtf8, "the body is not UTF-8"))?;
    let value: Value = if text.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(text).map_err(|e| EnvError::new(Reason::NotJson, format!("not JSON: {e}")))?
    };
    serde_json::from_value(value).map_err(|e| EnvError::from_serde(what, &e))
}

pub(super) async fn reset(Axum(state): Axum<Shared>, b: Body) -> Response {
    answer(reset_inner(&state, b).await)
}

async fn reset_inner(state: &Shared, b: Body) -> Result<Value, EnvError> {
    let params: ResetParams = body(b, state.config.limits.max_body, "reset").await?;
    let resolved = guarded(|| state.resolve(&params))??;
    let episode_id = resolved.episode_id.clone().unwrap_or_else(crate::cli::random_id);
    let reserved = !state.sessions.contains(&episode_id);
    if reserved {
        state.sessions.reserve()?;
    }
    let mut resolved = resolved;
    resolved.episode_id = Some(episode_id);
    match guarded(|| Session::start(resolved, String::new)) {
        Ok((session, result)) => {
            // Another reset of the same new id may have won the race: one count for one id.
            if state.sessions.insert(session) && reserved {
                state.sessions.release();
            }
            Ok(to_value(&result))
        }
        Err(e) => {
            if reserved {
                state.sessions.release();
            }
            Err(e)
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepBody {
    action: Option<Value>,
    episode_id: Option<String>,
    /// Shortens the step deadline (OpenEnv's field).
    timeout_s: Option<f64>,
    #[allow(dead_code)]
    request_id: Option<Value>,
}

fn no_episode_id() -> EnvError {
    EnvError::new(
        Reason::NoEpisodeId,
        "send the episode_id from /reset, or use /ws (an episode has many turns; a request without it has no session)",
    )
}

fn unknown(id: &str) -> EnvError {
    EnvError::new(Reason::UnknownSession, format!("no session {id:?} (never made, closed or expired)"))
}

pub(super) async fn step(Axum(state): Axum<Shared>, b: Body) -> Response {
    answer(step_inner(&state, b).await)
}

async fn step_inner(state: &Shared, b: Body) -> Result<Value, EnvError> {
    let request: StepBody = body(b, state.config.limits.max_body, "step").await?;
    let turn = Action::from_value(request.action)?.into_turn()?;
    let id = request.episode_id.ok_or_else(no_episode_id)?;
    let entry = state.sessions.get(&id).ok_or_else(|| unknown(&id))?;
    let limit = deadline::effective(state.config.step_deadline, request.timeout_s);
    let shared = state.clone();
    let result = deadline::within(limit, move || {
        let mut entry = lock(&entry);
        entry.last_used = Instant::now();
        guarded(|| shared.step(&mut entry.session, turn)).and_then(|r| r)
    })
    .await
    .and_then(|r| r);
    match result {
        Ok(r) => Ok(to_value(&r)),
        Err(e) => {
            // A panic or an overrun leaves the episode in an unknown state; a refusal (a full
            // sandbox queue) left it as it was, and the client may retry.
            if e.code == Code::ExecutionError {
                state.sessions.remove(&id);
            }
            Err(e)
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ById {
    episode_id: Option<String>,
}

pub(super) async fn state(
    Axum(state): Axum<Shared>,
    query: Result<Query<ById>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let query = query.map_err(|e| EnvError::new(Reason::UnknownField, format!("state: {}", e.body_text())));
    let id = query.and_then(|q| q.0.episode_id.ok_or_else(no_episode_id));
    answer(id.and_then(|id| {
        let entry = state.sessions.get(&id).ok_or_else(|| unknown(&id))?;
        let mut entry = lock(&entry);
        entry.last_used = Instant::now();
        Ok(to_value(&entry.session.state()))
    }))
}

pub(super) async fn close(Axum(state): Axum<Shared>, b: Body) -> Response {
    let result = async {
        let request: ById = body(b, state.config.limits.max_body, "close").await?;
        let id = request.episode_id.ok_or_else(no_episode_id)?;
        if state.sessions.remove(&id) {
            Ok(json!({"episode_id": id, "closed": true}))
        } else {
            Err(unknown(&id))
        }
    }
    .await;
    answer(result)
}

pub(super) async fn health() -> Response {
    Json(json!({"status": "healthy"})).into_response()
}

pub(super) async fn metadata() -> Response {
    Json(json!({
        "name": "netpress",
        "description": "Seeded network-operations tasks (routing, Kubernetes NetworkPolicy) with emulators and scorers; protocol netpress.env.v1.",
        "version": crate::VERSION,
    }))
    .into_response()
}

pub(super) async fn capacity(Axum(state): Axum<Shared>) -> Response {
    Json(json!({"active_sessions": state.sessions.active(), "max_sessions": state.sessions.max()}))
        .into_response()
}

/// JSON Schemas of the action, the observation and the state (docs/env.md describes each field).
pub(super) async fn schema() -> Response {
    let text = json!({"type": "string"});
    let nullable = |t: &str| json!({"type": [t, "null"]});
    Json(json!({
        "action": {
            "type": "object", "additionalProperties": false,
            "properties": {
                "reply": {"type": "string", "maxLength": crate::env::MAX_REPLY_BYTES},
                "latency_ms": {"type": "number"},
                "tokens": {"type": "object", "properties": {"prompt": {"type": "integer"}, "completion": {"type": "integer"}}},
                "error": text, "fatal": {"type": "boolean"},
            },
        },
        "observation": {
            "type": "object",
            "required": ["text", "episode_id", "task_id", "content_hash", "app", "level", "label", "turn", "max_turns", "finish"],
            "properties": {
                "text": text, "episode_id": text, "task_id": text, "content_hash": text, "app": text,
                "level": {"type": "integer"}, "label": text, "turn": {"type": "integer"}, "max_turns": {"type": "integer"},
                "finish": {"enum": [null, "solved", "turn_limit", "answered", "stopped"]},
                "action": text, "output": text, "exit_status": nullable("integer"),
                "notes": {"type": "array", "items": text}, "score": {"type": "object"}, "record": {"type": "object"},
            },
        },
        "state": {
            "type": "object",
            "required": ["episode_id", "step_count", "task_id", "content_hash", "label", "max_turns", "finish"],
            "properties": {
                "episode_id": text, "step_count": {"type": "integer"}, "task_id": text, "content_hash": text,
                "label": text, "max_turns": {"type": "integer"},
                "finish": {"enum": [null, "solved", "turn_limit", "answered", "stopped"]}, "score": {"type": "object"},
            },
        },
    }))
    .into_response()
}

/// The most header bytes a request may send (names and values, as on the wire).
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The checks in front of every route: header size, Host (DNS rebinding), Origin (browser
/// pages), token.
pub(super) async fn guard(Axum(state): Axum<Shared>, request: Request, next: Next) -> Response {
    if let Err((status, detail)) = check(&state, request.headers()) {
        return (status, Json(json!({ "detail": detail }))).into_response();
    }
    next.run(request).await
}

/// The bytes `headers` take on the wire: `name: value\r\n` each.
fn header_bytes(headers: &HeaderMap) -> usize {
    headers.iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum()
}

fn check(state: &Shared, headers: &HeaderMap) -> Result<(), (StatusCode, String)> {
    let size = header_bytes(headers);
    if size > MAX_HEADER_BYTES {
        return Err((
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("the headers take {size} bytes; the limit is {MAX_HEADER_BYTES}"),
        ));
    }
    let forbidden = |m: String| (StatusCode::FORBIDDEN, m);
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !host_allowed(host, state.addr) && !state.config.allow_hosts.iter().any(|h| host_name(host) == h) {
        return Err(forbidden(format!(
            "Host {host:?} is not this server (localhost, 127.0.0.1, [::1] or the bound address)"
        )));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !state.config.allow_origins.iter().any(|o| o == origin) {
            return Err(forbidden(format!(
                "requests from the page {origin:?} are refused (see --allow-origin)"
            )));
        }
    }
    if let Some(token) = &state.config.token {
        let sent = headers
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "));
        if !sent.is_some_and(|s| same(s.as_bytes(), token.as_bytes())) {
            return Err((
                StatusCode::UNAUTHORIZED,
                "a valid `Authorization: Bearer <token>` is required".into(),
            ));
        }
    }
    Ok(())
}

/// Whether `host` (a Host header, port optional) names this server.
fn host_allowed(host: &str, addr: std::net::SocketAddr) -> bool {
    let name = host_name(host);
    let bound = match addr.ip() {
        std::net::IpAddr::V4(ip) => ip.to_string(),
        std::net::IpAddr::V6(ip) => format!("[{ip}]"),
    };
    ["localhost", "127.0.0.1", "[::1]", bound.as_str()].contains(&name)
}

/// A Host header without its port.
fn host_name(host: &str) -> &str {
    match host.rsplit_once(':') {
        Some((name, port))
            if !name.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) && !host.ends_with(']') =>
        {
            name
        }
        _ => host,
    }
}

/// Compares two secrets in time that depends on their lengths only. Hand-written: one fold,
/// not worth a crate.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_tokens() {
        let addr: std::net::SocketAddr = "127.0.0.1:8765".parse().unwrap();
        for ok in ["localhost", "localhost:8765", "127.0.0.1:8765", "[::1]:8765", "[::1]"] {
            assert!(host_allowed(ok, addr), "{ok}");
        }
        for bad in ["", "evil.example", "evil.example:8765", "127.0.0.2", "localhost.evil:1"] {
            assert!(!host_allowed(bad, addr), "{bad}");
        }
        let lan: std::net::SocketAddr = "192.168.1.5:80".parse().unwrap();
        assert!(host_allowed("192.168.1.5", lan));
        assert!(same(b"abc", b"abc") && !same(b"abc", b"abd") && !same(b"abc", b"ab"));
    }
}
