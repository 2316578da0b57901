//! A bounded load on a server over loopback: N WebSocket (or HTTP keep-alive) sessions, one
//! client thread each, sending K8s steps (`kubectl get pods -A` on `k8s-v1-L1-sI-i0`, a new
//! episode when one ends) until a step count or a time limit. Every client connects and resets
//! before the clock starts, so the figures are of steps alone. `netpress bench --serve` and
//! `benches/serve.rs` both run it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

/// The transport the load uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Ws,
    Http,
}

/// What one load run measured.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    pub transport: Transport,
    pub sessions: usize,
    pub steps: usize,
    pub seconds: f64,
    pub steps_per_s: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

impl std::fmt::Display for LoadReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = if self.transport == Transport::Ws { "ws" } else { "http" };
        write!(
            f,
            "load, {t}, {:>4} sessions: {:>6} steps in {:.2} s = {:>7.0} steps/s; step p50 {:.3} ms, p99 {:.3} ms",
            self.sessions, self.steps, self.seconds, self.steps_per_s, self.p50_ms, self.p99_ms
        )
    }
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

    /// Starts the episode of `seed`.
    fn reset(&mut self, seed: usize) -> Result<(), String> {
        let data = json!({"task_id": format!("k8s-v1-L1-s{seed}-i0"), "max_turns": 50});
        match self {
            Conn::Ws(ws) => ws_ask(ws, &json!({"type": "reset", "data": data})).map(drop),
            Conn::Http { reader, addr, episode } => {
                let answer = http_ask(reader, *addr, "/reset", &data)?;
                *episode = answer["observation"]["episode_id"].as_str().unwrap_or_default().to_string();
                Ok(())
            }
        }
    }

    /// One step; whether the episode is over.
    fn step(&mut self) -> Result<bool, String> {
        let action = json!({"reply": "kubectl get pods -A"});
        let answer = match self {
            Conn::Ws(ws) => ws_ask(ws, &json!({"type": "step", "data": action}))?["data"].take(),
            Conn::Http { reader, addr, episode } => {
                http_ask(reader, *addr, "/step", &json!({"action": action, "episode_id": episode}))?
            }
        };
        Ok(answer["done"] == true)
    }
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
    transport: Transport,
    seed: usize,
    steps: usize,
    limit: Duration,
    ready: &Barrier,
) -> Result<Vec<u64>, String> {
    let opened = Conn::open(addr, transport).and_then(|mut c| c.reset(seed).map(|()| c));
    ready.wait();
    let mut conn = opened?;
    let deadline = Instant::now() + limit;
    let mut latencies = Vec::with_capacity(steps);
    while latencies.len() < steps && Instant::now() < deadline {
        let t = Instant::now();
        let done = conn.step()?;
        latencies.push(t.elapsed().as_micros() as u64);
        if done {
            conn.reset(seed)?;
        }
    }
    Ok(latencies)
}

/// Runs `sessions` clients against the server at `addr` for `total_steps` steps over all of
/// them (or `limit`, whichever ends first).
pub fn run(
    addr: SocketAddr,
    transport: Transport,
    sessions: usize,
    total_steps: usize,
    limit: Duration,
) -> Result<LoadReport, String> {
    let sessions = sessions.max(1);
    let per = total_steps.div_ceil(sessions).max(1);
    let ready = Arc::new(Barrier::new(sessions + 1));
    let threads: Vec<_> = (0..sessions)
        .map(|i| {
            let ready = ready.clone();
            std::thread::spawn(move || client(addr, transport, i, per, limit, &ready))
        })
        .collect();
    ready.wait();
    let start = Instant::now();
    let mut all = Vec::with_capacity(per * sessions);
    for t in threads {
        all.extend(t.join().map_err(|_| "a load client panicked".to_string())??);
    }
    let seconds = start.elapsed().as_secs_f64();
    if all.is_empty() {
        return Err("no step finished within the time limit".into());
    }
    all.sort_unstable();
    let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)] as f64 / 1000.0;
    Ok(LoadReport {
        transport,
        sessions,
        steps: all.len(),
        seconds,
        steps_per_s: all.len() as f64 / seconds,
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
    })
}
