//! RIPEstat-shaped data calls, served offline: `ripestat CALL k=v…` or
//! `curl -s 'https://stat.ripe.net/data/CALL/data.json?k=v&…'`.
//!
//! Every answer has RIPEstat's envelope (`messages`, `see_also`, `version`, `data_call_name`,
//! …, `status`, `status_code`, `time`) around a `data` object with a subset of the documented
//! fields of that call (docs/bgp.md lists them). "Now" is the window's end; history goes back 30
//! days before the window. Bad input answers as RIPEstat does, with `status` "error", code 400
//! and the reason under `messages`.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use ipnet::IpNet;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::json::{Json, obj, pretty, v};
use super::view::{community, known_prefixes, peer_ip, spans, vrps_at, within};
use super::{Io, time};
use crate::bgp::collectors::{self, Feed};
use crate::bgp::rpki::Validity;
use crate::bgp::task::Task;

mod status;
#[cfg(test)]
mod tests;

/// What a `resource` parameter names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    Asn(u32),
    Prefix(IpNet),
    Ip(IpAddr),
}

impl Resource {
    /// Reads `AS64512`, `64512`, a prefix (no host bits) or an address.
    pub fn parse(text: &str) -> Option<Resource> {
        let digits = text.strip_prefix("AS").or_else(|| text.strip_prefix("as")).unwrap_or(text);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return digits.parse().ok().map(Resource::Asn);
        }
        if text.contains('/') {
            let net: IpNet = text.parse().ok()?;
            return (net.trunc() == net).then_some(Resource::Prefix(net));
        }
        text.parse().ok().map(Resource::Ip)
    }

    /// Whether routes to `p` concern a prefix or address resource.
    fn covers(self, p: IpNet) -> bool {
        match self {
            Resource::Prefix(r) => within(p, r),
            Resource::Ip(a) => p.contains(&a),
            Resource::Asn(_) => false,
        }
    }
}

/// The calls served and the parameters each accepts (beyond `resource`).
const CALLS: &[(&str, &[&str])] = &[
    ("announced-prefixes", &["starttime", "endtime", "min_peers_seeing"]),
    ("as-overview", &[]),
    ("asn-neighbours", &["starttime", "endtime", "lod", "query_time"]),
    ("bgp-updates", &["starttime", "endtime", "rrcs", "unix_timestamps"]),
    ("looking-glass", &["look_back_limit"]),
    ("prefix-overview", &["min_peers_seeing"]),
    ("routing-history", &["starttime", "endtime", "min_peers"]),
    ("routing-status", &["timestamp", "min_peers_seeing"]),
    ("rpki-validation", &["prefix"]),
    ("visibility", &["query_time", "include"]),
    ("whois", &[]),
];

/// Parameters every call ignores.
const IGNORED: &[&str] = &["sourceapp", "data_overload_limit", "preferred_version", "cache"];

/// `ripestat CALL k=v…`; status 22 for an error answer.
pub(crate) fn command(task: &Task, turn: u32, args: &[String], io: &mut Io) -> i32 {
    let Some(call) = args.first() else {
        return io.fail(2, "ripestat: usage: ripestat CALL resource=R [k=v ...]; see help");
    };
    let mut params = Vec::new();
    for a in &args[1..] {
        let Some((k, val)) = a.split_once('=') else {
            return io.fail(2, &format!("ripestat: expected key=value, not {a}"));
        };
        params.push((k.to_string(), val.to_string()));
    }
    let (body, ok) = respond(task, turn, call, &params, &args.join(" "));
    io.out(&body);
    if ok { 0 } else { 22 }
}

/// `curl [-s] [-f] URL` for RIPEstat's data API.
pub(crate) fn curl(task: &Task, turn: u32, args: &[String], io: &mut Io) -> i32 {
    let mut fail = false;
    let mut url = None;
    for a in args {
        match a.as_str() {
            "-s" | "-S" | "-sS" | "-L" | "-sL" | "-g" | "--silent" | "--compressed" => {}
            "-f" | "-sf" | "-fs" | "-sSf" | "-fsS" | "--fail" => fail = true,
            opt if opt.starts_with('-') => {
                return io.fail(
                    2,
                    &format!("curl: option {opt}: is unknown\ncurl: try 'curl --help' for more information"),
                );
            }
            u if url.is_none() => url = Some(u),
            _ => return io.fail(2, "curl: this lab fetches one URL per call"),
        }
    }
    let Some(url) = url else {
        return io.fail(2, "curl: no URL specified!\ncurl: try 'curl --help' for more information");
    };
    let parsed = Url::parse(url);
    if parsed.host != "stat.ripe.net" {
        return io.fail(6, &format!("curl: (6) Could not resolve host: {}", parsed.host));
    }
    let (body, ok) = respond(task, turn, &parsed.call, &parsed.params, url);
    if !ok && fail {
        return io.fail(22, "curl: (22) The requested URL returned error: 400");
    }
    io.out(&body);
    0
}

/// A data API URL taken apart: `https://stat.ripe.net/data/CALL/data.json?k=v&…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    pub host: String,
    /// The call's name (`whois`); the path as given when it is not under `data/`, so that the
    /// answer names what was asked for.
    pub call: String,
    /// The query's pairs, percent-decoded, in order; a key without `=` has an empty value.
    pub params: Vec<(String, String)>,
}

impl Url {
    /// Never fails: what is not a RIPEstat URL is refused later, by host or by call name.
    pub fn parse(url: &str) -> Url {
        let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://")).unwrap_or(url);
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        let (path, query) = path.split_once('?').unwrap_or((path, ""));
        let call = path
            .strip_prefix("data/")
            .map(|p| p.trim_end_matches('/').trim_end_matches("/data.json").trim_end_matches("data.json"))
            .unwrap_or(path)
            .trim_end_matches('/');
        let params = query
            .split('&')
            .filter(|kv| !kv.is_empty())
            .map(|kv| {
                let (k, val) = kv.split_once('=').unwrap_or((kv, ""));
                (decode(k), decode(val))
            })
            .collect();
        Url { host: host.to_string(), call: call.to_string(), params }
    }
}

/// Percent-decoding of a query component (`+` is a space). A `%` not followed by two hex
/// digits stays as it is, as browsers and curl leave it; bytes that do not make UTF-8 become
/// U+FFFD.
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len()
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit() =>
            {
                let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
                out.push(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
                i += 3;
                continue;
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The answer's text and whether it is a success.
pub fn respond(
    task: &Task,
    turn: u32,
    call: &str,
    params: &[(String, String)],
    query: &str,
) -> (String, bool) {
    let result = data(task, call, params);
    let ok = result.is_ok();
    let (data, messages) = match result {
        Ok(d) => (d, json!([])),
        Err(msg) => (json!({}), json!([["error", msg]])),
    };
    let end = task.world.clock.end();
    let mut h = Sha256::new();
    h.update(format!("{}|{turn}|{query}", task.id).as_bytes());
    let hex = crate::hash::hex(&h.finalize());
    let query_id = format!("{}-{}", time::stamp(end).replace('.', "") + "00", &hex[..16]);
    let envelope = obj(vec![
        ("messages", v(messages)),
        ("see_also", v(json!([]))),
        ("version", v("1.0")),
        ("data_call_name", v(call)),
        ("data_call_status", v("supported")),
        ("cached", v(false)),
        ("data", Json::from(data)),
        ("query_id", v(query_id)),
        ("process_time", v(0)),
        ("server_id", v("app000")),
        ("build_version", v("netpress.bgp.v1")),
        ("status", v(if ok { "ok" } else { "error" })),
        ("status_code", v(if ok { 200 } else { 400 })),
        ("time", v(time::iso(end))),
    ]);
    (pretty(&envelope), ok)
}

/// The parameters of one call, checked.
struct Query<'a> {
    task: &'a Task,
    params: BTreeMap<&'a str, &'a str>,
}

impl<'a> Query<'a> {
    fn resource(&self) -> Result<Resource, String> {
        let text = self.params.get("resource").ok_or("Missing parameter: resource")?;
        Resource::parse(text).ok_or_else(|| format!("The given resource is not valid: {text}"))
    }

    fn asn(&self) -> Result<u32, String> {
        match self.resource()? {
            Resource::Asn(a) => Ok(a),
            _ => Err(format!("The given resource is not valid: {}", self.params["resource"])),
        }
    }

    fn prefix_like(&self) -> Result<Resource, String> {
        match self.resource()? {
            Resource::Asn(_) => Err(format!("The given resource is not valid: {}", self.params["resource"])),
            r => Ok(r),
        }
    }

    /// `starttime`/`endtime`, clamped to what the tools show; default the window.
    fn window(&self) -> Result<(u64, u64), String> {
        let c = self.task.world.clock;
        let get = |key: &str, default: u64| -> Result<u64, String> {
            match self.params.get(key) {
                None => Ok(default),
                Some(t) => time::parse(t).map(|t| c.clamp(t)).ok_or_else(|| format!("Invalid {key}: {t}")),
            }
        };
        let (from, to) = (get("starttime", c.w0)?, get("endtime", c.end())?);
        if from > to {
            return Err("starttime is after endtime".into());
        }
        Ok((from, to))
    }
}

fn data(task: &Task, call: &str, params: &[(String, String)]) -> Result<Value, String> {
    let Some(&(_, allowed)) = CALLS.iter().find(|(c, _)| *c == call) else {
        return Err(format!("Unknown data call: {call}"));
    };
    for (k, _) in params {
        if k != "resource" && !allowed.contains(&k.as_str()) && !IGNORED.contains(&k.as_str()) {
            return Err(format!("Parameter {k} not supported by {call}"));
        }
    }
    let q = Query { task, params: params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect() };
    match call {
        "bgp-updates" => bgp_updates(&q),
        "looking-glass" => looking_glass(&q),
        "routing-history" => routing_history(&q),
        "announced-prefixes" => announced_prefixes(&q),
        "prefix-overview" => prefix_overview(&q),
        "as-overview" => as_overview(&q),
        "asn-neighbours" => asn_neighbours(&q),
        "rpki-validation" => rpki_validation(&q),
        "routing-status" => status::routing_status(&q),
        "visibility" => status::visibility(&q),
        _ => whois(&q),
    }
}

/// `NN-<peer ip>`, RIPEstat's name of a collector's peer.
fn source_id(task: &Task, k: usize, vp: usize, p: IpNet) -> String {
    format!("{k:02}-{}", peer_ip(task, vp, p))
}

fn comm_list(task: &Task, vp: usize, r: &crate::bgp::timeline::VpRoute) -> Value {
    json!(community(task, vp, r).map(|(a, b)| vec![format!("{a}:{b}")]).unwrap_or_default())
}

/// Prefixes ever originated by `asn`.
fn originated_by(task: &Task, asn: u32) -> BTreeSet<IpNet> {
    spans(task, |_| true).iter().filter(|s| s.origin() == Some(asn)).map(|s| s.prefix).collect()
}

fn bgp_updates(q: &Query<'_>) -> Result<Value, String> {
    let task = q.task;
    let res = q.resource()?;
    let (from, to) = q.window()?;
    let rrcs: Option<Vec<usize>> = match q.params.get("rrcs") {
        None => None,
        Some(list) => Some(
            list.split(',')
                .map(|r| r.trim().trim_start_matches("rrc").trim_start_matches("rc").parse::<usize>())
                .collect::<Result<_, _>>()
                .map_err(|_| format!("Invalid rrcs: {list}"))?,
        ),
    };
    let mine = match res {
        Resource::Asn(a) => originated_by(task, a),
        _ => BTreeSet::new(),
    };
    let unix = q.params.get("unix_timestamps").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let stamp = |t: u64| if unix { json!(t) } else { json!(time::iso(t)) };
    let mut out = Vec::new();
    for u in task.timeline.updates_between(from, to + 1) {
        let hit = match res {
            Resource::Asn(_) => mine.contains(&u.prefix),
            r => r.covers(u.prefix),
        };
        if !hit {
            continue;
        }
        for &k in &task.world.collectors.vps[u.vp].collectors {
            if rrcs.as_ref().is_some_and(|l| !l.contains(&k)) {
                continue;
            }
            let mut attrs = json!({"source_id": source_id(task, k, u.vp, u.prefix), "target_prefix": u.prefix.to_string()});
            if let Some(r) = &u.route {
                attrs["path"] = json!(r.path);
                attrs["community"] = comm_list(task, u.vp, r);
            }
            out.push(json!({
                "seq": out.len(),
                "timestamp": stamp(u.secs()),
                "type": if u.route.is_some() { "A" } else { "W" },
                "attrs": attrs,
            }));
        }
    }
    Ok(json!({
        "updates": out.clone(),
        "nr_updates": out.len(),
        "resource": q.params["resource"],
        "query_starttime": time::iso(from),
        "query_endtime": time::iso(to),
    }))
}

fn looking_glass(q: &Query<'_>) -> Result<Value, String> {
    let task = q.task;
    let res = q.prefix_like()?;
    let end = task.world.clock.end();
    let rib = task.timeline.rib_at(end);
    let mut rrcs = Vec::new();
    for k in 0..task.world.collectors.count {
        let feeding: Vec<usize> = task.world.collectors.feeding(k).collect();
        let peers: Vec<Value> = rib
            .iter()
            .filter(|e| feeding.contains(&e.vp) && res.covers(e.prefix))
            .map(|e| {
                let path: Vec<String> = e.route.path.iter().map(u32::to_string).collect();
                let comm =
                    community(task, e.vp, e.route).map(|(a, b)| format!("{a}:{b}")).unwrap_or_default();
                json!({
                    "asn_origin": e.route.path.last(),
                    "as_path": path.join(" "),
                    "community": comm,
                    "last_updated": time::iso(e.originated),
                    "prefix": e.prefix.to_string(),
                    "peer": peer_ip(task, e.vp, e.prefix).to_string(),
                    "origin": "IGP",
                    "next_hop": peer_ip(task, e.vp, e.prefix).to_string(),
                    "latest_time": time::iso(end),
                })
            })
            .collect();
        rrcs.push(
            json!({"rrc": collectors::name(k).to_uppercase(), "location": "NetPress lab", "peers": peers}),
        );
    }
    Ok(json!({"rrcs": rrcs, "query_time": time::iso(end), "latest_time": time::iso(end)}))
}

/// Spans of the routes a resource concerns: a prefix's and its more-specifics', or an AS's
/// originations.
fn spans_of<'t>(task: &'t Task, res: Resource) -> Vec<super::view::Span<'t>> {
    match res {
        Resource::Asn(a) => spans(task, |_| true).into_iter().filter(|s| s.origin() == Some(a)).collect(),
        r => spans(task, |p| r.covers(p)),
    }
}

/// Intervals where a count of peers is constant and positive, clipped to `[from, to]`.
fn sweep(intervals: &[(u64, u64)], from: u64, to: u64) -> Vec<(u64, u64, usize)> {
    let mut edges: BTreeMap<u64, i64> = BTreeMap::new();
    for &(a, b) in intervals {
        let (a, b) = (a.max(from), b.min(to));
        if a < b {
            *edges.entry(a).or_default() += 1;
            *edges.entry(b).or_default() -= 1;
        }
    }
    let mut out: Vec<(u64, u64, usize)> = Vec::new();
    let mut count = 0i64;
    let points: Vec<(u64, i64)> = edges.into_iter().collect();
    for w in 0..points.len() {
        count += points[w].1;
        let Some(&(next, _)) = points.get(w + 1) else { break };
        if count > 0 {
            match out.last_mut() {
                Some(last) if last.1 == points[w].0 && last.2 == count as usize => last.1 = next,
                _ => out.push((points[w].0, next, count as usize)),
            }
        }
    }
    out
}

fn routing_history(q: &Query<'_>) -> Result<Value, String> {
    let task = q.task;
    let res = q.resource()?;
    let (from, to) = q.window_or_history();
    let mut groups: BTreeMap<u32, BTreeMap<IpNet, Vec<(u64, u64)>>> = BTreeMap::new();
    for s in spans_of(task, res) {
        if task.world.collectors.vps[s.vp].feed != Feed::Full {
            continue;
        }
        if let Some(o) = s.origin() {
            groups.entry(o).or_default().entry(s.prefix).or_default().push((s.from, s.to));
        }
    }
    let by_origin: Vec<Value> = groups
        .into_iter()
        .map(|(origin, prefixes)| {
            let prefixes: Vec<Value> = prefixes
                .into_iter()
                .map(|(p, iv)| {
                    let timelines: Vec<Value> = sweep(&iv, from, to)
                        .into_iter()
                        .map(|(a, b, n)| json!({"starttime": time::iso(a), "endtime": time::iso(b), "full_peers_seeing": n}))
                        .collect();
                    json!({"prefix": p.to_string(), "timelines": timelines})
                })
                .filter(|p| p["timelines"].as_array().is_some_and(|t| !t.is_empty()))
                .collect();
            json!({"origin": origin.to_string(), "prefixes": prefixes})
        })
        .filter(|o| o["prefixes"].as_array().is_some_and(|p| !p.is_empty()))
        .collect();
    let full = |v6: bool| {
        task.world
            .collectors
            .vps
            .iter()
            .filter(|v| {
                v.feed == Feed::Full
                    && (!v6 || task.world.topology.prefixes.iter().any(|p| p.net.addr().is_ipv6()))
            })
            .count()
    };
    Ok(json!({
        "by_origin": by_origin,
        "latest_max_ff_peers": {"v4": full(false), "v6": full(true)},
        "time_granularity": 1,
        "resource": q.params["resource"],
        "query_starttime": time::iso(from),
        "query_endtime": time::iso(to),
    }))
}

impl Query<'_> {
    /// `starttime`/`endtime` defaulting to the whole history (routing-history, announced-prefixes).
    fn window_or_history(&self) -> (u64, u64) {
        let c = self.task.world.clock;
        let get = |key: &str, default: u64| {
            self.params.get(key).and_then(|t| time::parse(t)).map_or(default, |t| c.clamp(t))
        };
        let (a, b) = (get("starttime", c.history_start()), get("endtime", c.end()));
        (a.min(b), b)
    }
}

fn announced_prefixes(q: &Query<'_>) -> Result<Value, String> {
    let task = q.task;
    let asn = q.asn()?;
    let (from, to) = q.window_or_history();
    let mut by_prefix: BTreeMap<IpNet, Vec<(u64, u64)>> = BTreeMap::new();
    for s in spans_of(task, Resource::Asn(asn)) {
        by_prefix.entry(s.prefix).or_default().push((s.from, s.to));
    }
    let prefixes: Vec<Value> = by_prefix
        .into_iter()
        .map(|(p, iv)| {
            let merged = sweep(&iv, from, to);
            let mut spans: Vec<(u64, u64)> = Vec::new();
            for (a, b, _) in merged {
                match spans.last_mut() {
                    Some(last) if last.1 == a => last.1 = b,
                    _ => spans.push((a, b)),
                }
            }
            let tl: Vec<Value> = spans
                .iter()
                .map(|&(a, b)| json!({"starttime": time::iso(a), "endtime": time::iso(b)}))
                .collect();
            json!({"prefix": p.to_string(), "timelines": tl})
        })
        .filter(|p| p["timelines"].as_array().is_some_and(|t| !t.is_empty()))
        .collect();
    let c = task.world.clock;
    Ok(json!({
        "prefixes": prefixes,
        "resource": q.params["resource"],
        "query_starttime": time::iso(from),
        "query_endtime": time::iso(to),
        "latest_time": time::iso(c.end()),
        "earliest_time": time::iso(c.history_start()),
    }))
}

/// The special-purpose block a prefix is drawn from.
fn block(p: IpNet) -> Value {
    let (resource, desc) = match p {
        IpNet::V4(_) if "198.18.0.0/15".parse::<IpNet>().is_ok_and(|b| b.contains(&p)) => {
            ("198.18.0.0/15", "Benchmarking (RFC 2544), standing in for ordinary space")
        }
        IpNet::V4(_) => ("100.64.0.0/10", "Shared address space (RFC 6598), standing in for ordinary space"),
        IpNet::V6(_) => ("2001:db8::/32", "Documentation (RFC 3849), standing in for ordinary space"),
    };
    json!({"resource": resource, "desc": desc, "name": "IANA-SPECIAL"})
}

/// The longest prefix the routes ever carried that covers `a` (the address as a host prefix
/// if none does), which is what RIPEstat resolves an address resource to.
fn routed_prefix(task: &Task, a: IpAddr) -> IpNet {
    known_prefixes(task)
        .into_iter()
        .filter(|p| p.contains(&a))
        .max_by_key(|p| p.prefix_len())
        .unwrap_or_else(|| IpNet::from(a))
}

fn prefix_overview(q: &Query<'_>) -> Result<Value, String> {
    let task = q.task;
    let target = match q.prefix_like()? {
        Resource::Prefix(p) => p,
        Resource::Ip(a) => routed_prefix(task, a),
        Resource::Asn(_) => unreachable!("prefix_like refuses ASNs"),
    };
    let known = known_prefixes(task);
    let end = task.world.clock.end();
    let origins: BTreeSet<u32> = task
        .timeline
        .rib_at(end)
        .iter()
        .filter(|e| e.prefix == target)
        .filter_map(|e| e.route.path.last().copied())
        .collect();
    let t = &task.world.topology;
    let asns: Vec<Value> = origins
        .iter()
        .map(|&a| json!({"asn": a, "holder": t.index_of(a).map(|i| holder(task, i)).unwrap_or_default()}))
        .collect();
    let related: Vec<Value> = known
        .iter()
        .filter(|p| **p != target && (p.contains(&target) || target.contains(*p)))
        .map(|p| {
            let rel = if p.contains(&target) { "less-specific" } else { "more-specific" };
            json!({"prefix": p.to_string(), "relationship": rel})
        })
        .collect();
    Ok(json!({
        "is_less_specific": false,
        "announced": !origins.is_empty(),
        "asns": asns,
        "related_prefixes": related.clone(),
        "resource": target.to_string(),
        "type": "prefix",
        "block": block(target),
        "actual_num_related": related.len(),
        "query_time": time::iso(end),
        "num_filtered_out": 0,
    }))
}

/// `HANDLE - Organisation name`, as RIPEstat's holder strings read.
fn holder(task: &Task, i: usize) -> String {
    let t = &task.world.topology;
    format!("{} - {}", t.ases[i].handle, t.orgs[t.ases[i].org].name)
}

fn as_overview(q: &Query<'_>) -> Result<Value, String> {
    let task = q.task;
    let asn = q.asn()?;
    let end = task.world.clock.end();
    let announced = task.timeline.rib_at(end).iter().any(|e| e.route.path.last() == Some(&asn));
    let t = &task.world.topology;
    let (range, desc) = if asn >= 4_200_000_000 {
        ("4200000000-4294967294", "Private use (RFC 6996)")
    } else {
        ("64512-65534", "Private use (RFC 6996)")
    };
    let c = task.world.clock;
    Ok(json!({
        "type": "as",
        "resource": asn.to_string(),
        "block": {"resource": range, "desc": desc, "name": "IANA-PRIVATE"},
        "holder": t.index_of(asn).map(|i| holder(task, i)),
        "announced": announced,
        "query_starttime": time::iso(c.w0),
        "query_endtime": time::iso(c.end()),
    }))
}

fn asn_neighbours(q: &Query<'_>) -> Result<Value, String> {
    let task = q.task;
    let asn = q.asn()?;
    let (from, to) = q.window()?;
    // (neighbour, left?) -> (v4 VPs, v6 VPs)
    let mut seen: BTreeMap<(u32, bool), (BTreeSet<usize>, BTreeSet<usize>)> = BTreeMap::new();
    for s in spans(task, |_| true).into_iter().filter(|s| s.from <= to && s.to >= from) {
        let mut path = s.route.path.clone();
        path.dedup();
        for (i, &a) in path.iter().enumerate() {
            if a != asn {
                continue;
            }
            let mut add = |n: u32, left: bool| {
                let e = seen.entry((n, left)).or_default();
                if s.prefix.addr().is_ipv4() {
                    e.0.insert(s.vp)
                } else {
                    e.1.insert(s.vp)
                };
            };
            if i > 0 {
                add(path[i - 1], true);
            }
            if let Some(&n) = path.get(i + 1) {
                add(n, false);
            }
        }
    }
    let neighbours: Vec<Value> = seen
        .iter()
        .map(|(&(n, left), (v4, v6))| {
            json!({"asn": n, "type": if left { "left" } else { "right" }, "power": v4.len() + v6.len(), "v4_peers": v4.len(), "v6_peers": v6.len()})
        })
        .collect();
    let left = seen.keys().filter(|k| k.1).count();
    let right = seen.keys().filter(|k| !k.1).count();
    let unique: BTreeSet<u32> = seen.keys().map(|k| k.0).collect();
    let c = task.world.clock;
    Ok(json!({
        "neighbours": neighbours,
        "neighbour_counts": {"left": left, "right": right, "unique": unique.len(), "uncertain": 0},
        "resource": asn.to_string(),
        "query_starttime": time::iso(from),
        "query_endtime": time::iso(to),
        "latest_time": time::iso(c.end()),
        "earliest_time": time::iso(c.history_start()),
    }))
}

fn validity_name(v: Validity) -> &'static str {
    match v {
        Validity::Valid => "valid",
        Validity::NotFound => "unknown",
        Validity::InvalidLength => "invalid_length",
        Validity::InvalidAsn => "invalid_asn",
    }
}

fn rpki_validation(q: &Query<'_>) -> Result<Value, String> {
    let task = q.task;
    let asn = q.asn()?;
    let text = q.params.get("prefix").ok_or("Missing parameter: prefix")?;
    let prefix = match Resource::parse(text) {
        Some(Resource::Prefix(p)) => p,
        _ => return Err(format!("The given prefix is not valid: {text}")),
    };
    let vrps = vrps_at(task, task.world.clock.end());
    let roas: Vec<Value> = vrps
        .covering(prefix)
        .map(|r| {
            let one = crate::bgp::rpki::Vrps::new(&[*r]).validate(prefix, asn);
            json!({"origin": r.origin, "prefix": r.prefix.to_string(), "max_length": r.max_len, "validity": validity_name(one)})
        })
        .collect();
    Ok(json!({
        "validating_roas": roas,
        "status": validity_name(vrps.validate(prefix, asn)),
        "validator": "routinator",
        "resource": asn.to_string(),
        "prefix": prefix.to_string(),
    }))
}

fn record(pairs: &[(&str, String)]) -> Value {
    Value::Array(pairs.iter().map(|(k, val)| json!({"key": k, "value": val, "details_link": null})).collect())
}

/// A `route`/`route6` object in RPSL's attribute order, as RIPEstat lists IRR records.
fn route_object(task: &Task, o: &crate::bgp::irr::RouteObject) -> Value {
    let t = &task.world.topology;
    let who = &t.ases[o.origin];
    let class = if o.prefix.addr().is_ipv4() { "route" } else { "route6" };
    let when = format!("{}Z", time::iso(o.created));
    record(&[
        (class, o.prefix.to_string()),
        ("descr", t.orgs[who.org].name.clone()),
        ("origin", format!("AS{}", who.asn)),
        ("mnt-by", format!("{}-MNT", who.handle.split("-AS").next().unwrap_or(&who.handle))),
        ("created", when.clone()),
        ("last-modified", when),
        ("source", "NETPRESS".into()),
    ])
}

fn whois(q: &Query<'_>) -> Result<Value, String> {
    let task = q.task;
    let t = &task.world.topology;
    let res = q.resource()?;
    let end = task.world.clock.end();
    let (records, irr) = match res {
        Resource::Asn(a) => {
            let Some(i) = t.index_of(a) else {
                return Ok(
                    json!({"records": [], "irr_records": [], "authorities": ["netpress"], "resource": a.to_string(), "query_time": time::iso(end)}),
                );
            };
            let org = &t.orgs[t.ases[i].org];
            let rec = record(&[
                ("aut-num", format!("AS{a}")),
                ("as-name", t.ases[i].handle.clone()),
                ("descr", org.name.clone()),
                ("org", org.id.clone()),
                ("source", "NETPRESS".into()),
            ]);
            (vec![rec], Vec::new())
        }
        r => {
            // The world's prefixes and the churn's new ones, each with its holder.
            let held = t.prefixes.iter().map(|p| (p.net, p.owner));
            let found = held.chain(task.fresh.iter().map(|f| (f.prefix, f.owner))).filter(|&(net, _)| {
                r.covers(net)
                    || match r {
                        Resource::Prefix(q) => net.contains(&q),
                        Resource::Ip(a) => net.contains(&a),
                        Resource::Asn(_) => false,
                    }
            });
            let best = found.max_by_key(|&(net, _)| net.prefix_len());
            match best {
                None => (Vec::new(), Vec::new()),
                Some((net, holder)) => {
                    let owner = &t.ases[holder];
                    let org = &t.orgs[owner.org];
                    let key = if net.addr().is_ipv4() { "inetnum" } else { "inet6num" };
                    let rec = record(&[
                        (key, net.to_string()),
                        ("netname", format!("{}-NET", owner.handle.trim_end_matches("-AS"))),
                        ("descr", org.name.clone()),
                        ("org", org.id.clone()),
                        ("source", "NETPRESS".into()),
                    ]);
                    let irr = task.irr.at(net, end).map(|o| route_object(task, o)).collect();
                    (vec![rec], irr)
                }
            }
        }
    };
    Ok(json!({
        "records": records,
        "irr_records": irr,
        "authorities": ["netpress"],
        "resource": q.params["resource"],
        "query_time": time::iso(end),
    }))
}
