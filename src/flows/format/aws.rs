//! AWS VPC Flow Logs: the default format (version 2) and a custom format with version-5 fields.
//!
//! One record per (ENI, direction of a 5-tuple, aggregation interval): the request direction
//! and, when packets came back, the reply direction with source and destination swapped. A
//! rejected connection gives one REJECT record at the destination ENI; an ENI with nothing in
//! an interval gives a NODATA record. Files start with the field-name header line.

use super::text::{Piece, Text};
use super::{Emitted, Inventory, ParseError, Parsed, Record, State, Status, addr, intervals, num};
use crate::flows::T0;
use crate::flows::model::{Connection, NO_VM, Rule, Trace, share};
use crate::flows::tenant::Tenant;

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

/// A connection's kinds of records, in their order within one (interval, ENI, connection).
const REQUEST: u8 = 0;
const REPLY: u8 = 1;

/// The records in file order: by interval, ENI, connection, then kind. Connections are visited
/// in order, each giving its requests before its replies, so placing every record in its
/// (interval, ENI) bucket in visiting order (a stable counting sort) is that order without
/// comparing keys; an empty bucket of a running VM is its NODATA record.
pub fn emit(tr: &Trace, iv: u64) -> Vec<Emitted> {
    let end = tr.end_ms();
    let vms = tr.vms.len() as u64;
    let bucket = |i: u64, vm: u32| (i * vms + u64::from(vm)) as usize;
    let mut keys: Vec<(usize, u32, u8)> = Vec::new();
    for (ci, c) in tr.connections.iter().enumerate() {
        for (i, x, y) in intervals(c.start, c.end, iv, end) {
            if !c.allow {
                if c.dst_vm != NO_VM {
                    keys.push((bucket(i, c.dst_vm), ci as u32, REQUEST));
                }
                continue;
            }
            let request = (x..y).contains(&c.start) || share(u64::from(c.pkts_f), c.start, c.end, x, y) > 0;
            let reply = share(u64::from(c.pkts_r), c.start, c.end, x, y) > 0;
            for (kind, on) in [(REQUEST, request), (REPLY, reply)] {
                for vm in [c.src_vm, c.dst_vm].into_iter().filter(|&v| on && v != NO_VM) {
                    keys.push((bucket(i, vm), ci as u32, kind));
                }
            }
        }
    }
    let buckets = keys.iter().map(|k| k.0 + 1).max().unwrap_or(0).max(bucket(end.div_ceil(iv), 0));
    let (starts, sorted) = counting_sort(&keys, buckets);
    drop(keys);
    let mut out = Vec::with_capacity(sorted.len());
    for b in 0..buckets {
        let (i, vm) = (b as u64 / vms, (b as u64 % vms) as u32);
        let (x, y) = (i * iv, ((i + 1) * iv).min(end));
        let v = &tr.vms[vm as usize];
        let vantage = v.ip;
        let run = &sorted[starts[b]..starts[b + 1]];
        // `y > x` holds for every bucket before the trace's end; a guard all the same.
        let running = v.start_ms < (i + 1) * iv && v.stop_ms > i * iv;
        if run.is_empty() && running && y > x {
            let mut r = Record::blank(T0 + x / 1000, T0 + y / 1000, vantage);
            r.status = Status::NoData;
            out.push(Emitted { record: r, vm, rule: Rule::AllowVnetInBound, extra: 0, at_ms: x, end_ms: y });
        }
        for &(ci, kind) in run {
            out.push(record(&tr.connections[ci as usize], vm, vantage, kind == REPLY, x, y, end));
        }
    }
    out
}

/// `(bucket, connection, kind)` keys stably sorted by bucket, as each bucket's start in the
/// result (with the end of the last) and the `(connection, kind)`s.
fn counting_sort(keys: &[(usize, u32, u8)], buckets: usize) -> (Vec<usize>, Vec<(u32, u8)>) {
    let mut starts = vec![0; buckets + 1];
    for k in keys {
        starts[k.0 + 1] += 1;
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }
    let mut next = starts.clone();
    let mut sorted = vec![(0, 0); keys.len()];
    for &(b, ci, kind) in keys {
        sorted[next[b]] = (ci, kind);
        next[b] += 1;
    }
    (starts, sorted)
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

/// Room for the header line (the version-5 one is 282 bytes).
const HEADER_MAX: usize = 512;

/// Writes records' lines. What a line takes from its ENI alone (version, account and
/// interface id; v5: VPC, subnet and instance id) is written once per ENI up front rather
/// than formatted again on each of the ENI's lines.
pub(super) struct Lines {
    v5: bool,
    /// Per VM: `2 account eni ` (version 5: `5 …`).
    heads: Vec<Piece>,
    /// Per VM (v5 only): ` vpc subnet instance `, the fields before tcp-flags.
    v5_fields: Vec<Piece>,
}

impl Lines {
    pub(super) fn new(t: &Tenant, tr: &Trace, v5: bool) -> Lines {
        let version = if v5 { 5 } else { 2 };
        let heads =
            tr.vms.iter().map(|vm| Piece::new(format!("{version} {} {} ", t.account, vm.eni))).collect();
        let v5_fields = if v5 {
            tr.vms
                .iter()
                .map(|vm| {
                    let net = &t.nets[t.roles[vm.role].vnet as usize];
                    Piece::new(format!(" {} {} {} ", net.vpc, t.subnet_of(vm.role), vm.instance))
                })
                .collect()
        } else {
            Vec::new()
        };
        Lines { v5, heads, v5_fields }
    }

    /// About the bytes `records`' lines take with their newlines, a little over for usual
    /// counters: the text is hundreds of megabytes for a large tenant, and growing it by
    /// doubling copies all of it (and touches twice its pages).
    pub(super) fn size_hint(&self, records: &[Emitted]) -> usize {
        HEADER_MAX + self.lines_size(records)
    }

    /// About the bytes of `records`' lines alone.
    pub(super) fn lines_size(&self, records: &[Emitted]) -> usize {
        // Addresses, ports, counters and times of a line (v5 adds flags and addresses).
        let rest = if self.v5 { 160 } else { 88 };
        let fields = |vm: usize| self.v5_fields.get(vm).map_or(0, Piece::len);
        records.iter().map(|e| self.heads[e.vm as usize].len() + fields(e.vm as usize) + rest).sum()
    }

    /// The header line, then each record's line, calling `block` after each line (a writer
    /// drains the text there).
    pub(super) fn file<E>(
        &self,
        text: &mut Text,
        records: &[Emitted],
        mut block: impl FnMut(&mut Text) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut header: Vec<&str> = V2.to_vec();
        if self.v5 {
            header.extend(V5_EXTRA);
        }
        text.str(&header.join(" "));
        text.byte(b'\n');
        let mut times = Times::default();
        for e in records {
            self.line(text, e, &mut times);
            text.byte(b'\n');
            block(text)?;
        }
        Ok(())
    }

    /// One record's line, without its newline; `times` holds the last line's start and end.
    pub(super) fn line(&self, out: &mut Text, e: &Emitted, times: &mut Times) {
        let r = &e.record;
        out.piece(&self.heads[e.vm as usize]);
        if r.status == Status::NoData {
            out.str("- - - - - - - ");
            times.write(out, r.t, r.t_end);
            out.str("- NODATA");
            if self.v5 {
                out.str(NODATA_V5);
            }
            return;
        }
        out.ip(r.src);
        out.byte(b' ');
        out.ip(r.dst);
        out.byte(b' ');
        let (sport, dport, proto) = (u64::from(r.sport), u64::from(r.dport), u64::from(r.proto));
        out.ints(&[sport, dport, proto, r.pkts, r.bytes], b' ');
        times.write(out, r.t, r.t_end);
        out.str(if r.allow { "ACCEPT OK" } else { "REJECT OK" });
        if self.v5 {
            out.piece(&self.v5_fields[e.vm as usize]);
            out.int(u64::from(e.extra));
            out.str(" IPv4 ");
            out.ip(r.src);
            out.byte(b' ');
            out.ip(r.dst);
            out.str(" us-east-1 use1-az1 - - - - ");
            out.str(if r.inbound { "ingress" } else { "egress" });
        }
    }
}

/// The text `start end ` of the last line written. A connection's request and reply records
/// (one per direction, at each end) share their first and last packet's seconds, so most lines
/// repeat the times of the line before; these two ten-digit numbers took more time to write
/// than any other field of a line.
#[derive(Default)]
pub(super) struct Times {
    key: Option<(u64, u64)>,
    /// Two numbers of at most 20 digits and their spaces.
    text: Vec<u8>,
}

impl Times {
    fn write(&mut self, out: &mut Text, t: u64, t_end: u64) {
        if self.key == Some((t, t_end)) {
            out.bytes(&self.text);
            return;
        }
        let from = out.len();
        out.ints(&[t, t_end], b' ');
        self.text.clear();
        self.text.extend_from_slice(out.since(from));
        self.key = Some((t, t_end));
    }
}

/// A NODATA line's version-5 fields: ` -` for each.
const NODATA_V5: &str = " - - - - - - - - - - - - - -";
const _: () = assert!(NODATA_V5.len() == 2 * V5_EXTRA.len());

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
