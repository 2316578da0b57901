//! The environment server under bounded load on loopback (docs/env.md, "Performance"): the
//! server in-process on an ephemeral 127.0.0.1 port and three measurements, each stopping by
//! itself (a count or a time limit, whichever comes first).
//!
//! - load: N WebSocket sessions, each on its own client thread, sending steps of one registered
//!   application (`--app NAME`, K8s by default; each step the baseline's opening reply, as
//!   `server::load` sends it, resetting when an episode ends); steps per second and the p50/p99
//!   round trip of a step, for 1, 100 and 1,000 sessions;
//! - idle memory: N sessions opened over HTTP (a reset each, then nothing), the resident memory
//!   of a fresh process of this benchmark before and after, per session, for every registered
//!   application whose steps need no sandbox processes (this server has none);
//! - soak: whole three-turn episodes of the load's application over many WebSocket sessions;
//!   resident memory once a tenth of the episodes are done and at the end (a leak shows as
//!   growth between the two).
//!
//! ```text
//! cargo bench --bench serve --no-default-features --features server              # full sizes
//! cargo bench --bench serve --no-default-features --features server -- --quick   # CI-sized
//! cargo bench --bench serve --no-default-features --features server -- 1000 4000 # load only: sessions, steps
//! cargo bench --bench serve --no-default-features --features server -- --app bgp # another application
//! ```
//!
//! Not a criterion benchmark: the figures are distributions over concurrent clients and memory
//! levels, which criterion's one-closure timing does not model. Memory is the whole process's
//! (server and clients; Linux `/proc/self/statm`), so per-session figures are upper bounds.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use netpress::registry::Registry;
use netpress::server::load::{Family, Load, Transport};
use netpress::server::{Config, Server};
use serde_json::{Value, json};
use tungstenite::Message;

/// The sizes of one run.
struct Sizes {
    load_steps: usize,
    load_time: Duration,
    idle_sessions: usize,
    soak_episodes: usize,
    soak_sessions: usize,
    soak_time: Duration,
}

const FULL: Sizes = Sizes {
    load_steps: 20_000,
    load_time: Duration::from_secs(20),
    idle_sessions: 4096,
    soak_episodes: 10_000,
    soak_sessions: 512,
    soak_time: Duration::from_secs(120),
};

/// `cargo test --benches`: every part once, at a size that proves nothing about speed.
const SMOKE: Sizes = Sizes {
    load_steps: 1_000,
    load_time: Duration::from_secs(2),
    idle_sessions: 100,
    soak_episodes: 100,
    soak_sessions: 8,
    soak_time: Duration::from_secs(5),
};

const QUICK: Sizes = Sizes {
    load_steps: 3_000,
    load_time: Duration::from_secs(10),
    idle_sessions: 1000,
    soak_episodes: 2_000,
    soak_sessions: 64,
    soak_time: Duration::from_secs(30),
};

fn start(max_sessions: usize) -> Server {
    let mut config = Config { bind: "127.0.0.1:0".parse().unwrap(), ..Config::default() };
    config.limits.max_sessions = max_sessions;
    Server::start(Registry::standard(), config).expect("server")
}

/// Resident memory of this process in bytes (0 where `/proc` is missing).
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    pages * 4096
}

/// A WebSocket session: sends a message, reads the answer.
struct Ws(tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>);

impl Ws {
    fn connect(url: &str) -> Ws {
        Ws(tungstenite::connect(url).expect("connect").0)
    }

    fn ask(&mut self, m: &Value) -> Value {
        self.0.send(Message::text(m.to_string())).expect("send");
        serde_json::from_str(self.0.read().expect("read").to_text().expect("text")).expect("JSON")
    }
}

fn reset(family: Family, seed: usize, max_turns: u32) -> Value {
    json!({"type": "reset", "data": {"task_id": family.task_id(seed), "max_turns": max_turns}})
}

/// A step of `family`'s episode whose prompt is `prompt`, as the load sends it.
fn step(family: Family, prompt: &str) -> Value {
    json!({"type": "step", "data": {"reply": family.reply(prompt).expect("the baseline's reply")}})
}

/// The load of `netpress bench --serve ws` (`server::load`).
fn load(family: Family, sessions: usize, total_steps: usize, limit: Duration) {
    let server = start(sessions.max(4096));
    let load = Load::new(Transport::Ws, family, sessions, total_steps, limit);
    let report = netpress::server::load::run(server.addr(), &load);
    println!("{}", report.expect("the load run"));
    server.shutdown().expect("shutdown");
}

/// POST /reset on a fresh connection; the answer's status.
fn http_reset(addr: SocketAddr, body: &Value) -> u16 {
    let mut stream = TcpStream::connect(addr).expect("connect");
    let body = body.to_string();
    let head = format!(
        "POST /reset HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes())).expect("send");
    let mut raw = String::new();
    let _ = stream.read_to_string(&mut raw);
    raw.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// Runs `idle_memory` in a fresh process of this benchmark: memory the earlier measurements
/// freed would otherwise be reused and hide the sessions' own.
fn idle_memory_apart(family: Family, sessions: usize) {
    let exe = std::env::current_exe().expect("the benchmark's path");
    let out = std::process::Command::new(exe)
        .args(["--idle-child", family.name(), &sessions.to_string()])
        .output()
        .expect("idle child");
    print!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn idle_memory(family: Family, sessions: usize) {
    let (server, app) = (start(sessions), family.name());
    let before = rss();
    for seed in 0..sessions {
        let status = http_reset(server.addr(), &json!({"task_id": family.task_id(seed)}));
        assert_eq!(status, 200, "reset {seed}");
    }
    let after = rss();
    println!(
        "idle, http, {sessions:>4} {app} sessions: RSS {:.1} MiB -> {:.1} MiB, {:.1} KiB a session",
        before as f64 / 1048576.0,
        after as f64 / 1048576.0,
        after.saturating_sub(before) as f64 / sessions as f64 / 1024.0
    );
    server.shutdown().expect("shutdown");
}

fn soak(family: Family, sizes: &Sizes) {
    let server = start(4096);
    let url = format!("ws://{}/ws", server.addr());
    let done = Arc::new(AtomicUsize::new(0));
    let (target, deadline) = (sizes.soak_episodes, Instant::now() + sizes.soak_time);
    let start = Instant::now();
    let threads: Vec<_> = (0..sizes.soak_sessions)
        .map(|i| {
            let (url, done) = (url.clone(), done.clone());
            std::thread::spawn(move || {
                let mut ws = Ws::connect(&url);
                let mut seed = i;
                while done.load(Ordering::Relaxed) < target && Instant::now() < deadline {
                    let answer = ws.ask(&reset(family, seed, 3));
                    let step =
                        step(family, answer["data"]["observation"]["text"].as_str().expect("a prompt"));
                    while ws.ask(&step)["data"]["done"] != true {}
                    done.fetch_add(1, Ordering::Relaxed);
                    seed += 1;
                }
            })
        })
        .collect();
    let tenth = target / 10;
    while done.load(Ordering::Relaxed) < tenth && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let early = rss();
    for t in threads {
        t.join().expect("soak client");
    }
    let late = rss();
    let n = done.load(Ordering::Relaxed);
    println!(
        "soak, ws, {}, {} sessions: {n} episodes in {:.1} s; RSS {:.1} MiB after {tenth}, {:.1} MiB at the end ({:+.1}%)",
        family.name(),
        sizes.soak_sessions,
        start.elapsed().as_secs_f64(),
        early as f64 / 1048576.0,
        late as f64 / 1048576.0,
        (late as f64 / early.max(1) as f64 - 1.0) * 100.0
    );
    server.shutdown().expect("shutdown");
}

/// The registered application called `name`; exits with the registry's one-line reason for
/// any other.
fn family(name: &str) -> Family {
    Family::of(Registry::standard(), name).unwrap_or_else(|e| {
        eprintln!("--app: {e}");
        std::process::exit(2)
    })
}

/// The value of `--app` (k8s without one).
fn app_arg(args: &[String]) -> &str {
    args.iter().position(|a| a == "--app").and_then(|i| args.get(i + 1)).map_or("k8s", String::as_str)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, app, n, ..] = args.as_slice()
        && flag == "--idle-child"
    {
        return idle_memory(family(app), n.parse().expect("a session count"));
    }
    let stepped = family(app_arg(&args));
    if stepped.sandboxed() {
        // This server has no sandbox processes; `netpress bench --serve` starts them.
        eprintln!(
            "--app: {} runs in sandbox processes: load it with `netpress bench --serve ws`",
            stepped.name()
        );
        std::process::exit(2);
    }
    let numbers: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if let [sessions, steps, ..] = numbers.as_slice() {
        return load(stepped, *sessions, *steps, FULL.load_time);
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` (CI) passes neither flag and
    // gets a smoke run that only shows every part still works, unoptimised in seconds.
    let sizes = match (args.iter().any(|a| a == "--quick"), args.iter().any(|a| a == "--bench")) {
        (true, _) => &QUICK,
        (false, true) => &FULL,
        (false, false) => &SMOKE,
    };
    for sessions in [1, 100, 1000] {
        load(stepped, sessions, sizes.load_steps, sizes.load_time);
    }
    for app in Registry::standard().apps() {
        let family = family(app.info().name);
        if !family.sandboxed() {
            idle_memory_apart(family, sizes.idle_sessions);
        }
    }
    soak(stepped, sizes);
}
