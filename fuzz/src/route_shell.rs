//! Any bytes as command lines on every machine of a small lab: no panic, no hang, bounded
//! output. Lines are separated by newlines; each runs on the machine its first byte picks.

use netpress::route::matrix;
use netpress::route::shell;
use netpress::route::topology::{Shape, Topology};

pub fn fuzz(data: &[u8]) {
    let topo = Topology { n: 2, m: 1, r: 1, shape: Shape::Single };
    let mut net = topo.build();
    let text = String::from_utf8_lossy(data);
    for line in text.split('\n').take(8) {
        let node = line.bytes().next().map_or(0, |b| usize::from(b) % net.nodes.len());
        let out = shell::run(&mut net, node, line);
        assert!(out.output.len() <= shell::MAX_OUTPUT + 64);
    }
    let m = matrix::compute(&mut net, &topo.machines());
    assert_eq!(m.n, 3);
}
