//! `kubectl patch` with arbitrary payloads of each type against a stored policy, then the
//! resulting state through describe and the probe matrix: no panic, state stays valid.

use netpress::k8s::cluster::Cluster;
use netpress::k8s::fault::intended_set;
use netpress::k8s::kubectl::{Env, VerbPolicy, run};
use netpress::k8s::probe::evaluate_cluster;
use netpress::k8s::task::inject_cluster;

pub fn fuzz(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else { return };
    let Ok(payload) = std::str::from_utf8(rest) else { return };
    thread_local! {
        static CLUSTER: Cluster = inject_cluster(&intended_set());
    }
    let mut env = Env::new(CLUSTER.with(Cluster::clone), VerbPolicy::parse("acd").expect("valid"));
    let ty = ["json", "merge", "strategic"][usize::from(kind % 3)];
    let argv: Vec<String> =
        ["patch", "networkpolicy", "adservice", "--type", ty, "-p", payload].iter().map(|s| s.to_string()).collect();
    let _ = run(&argv, "", &mut env);
    let _ = run(&["apply".into(), "-f".into(), "-".into()], payload, &mut env);
    let _ = run(&["describe".into(), "netpol".into(), "-A".into()], "", &mut env);
    let _ = evaluate_cluster(&env.cluster);
}
