//! Azure flow logs: NSG flow logs version 2 and virtual network flow logs (version 4).
//!
//! Both log connection states per NIC: `B` when a connection begins (empty counters), `C`
//! while it continues (every 5 minutes for NSG logs, every minute for VNet logs), `E` when it
//! ends, with counters that are deltas since the NIC's previous tuple of that connection. A
//! denied connection is one tuple with the dropped request's counters. NSG logs group tuples by
//! (NSG, minute), then rule, then MAC; VNet logs by (NIC, minute), then rule.

use std::fmt::Write;

use serde_json::Value;

use super::text::Text;
use super::{Emitted, Inventory, ParseError, Parsed, Record, State, addr, num};
use crate::flows::T0;
use crate::flows::model::{Connection, NO_VM, Rule, Trace, rule, scale};
use crate::flows::tenant::Tenant;

const MIN: u64 = 60_000;

/// Which Azure log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Nsg2,
    Vnet4,
}

/// File order: (minute, VNet or NIC, rule, NIC or 0, time, connection, sequence).
type SortKey = (u64, u32, u32, u32, u64, u32, u32);

pub fn emit(t: &Tenant, tr: &Trace, flavor: Flavor) -> Vec<Emitted> {
    let mark = if flavor == Flavor::Nsg2 { 5 * MIN } else { MIN };
    let end = tr.end_ms();
    let mut all: Vec<Emitted> = Vec::new();
    // Sorted apart from the records, with each one's index: moving a key and an index is
    // cheaper than moving a record.
    let mut keys: Vec<(SortKey, u32)> = Vec::new();
    for (ci, c) in tr.connections.iter().enumerate() {
        for (vm, inbound) in [(c.src_vm, false), (c.dst_vm, true)] {
            if vm == NO_VM || (!c.allow && !inbound) {
                continue;
            }
            let r = rule(t, &tr.vms, c, inbound);
            let vnet = t.roles[tr.vms[vm as usize].role].vnet;
            let first = all.len();
            tuples(c, tr.vms[vm as usize].ip, inbound, mark, end, flavor, &mut all);
            for (seq, e) in all[first..].iter_mut().enumerate() {
                (e.vm, e.rule) = (vm, r);
                let minute = e.at_ms / MIN;
                let key = match flavor {
                    Flavor::Nsg2 => (minute, vnet, r as u32, vm, e.at_ms, ci as u32, seq as u32),
                    Flavor::Vnet4 => (minute, vm, r as u32, 0, e.at_ms, ci as u32, seq as u32),
                };
                keys.push((key, (first + seq) as u32));
            }
        }
    }
    keys.sort_unstable();
    keys.into_iter().map(|(_, i)| all[i as usize]).collect()
}

/// Appends a connection's tuples at one NIC to `out`.
fn tuples(
    c: &Connection,
    vantage: u32,
    inbound: bool,
    mark: u64,
    end: u64,
    flavor: Flavor,
    out: &mut Vec<Emitted>,
) {
    let base = |at: u64, state: State| {
        let mut r = Record::blank(T0 + at / 1000, T0 + at / 1000, vantage);
        (r.src, r.dst, r.sport, r.dport, r.proto) = (c.src, c.dst, c.sport, c.dport, c.proto);
        r.inbound = inbound;
        r.allow = c.allow;
        r.state = state;
        Emitted { record: r, vm: NO_VM, rule: Rule::DenyAllInBound, extra: 0, at_ms: at, end_ms: at }
    };
    if !c.allow {
        let mut e = base(c.start, if flavor == Flavor::Nsg2 { State::B } else { State::D });
        (e.record.pkts, e.record.bytes) = (u64::from(c.pkts_f), c.bytes_f);
        out.push(e);
        return;
    }
    let cum = |p: u64, at: u64| {
        if at >= c.end { p } else { scale(p, at - c.start, c.end - c.start) }
    };
    out.push(base(c.start, State::B));
    let marks =
        (1..).map(|k| c.start + k * mark).take_while(|&m| m < c.end && m < end).map(|m| (m, State::C));
    let last = (c.end < end).then_some((c.end, State::E));
    let mut prev = c.start;
    for (at, state) in marks.chain(last) {
        let mut e = base(at, state);
        let r = &mut e.record;
        r.pkts = cum(u64::from(c.pkts_f), at) - cum(u64::from(c.pkts_f), prev);
        r.bytes = cum(c.bytes_f, at) - cum(c.bytes_f, prev);
        r.pkts_rev = cum(u64::from(c.pkts_r), at) - cum(u64::from(c.pkts_r), prev);
        r.bytes_rev = cum(c.bytes_r, at) - cum(c.bytes_r, prev);
        prev = at;
        out.push(e);
    }
}

/// `2025-01-06T00:01:00Z`: the end of the record's minute.
fn minute_time(minute: u64) -> String {
    crate::k8s::meta::rfc3339((T0 + (minute + 1) * 60) as i64)
}

/// One flow tuple, without its quotes.
pub(super) fn tuple(out: &mut Text, e: &Emitted, flavor: Flavor) {
    let r = &e.record;
    out.int(if flavor == Flavor::Nsg2 { r.t } else { T0 * 1000 + e.at_ms });
    out.byte(b',');
    out.ip(r.src);
    out.byte(b',');
    out.ip(r.dst);
    out.byte(b',');
    out.ints(&[u64::from(r.sport), u64::from(r.dport)], b',');
    let dir = if r.inbound { b'I' } else { b'O' };
    match flavor {
        Flavor::Nsg2 => {
            let proto = if r.proto == 6 { b'T' } else { b'U' };
            let action = if r.allow { b'A' } else { b'D' };
            [proto, b',', dir, b',', action, b','].into_iter().for_each(|b| out.byte(b));
            out.str(r.state.name());
        }
        Flavor::Vnet4 => {
            out.int(u64::from(r.proto));
            [b',', dir, b','].into_iter().for_each(|b| out.byte(b));
            out.str(r.state.name());
            out.str(",NX");
        }
    }
    if r.state == State::B && r.allow {
        out.str(",,,,");
    } else {
        out.byte(b',');
        out.ints(&[r.pkts, r.bytes, r.pkts_rev], b',');
        out.int(r.bytes_rev);
    }
}

/// Consecutive runs of `items` with equal keys.
fn runs<T, K: PartialEq>(items: &[T], key: impl Fn(&T) -> K) -> Vec<&[T]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=items.len() {
        if i == items.len() || key(&items[i]) != key(&items[start]) {
            if i > start {
                out.push(&items[start..i]);
            }
            start = i;
        }
    }
    out
}

fn tuples_json<E>(
    out: &mut Text,
    group: &[Emitted],
    flavor: Flavor,
    block: &mut impl FnMut(&mut Text) -> Result<(), E>,
) -> Result<(), E> {
    out.str("\"flowTuples\":[");
    for (i, e) in group.iter().enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        out.byte(b'"');
        tuple(out, e, flavor);
        out.byte(b'"');
        block(out)?;
    }
    out.byte(b']');
    Ok(())
}

/// The VNet of the VM that logged a record.
fn vnet_of(t: &Tenant, tr: &Trace, e: &Emitted) -> u32 {
    t.roles[tr.vms[e.vm as usize].role].vnet
}

/// The file's records: the tuples of one minute and (NSG) one VNet's security group or
/// (VNet flow logs) one VM's interface.
fn by_record<'a>(t: &Tenant, tr: &Trace, records: &'a [Emitted], flavor: Flavor) -> Vec<&'a [Emitted]> {
    runs(records, |e| match flavor {
        Flavor::Nsg2 => (e.at_ms / MIN, vnet_of(t, tr, e), NO_VM),
        Flavor::Vnet4 => (e.at_ms / MIN, 0, e.vm),
    })
}

/// About the file's bytes: a quoted tuple with usual counters, and a record's header and
/// closing brackets.
pub(super) fn size_hint(t: &Tenant, tr: &Trace, records: &[Emitted], flavor: Flavor) -> usize {
    records.len() * 90 + by_record(t, tr, records, flavor).len() * 900 + 64
}

/// The file, one JSON document, calling `block` after each tuple (a writer drains the text
/// there).
pub(super) fn file<E>(
    t: &Tenant,
    tr: &Trace,
    records: &[Emitted],
    flavor: Flavor,
    out: &mut Text,
    mut block: impl FnMut(&mut Text) -> Result<(), E>,
) -> Result<(), E> {
    let sub = t.subscription.to_uppercase();
    out.str("{\"records\":[");
    for (n, rec) in by_record(t, tr, records, flavor).into_iter().enumerate() {
        if n > 0 {
            out.byte(b',');
        }
        let first = &rec[0];
        let vnet = vnet_of(t, tr, first);
        let name = t.vnet_name(vnet);
        let net = &t.nets[vnet as usize];
        let time = minute_time(first.at_ms / MIN);
        match flavor {
            Flavor::Nsg2 => {
                let _ = write!(
                    out,
                    "{{\"time\":\"{time}\",\"systemId\":\"{}\",\"category\":\"NetworkSecurityGroupFlowEvent\",\"resourceId\":\"/SUBSCRIPTIONS/{sub}/RESOURCEGROUPS/RG-NETPRESS/PROVIDERS/MICROSOFT.NETWORK/NETWORKSECURITYGROUPS/NSG-{}\",\"operationName\":\"NetworkSecurityGroupFlowEvents\",\"properties\":{{\"Version\":2,\"flows\":[",
                    net.nsg_guid,
                    name.to_uppercase()
                );
                for (i, by_rule) in runs(rec, |e| e.rule).into_iter().enumerate() {
                    if i > 0 {
                        out.byte(b',');
                    }
                    let _ = write!(out, "{{\"rule\":\"{}\",\"flows\":[", by_rule[0].rule.name());
                    for (j, by_mac) in runs(by_rule, |e| e.vm).into_iter().enumerate() {
                        if j > 0 {
                            out.byte(b',');
                        }
                        let _ = write!(out, "{{\"mac\":\"{}\",", tr.vms[by_mac[0].vm as usize].mac);
                        tuples_json(out, by_mac, flavor, &mut block)?;
                        out.byte(b'}');
                    }
                    out.str("]}");
                }
                out.str("]}}");
            }
            Flavor::Vnet4 => {
                let _ = write!(
                    out,
                    "{{\"time\":\"{time}\",\"flowLogVersion\":4,\"flowLogGUID\":\"{}\",\"macAddress\":\"{}\",\"category\":\"FlowLogFlowEvent\",\"flowLogResourceID\":\"/SUBSCRIPTIONS/{sub}/RESOURCEGROUPS/RG-NETPRESS/PROVIDERS/MICROSOFT.NETWORK/NETWORKWATCHERS/NETWORKWATCHER_EASTUS/FLOWLOGS/FL-{}\",\"targetResourceID\":\"/subscriptions/{}/resourceGroups/rg-netpress/providers/Microsoft.Network/virtualNetworks/{name}\",\"operationName\":\"FlowLogFlowEvent\",\"flowRecords\":{{\"flows\":[{{\"aclID\":\"{}\",\"flowGroups\":[",
                    net.flow_log_guid,
                    tr.vms[first.vm as usize].mac,
                    name.to_uppercase(),
                    t.subscription,
                    net.nsg_guid
                );
                for (i, by_rule) in runs(rec, |e| e.rule).into_iter().enumerate() {
                    if i > 0 {
                        out.byte(b',');
                    }
                    let _ = write!(out, "{{\"rule\":\"{}\",", by_rule[0].rule.name());
                    tuples_json(out, by_rule, flavor, &mut block)?;
                    out.byte(b'}');
                }
                out.str("]}]}}");
            }
        }
    }
    out.str("]}");
    Ok(())
}

fn field<'a>(v: &'a Value, path: &[&str]) -> Result<&'a Value, String> {
    path.iter().try_fold(v, |v, k| v.get(k).ok_or_else(|| format!("no \"{}\"", path.join("."))))
}

fn array<'a>(v: &'a Value, path: &[&str]) -> Result<&'a Vec<Value>, String> {
    field(v, path)?.as_array().ok_or_else(|| format!("\"{}\" is not a list", path.join(".")))
}

fn string<'a>(v: &'a Value, path: &[&str]) -> Result<&'a str, String> {
    field(v, path)?.as_str().ok_or_else(|| format!("\"{}\" is not a string", path.join(".")))
}

pub fn parse(text: &str, inv: &Inventory, flavor: Flavor) -> Result<Parsed, ParseError> {
    let doc: Value =
        serde_json::from_str(text).map_err(|e| ParseError { at: 0, message: format!("not JSON: {e}") })?;
    let records = array(&doc, &["records"]).map_err(|message| ParseError { at: 0, message })?;
    let mut out = Parsed::default();
    for (n, rec) in records.iter().enumerate() {
        record(rec, inv, flavor, &mut out).map_err(|message| ParseError { at: n + 1, message })?;
    }
    Ok(out)
}

fn record(rec: &Value, inv: &Inventory, flavor: Flavor, out: &mut Parsed) -> Result<(), String> {
    match flavor {
        Flavor::Nsg2 => {
            for by_rule in array(rec, &["properties", "flows"])? {
                for by_mac in array(by_rule, &["flows"])? {
                    let vantage = inv.ip_of(&inv.by_mac, "MAC", string(by_mac, &["mac"])?)?;
                    for t in array(by_mac, &["flowTuples"])? {
                        let t = t.as_str().ok_or("a flow tuple is not a string")?;
                        out.push(parse_tuple(t, vantage, flavor)?, t);
                    }
                }
            }
        }
        Flavor::Vnet4 => {
            let vantage = inv.ip_of(&inv.by_mac, "MAC", string(rec, &["macAddress"])?)?;
            for acl in array(rec, &["flowRecords", "flows"])? {
                for group in array(acl, &["flowGroups"])? {
                    for t in array(group, &["flowTuples"])? {
                        let t = t.as_str().ok_or("a flow tuple is not a string")?;
                        out.push(parse_tuple(t, vantage, flavor)?, t);
                    }
                }
            }
        }
    }
    Ok(())
}

fn counter(what: &str, s: &str) -> Result<u64, String> {
    if s.is_empty() { Ok(0) } else { num(what, s) }
}

fn parse_tuple(text: &str, vantage: u32, flavor: Flavor) -> Result<Record, String> {
    let f: Vec<&str> = text.split(',').collect();
    if f.len() != 13 {
        return Err(format!("tuple {text:?} has {} fields, not 13", f.len()));
    }
    let t = match flavor {
        Flavor::Nsg2 => num::<u64>("timestamp", f[0])?,
        Flavor::Vnet4 => num::<u64>("timestamp", f[0])? / 1000,
    };
    let mut r = Record::blank(t, t, vantage);
    r.src = addr(f[1])?;
    r.dst = addr(f[2])?;
    r.sport = num("source port", f[3])?;
    r.dport = num("destination port", f[4])?;
    r.inbound = match f[6] {
        "I" => true,
        "O" => false,
        d => return Err(format!("direction {d:?} is not I or O")),
    };
    let state = |s: &str| match s {
        "B" => Ok(State::B),
        "C" => Ok(State::C),
        "E" => Ok(State::E),
        "D" if flavor == Flavor::Vnet4 => Ok(State::D),
        s => Err(format!(
            "flow state {s:?} is not one of B C E{}",
            if flavor == Flavor::Vnet4 { " D" } else { "" }
        )),
    };
    match flavor {
        Flavor::Nsg2 => {
            r.proto = match f[5] {
                "T" => 6,
                "U" => 17,
                p => return Err(format!("protocol {p:?} is not T or U")),
            };
            r.allow = match f[7] {
                "A" => true,
                "D" => false,
                a => return Err(format!("decision {a:?} is not A or D")),
            };
            r.state = state(f[8])?;
        }
        Flavor::Vnet4 => {
            r.proto = num("protocol", f[5])?;
            r.state = state(f[7])?;
            r.allow = r.state != State::D;
        }
    }
    r.pkts = counter("packets sent", f[9])?;
    r.bytes = counter("bytes sent", f[10])?;
    r.pkts_rev = counter("packets received", f[11])?;
    r.bytes_rev = counter("bytes received", f[12])?;
    Ok(r)
}
