//! The flow-log families (docs/traffic.md, "Flow families"): the tenant whose logs a flow
//! question reads, the connections those logs describe, the parameters drawn on them, the
//! exact truth and the reference Python over `F`.
//!
//! Why the truth is computed from the parsed log rows rather than from the model's
//! connections: the logs are all the agent sees, and they do not hold everything the model
//! knows (a connection still open when the trace ends has unlogged bytes, GCP logs no reply
//! direction and no denial). Recovering connections from rows by the documented rule (the
//! higher port is the initiator; each vantage sums its own records; vantages agree, so the
//! largest sum is the connection's) gives the answer the data determine, in every format.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::flows::format::{self, Inventory, Options, Record};
use crate::flows::graph::Graph;
use crate::flows::table::{RawSource, Table};
use crate::flows::tenant::dotted;
use crate::flows::{Format, Knobs, Layout, Scenario, T0, Tenant, TenantKey};
use crate::seed::{Stream, Width};

/// The tenant knobs a traffic id may set (`a d c k f`), defaults as docs/traffic.md gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowKnobs {
    pub a: u32,
    pub d: u32,
    pub c: u32,
    pub k: u32,
    /// The log format; `None` draws it (levels 3–4) or takes vnet4 (levels 1–2).
    pub f: Option<Format>,
    /// The instance scale N (the `n` knob when the graph source is `flows`).
    pub n: u32,
}

impl Default for FlowKnobs {
    fn default() -> Self {
        FlowKnobs { a: 2, d: 60, c: 200, k: 25, f: None, n: 4 }
    }
}

/// One connection as the logs describe it. Times in seconds after T0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Conn {
    pub src: u32,
    pub sport: u16,
    pub dst: u32,
    pub dport: u16,
    pub proto: u8,
    pub start: u64,
    pub allow: bool,
    /// Initiator → responder bytes, and back.
    pub fwd: u64,
    pub rev: u64,
    /// Initiator → responder packets, and back (by the same rule as the bytes).
    pub pkts_fwd: u64,
    pub pkts_rev: u64,
}

/// A tenant's logs as one flow question sees them.
#[derive(Debug)]
pub struct Logs {
    pub format: Format,
    pub minutes: u32,
    pub table: Arc<Table>,
    /// Shared with the tasks asked of it (`Generated::graph`).
    pub graph: Arc<Graph>,
    pub conns: Vec<Conn>,
    /// The parsed rows, for exporting them to an independent checker.
    pub records: Vec<Record>,
    /// Which tenant and trace (the cache key).
    pub material: String,
}

impl Logs {
    /// The rows as CSV for the differential test: `t,vantage,src,sport,dst,dport,proto,allow,
    /// bytes,bytes_rev,pkts,pkts_rev`, addresses as numbers, NODATA rows left out.
    pub fn records_csv(&self) -> String {
        let mut out =
            String::from("t,vantage,src,sport,dst,dport,proto,allow,bytes,bytes_rev,pkts,pkts_rev\n");
        for r in self.records.iter().filter(|r| r.proto != 0) {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{},{}\n",
                r.t,
                r.vantage,
                r.src,
                r.sport,
                r.dst,
                r.dport,
                r.proto,
                u8::from(r.allow),
                r.bytes,
                r.bytes_rev,
                r.pkts,
                r.pkts_rev
            ));
        }
        out
    }
}

type Key = (u32, u16, u32, u16, u8);

/// One row as the connection rule reads it: connection, vantage, time, decision, and bytes
/// forward and back, packets forward and back.
type Oriented = (Key, u32, u64, bool, [u64; 4]);

/// The connections the rows describe, in key order (initiator, port, responder, port, proto).
pub fn connections(records: &[Record]) -> Vec<Conn> {
    // Sorting by (connection, vantage) puts a connection's rows together, vantage by vantage,
    // in key order: one pass then sums each vantage and keeps the largest sums, without a
    // tree of a million entries (hours of logs).
    let mut rows: Vec<Oriented> = records.iter().filter(|r| r.proto != 0).map(oriented).collect();
    rows.sort_unstable_by_key(|r| (r.0, r.1));
    let mut out = Vec::new();
    for conn in rows.chunk_by(|a, b| a.0 == b.0) {
        let (mut t, mut allow, mut most) = (u64::MAX, true, [0u64; 4]);
        for at in conn.chunk_by(|a, b| a.1 == b.1) {
            let mut sum = [0u64; 4];
            for r in at {
                t = t.min(r.2);
                allow &= r.3;
                for (x, c) in sum.iter_mut().zip(r.4) {
                    *x += c;
                }
            }
            for (x, c) in most.iter_mut().zip(sum) {
                *x = (*x).max(c);
            }
        }
        out.push(conn_of(conn[0].0, t, allow, most));
    }
    out
}

/// A row oriented from the connection's initiator: the side with the higher (ephemeral) port.
fn oriented(r: &Record) -> Oriented {
    if r.sport > r.dport {
        let key = (r.src, r.sport, r.dst, r.dport, r.proto);
        (key, r.vantage, r.t, r.allow, [r.bytes, r.bytes_rev, r.pkts, r.pkts_rev])
    } else {
        let key = (r.dst, r.dport, r.src, r.sport, r.proto);
        (key, r.vantage, r.t, r.allow, [r.bytes_rev, r.bytes, r.pkts_rev, r.pkts])
    }
}

/// A connection from its key, first time, decision and largest sums (bytes and packets,
/// forward and back).
fn conn_of(k: Key, t: u64, allow: bool, most: [u64; 4]) -> Conn {
    Conn {
        src: k.0,
        sport: k.1,
        dst: k.2,
        dport: k.3,
        proto: k.4,
        start: t.saturating_sub(T0),
        allow,
        fwd: most[0],
        rev: most[1],
        pkts_fwd: most[2],
        pkts_rev: most[3],
    }
}

/// The tenant key of a flow question.
pub fn tenant_key(level: u8, seed: u64, k: &FlowKnobs) -> TenantKey {
    let knobs = Knobs {
        a: k.a,
        n: k.n,
        d: k.d,
        c: k.c,
        k: k.k,
        u: 0,
        layout: Layout::Flat,
        format: k.f.unwrap_or(Format::Vnet4),
    };
    TenantKey { app: "traffic".into(), level, seed, knobs }
}

/// The format of a tenant: the knob, else vnet4 at levels 1–2, else the first draw of a
/// stream on the tenant's `plan` material (a stream of its own, so the tenant's draws are
/// the same whatever the format).
pub fn format_of(key: &TenantKey, f: Option<Format>) -> Format {
    f.unwrap_or_else(|| {
        if key.level <= 2 {
            Format::Vnet4
        } else {
            *Stream::new(&key.part("plan"), Width::W64).choose(&Format::ALL)
        }
    })
}

/// Builds (or takes from the one-slot cache) the logs of a tenant.
pub fn logs(level: u8, seed: u64, k: &FlowKnobs) -> Result<Arc<Logs>> {
    type Slot = Option<(String, Arc<Logs>)>;
    static LAST: OnceLock<Mutex<Slot>> = OnceLock::new();
    let mut key = tenant_key(level, seed, k);
    let format = format_of(&key, k.f);
    key.knobs.format = format;
    let material = format!("{}|d{}|f{}", key.material(), k.d, format.name());
    let slot = LAST.get_or_init(|| Mutex::new(None));
    if let Some((_, v)) = slot.lock().ok().and_then(|s| s.clone()).filter(|(m, _)| *m == material) {
        return Ok(v);
    }
    let bad = |e: String| Error::Invalid(format!("traffic tenant: {e}"));
    let tenant = Tenant::new(&key).map_err(bad)?;
    let trace = crate::flows::generate(&tenant, &Scenario::default()).map_err(bad)?;
    let inv = Inventory::new(&trace.vms);
    let emitted = format::emit(format, &tenant, &trace, Options::default());
    // The rows are the emitted records: rendering then parsing gives exactly them in every
    // format (the format tests, and `emitted_records_are_the_parsed_rows` below on traffic
    // tenants), so the text is written only if an agent reads a raw row (`F.raw`).
    let records: Vec<Record> = emitted.iter().map(|e| e.record).collect();
    let conns = connections(&records);
    let graph = Graph::from_trace(&tenant, &trace, false, None);
    let minutes = trace.minutes;
    let (tenant, trace) = (Arc::new(tenant), Arc::new(trace));
    let raw: RawSource = Arc::new(move || format::raw_rows(format, &tenant, &trace, &emitted));
    let table = Table::from_records(format, &records, &inv, vec![], raw).map_err(bad)?;
    let logs = Arc::new(Logs {
        format,
        minutes,
        table: Arc::new(table),
        graph: Arc::new(graph),
        conns,
        records,
        material: material.clone(),
    });
    if let Ok(mut s) = slot.lock() {
        *s = Some((material, logs.clone()));
    }
    Ok(logs)
}

/// A flow question's parameters (minutes after T0 for the window `[t1, t2)`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "family", rename_all = "kebab-case")]
pub enum FlowQuery {
    TopTalkers { k: usize, t1: u32, t2: u32 },
    TimeSeries { proto: String, port: u16, bucket: u32, t1: u32, t2: u32 },
    PortScan { ports: usize, hosts: usize, t1: u32, t2: u32 },
    HeavyHitters { percent: u64, t1: u32, t2: u32 },
}

/// `HH:MM` of a minute after T0.
pub fn hhmm(m: u32) -> String {
    format!("{:02}:{:02}", m / 60, m % 60)
}

/// A window of 3 to 10 minutes (at most the trace) anywhere in the trace, or ending with it.
pub(super) fn window(s: &mut Stream, d: u32, at_end: bool) -> (u32, u32) {
    let len = (3 + s.below(8) as u32).min(d);
    let t1 = if at_end { d - len } else { s.below(u64::from(d - len + 1)) as u32 };
    (t1, t1 + len)
}

fn inside(c: &Conn, t1: u32, t2: u32) -> bool {
    (u64::from(t1) * 60..u64::from(t2) * 60).contains(&c.start)
}

/// Whether an address is on the Internet: outside 10.0.0.0/8 and 100.64.0.0/10.
pub fn internet(a: u32) -> bool {
    a >> 24 != 10 && a >> 22 != (100 << 2 | 1)
}

fn proto_name(p: u8) -> &'static str {
    if p == 17 { "udp" } else { "tcp" }
}

/// The longest time series, in minutes.
const SPAN: u32 = 30;

/// Most draws of a margin's parameters before the last one is kept.
const REDRAWS: usize = 64;

/// Draws the parameters of a flow family (`family` is its id).
pub fn draw(family: &str, s: &mut Stream, l: &Logs) -> FlowQuery {
    let d = l.minutes;
    match family {
        "top-talkers" => {
            let k = 3 + s.index(8);
            let (t1, t2) = window(s, d, true);
            FlowQuery::TopTalkers { k, t1, t2 }
        }
        "time-series" => {
            let served: Vec<(u8, u16)> = l
                .conns
                .iter()
                .filter(|c| c.allow)
                .map(|c| (c.proto, c.dport))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let (proto, port) = if served.is_empty() { (6, 443) } else { *s.choose(&served) };
            let fits: Vec<u32> = [1, 5, 10, 15].into_iter().filter(|b| 2 * b <= d).collect();
            let bucket = *s.choose(&fits);
            let count = 2 + s.below(u64::from((d.min(SPAN) / bucket) - 1)) as u32;
            let t1 = s.below(u64::from(d - count * bucket + 1)) as u32;
            FlowQuery::TimeSeries {
                proto: proto_name(proto).into(),
                port,
                bucket,
                t1,
                t2: t1 + count * bucket,
            }
        }
        "port-scan" => {
            let mut scans = Scans::new(&l.conns, d);
            let mut q = None;
            for _ in 0..REDRAWS {
                let ports = 10 + s.index(11);
                let hosts = 3 + s.index(3);
                let (t1, t2) = window(s, d, false);
                // Below these a source is neither near nor past either threshold.
                let stats = scans.during(t1, t2, ports.div_ceil(2), hosts - 1);
                let (near, found) = scan_verdicts(&stats, ports, hosts);
                q = Some(FlowQuery::PortScan { ports, hosts, t1, t2 });
                if found && !near {
                    break;
                }
            }
            q.expect("at least one draw")
        }
        _ => {
            let mut q = None;
            for _ in 0..REDRAWS {
                let percent = *s.choose(&[1u64, 2, 5, 10]);
                let (t1, t2) = window(s, d, true);
                let (pairs, total) = pair_bytes(&l.conns, t1, t2);
                // |100·b − φ·total| ≤ φ·total/10, in integers.
                let near = pairs.values().any(|&b| {
                    let (x, y) = (u128::from(b) * 1000, u128::from(percent) * u128::from(total) * 10);
                    x.abs_diff(y) <= u128::from(percent) * u128::from(total)
                });
                q = Some(FlowQuery::HeavyHitters { percent, t1, t2 });
                if !near && total > 0 {
                    break;
                }
            }
            q.expect("at least one draw")
        }
    }
}

/// What a port-scan question counts, per Internet source: the most distinct ports it tried on
/// one host and the most distinct hosts it tried on one port, within one clock minute
/// (denials included).
///
/// Why by minute: a window's figures are the maxima over its minutes, and a question redraws
/// its window up to `REDRAWS` times over mostly the same minutes. So each minute is counted
/// once, when a window first covers it, and a redraw only merges the minutes' rows.
struct Scans {
    /// The Internet's connections as `(source, destination, port)`, by the minute they start
    /// in: minute `m`'s are `seen[at[m]..at[m + 1]]`. Placed by counting rather than sorted:
    /// one pass over the connections, and 12 bytes moved each rather than a whole `Conn`.
    seen: Vec<(u32, u32, u32)>,
    at: Vec<usize>,
    /// Each counted minute's `(source, (ports, hosts))` rows, by source.
    minutes: Vec<Option<Rows>>,
}

type Rows = Vec<(u32, (usize, usize))>;

impl Scans {
    /// The Internet's connections starting in the first `span` minutes (no window asked of
    /// them ends later).
    fn new(conns: &[Conn], span: u32) -> Self {
        let span = span as usize;
        let outside = || conns.iter().filter(|c| internet(c.src) && c.start / 60 < span as u64);
        let minute = |c: &Conn| (c.start / 60) as usize;
        let mut at = vec![0; span + 1];
        for c in outside() {
            at[minute(c) + 1] += 1;
        }
        for m in 1..at.len() {
            at[m] += at[m - 1];
        }
        let mut next = at.clone();
        let mut seen = vec![(0, 0, 0); at[span]];
        for c in outside() {
            let slot = &mut next[minute(c)];
            seen[*slot] = (c.src, c.dst, u32::from(c.dport));
            *slot += 1;
        }
        Scans { seen, at, minutes: vec![None; span] }
    }

    /// Per source, the most ports and hosts in any minute of `t1..t2`, for the sources that
    /// tried at least `ports` ports of a host or `hosts` hosts of a port in one of them.
    ///
    /// The floors are why a redraw is cheap: most Internet sources try one port of one host a
    /// minute, and merging every one of them into the map was most of a question's time. A
    /// figure below its floor may then be understated, never one at or above it.
    fn during(&mut self, t1: u32, t2: u32, ports: usize, hosts: usize) -> BTreeMap<u32, (usize, usize)> {
        let mut out: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
        for m in t1 as usize..(t2 as usize).min(self.minutes.len()) {
            let seen = &self.seen[self.at[m]..self.at[m + 1]];
            let rows = self.minutes[m].get_or_insert_with(|| minute(seen));
            for &(src, (p, h)) in rows.iter().filter(|&&(_, (p, h))| p >= ports || h >= hosts) {
                let e = out.entry(src).or_default();
                *e = (e.0.max(p), e.1.max(h));
            }
        }
        out
    }
}

/// Whether some source's figures are near the thresholds (half the ports or more but not
/// all, or exactly one host fewer), and whether some source reaches one of them.
fn scan_verdicts(stats: &BTreeMap<u32, (usize, usize)>, ports: usize, hosts: usize) -> (bool, bool) {
    let near = stats.values().any(|&(p, h)| (2 * p >= ports && p < ports) || h + 1 == hosts);
    let found = stats.values().any(|&(p, h)| p >= ports || h >= hosts);
    (near, found)
}

/// One minute's `(source, (ports, hosts))` rows from its connections' `(source, destination,
/// port)`.
fn minute(seen: &[(u32, u32, u32)]) -> Rows {
    // Sorted, deduplicated tuples whose runs are the sets: cheaper than a map of sets, which
    // allocates per entry.
    let mut ports = seen.to_vec();
    let mut hosts: Vec<(u32, u32, u32)> = seen.iter().map(|&(s, d, p)| (s, p, d)).collect();
    let mut out: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    for (tuples, of_ports) in [(&mut ports, true), (&mut hosts, false)] {
        tuples.sort_unstable();
        tuples.dedup();
        // A run shares (source, destination or port); its length is the set's size.
        for run in tuples.chunk_by(|a, b| a.0 == b.0 && a.1 == b.1) {
            let e = out.entry(run[0].0).or_default();
            let most = if of_ports { &mut e.0 } else { &mut e.1 };
            *most = (*most).max(run.len());
        }
    }
    out.into_iter().collect()
}

/// Bytes both ways per (initiator, responder) of the allowed connections in the window, and
/// their total.
fn pair_bytes(conns: &[Conn], t1: u32, t2: u32) -> (BTreeMap<(u32, u32), u64>, u64) {
    let mut pairs: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    for c in conns.iter().filter(|c| c.allow && inside(c, t1, t2)) {
        *pairs.entry((c.src, c.dst)).or_default() += c.fwd + c.rev;
    }
    let total = pairs.values().sum();
    (pairs, total)
}

/// The truth: answer type, data, ordered.
pub fn truth(q: &FlowQuery, conns: &[Conn]) -> (&'static str, Value, bool) {
    match q {
        FlowQuery::TopTalkers { k, t1, t2 } => {
            let mut sent: BTreeMap<u32, u64> = BTreeMap::new();
            for c in conns.iter().filter(|c| c.allow && inside(c, *t1, *t2)) {
                *sent.entry(c.src).or_default() += c.fwd;
            }
            let mut rows: Vec<(u32, u64)> = sent.into_iter().collect();
            rows.sort_by_key(|&(ip, b)| (std::cmp::Reverse(b), ip));
            let rows: Vec<Value> = rows.into_iter().take(*k).map(|(ip, b)| json!([dotted(ip), b])).collect();
            ("table", Value::Array(rows), true)
        }
        FlowQuery::TimeSeries { proto, port, bucket, t1, t2 } => {
            let p = if proto == "udp" { 17 } else { 6 };
            let mut counts: BTreeMap<u32, u64> =
                (*t1..*t2).step_by(*bucket as usize).map(|m| (m, 0)).collect();
            for c in
                conns.iter().filter(|c| c.allow && c.proto == p && c.dport == *port && inside(c, *t1, *t2))
            {
                let m = (c.start / 60) as u32;
                *counts.entry(t1 + (m - t1) / bucket * bucket).or_default() += 1;
            }
            let rows: Vec<Value> = counts.into_iter().map(|(m, n)| json!([hhmm(m), n])).collect();
            ("table", Value::Array(rows), true)
        }
        FlowQuery::PortScan { ports, hosts, t1, t2 } => {
            let ips: Vec<Value> = Scans::new(conns, *t2)
                .during(*t1, *t2, *ports, *hosts)
                .into_keys()
                .map(|ip| json!(dotted(ip)))
                .collect();
            ("list", Value::Array(ips), false)
        }
        FlowQuery::HeavyHitters { percent, t1, t2 } => {
            let (pairs, total) = pair_bytes(conns, *t1, *t2);
            let hits: Vec<Value> = pairs
                .into_iter()
                .filter(|&(_, b)| u128::from(b) * 100 > u128::from(*percent) * u128::from(total))
                .map(|((a, b), _)| json!(format!("{}>{}", dotted(a), dotted(b))))
                .collect();
            ("list", Value::Array(hits), false)
        }
    }
}

/// How far before a window the reference code reads records: no connection of any format
/// goes five minutes without a record while it lasts (nsg2's five-minute C tuples are the
/// sparsest; a test pins it), so a connection with no record in the six minutes before the
/// window and one in it started in it.
pub const LOOKBACK_S: u32 = 360;

/// Python that turns `F`'s rows matching `{where}` into `conns`: a list of `(src, sport,
/// dst, dport, proto, start_s, allowed, fwd_bytes, rev_bytes, fwd_pkts, rev_pkts)`, start in
/// seconds after T0, by the documented rule (the higher port initiates; each vantage sums its
/// records; the largest sum is the connection's; the earliest record is its start).
const CONNECTIONS: &str = "rows = F.group(['src', 'sport', 'dst', 'dport', 'proto', 'vantage'], \
[('min', 't'), ('sum', 'bytes'), ('sum', 'bytes_rev'), ('max', 'action'), ('sum', 'pkts'), ('sum', 'pkts_rev')], \
where={where})
    found = {}
    for src, sport, dst, dport, proto, vantage, t, b, brev, action, p, prev in rows:
        if sport > dport:
            key, fwd = (src, sport, dst, dport, proto), [b, brev, p, prev]
        else:
            key, fwd = (dst, dport, src, sport, proto), [brev, b, prev, p]
        c = found.get(key)
        if c is None:
            c = [t, True, {}]
            found[key] = c
        c[0] = min(c[0], t)
        c[1] = c[1] and action == 'allow'
        s = c[2].get(vantage)
        if s is not None:
            fwd = [s[0] + fwd[0], s[1] + fwd[1], s[2] + fwd[2], s[3] + fwd[3]]
        c[2][vantage] = fwd
    conns = []
    for key, c in found.items():
        vs = list(c[2].values())
        conns.append((key[0], key[1], key[2], key[3], key[4], c[0] - 1736121600, c[1], max(s[0] for s in vs), \
max(s[1] for s in vs), max(s[2] for s in vs), max(s[3] for s in vs)))";

/// The template compiler's shortcut: each connection read from its responder's inbound
/// records only, as they stand (right for Azure and GCP; AWS reply records at the initiator
/// also read as inbound, and connections to a responder that logs nothing are lost).
const NAIVE_CONNECTIONS: &str = "rows = F.group(['src', 'sport', 'dst', 'dport', 'proto', 'vantage'], \
[('min', 't'), ('sum', 'bytes'), ('sum', 'bytes_rev'), ('max', 'action')], where=[['dir', '==', 'in']] + {where})
    conns = []
    for src, sport, dst, dport, proto, vantage, t, b, brev, action in rows:
        if vantage == dst:
            conns.append((src, sport, dst, dport, proto, t - 1736121600, action == 'allow', b, brev))";

/// The `where` of a question's rows: its window with the lookback, and what else narrows it.
fn rows_where(q: &FlowQuery) -> String {
    let (t1, t2, extra) = match q {
        FlowQuery::TopTalkers { t1, t2, .. } | FlowQuery::HeavyHitters { t1, t2, .. } => {
            (*t1, *t2, String::new())
        }
        FlowQuery::TimeSeries { proto, port, t1, t2, .. } => (
            *t1,
            *t2,
            format!(", ['proto', '==', {}], ['dport', '==', {port}]", if proto == "udp" { 17 } else { 6 }),
        ),
        FlowQuery::PortScan { t1, t2, .. } => {
            (*t1, *t2, ", ['src', 'notcidr', '10.0.0.0/8'], ['src', 'notcidr', '100.64.0.0/10']".to_string())
        }
    };
    window_where(t1, t2, &extra)
}

/// The `where` of the rows a window `[t1, t2)` (minutes) needs, with the lookback.
fn window_where(t1: u32, t2: u32, extra: &str) -> String {
    let lo = (T0 + u64::from(t1) * 60).saturating_sub(u64::from(LOOKBACK_S));
    format!("[['proto', 'in', [6, 17]], ['t', '>=', {lo}], ['t', '<', {}]{extra}]", T0 + u64::from(t2) * 60)
}

/// The reference Python that leaves in `conns` the connections starting in the window with
/// all their bytes and packets (the tuple `CONNECTIONS` documents; the lookback's connections
/// are there too, to be dropped by start); a statement list for a function body indented by
/// four. A connection that starts in the window may log long after it, so after the window's
/// rows come the later rows of the window's connections: reading every row to the end of the
/// trace instead would take seconds. `LATE_ROWS` says how they are found.
pub fn connections_code(t1: u32, t2: u32) -> String {
    let (start, end) = (T0 + u64::from(t1) * 60, T0 + u64::from(t2) * 60);
    let late = LATE_ROWS
        .replace("{start}", &start.to_string())
        .replace("{end}", &end.to_string())
        .replace("{soon}", &(end + u64::from(LOOKBACK_S)).to_string());
    CONNECTIONS.replace("{where}", &window_where(t1, t2, "")).replace("\n    conns = []", &late)
}

/// Inserted before `CONNECTIONS` collects `conns`: the window's connections' rows after it.
/// A connection is found by its initiator's port (`sport` on forward rows, `dport` on AWS's
/// swapped reply rows; a group met by both calls counts once). Ports alone match many other
/// connections of the rest of the trace (ephemeral ports repeat), and each match costs a turn
/// of the Python loop, so the ports are first narrowed to the window's connections that are
/// still alive at its end: one that goes on logging has a record within the lookback after the
/// end, as it has one within the lookback before the window (`LOOKBACK_S`).
const LATE_ROWS: &str = "
    ports = {}
    for key, c in found.items():
        if c[0] >= {start}:
            ports[key[1]] = True
    live = {}
    for col in ['sport', 'dport']:
        for g in F.distinct(['src', 'sport', 'dst', 'dport', 'proto'], \
where=[['proto', 'in', [6, 17]], ['t', '>=', {end}], ['t', '<', {soon}], [col, 'in', list(ports)]]):
            key = (g[0], g[1], g[2], g[3], g[4]) if g[1] > g[3] else (g[2], g[3], g[0], g[1], g[4])
            c = found.get(key)
            if c is not None and c[0] >= {start}:
                live[key[1]] = True
    late = {}
    for col in ['sport', 'dport']:
        for g in F.group(['src', 'sport', 'dst', 'dport', 'proto', 'vantage'], \
[('min', 't'), ('sum', 'bytes'), ('sum', 'bytes_rev'), ('max', 'action'), ('sum', 'pkts'), ('sum', 'pkts_rev')], \
where=[['proto', 'in', [6, 17]], ['t', '>=', {end}], [col, 'in', list(live)]]):
            late[(g[0], g[1], g[2], g[3], g[4], g[5])] = g
    for src, sport, dst, dport, proto, vantage, t, b, brev, action, p, prev in late.values():
        if sport > dport:
            key, fwd = (src, sport, dst, dport, proto), [b, brev, p, prev]
        else:
            key, fwd = (dst, dport, src, sport, proto), [brev, b, prev, p]
        c = found.get(key)
        if c is None or c[0] < {start}:
            continue
        c[1] = c[1] and action == 'allow'
        s = c[2].get(vantage)
        if s is not None:
            fwd = [s[0] + fwd[0], s[1] + fwd[1], s[2] + fwd[2], s[3] + fwd[3]]
        c[2][vantage] = fwd
    conns = []";

/// The communication graph of the allowed connections starting in `[t1, t2)` (minutes), as
/// `flows.md`'s graph is built from all of them: one node per address in address order
/// with its labels in `labels_of` (the tenant graph's), one edge per pair with the bytes and
/// packets of both directions summed and the connections counted.
pub fn window_graph(
    conns: &[Conn],
    t1: u32,
    t2: u32,
    labels_of: &BTreeMap<String, Vec<String>>,
) -> super::mock::Mock {
    let mut edges: BTreeMap<(u32, u32), [i64; 3]> = BTreeMap::new();
    for c in conns.iter().filter(|c| c.allow && inside(c, t1, t2) && c.src != c.dst) {
        let w = edges.entry((c.src.min(c.dst), c.src.max(c.dst))).or_default();
        w[0] += (c.fwd + c.rev) as i64;
        w[1] += 1;
        w[2] += (c.pkts_fwd + c.pkts_rev) as i64;
    }
    let ips: BTreeSet<u32> = edges.keys().flat_map(|&(a, b)| [a, b]).collect();
    let index: BTreeMap<u32, usize> = ips.iter().enumerate().map(|(i, &a)| (a, i)).collect();
    let nodes = ips
        .iter()
        .map(|&a| {
            let ip = dotted(a);
            let labels = labels_of.get(&ip).cloned().unwrap_or_default();
            (ip, labels)
        })
        .collect();
    let edges = edges.into_iter().map(|((a, b), w)| (index[&a], index[&b], w)).collect();
    super::mock::Mock { nodes, edges }
}

/// The reference answer, `process_flows(F, G)`; `naive` reads connections the baseline's way.
pub fn code(q: &FlowQuery, naive: bool) -> String {
    let prelude = if naive { NAIVE_CONNECTIONS } else { CONNECTIONS }.replace("{where}", &rows_where(q));
    let win = |t1: u32, t2: u32| format!("lo, hi = {}, {}", t1 * 60, t2 * 60);
    let body = match q {
        FlowQuery::TopTalkers { k, t1, t2 } => format!(
            "{}\n    sent = {{}}\n    for c in conns:\n        if c[6] and lo <= c[5] < hi:\n            \
             sent[c[0]] = sent.get(c[0], 0) + c[7]\n    \
             def ip(a):\n        return [int(x) for x in a.split('.')]\n    \
             rows = sorted(sent.items(), key=lambda x: (-x[1], ip(x[0])))\n    \
             return {{'type': 'table', 'data': [[a, b] for a, b in rows[:{k}]]}}",
            win(*t1, *t2)
        ),
        FlowQuery::TimeSeries { proto, port, bucket, t1, t2 } => format!(
            "{}\n    p = {}\n    step = {}\n    counts = {{}}\n    for m in range({t1}, {t2}, {bucket}):\n        counts[m] = 0\n    \
             for c in conns:\n        if c[6] and c[4] == p and c[3] == {port} and lo <= c[5] < hi:\n            \
             m = c[5] // 60\n            b = {t1} + (m - {t1}) // step * step\n            counts[b] = counts[b] + 1\n    \
             return {{'type': 'table', 'data': [[f'{{m // 60:02d}}:{{m % 60:02d}}', counts[m]] for m in sorted(counts)]}}",
            win(*t1, *t2),
            if proto == "udp" { 17 } else { 6 },
            bucket
        ),
        FlowQuery::PortScan { ports, hosts, t1, t2 } => format!(
            "{}\n    def internet(a):\n        x = [int(v) for v in a.split('.')]\n        \
             return x[0] != 10 and not (x[0] == 100 and 64 <= x[1] < 128)\n    \
             by_host = {{}}\n    by_port = {{}}\n    for c in conns:\n        if internet(c[0]) and lo <= c[5] < hi:\n            \
             m = c[5] // 60\n            by_host.setdefault((c[0], m, c[2]), set()).add(c[3])\n            \
             by_port.setdefault((c[0], m, c[3]), set()).add(c[2])\n    \
             hits = set(k[0] for k, v in by_host.items() if len(v) >= {ports})\n    \
             hits |= set(k[0] for k, v in by_port.items() if len(v) >= {hosts})\n    \
             return {{'type': 'list', 'data': sorted(hits)}}",
            win(*t1, *t2)
        ),
        FlowQuery::HeavyHitters { percent, t1, t2 } => format!(
            "{}\n    pairs = {{}}\n    for c in conns:\n        if c[6] and lo <= c[5] < hi:\n            \
             k = c[0] + '>' + c[2]\n            pairs[k] = pairs.get(k, 0) + c[7] + c[8]\n    \
             total = sum(pairs.values())\n    \
             return {{'type': 'list', 'data': [k for k, b in pairs.items() if b * 100 > {percent} * total]}}",
            win(*t1, *t2)
        ),
    };
    format!("def process_flows(F, G):\n    {prelude}\n    {body}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(t: u64, vantage: u32, src: u32, sport: u16, dst: u32, dport: u16, bytes: u64) -> Record {
        let mut r = Record {
            t: 0,
            t_end: 0,
            vantage: 0,
            inbound: false,
            src: 0,
            dst: 0,
            sport: 0,
            dport: 0,
            proto: 6,
            allow: true,
            state: crate::flows::format::State::None,
            pkts: 0,
            bytes: 0,
            pkts_rev: 0,
            bytes_rev: 0,
            status: crate::flows::format::Status::None,
            instance: crate::flows::NO_VM,
        };
        (r.t, r.vantage, r.src, r.sport, r.dst, r.dport, r.bytes) =
            (T0 + t, vantage, src, sport, dst, dport, bytes);
        r
    }

    /// AWS-like: both ENIs log both directions over two intervals; one connection results,
    /// its bytes counted once, its start the earliest record.
    #[test]
    fn both_vantages_and_directions_make_one_connection() {
        let (a, b) = (10, 20);
        let records = vec![
            rec(61, a, a, 40000, b, 443, 100),
            rec(61, a, b, 443, a, 40000, 7),
            rec(61, b, a, 40000, b, 443, 100),
            rec(61, b, b, 443, a, 40000, 7),
            rec(120, a, a, 40000, b, 443, 50),
            rec(120, b, a, 40000, b, 443, 50),
        ];
        let c = connections(&records);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].start, c[0].fwd, c[0].rev, c[0].src, c[0].dport), (61, 150, 7, a, 443));
        let (ty, data, _) = truth(&FlowQuery::TopTalkers { k: 3, t1: 1, t2: 2 }, &c);
        assert_eq!((ty, data), ("table", json!([["0.0.0.10", 150]])));
        let (_, data, _) = truth(&FlowQuery::TopTalkers { k: 3, t1: 2, t2: 3 }, &c);
        assert_eq!(data, json!([]));
    }

    #[test]
    fn scans_need_enough_ports_or_hosts_in_one_minute() {
        let s = 203 << 24;
        let mut records: Vec<Record> =
            (0..10).map(|p| rec(60, 10 << 24, s, 50000, 10 << 24, 20 + p, 60)).collect();
        records.push(rec(200, 10 << 24, s + 1, 50000, 10 << 24, 22, 60));
        let c = connections(&records);
        let q = |ports| FlowQuery::PortScan { ports, hosts: 3, t1: 0, t2: 10 };
        assert_eq!(truth(&q(10), &c).1, json!(["203.0.0.0"]));
        assert_eq!(truth(&q(11), &c).1, json!([]));
        assert_eq!(hhmm(75), "01:15");
    }

    /// What `logs` builds from the emitted records is what the rendered text parses back to:
    /// the same rows, the same raw text of each row, the same connections, in every format
    /// (levels 2 to 4, default and small knobs).
    #[test]
    fn emitted_records_are_the_parsed_rows() {
        for (level, seed, d) in [(2, 0, 20), (3, 5, 15), (4, 2, 10)] {
            for f in Format::ALL {
                let k = FlowKnobs { f: Some(f), d, ..Default::default() };
                let key = tenant_key(level, seed, &k);
                let tenant = Tenant::new(&key).unwrap();
                let trace = crate::flows::generate(&tenant, &Scenario::default()).unwrap();
                let inv = Inventory::new(&trace.vms);
                let emitted = format::emit(f, &tenant, &trace, Options::default());
                let text = format::render(f, &tenant, &trace, &emitted);
                let parsed = format::parse(f, &text, &inv).unwrap();
                let records: Vec<Record> = emitted.iter().map(|e| e.record).collect();
                assert_eq!(parsed.records, records, "{f:?}");
                let (raw, ends) = format::raw_rows(f, &tenant, &trace, &emitted);
                assert_eq!(ends.len(), records.len(), "{f:?}");
                for (i, &end) in ends.iter().enumerate() {
                    let start = if i == 0 { 0 } else { ends[i - 1] };
                    assert_eq!(Some(&raw[start..end]), parsed.raw(i), "{f:?} row {i}");
                }
                let logs = logs(level, seed, &k).unwrap();
                assert_eq!(logs.records, parsed.records, "{f:?}");
                assert_eq!(logs.conns, connections(&parsed.records), "{f:?}");
                let eager = Table::new(f, parsed.clone(), &inv, vec![]).unwrap();
                assert_eq!(logs.table.len(), eager.len());
                for i in [0, eager.len() / 2, eager.len() - 1, eager.len()] {
                    assert_eq!(logs.table.raw(i), eager.raw(i), "{f:?} row {i}");
                }
            }
        }
    }

    /// The connection rule's sums, as the trees it was first written with computed them (the
    /// rows oriented alike: what differs is the sort and one pass against the trees).
    fn connections_by_trees(records: &[Record]) -> Vec<Conn> {
        let mut at: BTreeMap<(Key, u32), [u64; 4]> = BTreeMap::new();
        let mut meta: BTreeMap<Key, (u64, bool)> = BTreeMap::new();
        for (key, vantage, t, allow, counts) in records.iter().filter(|r| r.proto != 0).map(oriented) {
            let s = at.entry((key, vantage)).or_default();
            for (x, c) in s.iter_mut().zip(counts) {
                *x += c;
            }
            let m = meta.entry(key).or_insert((t, true));
            m.0 = m.0.min(t);
            m.1 &= allow;
        }
        let mut sums: BTreeMap<Key, [u64; 4]> = BTreeMap::new();
        for ((key, _), s) in at {
            let m = sums.entry(key).or_default();
            for (x, c) in m.iter_mut().zip(s) {
                *x = (*x).max(c);
            }
        }
        meta.into_iter().map(|(k, (t, allow))| conn_of(k, t, allow, sums[&k])).collect()
    }

    #[test]
    fn sorted_connections_agree_with_trees() {
        for f in Format::ALL {
            let key = tenant_key(3, 7, &FlowKnobs { f: Some(f), d: 20, ..Default::default() });
            let tenant = Tenant::new(&key).unwrap();
            let trace = crate::flows::generate(&tenant, &Scenario::default()).unwrap();
            let records: Vec<Record> =
                format::emit(f, &tenant, &trace, Options::default()).iter().map(|e| e.record).collect();
            assert_eq!(connections(&records), connections_by_trees(&records), "{f:?}");
        }
    }

    /// The scanners by sets of ports and hosts per (source, minute, …) over the window.
    fn scans_by_sets(conns: &[Conn], t1: u32, t2: u32) -> BTreeMap<u32, (usize, usize)> {
        let mut ports: BTreeMap<(u32, u64, u32), BTreeSet<u16>> = BTreeMap::new();
        let mut hosts: BTreeMap<(u32, u64, u16), BTreeSet<u32>> = BTreeMap::new();
        for c in conns.iter().filter(|c| internet(c.src) && inside(c, t1, t2)) {
            ports.entry((c.src, c.start / 60, c.dst)).or_default().insert(c.dport);
            hosts.entry((c.src, c.start / 60, c.dport)).or_default().insert(c.dst);
        }
        let mut out: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
        for ((src, ..), set) in ports {
            let e = out.entry(src).or_default();
            e.0 = e.0.max(set.len());
        }
        for ((src, ..), set) in hosts {
            let e = out.entry(src).or_default();
            e.1 = e.1.max(set.len());
        }
        out
    }

    proptest::proptest! {
        /// Counting by minute with floors gives what the sets give: the same scanners for any
        /// thresholds, and the same near and found verdicts under the draw's floors.
        #[test]
        fn scans_by_minute_agree_with_sets(
            seen in proptest::collection::vec((0u32..4, 0u32..6, 0u16..12, 0u64..720), 0..300),
            t1 in 0u32..12,
            len in 1u32..10,
            ports in 1usize..14,
            hosts in 1usize..6,
        ) {
            let conns: Vec<Conn> = seen
                .iter()
                .map(|&(s, dst, dport, start)| Conn {
                    src: if s == 0 { 10 << 24 } else { (203 << 24) + s },
                    sport: 50000,
                    dst: (10 << 24) + dst,
                    dport,
                    proto: 6,
                    start,
                    allow: start % 3 != 0,
                    fwd: 60,
                    rev: 0,
                    pkts_fwd: 1,
                    pkts_rev: 0,
                })
                .collect();
            let t2 = t1 + len;
            let want = scans_by_sets(&conns, t1, t2);
            let q = FlowQuery::PortScan { ports, hosts, t1, t2 };
            let listed: Vec<Value> =
                want.iter().filter(|(_, (p, h))| *p >= ports || *h >= hosts).map(|(&ip, _)| json!(dotted(ip))).collect();
            proptest::prop_assert_eq!(truth(&q, &conns).1, Value::Array(listed));
            let floored = Scans::new(&conns, t2).during(t1, t2, ports.div_ceil(2), hosts - 1);
            proptest::prop_assert_eq!(
                scan_verdicts(&floored, ports, hosts),
                scan_verdicts(&want, ports, hosts)
            );
        }
    }

    /// The reference code's lookback holds: in every format, a connection's consecutive
    /// records are at most five minutes apart.
    #[test]
    fn records_of_a_live_connection_are_never_far_apart() {
        for f in Format::ALL {
            let key = tenant_key(3, 1, &FlowKnobs { f: Some(f), d: 30, ..Default::default() });
            let tenant = Tenant::new(&key).unwrap();
            let trace = crate::flows::generate(&tenant, &Scenario::default()).unwrap();
            let mut times: BTreeMap<Key, Vec<u64>> = BTreeMap::new();
            for e in format::emit(f, &tenant, &trace, Options::default()) {
                let r = e.record;
                if r.proto != 0 {
                    let k = if r.sport > r.dport {
                        (r.src, r.sport, r.dst, r.dport, r.proto)
                    } else {
                        (r.dst, r.dport, r.src, r.sport, r.proto)
                    };
                    times.entry(k).or_default().push(r.t);
                }
            }
            let worst = times
                .values_mut()
                .flat_map(|t| {
                    t.sort_unstable();
                    t.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>()
                })
                .max()
                .unwrap_or(0);
            assert!(worst <= 300 && worst < u64::from(LOOKBACK_S), "{f:?}: {worst} s");
        }
    }
}
