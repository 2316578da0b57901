//! `--explain SRC DST`: for every port from one end to the other, the layer, policy and rule
//! that decided each direction, grouped by identical explanations.

use super::render::conn_text;
use crate::k8s::cluster::Protocol;
use crate::k8s::eval::{End, PortSet};
use crate::k8s::policy::Direction;
use crate::k8s::tiers::{Decision, Layer, Layered};

fn verdict(allowed: bool) -> &'static str {
    if allowed { "Allow" } else { "Deny" }
}

/// One direction's decision in words.
fn describe(d: &Decision) -> String {
    match d.layer {
        Layer::AdminNetworkPolicy | Layer::BaselineAdminNetworkPolicy => {
            format!("{} {}, rule {:?}: {}", d.layer.as_str(), d.policy, d.rule, verdict(d.allowed))
        }
        Layer::NetworkPolicy if d.allowed => format!("NetworkPolicy {} admits it", d.policy),
        Layer::NetworkPolicy => format!("NetworkPolicy layer: {}: Deny", d.rule),
        Layer::Default => format!("{}: Allow", d.rule),
    }
}

/// The explanation of every port from `src` to `dst` (each an end and its printed name).
pub fn explain(l: &Layered<'_>, src: (End, &str), dst: (End, &str)) -> String {
    let mut out = format!("{} => {}\n", src.1, dst.1);
    if src.0 == dst.0 {
        out.push_str("All Connections: allowed (the same pod)\n");
        return out;
    }
    let mut groups: Vec<((Decision, Decision), PortSet)> = Vec::new();
    for proto in Protocol::ALL {
        // Runs of ports with one explanation, added to their group as ranges.
        let mut run: Option<((Decision, Decision), u16)> = None;
        for port in 1..=65535u16 {
            let key = (
                l.decide(Direction::Egress, src.0, dst.0, dst.0, port, proto),
                l.decide(Direction::Ingress, dst.0, src.0, dst.0, port, proto),
            );
            if let Some((k, start)) = run.take_if(|(k, _)| *k != key) {
                add(&mut groups, k, proto, start, port - 1);
            }
            if run.is_none() {
                run = Some((key, port));
            }
        }
        if let Some((k, start)) = run {
            add(&mut groups, k, proto, start, 65535);
        }
    }
    for ((egress, ingress), ports) in groups {
        let allowed = egress.allowed && ingress.allowed;
        out.push_str(&format!("{}: {}\n", conn_text(&ports), if allowed { "allowed" } else { "denied" }));
        out.push_str(&format!("  egress at {}: {}\n", src.1, describe(&egress)));
        out.push_str(&format!("  ingress at {}: {}\n", dst.1, describe(&ingress)));
    }
    out
}

fn add(
    groups: &mut Vec<((Decision, Decision), PortSet)>,
    key: (Decision, Decision),
    proto: Protocol,
    lo: u16,
    hi: u16,
) {
    match groups.iter_mut().find(|(k, _)| *k == key) {
        Some((_, ports)) => ports.add(proto, lo, hi),
        None => {
            let mut ports = PortSet::default();
            ports.add(proto, lo, hi);
            groups.push((key, ports));
        }
    }
}
