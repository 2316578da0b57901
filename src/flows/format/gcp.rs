//! GCP VPC Flow Logs: one JSON object per line and per (reporting VM, connection, 60-second
//! interval), allowed connections only (the log has no decision field). Counters are the
//! src→dst share of the interval; int64 fields are JSON strings, as Cloud Logging writes them.

use serde_json::Value;

use super::text::Text;
use super::time::{format_ms, parse_ms};
use super::{Emitted, ParseError, Parsed, Record, addr, intervals};
use crate::flows::T0;
use crate::flows::model::{NO_VM, Rule, Trace, share};

const IV: u64 = 60_000;

pub fn emit(tr: &Trace) -> Vec<Emitted> {
    let end = tr.end_ms();
    let mut keys: Vec<(u64, u32, u32, bool)> = Vec::new();
    for (ci, c) in tr.connections.iter().enumerate().filter(|(_, c)| c.allow) {
        for (i, _, _) in intervals(c.start, c.end, IV, end) {
            for (vm, dest) in [(c.src_vm, false), (c.dst_vm, true)] {
                if vm != NO_VM {
                    keys.push((i, vm, ci as u32, dest));
                }
            }
        }
    }
    keys.sort_unstable();
    keys.into_iter()
        .map(|(i, vm, ci, dest)| {
            let c = &tr.connections[ci as usize];
            let (x, y) = (i * IV, ((i + 1) * IV).min(end));
            let (from, to) = (x.max(c.start), y.min(c.end).max(x.max(c.start)));
            let mut r = Record::blank(T0 + from / 1000, T0 + to / 1000, if dest { c.dst } else { c.src });
            (r.src, r.dst, r.sport, r.dport, r.proto) = (c.src, c.dst, c.sport, c.dport, c.proto);
            r.inbound = dest;
            r.pkts = share(u64::from(c.pkts_f), c.start, c.end, x, y);
            r.bytes = share(c.bytes_f, c.start, c.end, x, y);
            Emitted { record: r, vm, rule: Rule::AllowVnetInBound, extra: c.rtt, at_ms: from, end_ms: to }
        })
        .collect()
}

/// About the file's bytes: a line with usual counters.
pub(super) fn size_hint(records: &[Emitted]) -> usize {
    records.len() * 260
}

/// The file, one line per record, calling `block` after each line (a writer drains the
/// text there).
pub(super) fn file<E>(
    records: &[Emitted],
    out: &mut Text,
    mut block: impl FnMut(&mut Text) -> Result<(), E>,
) -> Result<(), E> {
    for e in records {
        line(out, e);
        out.byte(b'\n');
        block(out)?;
    }
    Ok(())
}

/// One record's line, without its newline: the JSON written piece by piece around numbers
/// and addresses, which is faster than `write!` and `dotted` for a million lines.
pub(super) fn line(out: &mut Text, e: &Emitted) {
    let r = &e.record;
    out.str("{\"connection\":{\"protocol\":");
    out.int(u64::from(r.proto));
    out.str(",\"src_ip\":\"");
    out.ip(r.src);
    out.str("\",\"src_port\":");
    out.int(u64::from(r.sport));
    out.str(",\"dest_ip\":\"");
    out.ip(r.dst);
    out.str("\",\"dest_port\":");
    out.int(u64::from(r.dport));
    out.str(if r.inbound { "},\"reporter\":\"DEST\"," } else { "},\"reporter\":\"SRC\"," });
    if r.proto == 6 {
        out.str("\"rtt_msec\":\"");
        out.int(u64::from(e.extra));
        out.str("\",");
    }
    out.str("\"bytes_sent\":\"");
    out.int(r.bytes);
    out.str("\",\"packets_sent\":\"");
    out.int(r.pkts);
    out.str("\",\"start_time\":\"");
    out.str(&format_ms(T0 * 1000 + e.at_ms));
    out.str("\",\"end_time\":\"");
    out.str(&format_ms(T0 * 1000 + e.end_ms));
    out.str("\"}");
}

fn get<'a>(v: &'a Value, key: &str) -> Result<&'a Value, String> {
    v.get(key).ok_or_else(|| format!("no \"{key}\""))
}

/// An integer written as a JSON number or, as int64 fields are, a string.
fn int(v: &Value, key: &str) -> Result<u64, String> {
    let x = get(v, key)?;
    x.as_u64()
        .or_else(|| x.as_str().and_then(|s| s.parse().ok()))
        .ok_or_else(|| format!("\"{key}\" is not a non-negative integer"))
}

fn text<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    get(v, key)?.as_str().ok_or_else(|| format!("\"{key}\" is not a string"))
}

fn small<T: TryFrom<u64>>(v: &Value, key: &str) -> Result<T, String> {
    T::try_from(int(v, key)?).map_err(|_| format!("\"{key}\" is out of range"))
}

pub fn parse(input: &str) -> Result<Parsed, ParseError> {
    let mut out = Parsed::default();
    for (n, line) in input.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r = parse_line(line).map_err(|message| ParseError { at: n + 1, message })?;
        out.push(r, line);
    }
    Ok(out)
}

fn parse_line(line: &str) -> Result<Record, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let c = get(&v, "connection")?;
    let from = parse_ms(text(&v, "start_time")?)?;
    let to = parse_ms(text(&v, "end_time")?)?;
    let mut r = Record::blank(0, 0, 0);
    (r.t, r.t_end) = (from / 1000, to / 1000);
    r.src = addr(text(c, "src_ip")?)?;
    r.dst = addr(text(c, "dest_ip")?)?;
    r.sport = small(c, "src_port")?;
    r.dport = small(c, "dest_port")?;
    r.proto = small(c, "protocol")?;
    (r.vantage, r.inbound) = match text(&v, "reporter")? {
        "SRC" => (r.src, false),
        "DEST" => (r.dst, true),
        other => return Err(format!("reporter {other:?} is not SRC or DEST")),
    };
    r.pkts = int(&v, "packets_sent")?;
    r.bytes = int(&v, "bytes_sent")?;
    Ok(r)
}
