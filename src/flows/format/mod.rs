//! The five flow-log formats (docs/flows.md, "Formats"): which records a trace gives in each,
//! their exact text, and a parser per format back to [`Record`]s, the rows of the flows table.
//!
//! Every format goes through the same three steps, so the round trip can be tested on any
//! trace: [`emit`] lists the records (format-neutral rows plus what the text needs), [`render`]
//! prints them as the provider does, and [`parse`] reads such text back into rows. Rendering
//! then parsing gives exactly the rows emitted.

mod aws;
mod azure;
mod gcp;
mod text;
mod time;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::fmt;

use super::model::{NO_VM, Rule, Trace};
use super::tenant::{Tenant, Vm};
use text::Text;

/// A flow-log format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// AWS VPC Flow Logs, default format (version 2).
    Aws2,
    /// AWS VPC Flow Logs, a custom format of version-5 fields.
    Aws5,
    /// Azure NSG flow logs, version 2.
    Nsg2,
    /// Azure virtual network flow logs (version 4).
    Vnet4,
    /// GCP VPC Flow Logs, one JSON object per line.
    Gcp,
}

impl Format {
    pub const ALL: [Format; 5] = [Format::Aws2, Format::Aws5, Format::Nsg2, Format::Vnet4, Format::Gcp];

    pub fn name(self) -> &'static str {
        match self {
            Format::Aws2 => "aws2",
            Format::Aws5 => "aws5",
            Format::Nsg2 => "nsg2",
            Format::Vnet4 => "vnet4",
            Format::Gcp => "gcp",
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// A record's connection state (Azure), or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum State {
    None,
    B,
    C,
    E,
    D,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::None => "",
            State::B => "B",
            State::C => "C",
            State::E => "E",
            State::D => "D",
        }
    }
}

/// An AWS record's log status, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    None,
    Ok,
    NoData,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::None => "",
            Status::Ok => "OK",
            Status::NoData => "NODATA",
        }
    }
}

/// One row of the flows table: a record (Azure: a tuple) as the agent may query it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// Unix seconds.
    pub t: u64,
    pub t_end: u64,
    /// Address of the logging NIC, ENI or reporting VM.
    pub vantage: u32,
    /// Whether the record is inbound at the vantage.
    pub inbound: bool,
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
    /// 6, 17, or 0 where the record has none (AWS NODATA).
    pub proto: u8,
    pub allow: bool,
    pub state: State,
    /// The record's src→dst counters.
    pub pkts: u64,
    pub bytes: u64,
    /// Azure's Recv counters, else 0.
    pub pkts_rev: u64,
    pub bytes_rev: u64,
    pub status: Status,
    /// The VM whose instance id the record names (aws5), or [`NO_VM`].
    pub instance: u32,
}

impl Record {
    fn blank(t: u64, t_end: u64, vantage: u32) -> Record {
        Record {
            t,
            t_end,
            vantage,
            inbound: false,
            src: 0,
            dst: 0,
            sport: 0,
            dport: 0,
            proto: 0,
            allow: true,
            state: State::None,
            pkts: 0,
            bytes: 0,
            pkts_rev: 0,
            bytes_rev: 0,
            status: Status::None,
            instance: NO_VM,
        }
    }
}

/// A record and what only its text needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Emitted {
    pub record: Record,
    /// The logging VM (index into the trace's VMs).
    pub vm: u32,
    /// Azure: the rule that passed or denied it. AWS: unused.
    pub rule: Rule,
    /// aws5 tcp-flags; GCP rtt.
    pub extra: u16,
    /// Azure: the tuple's time; GCP: the overlap's start (ms after T0).
    pub at_ms: u64,
    /// GCP: the overlap's end (ms after T0).
    pub end_ms: u64,
}

/// Rendering options the formats leave open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// AWS aggregation interval in seconds: 60 (default) or 600.
    pub aws_interval_s: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options { aws_interval_s: 60 }
    }
}

/// The records a trace gives in `format`, in file order.
pub fn emit(format: Format, tenant: &Tenant, trace: &Trace, options: Options) -> Vec<Emitted> {
    match format {
        Format::Aws2 => {
            let mut records = aws::emit(trace, options.aws_interval_s * 1000);
            records.iter_mut().for_each(|e| e.record.instance = NO_VM);
            records
        }
        Format::Aws5 => aws::emit(trace, options.aws_interval_s * 1000),
        Format::Nsg2 => azure::emit(tenant, trace, azure::Flavor::Nsg2),
        Format::Vnet4 => azure::emit(tenant, trace, azure::Flavor::Vnet4),
        Format::Gcp => gcp::emit(trace),
    }
}

/// The text of emitted records, exactly as the provider writes it.
pub fn render(format: Format, tenant: &Tenant, trace: &Trace, records: &[Emitted]) -> String {
    // Sized up front: the text is hundreds of megabytes for a large tenant, and growing it by
    // doubling copies all of it (and touches twice its pages).
    let size = match format {
        Format::Aws2 | Format::Aws5 => {
            aws::Lines::new(tenant, trace, format == Format::Aws5).size_hint(records)
        }
        Format::Nsg2 => azure::size_hint(tenant, trace, records, azure::Flavor::Nsg2),
        Format::Vnet4 => azure::size_hint(tenant, trace, records, azure::Flavor::Vnet4),
        Format::Gcp => gcp::size_hint(records),
    };
    let mut text = Text::with_capacity(size);
    let Ok(()) = file(format, tenant, trace, records, &mut text, |_| Ok::<(), Infallible>(()));
    text.into_string()
}

/// [`render`]'s text handed to `w` a block at a time, never held whole: a large tenant's
/// hour is hundreds of megabytes, and first touching that much fresh memory costs about as
/// long as writing it.
pub fn write(
    format: Format,
    tenant: &Tenant,
    trace: &Trace,
    records: &[Emitted],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    const BLOCK: usize = 1 << 16;
    // Room for the piece that crosses a block's end (a line, a tuple, an Azure record's head).
    let mut text = Text::with_capacity(BLOCK + 4096);
    let drain = |text: &mut Text| if text.len() >= BLOCK { text.drain_to(w) } else { Ok(()) };
    file(format, tenant, trace, records, &mut text, drain)?;
    text.drain_to(w)
}

/// Writes the file into `text`, calling `block` between its pieces (lines, tuples).
fn file<E>(
    format: Format,
    tenant: &Tenant,
    trace: &Trace,
    records: &[Emitted],
    text: &mut Text,
    block: impl FnMut(&mut Text) -> Result<(), E>,
) -> Result<(), E> {
    match format {
        Format::Aws2 | Format::Aws5 => {
            aws::Lines::new(tenant, trace, format == Format::Aws5).file(text, records, block)
        }
        Format::Nsg2 => azure::file(tenant, trace, records, azure::Flavor::Nsg2, text, block),
        Format::Vnet4 => azure::file(tenant, trace, records, azure::Flavor::Vnet4, text, block),
        Format::Gcp => gcp::file(records, text, block),
    }
}

/// Each record's own text end to end, with where each ends: an AWS or GCP line without its
/// newline, an Azure flow tuple. These are the raw texts [`parse`] gives the rows of
/// [`render`]'s file (`render` writes each row with the same code), so a table built straight
/// from emitted records can show them without the whole file being written and read back.
pub fn raw_rows(format: Format, tenant: &Tenant, trace: &Trace, records: &[Emitted]) -> (String, Vec<usize>) {
    match format {
        Format::Aws2 | Format::Aws5 => {
            let lines = aws::Lines::new(tenant, trace, format == Format::Aws5);
            let mut times = aws::Times::default();
            rows(records, lines.lines_size(records), |out, e| lines.line(out, e, &mut times))
        }
        // About a tuple's bytes (and a GCP line's) with usual counters.
        Format::Nsg2 => rows(records, records.len() * 72, |out, e| azure::tuple(out, e, azure::Flavor::Nsg2)),
        Format::Vnet4 => {
            rows(records, records.len() * 80, |out, e| azure::tuple(out, e, azure::Flavor::Vnet4))
        }
        Format::Gcp => rows(records, records.len() * 260, gcp::line),
    }
}

/// Each record's text as `row` writes it, end to end, with where each ends.
fn rows(records: &[Emitted], size: usize, mut row: impl FnMut(&mut Text, &Emitted)) -> (String, Vec<usize>) {
    let mut out = Text::with_capacity(size);
    let ends = records
        .iter()
        .map(|e| {
            row(&mut out, e);
            out.len()
        })
        .collect();
    (out.into_string(), ends)
}

/// Why a log text could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line (JSON formats: the record's position in `records`, 1-based).
    pub at: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record {}: {}", self.at, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parsed rows with each one's original text (a line, or an Azure tuple).
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub records: Vec<Record>,
    raw: String,
    ends: Vec<usize>,
}

impl Parsed {
    fn push(&mut self, record: Record, raw: &str) {
        self.records.push(record);
        self.raw.push_str(raw);
        self.ends.push(self.raw.len());
    }

    /// The original text of row `i`.
    pub fn raw(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.raw[start..end])
    }

    /// Splits into rows and the raw text arena with its row ends.
    pub fn into_parts(self) -> (Vec<Record>, String, Vec<usize>) {
        (self.records, self.raw, self.ends)
    }
}

/// What the logs name and the flows table resolves: interfaces, MACs and instances to VMs.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    by_eni: BTreeMap<String, u32>,
    by_mac: BTreeMap<String, u32>,
    by_instance: BTreeMap<String, u32>,
    ips: Vec<u32>,
    instances: Vec<String>,
}

impl Inventory {
    pub fn new(vms: &[Vm]) -> Inventory {
        let mut inv = Inventory::default();
        for (i, vm) in vms.iter().enumerate() {
            inv.by_eni.insert(vm.eni.clone(), i as u32);
            inv.by_mac.insert(vm.mac.clone(), i as u32);
            inv.by_instance.insert(vm.instance.clone(), i as u32);
            inv.ips.push(vm.ip);
            inv.instances.push(vm.instance.clone());
        }
        inv
    }

    fn ip_of(&self, map: &BTreeMap<String, u32>, what: &str, key: &str) -> Result<u32, String> {
        map.get(key).map(|&i| self.ips[i as usize]).ok_or_else(|| format!("unknown {what} {key:?}"))
    }

    /// The instance id of a VM.
    pub fn instance_name(&self, vm: u32) -> Option<&str> {
        self.instances.get(vm as usize).map(String::as_str)
    }
}

/// Reads a log text of `format`.
pub fn parse(format: Format, text: &str, inventory: &Inventory) -> Result<Parsed, ParseError> {
    match format {
        Format::Aws2 | Format::Aws5 => aws::parse(text, inventory),
        Format::Nsg2 => azure::parse(text, inventory, azure::Flavor::Nsg2),
        Format::Vnet4 => azure::parse(text, inventory, azure::Flavor::Vnet4),
        Format::Gcp => gcp::parse(text),
    }
}

/// Intervals of `len` ms (index, start, end) a connection [s, e) overlaps within a trace
/// ending at `trace_end`; a zero-length connection overlaps the one holding its start.
fn intervals(s: u64, e: u64, len: u64, trace_end: u64) -> impl Iterator<Item = (u64, u64, u64)> {
    let first = s / len;
    let stop = e.min(trace_end);
    let last = if stop > s { (stop - 1) / len } else { first };
    (first..=last).map(move |i| (i, i * len, (i + 1) * len))
}

/// Dotted-quad parse with a message.
fn addr(s: &str) -> Result<u32, String> {
    s.parse::<std::net::Ipv4Addr>().map(u32::from).map_err(|_| format!("bad IPv4 address {s:?}"))
}

fn num<T: std::str::FromStr>(what: &str, s: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("bad {what} {s:?}"))
}

#[cfg(test)]
mod tests;
