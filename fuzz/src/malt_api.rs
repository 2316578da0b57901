//! Fuzzes the G API with arbitrary method names and arguments on a small topology: every call
//! returns a value or a Python exception, never a panic, and the working graph's net diff and
//! safety check stay computable.

use netpress::malt::api::{self, Py};
use netpress::malt::graph::Working;
use netpress::malt::safety;
use netpress::malt::topo::{Shape, TopoKey, topology};

const METHODS: [&str; 24] = [
    "has_node",
    "node",
    "kind",
    "get_attr",
    "nodes",
    "number_of_nodes",
    "number_of_edges",
    "successors",
    "predecessors",
    "children",
    "parents",
    "descendants",
    "ancestors",
    "edges",
    "in_edges",
    "has_edge",
    "count",
    "capacity",
    "add_node",
    "add_edge",
    "remove_edge",
    "remove_node",
    "set_attr",
    "nope",
];
const WORDS: [&str; 10] = [
    "ju1",
    "ju1.a1",
    "ju1.a1.m1",
    "ju1.a1.m1.s2c1",
    "ju1.a1.m1.s2c1.p1",
    "EK_PORT",
    "RK_CONTAINS",
    "x",
    "stage",
    "physical_capacity_bps",
];

fn value(b: u8) -> Py {
    match b % 6 {
        0 => Py::Str(WORDS[usize::from(b / 6) % WORDS.len()].to_string()),
        1 => Py::Int(i64::from(b) - 100),
        2 => Py::None,
        3 => Py::Bool(b % 2 == 0),
        4 => Py::Float(f64::from(b) / 3.0),
        _ => Py::List(vec![]),
    }
}

pub fn fuzz(data: &[u8]) {
    let mut g = Working::new(topology(TopoKey { shape: Shape::SMALL, seed: 0 }));
    for chunk in data.chunks(4) {
        let method = METHODS[usize::from(chunk[0]) % METHODS.len()];
        let args: Vec<Py> = chunk[1..].iter().map(|&b| value(b)).collect();
        let _ = api::call(&mut g, method, args, vec![], &api::unlimited);
    }
    let diff = g.net_diff();
    let _ = safety::check(&g, &diff, &[], false);
}
