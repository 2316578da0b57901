//! The shell's text tools on any arguments over any text, in both applications' shells: no
//! panic, no hang, output within the shell's limit. The first line is a pipeline of tools
//! (grep patterns, head counts, wc flags: whatever the bytes say); the rest is its input,
//! fed by a here-document on K8s and by `echo` of a `/proc/sys` read on a Route machine.

use netpress::k8s::cluster::Cluster;
use netpress::k8s::kubectl::{Env, VerbPolicy};
use netpress::k8s::shell as k8s;
use netpress::route::shell as route;
use netpress::route::topology::{Shape, Topology};

pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (line, input) = text.split_once('\n').unwrap_or((&text, ""));
    let mut env = Env::new(Cluster::pristine(), VerbPolicy::default());
    let script = format!("cat <<'NETPRESS_END' | {line}\n{input}\nNETPRESS_END");
    let out = k8s::run(&script, &mut env);
    assert!(out.output.len() <= k8s::MAX_OUTPUT + 64, "{}", out.output.len());
    let mut net = Topology { n: 2, m: 1, r: 1, shape: Shape::Single }.build();
    let out = route::run(&mut net, 0, &format!("sysctl -a | {line}"));
    assert!(out.output.len() <= route::MAX_OUTPUT + 64, "{}", out.output.len());
}
