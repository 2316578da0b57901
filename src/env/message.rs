//! The protocol's messages: `{"type", "data"}` in, `{"type", "data"}` out, the WebSocket's
//! shapes, which stdio extends with `session` and `id`. Parsing is typed and strict: a
//! message is UTF-8 JSON, an object, with known fields only, within the size limit.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::error::{EnvError, Reason};
use super::params::ResetParams;
use super::session::{Action, State, StepResult};
use crate::registry::Registry;

/// What one message asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Reset(Box<ResetParams>),
    Step(Action),
    State,
    Close,
    /// stdio only: the applications, spaces and limits.
    Info,
    /// stdio only: `pong`.
    Ping,
}

/// The envelope of a stdio line (a WebSocket message has no `session` or `id`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    #[serde(rename = "type")]
    kind: String,
    data: Option<Value>,
    session: Option<String>,
    id: Option<Value>,
}

/// A parsed message: its request (or why it has none) and what the reply echoes.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub request: Result<Request, EnvError>,
    /// The `session` field (stdio), if sent.
    pub session: Option<String>,
    /// The `id` field (stdio), echoed in the reply.
    pub id: Option<Value>,
}

/// Parses one message of at most `max_bytes`. `stdio` allows the `session` and `id` fields.
pub fn parse(bytes: &[u8], max_bytes: usize, stdio: bool) -> Parsed {
    let fail = |e: EnvError| Parsed { request: Err(e), session: None, id: None };
    if bytes.len() > max_bytes {
        return fail(EnvError::new(
            Reason::BodyTooLarge,
            format!("the message has {} bytes; the limit is {max_bytes}", bytes.len()),
        ));
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return fail(EnvError::new(Reason::NotUtf8, "the message is not UTF-8"));
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v @ Value::Object(_)) => v,
        Ok(other) => {
            return fail(EnvError::new(Reason::NotJson, format!("expected a JSON object, got {other}")));
        }
        Err(e) => return fail(EnvError::new(Reason::NotJson, format!("not JSON: {e}"))),
    };
    // The id is echoed even when the rest of the message is wrong.
    let id = if stdio { value.get("id").cloned() } else { None };
    let envelope = match serde_json::from_value::<Envelope>(value) {
        Ok(e) => e,
        Err(e) => return Parsed { request: Err(EnvError::from_serde("message", &e)), session: None, id },
    };
    if !stdio && (envelope.session.is_some() || envelope.id.is_some()) {
        let field = if envelope.session.is_some() { "session" } else { "id" };
        let e = EnvError::new(Reason::UnknownField, format!("message: unknown field `{field}` (stdio only)"));
        return Parsed { request: Err(e), session: None, id: None };
    }
    let request = request(&envelope.kind, envelope.data, stdio);
    Parsed { request, session: envelope.session, id }
}

fn request(kind: &str, data: Option<Value>, stdio: bool) -> Result<Request, EnvError> {
    Ok(match kind {
        "reset" => Request::Reset(Box::new(ResetParams::from_value(data)?)),
        "step" => Request::Step(Action::from_value(data)?),
        "state" => Request::State,
        "close" => Request::Close,
        "info" if stdio => Request::Info,
        "ping" if stdio => Request::Ping,
        other => {
            let known =
                if stdio { "reset, step, state, close, info, ping" } else { "reset, step, state, close" };
            return Err(EnvError::new(
                Reason::UnknownType,
                format!("unknown message type {other:?} (known: {known})"),
            ));
        }
    })
}

/// `{"type": kind, "data": data}`.
pub fn reply(kind: &str, data: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), json!(kind));
    m.insert("data".into(), data);
    m
}

/// `{"type": "observation", "data": {observation, reward, done}}`.
pub fn observation(result: &StepResult) -> Map<String, Value> {
    reply("observation", to_value(result))
}

/// `{"type": "state", "data": state}`.
pub fn state(state: &State) -> Map<String, Value> {
    reply("state", to_value(state))
}

/// `{"type": "error", "data": {code, reason, message}}`.
pub fn error(e: &EnvError) -> Map<String, Value> {
    reply("error", to_value(e))
}

/// `{"type": "closed", "data": {episode_id, closed: true}}`.
pub fn closed(episode_id: &str) -> Map<String, Value> {
    reply("closed", json!({"episode_id": episode_id, "closed": true}))
}

pub(crate) fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The limits a process enforces, as `info` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Limits {
    pub max_sessions: usize,
    /// A message (stdio line, WebSocket message, HTTP body), bytes.
    pub max_body: usize,
    pub max_reply: usize,
    pub max_turns: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_sessions: 4096,
            max_body: 1024 * 1024,
            max_reply: super::session::MAX_REPLY_BYTES,
            max_turns: super::params::MAX_TURNS,
        }
    }
}

/// `info`'s data: the protocol, the applications (levels, knobs), the spaces and the limits.
pub fn info(registry: &Registry, limits: &Limits) -> Value {
    let apps: Vec<Value> = registry
        .apps()
        .iter()
        .map(|app| {
            let i = app.info();
            json!({
                "name": i.name, "title": i.title, "version": i.version,
                "levels": i.levels.iter().map(|l| json!({"level": l.level, "summary": l.summary})).collect::<Vec<_>>(),
                "knobs": i.knobs.iter().map(|k| json!({"name": k.name, "key": k.key.to_string(), "help": k.help, "values": k.values})).collect::<Vec<_>>(),
                "default_max_turns": i.default_max_turns,
                "sandboxed": i.sandboxed,
            })
        })
        .collect();
    json!({
        "protocol": super::PROTOCOL,
        "netpress_version": crate::VERSION,
        "apps": apps,
        "spaces": {
            "action": {"type": "text", "max_bytes": limits.max_reply},
            "observation": {"type": "text"},
        },
        "limits": to_value(limits),
    })
}
