//! The environment server under a bounded closed-loop load on loopback (docs/env.md,
//! "Performance"): the server in-process on an ephemeral 127.0.0.1 port, N WebSocket
//! sessions each on its own client thread, each sending K8s steps (`kubectl get pods -A`,
//! resetting when an episode ends) until the step budget or the time limit is spent. Prints
//! steps per second and the p50/p99 round-trip latency of a step, for 1 and 100 sessions.
//!
//!     cargo bench --bench serve                  # 1 and 100 sessions, 20,000 steps each at most
//!     cargo bench --bench serve -- 1000 4000     # sessions, total steps
//!
//! Not a criterion benchmark: the figure is a distribution over concurrent clients, which
//! criterion's one-closure timing does not model. The load stops by itself (steps or 20 s).

use std::time::{Duration, Instant};

use netpress::registry::Registry;
use netpress::server::{Config, Server};
use serde_json::{Value, json};
use tungstenite::Message;

const TIME_LIMIT: Duration = Duration::from_secs(20);

/// One client: `steps` round trips (or until `deadline`); the latency of each, in µs.
fn client(url: String, seed: usize, steps: usize, deadline: Instant) -> Vec<u64> {
    let (mut ws, _) = tungstenite::connect(url).expect("connect");
    let mut ask = |m: &Value| -> Value {
        ws.send(Message::text(m.to_string())).expect("send");
        serde_json::from_str(ws.read().expect("read").to_text().expect("text")).expect("JSON")
    };
    let reset =
        json!({"type": "reset", "data": {"task_id": format!("k8s-v1-L1-s{seed}-i0"), "max_turns": 50}});
    let step = json!({"type": "step", "data": {"reply": "kubectl get pods -A"}});
    ask(&reset);
    let mut latencies = Vec::with_capacity(steps);
    while latencies.len() < steps && Instant::now() < deadline {
        let t = Instant::now();
        let answer = ask(&step);
        latencies.push(t.elapsed().as_micros() as u64);
        if answer["data"]["done"] == true {
            ask(&reset);
        }
    }
    latencies
}

fn run(sessions: usize, total_steps: usize) {
    let config = Config { bind: "127.0.0.1:0".parse().unwrap(), ..Config::default() };
    let server = Server::start(Registry::standard(), config).expect("server");
    let url = format!("ws://{}/ws", server.addr());
    let per = total_steps.div_ceil(sessions);
    let start = Instant::now();
    let deadline = start + TIME_LIMIT;
    let threads: Vec<_> = (0..sessions)
        .map(|i| {
            let url = url.clone();
            std::thread::spawn(move || client(url, i, per, deadline))
        })
        .collect();
    let mut all: Vec<u64> = threads.into_iter().flat_map(|t| t.join().expect("client")).collect();
    let elapsed = start.elapsed().as_secs_f64();
    all.sort_unstable();
    let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)] as f64 / 1000.0;
    println!(
        "ws, {sessions:>4} sessions: {:>6} steps in {elapsed:.2} s = {:>7.0} steps/s; step p50 {:.3} ms, p99 {:.3} ms",
        all.len(),
        all.len() as f64 / elapsed,
        pct(0.50),
        pct(0.99)
    );
    server.shutdown().expect("shutdown");
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    match args.as_slice() {
        [sessions, steps, ..] => run(*sessions, *steps),
        _ => {
            run(1, 20_000);
            run(100, 20_000);
        }
    }
}
