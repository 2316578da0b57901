//! The flows table `F` (docs/flows.md, "The flows table"): one row per parsed record (Azure:
//! per tuple), in file order, stored by column in 48 bytes a row, and the stateless query
//! methods an agent's code calls on it.
//!
//! The methods take and return plain Python values ([`Py`], shared with MALT's host graph) so
//! the sandbox only forwards calls; any bad column, operator or value type is a `ValueError`
//! (or `TypeError`) that names what is valid, never a panic.

use std::fmt;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use super::format::{Format, Inventory, Parsed, Record, State, Status};
use super::model::NO_VM;
use super::tenant::dotted;
use crate::malt::api::{ApiError, ApiResult, Budget, Exc, Py};
use crate::malt::method::{Methods, method, required};

/// The columns, in the order `info()` lists them.
pub const COLUMNS: [&str; 18] = [
    "i",
    "t",
    "t_end",
    "vantage",
    "dir",
    "src",
    "dst",
    "sport",
    "dport",
    "proto",
    "action",
    "state",
    "pkts",
    "bytes",
    "pkts_rev",
    "bytes_rev",
    "status",
    "instance",
];

/// Most rows `rows()` returns at once.
pub const MAX_LIMIT: usize = 10_000;
/// Most keys a `group`, `series` or `distinct` result may have.
pub const MAX_KEYS: usize = 100_000;
const ROW_BYTES: usize = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Ip,
    Str,
}

fn kind(col: usize) -> Kind {
    match COLUMNS[col] {
        "vantage" | "src" | "dst" => Kind::Ip,
        "dir" | "action" | "state" | "status" | "instance" => Kind::Str,
        _ => Kind::Int,
    }
}

/// The values of each string column but `instance`, in sort order (their codes).
fn codes(col: &str) -> &'static [&'static str] {
    match col {
        "dir" => &["in", "out"],
        "action" => &["allow", "deny"],
        "state" => &["", "B", "C", "D", "E"],
        "status" => &["", "NODATA", "OK"],
        _ => &[],
    }
}

/// The table. Flags pack dir (bit 0, 1 = out), action (bit 1, 1 = deny), state (bits 2–4,
/// code of `codes`) and status (bits 5–6).
#[derive(Debug, Clone)]
pub struct Table {
    format: Format,
    windows: Vec<(String, u64, u64)>,
    t: Vec<u32>,
    t_end: Vec<u32>,
    vantage: Vec<u32>,
    src: Vec<u32>,
    dst: Vec<u32>,
    sport: Vec<u16>,
    dport: Vec<u16>,
    proto: Vec<u8>,
    flags: Vec<u8>,
    pkts: Vec<u32>,
    bytes: Vec<u32>,
    pkts_rev: Vec<u32>,
    bytes_rev: Vec<u32>,
    instance: Vec<u16>,
    raw: Raw,
    /// Instance names by VM index, and each VM's rank among them sorted (for ordering).
    instance_names: Vec<String>,
    instance_rank: Vec<u16>,
}

/// A column's storage (see [`Table::cells`]).
#[derive(Clone, Copy)]
enum Cells<'a> {
    /// The row number.
    Index,
    U32(&'a [u32]),
    U16(&'a [u16]),
    U8(&'a [u8]),
    /// Flag bits: (flags, shift, mask).
    Flags(&'a [u8], u8, u8),
    /// VM indexes (`u16::MAX` for none, key 0) and each VM's rank among the instance names.
    Instance(&'a [u16], &'a [u16]),
}

impl Cells<'_> {
    /// The key of row `i`'s cell.
    #[inline]
    fn key(self, i: usize) -> u64 {
        match self {
            Cells::Index => i as u64,
            Cells::U32(v) => u64::from(v[i]),
            Cells::U16(v) => u64::from(v[i]),
            Cells::U8(v) => u64::from(v[i]),
            Cells::Flags(v, shift, mask) => u64::from(v[i] >> shift & mask),
            Cells::Instance(v, rank) => match v[i] {
                u16::MAX => 0,
                v => u64::from(rank[v as usize]),
            },
        }
    }

    /// `f(position in rows, key)` for each of `rows`.
    #[inline]
    fn each(self, rows: &[u32], mut f: impl FnMut(usize, u64)) {
        for (p, &i) in rows.iter().enumerate() {
            f(p, self.key(i as usize));
        }
    }
}

/// Writes every row's original text end to end, with the end of each.
pub type RawSource = Arc<dyn Fn() -> (String, Vec<usize>) + Send + Sync>;

/// The rows' original text: read with the rows, or written on first use by a [`RawSource`]
/// (a table built from emitted records: most questions never read a raw row, and writing
/// an hour of logs' text costs more than the rest of the table).
#[derive(Clone)]
struct Raw {
    /// The text and each row's end in it.
    rows: OnceLock<(String, Vec<u32>)>,
    source: Option<RawSource>,
}

impl fmt::Debug for Raw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Raw").field("rows", &self.rows).field("lazy", &self.source.is_some()).finish()
    }
}

impl Raw {
    fn rows(&self) -> Option<&(String, Vec<u32>)> {
        if let Some(source) = &self.source {
            // Ends past 4 GiB do not fit; such a text is refused by `Table::new` too.
            return Some(self.rows.get_or_init(|| {
                let (text, ends) = source();
                let ends = ends.iter().map_while(|&e| u32::try_from(e).ok()).collect();
                (text, ends)
            }));
        }
        self.rows.get()
    }
}

/// Bytes one row takes in the columns (the raw text aside).
pub const ROW_SIZE: usize = 4 * 5 + 2 * 2 + 1 + 1 + 4 * 4 + 2 + 4;

fn fits32(what: &str, v: u64) -> Result<u32, String> {
    u32::try_from(v).map_err(|_| format!("{what} {v} does not fit the table (at most {})", u32::MAX))
}

impl Table {
    /// Builds the table from parsed records; `windows` are `(name, t0, t1)` in Unix seconds.
    pub fn new(
        format: Format,
        parsed: Parsed,
        inventory: &Inventory,
        windows: Vec<(String, u64, u64)>,
    ) -> Result<Table, String> {
        let (records, raw, ends) = parsed.into_parts();
        if raw.len() > u32::MAX as usize {
            return Err("log text over 4 GiB".into());
        }
        let rows = OnceLock::from((raw, ends.iter().map(|&e| e as u32).collect()));
        Table::build(format, &records, inventory, windows, Raw { rows, source: None })
    }

    /// Builds the table from the records a format emits, in file order (the rows its text
    /// parses back to, which the format tests hold for every format), with `raw` writing
    /// their original text when a raw row is first asked for.
    pub fn from_records(
        format: Format,
        records: &[Record],
        inventory: &Inventory,
        windows: Vec<(String, u64, u64)>,
        raw: RawSource,
    ) -> Result<Table, String> {
        Table::build(format, records, inventory, windows, Raw { rows: OnceLock::new(), source: Some(raw) })
    }

    fn build(
        format: Format,
        records: &[Record],
        inventory: &Inventory,
        windows: Vec<(String, u64, u64)>,
        raw: Raw,
    ) -> Result<Table, String> {
        let n = records.len();
        let mut names = Vec::new();
        while let Some(name) = inventory.instance_name(names.len() as u32) {
            names.push(name.to_string());
        }
        if names.len() >= u16::MAX as usize {
            return Err("more than 65,534 instances".into());
        }
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by(|&a, &b| names[a].cmp(&names[b]));
        let mut rank = vec![0u16; names.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r as u16 + 1;
        }
        let mut tb = Table {
            format,
            windows,
            t: Vec::with_capacity(n),
            t_end: Vec::with_capacity(n),
            vantage: Vec::with_capacity(n),
            src: Vec::with_capacity(n),
            dst: Vec::with_capacity(n),
            sport: Vec::with_capacity(n),
            dport: Vec::with_capacity(n),
            proto: Vec::with_capacity(n),
            flags: Vec::with_capacity(n),
            pkts: Vec::with_capacity(n),
            bytes: Vec::with_capacity(n),
            pkts_rev: Vec::with_capacity(n),
            bytes_rev: Vec::with_capacity(n),
            instance: Vec::with_capacity(n),
            raw,
            instance_names: names,
            instance_rank: rank,
        };
        for r in records {
            tb.push(r)?;
        }
        Ok(tb)
    }

    fn push(&mut self, r: &Record) -> Result<(), String> {
        self.t.push(fits32("time", r.t)?);
        self.t_end.push(fits32("time", r.t_end)?);
        self.vantage.push(r.vantage);
        self.src.push(r.src);
        self.dst.push(r.dst);
        self.sport.push(r.sport);
        self.dport.push(r.dport);
        self.proto.push(r.proto);
        let state = match r.state {
            State::None => 0,
            State::B => 1,
            State::C => 2,
            State::D => 3,
            State::E => 4,
        };
        let status = match r.status {
            Status::None => 0,
            Status::NoData => 1,
            Status::Ok => 2,
        };
        self.flags.push(u8::from(!r.inbound) | u8::from(!r.allow) << 1 | state << 2 | status << 5);
        self.pkts.push(fits32("packets", r.pkts)?);
        self.bytes.push(fits32("bytes", r.bytes)?);
        self.pkts_rev.push(fits32("packets", r.pkts_rev)?);
        self.bytes_rev.push(fits32("bytes", r.bytes_rev)?);
        self.instance.push(if r.instance == NO_VM { u16::MAX } else { r.instance as u16 });
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// The sort key of a cell: numbers and addresses as themselves, strings by their rank.
    fn key(&self, col: usize, i: usize) -> u64 {
        self.cells(col).key(i)
    }

    /// Column `col` as its storage and how a cell of it becomes its key; chosen once per
    /// column so a pass over many rows does not dispatch on the column per cell.
    fn cells(&self, col: usize) -> Cells<'_> {
        match col {
            0 => Cells::Index,
            1 => Cells::U32(&self.t),
            2 => Cells::U32(&self.t_end),
            3 => Cells::U32(&self.vantage),
            4 => Cells::Flags(&self.flags, 0, 1),
            5 => Cells::U32(&self.src),
            6 => Cells::U32(&self.dst),
            7 => Cells::U16(&self.sport),
            8 => Cells::U16(&self.dport),
            9 => Cells::U8(&self.proto),
            10 => Cells::Flags(&self.flags, 1, 1),
            11 => Cells::Flags(&self.flags, 2, 7),
            12 => Cells::U32(&self.pkts),
            13 => Cells::U32(&self.bytes),
            14 => Cells::U32(&self.pkts_rev),
            15 => Cells::U32(&self.bytes_rev),
            16 => Cells::Flags(&self.flags, 5, 3),
            _ => Cells::Instance(&self.instance, &self.instance_rank),
        }
    }

    /// A cell's Python value from its key.
    fn value(&self, col: usize, i: usize) -> Py {
        let k = self.key(col, i);
        match kind(col) {
            Kind::Int => Py::Int(k as i64),
            Kind::Ip => Py::Str(dotted(k as u32)),
            Kind::Str if COLUMNS[col] == "instance" => Py::Str(match self.instance[i] {
                u16::MAX => String::new(),
                v => self.instance_names[v as usize].clone(),
            }),
            Kind::Str => Py::Str(codes(COLUMNS[col])[k as usize].to_string()),
        }
    }

    fn key_value(&self, col: usize, k: u64) -> Py {
        match kind(col) {
            Kind::Int => Py::Int(k as i64),
            Kind::Ip => Py::Str(dotted(k as u32)),
            Kind::Str if COLUMNS[col] == "instance" => {
                let name = self.instance_rank.iter().position(|&r| u64::from(r) == k);
                Py::Str(name.map_or(String::new(), |v| self.instance_names[v].clone()))
            }
            Kind::Str => Py::Str(codes(COLUMNS[col])[k as usize].to_string()),
        }
    }

    /// The original text of row `i`.
    pub fn raw(&self, i: usize) -> Option<&str> {
        if i >= self.len() {
            return None;
        }
        let (text, ends) = self.raw.rows()?;
        let end = *ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { ends[i - 1] as usize };
        Some(&text[start..end])
    }
}

// ---- argument handling ----

fn value_error(m: impl Into<String>) -> ApiError {
    ApiError { exc: Exc::ValueError, message: m.into() }
}

fn type_error(m: impl Into<String>) -> ApiError {
    ApiError { exc: Exc::TypeError, message: m.into() }
}

fn column(v: &Py) -> ApiResult<usize> {
    match v {
        Py::Str(s) => COLUMNS
            .iter()
            .position(|c| c == s)
            .ok_or_else(|| value_error(format!("unknown column {s:?}; columns: {}", COLUMNS.join(", ")))),
        other => Err(type_error(format!("a column must be a str, got {}", other.type_name()))),
    }
}

fn items(v: &Py) -> Option<&[Py]> {
    match v {
        Py::List(l) | Py::Tuple(l) => Some(l),
        _ => None,
    }
}

/// One column name or a list of them.
fn columns(v: &Py) -> ApiResult<Vec<usize>> {
    match items(v) {
        Some([]) => Err(value_error("no columns given")),
        Some(l) => l.iter().map(column).collect(),
        None => Ok(vec![column(v)?]),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    NotIn,
    Cidr,
    NotCidr,
}

const OPS: [(&str, Op); 10] = [
    ("==", Op::Eq),
    ("!=", Op::Ne),
    ("<", Op::Lt),
    ("<=", Op::Le),
    (">", Op::Gt),
    (">=", Op::Ge),
    ("in", Op::In),
    ("notin", Op::NotIn),
    ("cidr", Op::Cidr),
    ("notcidr", Op::NotCidr),
];

/// One parsed condition: column, operator and the keys it compares with.
struct Cond {
    col: usize,
    op: Op,
    keys: Vec<u64>,
    /// cidr: (network, mask).
    net: (u64, u64),
}

impl Cond {
    fn holds(&self, k: u64) -> bool {
        let first = self.keys.first().copied().unwrap_or(u64::MAX);
        match self.op {
            Op::Eq => k == first,
            Op::Ne => k != first,
            Op::Lt => k < first,
            Op::Le => k <= first,
            Op::Gt => k > first,
            Op::Ge => k >= first,
            Op::In => self.keys.binary_search(&k).is_ok(),
            Op::NotIn => self.keys.binary_search(&k).is_err(),
            Op::Cidr => k & self.net.1 == self.net.0,
            Op::NotCidr => k & self.net.1 != self.net.0,
        }
    }
}

/// The sort key a Python value stands for in `col`; `None` for a string no row has.
fn key_of(tb: &Table, col: usize, v: &Py) -> ApiResult<Option<u64>> {
    let name = COLUMNS[col];
    match (kind(col), v) {
        (Kind::Int, Py::Int(i)) => Ok(u64::try_from(*i).ok()),
        (Kind::Ip, Py::Str(s)) => {
            s.parse::<std::net::Ipv4Addr>().map(|a| Some(u64::from(u32::from(a)))).map_err(|_| {
                value_error(format!("{name} compares with an IPv4 address like '10.1.0.10', got {s:?}"))
            })
        }
        (Kind::Str, Py::Str(s)) if name == "instance" => Ok(if s.is_empty() {
            Some(0)
        } else {
            tb.instance_names.iter().position(|n| n == s).map(|v| u64::from(tb.instance_rank[v]))
        }),
        (Kind::Str, Py::Str(s)) => codes(name)
            .iter()
            .position(|c| c == s)
            .map(|k| Some(k as u64))
            .ok_or_else(|| value_error(format!("{name} is one of {:?}, got {s:?}", codes(name)))),
        (k, other) => Err(type_error(format!(
            "{name} compares with {}, got {}",
            match k {
                Kind::Int => "an int",
                _ => "a str",
            },
            other.type_name()
        ))),
    }
}

fn cidr(name: &str, v: &Py) -> ApiResult<(u64, u64)> {
    let bad = || value_error(format!("cidr on {name} takes a str like '10.1.0.0/16'"));
    let Py::Str(s) = v else { return Err(bad()) };
    let (a, len) = s.split_once('/').ok_or_else(bad)?;
    let a: std::net::Ipv4Addr = a.parse().map_err(|_| bad())?;
    let len: u32 = len.parse().ok().filter(|l| *l <= 32).ok_or_else(bad)?;
    let mask = if len == 0 { 0 } else { u64::from(u32::MAX << (32 - len)) };
    Ok((u64::from(u32::from(a)) & mask, mask))
}

fn conditions(tb: &Table, w: Option<&Py>) -> ApiResult<Vec<Cond>> {
    let Some(w) = w else { return Ok(Vec::new()) };
    let list = items(w).ok_or_else(|| type_error("where must be a list of [column, op, value]"))?;
    let mut out = Vec::new();
    for c in list {
        let c = items(c)
            .filter(|c| c.len() == 3)
            .ok_or_else(|| type_error("each condition is [column, op, value]"))?;
        let col = column(&c[0])?;
        let op = match &c[1] {
            Py::Str(s) => OPS.iter().find(|(n, _)| n == s).map(|(_, o)| *o),
            _ => None,
        }
        .ok_or_else(|| {
            value_error(format!(
                "unknown op; ops: {}",
                OPS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(" ")
            ))
        })?;
        let mut cond = Cond { col, op, keys: Vec::new(), net: (0, 0) };
        match op {
            Op::Cidr | Op::NotCidr if kind(col) != Kind::Ip => {
                return Err(value_error(format!(
                    "cidr applies to vantage, src and dst, not {}",
                    COLUMNS[col]
                )));
            }
            Op::Cidr | Op::NotCidr => cond.net = cidr(COLUMNS[col], &c[2])?,
            Op::In | Op::NotIn => {
                let vals = items(&c[2]).ok_or_else(|| type_error("in and notin take a list"))?;
                for v in vals {
                    cond.keys.extend(key_of(tb, col, v)?);
                }
                // Sorted for a binary search per row: a list of thousands of ports (the
                // flow-graph reference's) would otherwise be scanned for each of a million rows.
                cond.keys.sort_unstable();
            }
            _ => match key_of(tb, col, &c[2])? {
                Some(k) => cond.keys.push(k),
                // A value no row has: == matches nothing, != everything; orderings need a value.
                None if matches!(op, Op::Eq | Op::Ne) => {}
                None => return Err(value_error(format!("{} cannot be ordered by that value", COLUMNS[col]))),
            },
        }
        out.push(cond);
    }
    Ok(out)
}

impl Table {
    fn matching(&self, conds: &[Cond]) -> Vec<u32> {
        (0..self.len())
            .filter(|&i| conds.iter().all(|c| c.holds(self.key(c.col, i))))
            .map(|i| i as u32)
            .collect()
    }
}

// ---- methods ----

/// The methods of `F`.
const METHODS: Methods = Methods {
    object: "F",
    prefix: "F.",
    list: &[
        method("info", &[], 0),
        method("count", &["where"], 0),
        method("rows", &["where", "columns", "order", "offset", "limit"], 0),
        method("distinct", &["columns", "where"], 1),
        method("group", &["by", "aggs", "where", "order", "limit"], 2),
        method("series", &["bucket_s", "aggs", "where", "by"], 2),
        method("raw", &["i"], 1),
    ],
};

/// The method names of `F`.
pub fn method_names() -> Vec<&'static str> {
    METHODS.names()
}

fn int_arg(name: &str, v: Option<&Py>, default: i64) -> ApiResult<i64> {
    match v {
        None => Ok(default),
        Some(Py::Int(i)) => Ok(*i),
        Some(o) => Err(type_error(format!("{name} must be an int, got {}", o.type_name()))),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agg {
    Count,
    Sum,
    Min,
    Max,
    Mean,
    Nunique,
}

const AGGS: [(&str, Agg); 6] = [
    ("count", Agg::Count),
    ("sum", Agg::Sum),
    ("min", Agg::Min),
    ("max", Agg::Max),
    ("mean", Agg::Mean),
    ("nunique", Agg::Nunique),
];

fn aggs(v: &Py) -> ApiResult<Vec<(Agg, usize)>> {
    let list = items(v).ok_or_else(|| type_error("aggs must be a list of (op, column)"))?;
    list.iter()
        .map(|a| {
            let a =
                items(a).filter(|a| a.len() == 2).ok_or_else(|| type_error("each agg is (op, column)"))?;
            let op = match &a[0] {
                Py::Str(s) => AGGS.iter().find(|(n, _)| n == s).map(|(_, o)| *o),
                _ => None,
            }
            .ok_or_else(|| value_error("unknown agg; aggs: count sum min max mean nunique"))?;
            let col = match (&a[1], op) {
                (Py::None, Agg::Count) => 0,
                (c, _) => column(c)?,
            };
            if matches!(op, Agg::Sum | Agg::Mean) && kind(col) != Kind::Int {
                return Err(value_error(format!(
                    "{} needs a numeric column, not {}",
                    a[0].type_name(),
                    COLUMNS[col]
                )));
            }
            Ok((op, col))
        })
        .collect()
}

/// One group's accumulators.
#[derive(Clone)]
struct Acc {
    count: u64,
    sums: Vec<u64>,
    mins: Vec<u64>,
    maxs: Vec<u64>,
    sets: Vec<Vec<u64>>,
}

impl Acc {
    fn new(n: usize) -> Acc {
        Acc {
            count: 0,
            sums: vec![0; n],
            mins: vec![u64::MAX; n],
            maxs: vec![0; n],
            sets: vec![Vec::new(); n],
        }
    }

    fn values(mut self, tb: &Table, aggs: &[(Agg, usize)]) -> Vec<Py> {
        aggs.iter()
            .enumerate()
            .map(|(j, &(op, col))| match op {
                Agg::Count => Py::Int(self.count as i64),
                Agg::Sum => Py::Int(self.sums[j] as i64),
                Agg::Mean => Py::Float(self.sums[j] as f64 / self.count as f64),
                Agg::Min => tb.key_value(col, self.mins[j]),
                Agg::Max => tb.key_value(col, self.maxs[j]),
                Agg::Nunique => {
                    self.sets[j].sort_unstable();
                    self.sets[j].dedup();
                    Py::Int(self.sets[j].len() as i64)
                }
            })
            .collect()
    }
}

/// Groups matching rows by the key columns (plus a time bucket), keys ascending.
///
/// A column at a time rather than a row at a time (a map keyed by each row's `Vec` of cells
/// costs an allocation and a hash of the vector per row): each key column refines every row's
/// dense group number, then each aggregate is one pass over its column into its groups.
fn grouped(
    tb: &Table,
    rows: &[u32],
    by: &[usize],
    bucket: Option<u64>,
    aggs: &[(Agg, usize)],
) -> ApiResult<Vec<(Vec<u64>, Acc)>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let mut ids = vec![0u32; rows.len()];
    let mut keys: Vec<Vec<u64>> = vec![Vec::new()];
    if let Some(b) = bucket {
        keys = refine(&mut ids, &keys, Cells::U32(&tb.t), rows, |t| t / b * b)?;
    }
    for &c in by {
        keys = refine(&mut ids, &keys, tb.cells(c), rows, |k| k)?;
    }
    let mut accs = vec![Acc::new(aggs.len()); keys.len()];
    for &g in &ids {
        accs[g as usize].count += 1;
    }
    for (j, &(op, col)) in aggs.iter().enumerate() {
        let cells = tb.cells(col);
        let at = |p: usize| ids[p] as usize;
        match op {
            Agg::Count => {}
            Agg::Sum | Agg::Mean => cells.each(rows, |p, k| accs[at(p)].sums[j] += k),
            Agg::Min => cells.each(rows, |p, k| {
                let min = &mut accs[at(p)].mins[j];
                *min = (*min).min(k);
            }),
            Agg::Max => cells.each(rows, |p, k| {
                let max = &mut accs[at(p)].maxs[j];
                *max = (*max).max(k);
            }),
            Agg::Nunique => cells.each(rows, |p, k| accs[at(p)].sets[j].push(k)),
        }
    }
    let mut out: Vec<(Vec<u64>, Acc)> = keys.into_iter().zip(accs).collect();
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Splits the groups `keys` (row `rows[p]` in group `ids[p]`) by one more key: `map` of the
/// row's cell in `cells`; gives the new groups' keys. More than [`MAX_KEYS`] groups is an
/// error (each group of the whole key is in one of these).
fn refine(
    ids: &mut [u32],
    keys: &[Vec<u64>],
    cells: Cells<'_>,
    rows: &[u32],
    map: impl Fn(u64) -> u64,
) -> ApiResult<Vec<Vec<u64>>> {
    let mut number: FxHashMap<(u32, u64), u32> = FxHashMap::default();
    let mut split: Vec<(u32, u64)> = Vec::new();
    cells.each(rows, |p, k| {
        if split.len() > MAX_KEYS {
            return; // an error below: stop growing the map
        }
        let k = map(k);
        let g = ids[p];
        ids[p] = *number.entry((g, k)).or_insert_with(|| {
            split.push((g, k));
            (split.len() - 1) as u32
        });
    });
    if split.len() > MAX_KEYS {
        return Err(value_error("result too large"));
    }
    Ok(split
        .into_iter()
        .map(|(g, k)| {
            let mut key = keys[g as usize].clone();
            key.push(k);
            key
        })
        .collect())
}

/// `order` as (position in the output row, descending).
fn order_spec(v: Option<&Py>, resolve: &dyn Fn(&Py) -> ApiResult<usize>) -> ApiResult<Vec<(usize, bool)>> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let list = items(v).ok_or_else(|| type_error("order must be a list of (column, 'asc'|'desc')"))?;
    list.iter()
        .map(|o| {
            let o = items(o)
                .filter(|o| o.len() == 2)
                .ok_or_else(|| type_error("each order item is (column, 'asc'|'desc')"))?;
            let desc = match &o[1] {
                Py::Str(s) if s == "asc" => false,
                Py::Str(s) if s == "desc" => true,
                _ => return Err(value_error("order direction is 'asc' or 'desc'")),
            };
            Ok((resolve(&o[0])?, desc))
        })
        .collect()
}

fn compare(a: &Py, b: &Py) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Py::Int(x), Py::Int(y)) => x.cmp(y),
        (Py::Float(x), Py::Float(y)) => x.total_cmp(y),
        (Py::Str(x), Py::Str(y)) => {
            match (x.parse::<std::net::Ipv4Addr>(), y.parse::<std::net::Ipv4Addr>()) {
                (Ok(p), Ok(q)) => p.cmp(&q),
                _ => x.cmp(y),
            }
        }
        _ => Ordering::Equal,
    }
}

fn sort_rows(rows: &mut [Vec<Py>], order: &[(usize, bool)]) {
    rows.sort_by(|a, b| {
        order
            .iter()
            .map(|&(k, desc)| {
                let o = compare(&a[k], &b[k]);
                if desc { o.reverse() } else { o }
            })
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
}

/// Calls `F.method(*args, **kwargs)`.
pub fn call(
    tb: &Table,
    method: &str,
    args: Vec<Py>,
    kwargs: Vec<(String, Py)>,
    budget: Budget<'_>,
) -> ApiResult<Py> {
    let b = METHODS.bind(method, args, kwargs)?;
    let name = b.method;
    let a = b.given();
    match name {
        "info" => Ok(tb.info()),
        "count" => Ok(Py::Int(tb.matching(&conditions(tb, a[0].as_ref())?).len() as i64)),
        "rows" => tb.rows(&a, budget),
        "distinct" => {
            let cols = columns(required(&a[0], "columns")?)?;
            let rows = tb.matching(&conditions(tb, a[1].as_ref())?);
            let groups = grouped(tb, &rows, &cols, None, &[])?;
            budget(groups.len() * ROW_BYTES / 4)?;
            Ok(Py::List(
                groups
                    .into_iter()
                    .map(|(k, _)| {
                        let vals: Vec<Py> = k.iter().zip(&cols).map(|(&k, &c)| tb.key_value(c, k)).collect();
                        if cols.len() == 1 { vals.into_iter().next().expect("one") } else { Py::Tuple(vals) }
                    })
                    .collect(),
            ))
        }
        "group" => {
            let by = columns(required(&a[0], "by")?)?;
            let ag = aggs(required(&a[1], "aggs")?)?;
            let rows = tb.matching(&conditions(tb, a[2].as_ref())?);
            let groups = grouped(tb, &rows, &by, None, &ag)?;
            budget(groups.len() * ROW_BYTES / 2)?;
            let mut out: Vec<Vec<Py>> = groups
                .into_iter()
                .map(|(k, acc)| {
                    let mut row: Vec<Py> = k.iter().zip(&by).map(|(&k, &c)| tb.key_value(c, k)).collect();
                    row.extend(acc.values(tb, &ag));
                    row
                })
                .collect();
            let nby = by.len();
            let resolve = |v: &Py| -> ApiResult<usize> {
                match v {
                    Py::Int(i) if *i >= 0 && (*i as usize) < ag.len() => Ok(nby + *i as usize),
                    Py::Int(_) => Err(value_error("order index is past the aggs")),
                    other => {
                        let c = column(other)?;
                        by.iter()
                            .position(|&b| b == c)
                            .ok_or_else(|| value_error("order by a grouped column or an agg index"))
                    }
                }
            };
            sort_rows(&mut out, &order_spec(a[3].as_ref(), &resolve)?);
            if let Some(limit) = a[4].as_ref() {
                out.truncate(int_arg("limit", Some(limit), 0)?.max(0) as usize);
            }
            Ok(Py::List(out.into_iter().map(Py::List).collect()))
        }
        "series" => {
            let bucket = int_arg("bucket_s", a[0].as_ref(), 0)?;
            if bucket <= 0 {
                return Err(value_error("bucket_s must be a positive int"));
            }
            let ag = aggs(required(&a[1], "aggs")?)?;
            let rows = tb.matching(&conditions(tb, a[2].as_ref())?);
            let by = a[3].as_ref().map(columns).transpose()?.unwrap_or_default();
            let groups = grouped(tb, &rows, &by, Some(bucket as u64), &ag)?;
            budget(groups.len() * ROW_BYTES / 2)?;
            Ok(Py::List(
                groups
                    .into_iter()
                    .map(|(k, acc)| {
                        let mut row = vec![Py::Int(k[0] as i64)];
                        row.extend(k[1..].iter().zip(&by).map(|(&k, &c)| tb.key_value(c, k)));
                        row.extend(acc.values(tb, &ag));
                        Py::List(row)
                    })
                    .collect(),
            ))
        }
        _ => {
            let i = int_arg("i", a[0].as_ref(), 0)?;
            usize::try_from(i).ok().and_then(|i| tb.raw(i)).map(|s| Py::Str(s.to_string())).ok_or_else(|| {
                ApiError { exc: Exc::KeyError, message: format!("no row {i}; rows are 0..{}", tb.len()) }
            })
        }
    }
}

impl Table {
    fn info(&self) -> Py {
        let s = |x: &str| Py::Str(x.to_string());
        let windows = self
            .windows
            .iter()
            .map(|(n, a, b)| Py::List(vec![s(n), Py::Int(*a as i64), Py::Int(*b as i64)]))
            .collect();
        Py::Dict(vec![
            (s("format"), s(self.format.name())),
            (s("rows"), Py::Int(self.len() as i64)),
            (s("t_min"), self.t.iter().min().map_or(Py::None, |&t| Py::Int(i64::from(t)))),
            (s("t_max"), self.t_end.iter().max().map_or(Py::None, |&t| Py::Int(i64::from(t)))),
            (s("windows"), Py::List(windows)),
            (s("columns"), Py::List(COLUMNS.iter().map(|c| s(c)).collect())),
        ])
    }

    fn rows(&self, a: &[Option<Py>], budget: Budget<'_>) -> ApiResult<Py> {
        let conds = conditions(self, a[0].as_ref())?;
        let cols = a[1].as_ref().map(columns).transpose()?.unwrap_or_else(|| (0..COLUMNS.len()).collect());
        let offset = int_arg("offset", a[3].as_ref(), 0)?;
        let limit = int_arg("limit", a[4].as_ref(), 1000)?;
        if offset < 0 || !(0..=MAX_LIMIT as i64).contains(&limit) {
            return Err(value_error(format!("offset must be ≥ 0 and limit in 0..={MAX_LIMIT}")));
        }
        let order = order_spec(a[2].as_ref(), &|v| column(v))?;
        let mut idx = self.matching(&conds);
        if !order.is_empty() {
            idx.sort_by(|&x, &y| {
                order
                    .iter()
                    .map(|&(c, desc)| {
                        let o = self.key(c, x as usize).cmp(&self.key(c, y as usize));
                        if desc { o.reverse() } else { o }
                    })
                    .find(|o| o.is_ne())
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        }
        let page: Vec<u32> = idx.into_iter().skip(offset as usize).take(limit as usize).collect();
        budget(page.len() * ROW_BYTES)?;
        Ok(Py::List(
            page.into_iter()
                .map(|i| {
                    Py::Dict(
                        cols.iter()
                            .map(|&c| (Py::Str(COLUMNS[c].into()), self.value(c, i as usize)))
                            .collect(),
                    )
                })
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flows::format::{self, Options};
    use crate::flows::knobs::{Knobs, TenantKey};
    use crate::flows::model::{Scenario, generate};
    use crate::flows::tenant::Tenant;
    use crate::malt::api::unlimited;

    fn table(format: Format) -> Table {
        let t = Tenant::new(&TenantKey {
            app: "test".into(),
            level: 1,
            seed: 1,
            knobs: Knobs { d: 10, ..Knobs::default() },
        })
        .unwrap();
        let tr = generate(&t, &Scenario::default()).unwrap();
        let e = format::emit(format, &t, &tr, Options::default());
        let text = format::render(format, &t, &tr, &e);
        let inv = Inventory::new(&tr.vms);
        Table::new(format, format::parse(format, &text, &inv).unwrap(), &inv, vec![("all".into(), 0, 600)])
            .unwrap()
    }

    fn f(tb: &Table, m: &str, args: Vec<Py>) -> ApiResult<Py> {
        call(tb, m, args, vec![], &unlimited)
    }

    fn s(x: &str) -> Py {
        Py::Str(x.into())
    }

    fn cond(c: &str, op: &str, v: Py) -> Py {
        Py::List(vec![s(c), s(op), v])
    }

    #[test]
    fn a_row_is_48_bytes() {
        assert_eq!(ROW_SIZE, 48);
    }

    #[test]
    fn counts_filters_and_groups_agree() {
        let tb = table(Format::Vnet4);
        let Py::Int(all) = f(&tb, "count", vec![]).unwrap() else { panic!() };
        assert_eq!(all as usize, tb.len());
        let Py::Int(inbound) = f(&tb, "count", vec![Py::List(vec![cond("dir", "==", s("in"))])]).unwrap()
        else {
            panic!()
        };
        let Py::List(groups) =
            f(&tb, "group", vec![s("dir"), Py::List(vec![Py::Tuple(vec![s("count"), Py::None])])]).unwrap()
        else {
            panic!()
        };
        assert_eq!(groups[0], Py::List(vec![s("in"), Py::Int(inbound)]));
        let Py::Int(in_net) =
            f(&tb, "count", vec![Py::List(vec![cond("dst", "cidr", s("10.0.0.0/8"))])]).unwrap()
        else {
            panic!()
        };
        let Py::Int(out_net) =
            f(&tb, "count", vec![Py::List(vec![cond("dst", "notcidr", s("10.0.0.0/8"))])]).unwrap()
        else {
            panic!()
        };
        assert_eq!(in_net + out_net, all);
    }

    #[test]
    fn bad_arguments_name_what_is_valid() {
        let tb = table(Format::Aws2);
        let e = f(&tb, "count", vec![Py::List(vec![cond("nope", "==", Py::Int(1))])]).unwrap_err();
        assert_eq!(e.exc, Exc::ValueError);
        assert!(e.message.contains("columns: i, t"), "{}", e.message);
        let e = f(&tb, "count", vec![Py::List(vec![cond("src", "~", s("x"))])]).unwrap_err();
        assert!(e.message.contains("cidr notcidr"));
        let e = f(&tb, "count", vec![Py::List(vec![cond("src", "==", Py::Int(3))])]).unwrap_err();
        assert_eq!(e.exc, Exc::TypeError);
        let e = f(&tb, "rows", vec![Py::None, Py::None, Py::None, Py::Int(0), Py::Int(10_001)]).unwrap_err();
        assert!(e.message.contains("limit"));
        assert_eq!(f(&tb, "nope", vec![]).unwrap_err().exc, Exc::AttributeError);
        assert_eq!(f(&tb, "raw", vec![Py::Int(-1)]).unwrap_err().exc, Exc::KeyError);
    }

    #[test]
    fn raw_gives_the_line_and_rows_the_cells() {
        let tb = table(Format::Aws5);
        let Py::Str(line) = f(&tb, "raw", vec![Py::Int(0)]).unwrap() else { panic!() };
        assert!(line.starts_with("5 "));
        let Py::List(rows) = f(
            &tb,
            "rows",
            vec![Py::None, Py::List(vec![s("status"), s("instance")]), Py::None, Py::Int(0), Py::Int(1)],
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(rows.len(), 1);
    }
}
