//! AWS VPC Flow Logs: the default format (version 2) and a custom format with version-5 fields.
//!
//! One record per (ENI, direction of a 5-tuple, aggregation interval): the request direction
//! and, when packets came back, the reply direction with source and destination swapped. A
//! rejected connection gives one REJECT record at the destination ENI; an ENI with nothing in
//! an interval gives a NODATA record. Files start with the field-name header line.

use std::collections::HashSet;

use super::{Emitted, Inventory, ParseError, Parsed, Record, State, Status, addr, intervals, num};
use crate::flows::T0;
use crate::flows::model::{Connection, NO_VM, Rule, Trace, share};
use crate::flows::tenant::{Tenant, dotted};

const V2: [&str; 14] = [
    "version",
    "account-id",
    "interface-id",
    "srcaddr",
    "dstaddr",
    "srcport",
    "dstport",
    "protocol",
    "packets",
    "bytes",
    "start",
    "end",
    "action",
    "log-status",
];
const V5_EXTRA: [&str; 14] = [
    "vpc-id",
    "subnet-id",
    "instance-id",
    "tcp-flags",
    "type",
    "pkt-srcaddr",
    "pkt-dstaddr",
    "region",
    "az-id",
    "sublocation-type",
    "sublocation-id",
    "pkt-src-aws-service",
    "pkt-dst-aws-service",
    "flow-direction",
];

const FIN: u16 = 1;
const SYN: u16 = 2;
const ACK: u16 = 16;

/// Kinds of records, in the order they sort within one (interval, ENI, connection).
const REQUEST: u8 = 0;
const REPLY: u8 = 1;
const NODATA: u8 = 2;

pub fn emit(tr: &Trace, iv: u64) -> Vec<Emitted> {
    let end = tr.end_ms();
    let mut keys: Vec<(u64, u32, u32, u8)> = Vec::new();
    for (ci, c) in tr.connections.iter().enumerate() {
        for (i, x, y) in intervals(c.start, c.end, iv, end) {
            if !c.allow {
                if c.dst_vm != NO_VM {
                    keys.push((i, c.dst_vm, ci as u32, REQUEST));
                }
                continue;
            }
            let request = (x..y).contains(&c.start) || share(u64::from(c.pkts_f), c.start, c.end, x, y) > 0;
            let reply = share(u64::from(c.pkts_r), c.start, c.end, x, y) > 0;
            for vm in [c.src_vm, c.dst_vm].into_iter().filter(|&v| v != NO_VM) {
                if request {
                    keys.push((i, vm, ci as u32, REQUEST));
                }
                if reply {
                    keys.push((i, vm, ci as u32, REPLY));
                }
            }
        }
    }
    let busy: HashSet<(u64, u32)> = keys.iter().map(|k| (k.0, k.1)).collect();
    for i in 0..end.div_ceil(iv) {
        for (v, vm) in tr.vms.iter().enumerate() {
            let running = vm.start_ms < (i + 1) * iv && vm.stop_ms > i * iv;
            if running && !busy.contains(&(i, v as u32)) {
                keys.push((i, v as u32, u32::MAX, NODATA));
            }
        }
    }
    keys.sort_unstable();
    keys.into_iter()
        .map(|(i, vm, ci, kind)| {
            let (x, y) = (i * iv, ((i + 1) * iv).min(end));
            let vantage = tr.vms[vm as usize].ip;
            if kind == NODATA {
                let mut r = Record::blank(T0 + x / 1000, T0 + y / 1000, vantage);
                r.status = Status::NoData;
                return Emitted {
                    record: r,
                    vm,
                    rule: Rule::AllowVnetInBound,
                    extra: 0,
                    at_ms: x,
                    end_ms: y,
                };
            }
            let c = &tr.connections[ci as usize];
            record(c, vm, vantage, kind == REPLY, x, y, end)
        })
        .collect()
}

fn record(c: &Connection, vm: u32, vantage: u32, reply: bool, x: u64, y: u64, end: u64) -> Emitted {
    let (from, to) = (x.max(c.start), y.min(c.end).max(x.max(c.start)));
    let sh = |p: u64| share(p, c.start, c.end, x, y);
    let mut r = Record::blank(T0 + from / 1000, T0 + to / 1000, vantage);
    (r.src, r.dst, r.sport, r.dport) = (c.src, c.dst, c.sport, c.dport);
    (r.pkts, r.bytes) = (sh(u64::from(c.pkts_f)), sh(c.bytes_f));
    if reply {
        (r.src, r.dst, r.sport, r.dport) = (c.dst, c.src, c.dport, c.sport);
        (r.pkts, r.bytes) = (sh(u64::from(c.pkts_r)), sh(c.bytes_r));
    }
    if !c.allow {
        (r.pkts, r.bytes) = (u64::from(c.pkts_f), c.bytes_f);
    }
    r.proto = c.proto;
    r.allow = c.allow;
    r.inbound = r.dst == vantage;
    r.status = Status::Ok;
    r.instance = vm;
    let mut flags = 0;
    if c.proto == 6 {
        if (x..y).contains(&c.start) {
            flags |= if reply { SYN | ACK } else { SYN };
        }
        if c.allow && c.end < end && (x..y).contains(&c.end) && c.end > c.start {
            flags |= FIN;
        }
    }
    Emitted { record: r, vm, rule: Rule::AllowVnetInBound, extra: flags, at_ms: from, end_ms: to }
}

/// The file: header line, then one line per record.
pub fn render(t: &Tenant, tr: &Trace, records: &[Emitted], v5: bool) -> String {
    let mut out = String::with_capacity(records.len() * if v5 { 200 } else { 100 });
    let mut header: Vec<&str> = V2.to_vec();
    if v5 {
        header.extend(V5_EXTRA);
    }
    out.push_str(&header.join(" "));
    out.push('\n');
    for e in records {
        line(&mut out, t, tr, e, v5);
        out.push('\n');
    }
    out
}

pub(super) fn line(out: &mut String, t: &Tenant, tr: &Trace, e: &Emitted, v5: bool) {
    use std::fmt::Write;
    let r = &e.record;
    let vm = &tr.vms[e.vm as usize];
    let version = if v5 { 5 } else { 2 };
    let _ = write!(out, "{version} {} {} ", t.account, vm.eni);
    if r.status == Status::NoData {
        let _ = write!(out, "- - - - - - - {} {} - NODATA", r.t, r.t_end);
        if v5 {
            out.push_str(&" -".repeat(V5_EXTRA.len()));
        }
        return;
    }
    let (src, dst) = (dotted(r.src), dotted(r.dst));
    let action = if r.allow { "ACCEPT" } else { "REJECT" };
    let _ = write!(
        out,
        "{src} {dst} {} {} {} {} {} {} {} {action} OK",
        r.sport, r.dport, r.proto, r.pkts, r.bytes, r.t, r.t_end
    );
    if v5 {
        let role = vm.role;
        let net = &t.nets[t.roles[role].vnet as usize];
        let direction = if r.inbound { "ingress" } else { "egress" };
        let _ = write!(
            out,
            " {} {} {} {} IPv4 {src} {dst} us-east-1 use1-az1 - - - - {direction}",
            net.vpc,
            t.subnet_of(role),
            vm.instance,
            e.extra
        );
    }
}

/// Reads a file of either format: the header names the fields (the default format when absent).
pub fn parse(text: &str, inv: &Inventory) -> Result<Parsed, ParseError> {
    let mut out = Parsed::default();
    let mut header: Vec<&str> = V2.to_vec();
    for (n, raw) in text.lines().enumerate() {
        let fail = |message: String| ParseError { at: n + 1, message };
        let fields: Vec<&str> = raw.split_ascii_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        if fields[0] == "version" {
            header = fields;
            continue;
        }
        if fields.len() != header.len() {
            return Err(fail(format!("{} fields where the header names {}", fields.len(), header.len())));
        }
        let record = parse_line(&header, &fields, inv).map_err(fail)?;
        out.push(record, raw);
    }
    Ok(out)
}

fn parse_line(header: &[&str], fields: &[&str], inv: &Inventory) -> Result<Record, String> {
    let get = |name: &str| -> Result<&str, String> {
        header.iter().position(|h| *h == name).map(|i| fields[i]).ok_or_else(|| format!("no {name} field"))
    };
    let vantage = inv.ip_of(&inv.by_eni, "interface", get("interface-id")?)?;
    let mut r = Record::blank(num("start", get("start")?)?, num("end", get("end")?)?, vantage);
    r.status = match get("log-status")? {
        "OK" => Status::Ok,
        "NODATA" => Status::NoData,
        other => return Err(format!("log-status {other:?} is not OK or NODATA")),
    };
    if get("srcaddr")? != "-" {
        r.src = addr(get("srcaddr")?)?;
        r.dst = addr(get("dstaddr")?)?;
        r.sport = num("srcport", get("srcport")?)?;
        r.dport = num("dstport", get("dstport")?)?;
        r.proto = num("protocol", get("protocol")?)?;
        r.pkts = num("packets", get("packets")?)?;
        r.bytes = num("bytes", get("bytes")?)?;
        r.allow = match get("action")? {
            "ACCEPT" => true,
            "REJECT" => false,
            other => return Err(format!("action {other:?} is not ACCEPT or REJECT")),
        };
        r.inbound = r.dst == vantage;
    }
    r.state = State::None;
    if let Ok(id) = get("instance-id") {
        r.instance = match id {
            "-" => NO_VM,
            id => *inv.by_instance.get(id).ok_or_else(|| format!("unknown instance {id:?}"))?,
        };
    }
    Ok(r)
}
