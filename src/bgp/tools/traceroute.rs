//! The results of `atlas traceroute` as RIPE Atlas's results API serves them: a JSON array of
//! one object per probe in the firmware-5000 layout, keys sorted, each result compact on one
//! line (docs/bgp.md, "Traceroutes").
//!
//! A hop is one AS of the data plane's path ([`crate::bgp::dataplane`]). A router answers with
//! an ICMP time-exceeded quoting the whole probe (76 bytes, 96 over IPv6) and the TTL it left
//! with, 255 − hop + 1; the destination answers the echo with the probe's 48 bytes and 64 −
//! hop + 1. The round-trip time of hop `n` is the sum of the link times along the path so far
//! (by region, [`Region::rtt_ms`](crate::bgp::region::Region::rtt_ms)), plus 0.4 ms per hop,
//! plus a jitter under 0.5 ms fixed by SHA-256 of the task, the measurement, the probe, the
//! hop and the packet. A hop no one answers is three `{"x": "*"}`; after five of those in a
//! row the probe gives up and reports hop 255 as three more.

use std::net::IpAddr;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::bgp::dataplane::{GIVE_UP, MAX_HOPS, Path, Plane, Reply};
use crate::bgp::probes::Probe;
use crate::bgp::task::Task;

/// Seconds an unanswered packet waits (Atlas's default response timeout).
const TIMEOUT: u64 = 4;

/// One call: the probes, the address and the time.
pub struct Request<'t> {
    pub probes: Vec<&'t Probe>,
    pub target: IpAddr,
    pub time: u64,
}

/// The measurement id: 20,000,000 plus a hash of the task and the call, so the same call on
/// the same task gets the same id.
fn msm_id(task: &Task, req: &Request<'_>) -> u64 {
    let ids: Vec<String> = req.probes.iter().map(|p| p.id.to_string()).collect();
    let call = format!("traceroute --probes {} --target {} --time {}", ids.join(","), req.target, req.time);
    20_000_000 + digest(&format!("{}|{call}", task.id)) % 1_000_000
}

fn digest(text: &str) -> u64 {
    let d = Sha256::digest(text.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_be_bytes(b)
}

/// The whole answer: `[`, one result per line, `]`.
pub fn render(task: &Task, req: &Request<'_>) -> String {
    let plane = Plane::at(task, req.target, req.time);
    let msm = msm_id(task, req);
    let lines: Vec<String> = req
        .probes
        .iter()
        .map(|p| result(task, p, &plane.forward(p.asx), req, msm))
        .map(|r| Value::Object(r).to_string())
        .collect();
    format!("[\n{}\n]\n", lines.join(",\n"))
}

/// What answered one hop: an address and whether it is the destination.
type Answer = Option<(IpAddr, bool)>;

fn answers(task: &Task, path: &Path, v6: bool, target: IpAddr) -> Vec<Answer> {
    let mut out: Vec<Answer> = path
        .replies(&task.world.topology, v6)
        .into_iter()
        .map(|r| match r {
            Reply::Router(a) => Some((a, false)),
            Reply::Destination => Some((target, true)),
            Reply::Silent => None,
        })
        .collect();
    if !path.delivered {
        out.resize(MAX_HOPS.max(out.len()), None);
    }
    out
}

fn result(task: &Task, probe: &Probe, path: &Path, req: &Request<'_>, msm: u64) -> Map<String, Value> {
    let v6 = req.target.is_ipv6();
    let src = if v6 { probe.v6.unwrap_or(probe.v4) } else { probe.v4 };
    let t = &task.world.topology;
    let mut hops = Vec::new();
    let (mut link_us, mut silent, mut lost) = (0u64, 0usize, 0u64);
    for (i, answer) in answers(task, path, v6, req.target).into_iter().enumerate() {
        let n = i + 1;
        if let (Some(h), Some(prev)) = (path.hops.get(i), i.checked_sub(1).and_then(|j| path.hops.get(j))) {
            let (a, b) = (t.ases[prev.asx].region, t.ases[h.asx].region);
            link_us += u64::from(a.rtt_ms(b)) * 1000;
        }
        let replies: Vec<Value> = match answer {
            None => {
                silent += 1;
                lost += 3;
                vec![json!({"x": "*"}); 3]
            }
            Some((from, dest)) => {
                silent = 0;
                let (size, ttl) = match (dest, v6) {
                    (true, _) => (48, 64 - n as i64 + 1),
                    (false, false) => (76, 255 - n as i64 + 1),
                    (false, true) => (96, 255 - n as i64 + 1),
                };
                (0..3)
                    .map(|k| {
                        let jitter = digest(&format!("{}|{msm}|{}|{n}|{k}", task.id, probe.id)) % 500;
                        let rtt = (link_us + 400 * n as u64 + jitter) as f64 / 1000.0;
                        json!({"from": from.to_string(), "rtt": rtt, "size": size, "ttl": ttl})
                    })
                    .collect()
            }
        };
        hops.push(json!({"hop": n, "result": replies}));
        if silent == GIVE_UP {
            hops.push(json!({"hop": 255, "result": vec![json!({"x": "*"}); 3]}));
            lost += 3;
            break;
        }
    }
    let af = if v6 { 6 } else { 4 };
    let fields = [
        ("af", json!(af)),
        ("dst_addr", json!(req.target.to_string())),
        ("dst_name", json!(req.target.to_string())),
        ("endtime", json!(req.time + 1 + TIMEOUT * lost)),
        ("from", json!(src.to_string())),
        ("fw", json!(5080)),
        ("group_id", json!(msm)),
        ("lts", json!(30)),
        ("msm_id", json!(msm)),
        ("msm_name", json!("Traceroute")),
        ("paris_id", json!(1)),
        ("prb_id", json!(probe.id)),
        ("proto", json!("ICMP")),
        ("result", Value::Array(hops)),
        ("size", json!(48)),
        ("src_addr", json!(src.to_string())),
        ("timestamp", json!(req.time)),
        ("type", json!("traceroute")),
    ];
    fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}
