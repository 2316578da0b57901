//! A bounded load on a server over loopback: N active WebSocket (or HTTP keep-alive) sessions,
//! one client thread each, sending steps of one registered application until a step count or a
//! time limit, beside M idle sessions that were reset and then left open. Every client connects
//! and resets (and every idle session is opened) before the clock starts, so the figures are of
//! steps alone. `netpress bench --serve` and `benches/serve.rs` both run it.
//!
//! The application is any one of the registry's, by name ([`Family::of`]); nothing here names
//! one, so an application added to the registry can be load-tested with no change here. Each
//! episode is the application's task `<app>-v<current>-L1-sI-i0` (seed I) with a turn limit of
//! 50, and every step of it sends one reply: the application's own baseline agent's opening
//! reply to that task's prompt, computed once per episode before its steps are timed
//! ([`Family::reply`]). Where that opening move is read-only (K8s `kubectl get networkpolicies
//! -o json`, Route a dump of `r0`'s links, addresses, routes, rules and filters, BGP a
//! `ripestat` query on the reported prefix) the episode runs to its turn limit; where it is an
//! answer (MALT's, traffic's and microseg's program) it ends the episode, and a new one starts.
//!
//! Why the baseline's opening move and not a reply chosen per application: the baseline is the
//! one reply every application defines, so the load needs no per-application table, and its
//! opening move is what an agent's first step costs. Why not the baseline's whole play (a reply
//! to each observation): that would time fixes and re-derivations of the transcript on the
//! client rather than the server's step, and K8s and Route episodes would end after a few
//! turns. The steps of K8s and Route changed with this rule (they were `kubectl get pods -A` and
//! `ip route` on `r0`), so their figures before it are not comparable with later ones
//! (docs/env.md, "Performance"); MALT's step is the same as before.

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use crate::app::App;
use crate::conversation::Message;
use crate::registry::Registry;

/// The transport the load uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Ws,
    Http,
}

/// The application a load steps: one of a registry's, found by name. Serialised as its name.
#[derive(Clone, Copy)]
pub struct Family {
    app: &'static dyn App,
}

impl Family {
    /// The application of `registry` called `name`; a one-line reason naming the registered
    /// applications for any other.
    pub fn of(registry: &Registry, name: &str) -> Result<Family, String> {
        registry.app(name).map(|app| Family { app }).map_err(|e| e.to_string())
    }

    pub fn name(self) -> &'static str {
        self.app.info().name
    }

    /// Whether its steps run in the server's sandbox processes: the application's own flag,
    /// which is what the server and `env --stdio` decide by.
    pub fn sandboxed(self) -> bool {
        self.app.info().sandboxed
    }

    /// The task of `seed`: level 1, index 0, the application's current generator version.
    pub fn task_id(self, seed: usize) -> String {
        self.app.info().default_id(1, seed as u64, 0).to_string()
    }

    /// The reset's data for `seed`.
    pub fn reset_data(self, seed: usize) -> Value {
        json!({"task_id": self.task_id(seed), "max_turns": 50})
    }

    /// The reply every step of an episode whose prompt is `prompt` sends: the baseline's
    /// opening reply to it (see the module's notes for why).
    pub fn reply(self, prompt: &str) -> Result<String, String> {
        let opening = self.app.baseline().reply(&[Message::user(prompt)]);
        opening.map(|r| r.text).map_err(|e| format!("{}'s baseline has no reply: {}", self.name(), e.message))
    }
}

impl std::fmt::Debug for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for Family {
    fn eq(&self, other: &Family) -> bool {
        self.name() == other.name()
    }
}

impl Serialize for Family {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// What one load run is.
#[derive(Debug, Clone)]
pub struct Load {
    pub transport: Transport,
    pub family: Family,
    /// Sessions stepping, a client thread each.
    pub active: usize,
    /// Sessions reset before the clock starts and left open, unused, during the load.
    pub idle: usize,
    /// Steps the run stops after, over all active sessions.
    pub steps: usize,
    /// Time the run stops after, whatever the steps.
    pub limit: Duration,
}

impl Load {
    /// `active` sessions of `family`, no idle ones.
    pub fn new(transport: Transport, family: Family, active: usize, steps: usize, limit: Duration) -> Load {
        Load { transport, family, active, idle: 0, steps, limit }
    }

    /// Sessions the server must hold at once.
    pub fn sessions(&self) -> usize {
        self.active.max(1) + self.idle
    }
}

/// What one load run measured.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    pub transport: Transport,
    pub app: Family,
    /// The active sessions.
    pub sessions: usize,
    pub idle: usize,
    pub steps: usize,
    pub seconds: f64,
    pub steps_per_s: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    /// The same steps in-process (a sandboxed family's, whose steps the server runs in its
    /// sandbox processes): what the server adds is the difference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native: Option<super::roundtrip::Latency>,
}

impl std::fmt::Display for LoadReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = if self.transport == Transport::Ws { "ws" } else { "http" };
        write!(
            f,
            "load, {t}, {}, {:>4} active + {} idle sessions: {:>6} steps in {:.2} s = {:>7.0} steps/s; \
             step p50 {:.3} ms, p95 {:.3} ms, p99 {:.3} ms",
            self.app.name(),
            self.sessions,
            self.idle,
            self.steps,
            self.seconds,
            self.steps_per_s,
            self.p50_ms,
            self.p95_ms,
            self.p99_ms
        )?;
        if let Some(n) = &self.native {
            write!(
                f,
                "\nnative, {}: {:>6} steps; step p50 {:.3} ms, p95 {:.3} ms, p99 {:.3} ms (server p95 {:+.3} ms)",
                self.app.name(),
                n.steps,
                n.p50_ms,
                n.p95_ms,
                n.p99_ms,
                self.p95_ms - n.p95_ms
            )?;
        }
        Ok(())
    }
}

/// Percentiles of some latencies in µs, in ms: p50, p95, p99 (nearest rank, as the bench's);
/// zeros for none.
pub fn percentiles(samples: &mut [u64]) -> [f64; 3] {
    samples.sort_unstable();
    let ms: Vec<f64> = samples.iter().map(|&us| us as f64 / 1000.0).collect();
    [0.50, 0.95, 0.99].map(|q| crate::bench::nearest_rank(&ms, q))
}

/// One client's connection.
enum Conn {
    Ws(Box<tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>>),
    Http { reader: BufReader<TcpStream>, addr: SocketAddr, episode: String },
}

impl Conn {
    fn open(addr: SocketAddr, transport: Transport) -> Result<Conn, String> {
        Ok(match transport {
            Transport::Ws => {
                let (ws, _) = tungstenite::connect(format!("ws://{addr}/ws")).map_err(|e| e.to_string())?;
                Conn::Ws(Box::new(ws))
            }
            Transport::Http => {
                let stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
                stream.set_nodelay(true).map_err(|e| e.to_string())?;
                Conn::Http { reader: BufReader::new(stream), addr, episode: String::new() }
            }
        })
    }

    /// Starts the episode of `seed`; its prompt.
    fn reset(&mut self, family: Family, seed: usize) -> Result<String, String> {
        let data = family.reset_data(seed);
        let observation = match self {
            Conn::Ws(ws) => {
                ws_ask(ws, &json!({"type": "reset", "data": data}))?["data"]["observation"].take()
            }
            Conn::Http { reader, addr, episode } => {
                // The seed's own id: a reset after an episode ends replaces that session
                // rather than opening one more beside it.
                let mut data = data;
                data["episode_id"] = json!(format!("load-{seed}"));
                let mut answer = http_ask(reader, *addr, "/reset", &data)?;
                if !answer["observation"].is_object() {
                    return Err(format!("not an observation: {answer}"));
                }
                let observation = answer["observation"].take();
                *episode = observation_str(&observation, "episode_id")?;
                observation
            }
        };
        observation_str(&observation, "text")
    }

    /// One step; whether the episode is over.
    fn step(&mut self, reply: &str) -> Result<bool, String> {
        let action = json!({"reply": reply});
        let answer = match self {
            Conn::Ws(ws) => ws_ask(ws, &json!({"type": "step", "data": action}))?["data"].take(),
            Conn::Http { reader, addr, episode } => {
                http_ask(reader, *addr, "/step", &json!({"action": action, "episode_id": episode}))?
            }
        };
        match answer["done"].as_bool() {
            Some(done) => Ok(done),
            None => Err(format!("not an observation: {answer}")),
        }
    }
}

/// A string field of an observation, or what the server said instead.
pub(super) fn observation_str(observation: &Value, field: &str) -> Result<String, String> {
    observation[field]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("not an observation: {observation}"))
}

fn ws_ask(
    ws: &mut tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    m: &Value,
) -> Result<Value, String> {
    ws.send(tungstenite::Message::text(m.to_string())).map_err(|e| e.to_string())?;
    let answer = ws.read().map_err(|e| e.to_string())?;
    serde_json::from_str(answer.to_text().map_err(|e| e.to_string())?).map_err(|e| e.to_string())
}

/// A POST on a kept-alive connection; the answer's JSON body (by its Content-Length).
fn http_ask(
    reader: &mut BufReader<TcpStream>,
    addr: SocketAddr,
    path: &str,
    body: &Value,
) -> Result<Value, String> {
    let body = body.to_string();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let stream = reader.get_mut();
    stream
        .write_all(head.as_bytes())
        .and_then(|_| stream.write_all(body.as_bytes()))
        .map_err(|e| e.to_string())?;
    let mut length = 0;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Err("the server closed the connection".into());
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().map_err(|_| "a bad Content-Length")?;
        }
    }
    let mut buf = vec![0; length];
    reader.read_exact(&mut buf).map_err(|e| e.to_string())?;
    serde_json::from_slice(&buf).map_err(|e| e.to_string())
}

/// One client: `steps` round trips, or until `limit` has passed since every client was ready;
/// each step's latency in µs.
fn client(
    addr: SocketAddr,
    load: &Load,
    seed: usize,
    steps: usize,
    ready: &Barrier,
) -> Result<Vec<u64>, String> {
    let family = load.family;
    let opened = Conn::open(addr, load.transport).and_then(|mut c| c.reset(family, seed).map(|p| (c, p)));
    ready.wait();
    let (conn, prompt) = opened?;
    let conn = RefCell::new(conn);
    walk(
        family,
        steps,
        load.limit,
        prompt,
        || conn.borrow_mut().reset(family, seed),
        |reply| conn.borrow_mut().step(reply),
    )
}

/// Walks episodes of `family` for `steps` steps or until `limit`: the first episode's prompt
/// is `prompt`, `reset()` starts the next one and gives its prompt, `step(reply)` takes a turn
/// and says whether the episode is over. The latency of each step in µs. The load's clients
/// and [`super::roundtrip`]'s two ways of stepping all walk this way.
pub(super) fn walk(
    family: Family,
    steps: usize,
    limit: Duration,
    prompt: String,
    mut reset: impl FnMut() -> Result<String, String>,
    mut step: impl FnMut(&str) -> Result<bool, String>,
) -> Result<Vec<u64>, String> {
    let deadline = Instant::now() + limit;
    let mut latencies = Vec::with_capacity(steps);
    let mut reply = family.reply(&prompt)?;
    while latencies.len() < steps && Instant::now() < deadline {
        let t = Instant::now();
        let done = step(&reply)?;
        latencies.push(t.elapsed().as_micros() as u64);
        if done {
            reply = family.reply(&reset()?)?;
        }
    }
    Ok(latencies)
}

/// Opens `load.idle` sessions on seeds after the active ones', each reset and then left alone:
/// WebSocket sessions are their connections (kept here); HTTP sessions live on the server by
/// `episode_id`, so one kept-alive connection resets them all.
fn open_idle(addr: SocketAddr, load: &Load) -> Result<Vec<Conn>, String> {
    let first = load.active.max(1);
    let mut conns = Vec::new();
    for seed in first..first + load.idle {
        if conns.is_empty() || load.transport == Transport::Ws {
            conns.push(Conn::open(addr, load.transport)?);
        }
        let conn = conns.last_mut().expect("a connection was just opened");
        conn.reset(load.family, seed).map_err(|e| format!("idle session {}: {e}", seed - first + 1))?;
    }
    Ok(conns)
}

/// Runs `load` against the server at `addr`.
pub fn run(addr: SocketAddr, load: &Load) -> Result<LoadReport, String> {
    let sessions = load.active.max(1);
    let idle = open_idle(addr, load)?;
    let per = load.steps.div_ceil(sessions).max(1);
    let ready = Arc::new(Barrier::new(sessions + 1));
    let threads: Vec<_> = (0..sessions)
        .map(|i| {
            let (ready, load) = (ready.clone(), load.clone());
            std::thread::spawn(move || client(addr, &load, i, per, &ready))
        })
        .collect();
    ready.wait();
    let start = Instant::now();
    let mut all = Vec::with_capacity(per * sessions);
    for t in threads {
        all.extend(t.join().map_err(|_| "a load client panicked".to_string())??);
    }
    let seconds = start.elapsed().as_secs_f64();
    drop(idle);
    if all.is_empty() {
        return Err("no step finished within the time limit".into());
    }
    let [p50_ms, p95_ms, p99_ms] = percentiles(&mut all);
    Ok(LoadReport {
        transport: load.transport,
        app: load.family,
        sessions,
        idle: load.idle,
        steps: all.len(),
        seconds,
        steps_per_s: all.len() as f64 / seconds,
        p50_ms,
        p95_ms,
        p99_ms,
        native: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{Config, Server};

    #[test]
    fn every_registered_application_is_a_family_with_a_reply() {
        let registry = Registry::standard();
        for app in registry.apps() {
            let name = app.info().name;
            let family = Family::of(registry, name).expect(name);
            assert_eq!((family.name(), family.sandboxed()), (name, app.info().sandboxed));
            assert_eq!(serde_json::to_value(family).unwrap(), json!(name));
            let task = registry.generate(&family.task_id(3)).expect(name);
            let reply = family.reply(&task.prompt(Default::default())).expect(name);
            assert!(!reply.trim().is_empty(), "{name}: an empty opening reply");
        }
    }

    #[test]
    fn an_unknown_application_is_refused_naming_the_registered_ones() {
        let err = Family::of(Registry::standard(), "nonsense").expect_err("unknown");
        assert!(!err.contains('\n'), "{err}");
        assert!(
            err.contains("nonsense") && err.contains("malt, route, k8s, bgp, traffic, microseg"),
            "{err}"
        );
    }

    /// A short load of BGP, which the three families this load once had left out, over both
    /// transports on loopback.
    #[test]
    fn a_short_bgp_load_steps_over_loopback() {
        let family = Family::of(Registry::standard(), "bgp").expect("bgp");
        let config = Config { bind: "127.0.0.1:0".parse().expect("an address"), ..Config::default() };
        let server = Server::start(Registry::standard(), config).expect("the server");
        for transport in [Transport::Ws, Transport::Http] {
            let load = Load { idle: 1, ..Load::new(transport, family, 2, 6, Duration::from_secs(60)) };
            let report = run(server.addr(), &load).expect("the load run");
            assert_eq!((report.app, report.sessions, report.idle, report.steps), (family, 2, 1, 6));
            assert!(report.p99_ms >= report.p50_ms && report.steps_per_s > 0.0, "{report}");
        }
        server.shutdown().expect("shutdown");
    }

    /// The load's percentiles are the bench's nearest rank: of 1..=100 ms, p95 is 95 ms (it
    /// once read one rank above, 96 ms).
    #[test]
    fn percentiles_are_the_nearest_rank() {
        let mut us: Vec<u64> = (1..=100).rev().map(|ms| ms * 1000).collect();
        assert_eq!(percentiles(&mut us), [50.0, 95.0, 99.0]);
        assert_eq!(percentiles(&mut []), [0.0; 3]);
    }
}
