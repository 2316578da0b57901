//! The stdio protocol's dispatcher: one line in, one line out, sessions named by `session`.
//!
//! Pure (bytes in, a string out), so the command (`netpress env --stdio`), its tests and the
//! `env_protocol` fuzz target drive the same code. Every line gets exactly one response, in
//! order; a bad line gets an error and changes nothing; a panic inside a step closes that
//! session only. With a sandbox pool ([`Dispatcher::with_sandbox`]) sandboxed applications'
//! turns run in its processes, as the server's do; without one their resets are refused.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::{Value, json};

use super::error::{Code, EnvError, Reason};
use super::message::{self, Limits, Request};
use super::params::Defaults;
use super::session::{Session, StepResult};
use crate::conversation::{AgentError, AgentReply};
use crate::registry::Registry;

type Turn = Result<AgentReply, AgentError>;

/// The session a line without `session` addresses.
pub const DEFAULT_SESSION: &str = "default";

/// The sessions of one stdio stream.
pub struct Dispatcher {
    registry: &'static Registry,
    defaults: Defaults,
    limits: Limits,
    sessions: BTreeMap<String, Session>,
    mint: Box<dyn FnMut() -> String + Send>,
    /// Where sandboxed turns run (`None`: sandboxed applications are refused).
    #[cfg(not(target_arch = "wasm32"))]
    pool: Option<super::pool::SandboxPool>,
}

impl Dispatcher {
    /// A dispatcher over `registry`; `mint` makes an `episode_id` when a reset names none.
    pub fn new(
        registry: &'static Registry,
        defaults: Defaults,
        limits: Limits,
        mint: Box<dyn FnMut() -> String + Send>,
    ) -> Self {
        Dispatcher {
            registry,
            defaults,
            limits,
            sessions: BTreeMap::new(),
            mint,
            #[cfg(not(target_arch = "wasm32"))]
            pool: None,
        }
    }

    /// Runs sandboxed applications' turns in `pool`'s processes instead of refusing them.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_sandbox(mut self, pool: super::pool::SandboxPool) -> Self {
        self.pool = Some(pool);
        self
    }

    /// Whether sandboxed applications' resets are taken.
    fn sandboxed(&self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        return self.pool.is_some();
        #[cfg(target_arch = "wasm32")]
        false
    }

    /// One turn of `session`, where it must run (a sandboxed turn in a sandbox process).
    fn step(&self, session: &mut Session, turn: Turn) -> Result<StepResult, EnvError> {
        #[cfg(not(target_arch = "wasm32"))]
        return guarded(AssertUnwindSafe(|| {
            super::pooled::step(self.registry, self.pool.as_ref(), session, turn)
        }))?;
        #[cfg(target_arch = "wasm32")]
        guarded(AssertUnwindSafe(|| session.step(turn)))
    }

    /// Sessions open.
    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }

    /// Closes every session (end of input).
    pub fn close_all(&mut self) {
        self.sessions.clear();
    }

    /// Answers one line (without its newline) with one JSON line (without a newline).
    pub fn handle(&mut self, line: &[u8]) -> String {
        let parsed = message::parse(line, self.limits.max_body, true);
        let name = parsed.session.unwrap_or_else(|| DEFAULT_SESSION.to_string());
        let mut out = match parsed.request {
            Ok(request) => self.serve(&name, request).unwrap_or_else(|e| message::error(&e)),
            Err(e) => message::error(&e),
        };
        if let Some(id) = parsed.id {
            out.insert("id".into(), id);
        }
        out.insert("session".into(), Value::String(name));
        Value::Object(out).to_string()
    }

    fn serve(&mut self, name: &str, request: Request) -> Result<serde_json::Map<String, Value>, EnvError> {
        match request {
            Request::Ping => Ok(message::reply("pong", json!({}))),
            Request::Info => Ok(message::reply("info", message::info(self.registry, &self.limits))),
            Request::Reset(params) => {
                if !self.sessions.contains_key(name) && self.sessions.len() >= self.limits.max_sessions {
                    return Err(EnvError::new(
                        Reason::Sessions,
                        format!(
                            "{} sessions are open, the most allowed; close one first",
                            self.sessions.len()
                        ),
                    ));
                }
                let sandboxed = self.sandboxed();
                let resolved = guarded(|| params.resolve_with(self.registry, &self.defaults, sandboxed))??;
                let mint = &mut self.mint;
                let (session, result) = guarded(|| Session::start(resolved, mint))?;
                self.sessions.insert(name.to_string(), session);
                Ok(message::observation(&result))
            }
            Request::Step(action) => {
                let turn = action.into_turn()?;
                let mut session = self.sessions.remove(name).ok_or_else(|| unknown_session(name))?;
                let stepped = self.step(&mut session, turn);
                // A panic or a lost step leaves the episode in an unknown state and closes the
                // session; a refusal (a full sandbox queue) left it as it was.
                if !matches!(&stepped, Err(e) if e.code == Code::ExecutionError) {
                    self.sessions.insert(name.to_string(), session);
                }
                Ok(message::observation(&stepped?))
            }
            Request::State => Ok(message::state(&self.session(name)?.state())),
            Request::Close => {
                let session = self.sessions.remove(name).ok_or_else(|| unknown_session(name))?;
                Ok(message::closed(session.episode_id()))
            }
        }
    }

    fn session(&mut self, name: &str) -> Result<&mut Session, EnvError> {
        self.sessions.get_mut(name).ok_or_else(|| unknown_session(name))
    }
}

fn unknown_session(name: &str) -> EnvError {
    EnvError::new(
        Reason::UnknownSession,
        format!("no session {name:?} (never reset, or closed): send reset first"),
    )
}

/// Runs `f`, turning a panic into `EXECUTION_ERROR`/`PANIC` (the caller closes the session).
pub fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, EnvError> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        EnvError::new(
            Reason::Panic,
            format!("internal error while serving the request ({what}); the session is closed"),
        )
    })
}

/// `episode_id`s from a counter, for tests and fuzzing (`env-1`, `env-2`, …).
pub fn counter_ids() -> Box<dyn FnMut() -> String + Send> {
    let mut n = 0u64;
    Box::new(move || {
        n += 1;
        format!("env-{n}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dispatcher() -> Dispatcher {
        Dispatcher::new(Registry::standard(), Defaults::default(), Limits::default(), counter_ids())
    }

    fn ask(d: &mut Dispatcher, line: &str) -> Value {
        serde_json::from_str(&d.handle(line.as_bytes())).unwrap()
    }

    #[test]
    fn a_session_resets_steps_and_closes() {
        let mut d = dispatcher();
        let r = ask(&mut d, r#"{"type":"reset","data":{"task_id":"k8s-v1-L1-s0-i0"},"id":7}"#);
        assert_eq!(
            (r["type"].as_str(), &r["id"], &r["session"]),
            (Some("observation"), &json!(7), &json!("default"))
        );
        assert_eq!(r["data"]["reward"], Value::Null);
        assert_eq!(r["data"]["observation"]["episode_id"], "env-1");
        assert!(r["data"]["observation"].get("score").is_none());
        let s = ask(&mut d, r#"{"type":"step","data":{"reply":"kubectl get pods -A"}}"#);
        assert_eq!(s["data"]["observation"]["turn"], 1);
        assert_eq!(s["data"]["reward"], 0.0);
        let st = ask(&mut d, r#"{"type":"state"}"#);
        assert_eq!((st["type"].as_str(), &st["data"]["step_count"]), (Some("state"), &json!(1)));
        let c = ask(&mut d, r#"{"type":"close"}"#);
        assert_eq!(c["data"], json!({"episode_id": "env-1", "closed": true}));
        let gone = ask(&mut d, r#"{"type":"state"}"#);
        assert_eq!(gone["data"]["reason"], "UNKNOWN_SESSION");
    }

    #[test]
    fn bad_lines_get_errors_and_the_loop_goes_on() {
        let mut d = dispatcher();
        let cases: [(&[u8], &str); 6] = [
            (b"not json", "NOT_JSON"),
            (b"[1]", "NOT_JSON"),
            (b"\xff\xfe", "NOT_UTF8"),
            (br#"{"type":"dance","id":"x"}"#, "UNKNOWN_TYPE"),
            (br#"{"type":"ping","extra":1}"#, "UNKNOWN_FIELD"),
            (br#"{"type":"step","data":{"reply":"x"}}"#, "UNKNOWN_SESSION"),
        ];
        for (line, reason) in cases {
            let v: Value = serde_json::from_str(&d.handle(line)).unwrap();
            assert_eq!(
                (v["type"].as_str(), v["data"]["reason"].as_str()),
                (Some("error"), Some(reason)),
                "{v}"
            );
        }
        assert_eq!(ask(&mut d, r#"{"type":"ping","id":"x"}"#)["type"], "pong");
    }

    #[test]
    fn capacity_and_size_limits() {
        let limits = Limits { max_sessions: 1, max_body: 200, ..Limits::default() };
        let mut d = Dispatcher::new(Registry::standard(), Defaults::default(), limits, counter_ids());
        let reset = |s: &str| {
            format!(r#"{{"type":"reset","session":"{s}","data":{{"task_id":"route-v1-L1-s0-i0"}}}}"#)
        };
        assert_eq!(ask(&mut d, &reset("a"))["type"], "observation");
        assert_eq!(ask(&mut d, &reset("a"))["type"], "observation", "a reset of a live session replaces it");
        assert_eq!(ask(&mut d, &reset("b"))["data"]["reason"], "SESSIONS");
        let long = format!(r#"{{"type":"step","session":"a","data":{{"reply":"{}"}}}}"#, "x".repeat(300));
        assert_eq!(ask(&mut d, &long)["data"]["reason"], "BODY_TOO_LARGE");
        assert_eq!(d.sessions(), 1);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    /// Lines built from the protocol's own words, so that sequences reach real sessions.
    fn line() -> impl Strategy<Value = String> {
        let kind = prop::sample::select(vec!["reset", "step", "state", "close", "info", "ping", "dance"]);
        let session = prop::sample::select(vec!["a", "b", "default"]);
        let data = prop::sample::select(vec![
            r#"{"task_id":"route-v1-L1-s0-i0"}"#.to_string(),
            r#"{"task_id":"k8s-v1-L1-s1-i0","reward":{"dense":true,"gamma":0.5},"record":true}"#.into(),
            r#"{"reply":"kubectl get pods -A"}"#.into(),
            r#"{"reply":"h1: ip route"}"#.into(),
            r#"{"error":"timeout","fatal":false}"#.into(),
            r#"{"reply":"x","error":"y"}"#.into(),
            r#"{"app":"route","level":7}"#.into(),
            "null".into(),
            "[]".into(),
        ]);
        (kind, session, data)
            .prop_map(|(k, s, d)| format!(r#"{{"type":"{k}","session":"{s}","data":{d},"id":1}}"#))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any bytes get one JSON object with a type, the session and nothing else.
        #[test]
        fn arbitrary_bytes_get_one_typed_answer(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let mut d = Dispatcher::new(Registry::standard(), Defaults::default(), Limits::default(), counter_ids());
            let v: Value = serde_json::from_str(&d.handle(&bytes)).unwrap();
            prop_assert!(v["type"].is_string());
        }

        /// Sequences of well-formed and malformed requests: every answer is typed, a reward is
        /// present after every step that is not an error, and errors change no session count.
        #[test]
        fn sequences_keep_the_invariants(lines in prop::collection::vec(line(), 1..12)) {
            let mut d = Dispatcher::new(Registry::standard(), Defaults::default(), Limits::default(), counter_ids());
            for l in lines {
                let before = d.sessions();
                let v: Value = serde_json::from_str(&d.handle(l.as_bytes())).unwrap();
                let kind = v["type"].as_str().unwrap_or_default().to_string();
                prop_assert!(["observation", "state", "closed", "info", "pong", "error"].contains(&kind.as_str()), "{}", v);
                prop_assert_eq!(&v["id"], &json!(1));
                if kind == "error" {
                    prop_assert_eq!(d.sessions(), before);
                }
                if kind == "observation" && l.contains(r#""type":"step""#) {
                    prop_assert!(v["data"]["reward"].is_number());
                }
            }
        }
    }
}
