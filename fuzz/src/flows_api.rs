//! Fuzzes the flows host objects `F` and `G` with arbitrary method names and arguments (where
//! specs, columns, orders, aggs, node ids) on a small tenant: every call returns a value or a
//! Python exception, never a panic.
//!
//! The calls of one input share a memory budget, as the calls of one sandbox run do: each
//! result is charged before it is built, and past [`BUDGET`] bytes every call raises
//! `MemoryError`. This fuzzes the budget's error path too, and it bounds an input's cost the
//! way the sandbox bounds a run's, so a long run of whole-table `F.rows()` calls (linear, about
//! 4 ms each in a fuzz build) is not taken for a slow input.

use std::sync::OnceLock;

use netpress::flows::format::{self, Inventory, Options};
use netpress::flows::graph::{self, Graph};
use netpress::flows::table::{self, Table};
use netpress::flows::{Format, Knobs, Scenario, Tenant, TenantKey, generate};
use std::cell::Cell;

use netpress::malt::api::{ApiError, ApiResult, Exc, Py};

/// Bytes of results one input may have built: a little over one full page of `F.rows()`
/// (1,000 rows of every column, charged at 400 B a row).
const BUDGET: usize = 512 * 1024;

const F_METHODS: [&str; 8] = ["info", "count", "rows", "distinct", "group", "series", "raw", "nope"];
const G_METHODS: [&str; 12] = [
    "node",
    "nodes",
    "get",
    "set",
    "add_label",
    "remove_label",
    "degree",
    "edges",
    "add_edge",
    "remove_node",
    "nodes_with_label",
    "edge",
];
const WORDS: [&str; 16] = [
    "src",
    "dst",
    "dport",
    "action",
    "state",
    "in",
    "cidr",
    "==",
    "<",
    "notin",
    "10.0.0.0/8",
    "count",
    "sum",
    "desc",
    "10.0.0.10",
    "type=VM",
];

fn fixture() -> &'static (Table, Graph) {
    static F: OnceLock<(Table, Graph)> = OnceLock::new();
    F.get_or_init(|| {
        let knobs = Knobs { d: 3, ..Knobs::default() };
        let t = Tenant::new(&TenantKey { app: "fuzz".into(), level: 1, seed: 0, knobs }).expect("tenant");
        let tr = generate(&t, &Scenario::default()).expect("trace");
        let e = format::emit(Format::Vnet4, &t, &tr, Options::default());
        let text = format::render(Format::Vnet4, &t, &tr, &e);
        let inv = Inventory::new(&tr.vms);
        let parsed = format::parse(Format::Vnet4, &text, &inv).expect("parses");
        (
            Table::new(Format::Vnet4, parsed, &inv, vec![]).expect("table"),
            Graph::from_trace(&t, &tr, false, None),
        )
    })
}

fn value(data: &mut impl Iterator<Item = u8>, depth: u8) -> Py {
    let b = data.next().unwrap_or(0);
    match b % 7 {
        0 | 1 => Py::Str(WORDS[usize::from(b / 7) % WORDS.len()].to_string()),
        2 => Py::Int(i64::from(b) - 60),
        3 => Py::None,
        4 if depth < 3 => Py::List((0..b % 4).map(|_| value(data, depth + 1)).collect()),
        5 => Py::Float(f64::from(b) / 3.0),
        _ => Py::Tuple(vec![]),
    }
}

pub fn fuzz(data: &[u8]) {
    let (f, g) = fixture();
    let mut g = g.clone();
    let spent = Cell::new(0usize);
    let budget = |bytes: usize| -> ApiResult<()> {
        spent.set(spent.get().saturating_add(bytes));
        if spent.get() > BUDGET {
            return Err(ApiError { exc: Exc::MemoryError, message: "fuzz input's result budget spent".into() });
        }
        Ok(())
    };
    let mut it = data.iter().copied();
    while let Some(b) = it.next() {
        let args: Vec<Py> = (0..b % 5).map(|_| value(&mut it, 0)).collect();
        if b & 0x80 == 0 {
            let _ = table::call(f, F_METHODS[usize::from(b) % F_METHODS.len()], args, vec![], &budget);
        } else {
            let _ = graph::call(&mut g, G_METHODS[usize::from(b) % G_METHODS.len()], args, vec![], &budget);
        }
    }
}
