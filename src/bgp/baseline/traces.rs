//! Telling a re-origination from an exact-prefix hijack with traceroutes (docs/bgp.md,
//! "Prompts and the baseline").
//!
//! Both put a new origin L on the victim's prefix at the collectors. The difference is in the
//! data plane: a hijacker's router answers its hop and then nothing does, while a
//! re-originator hands the packets on to the victim along the path it held before. So the
//! baseline learns L's own address space (`announced-prefixes`, without the prefix in
//! question), lists the probes, and traces to an address of the prefix at the second the first
//! route with origin L reached a collector. Probes in ASes seen routing through L (on an
//! announced path ending in L) go first, then the rest in id order, ten a call, at most
//! [`MAX_CALLS`] calls. A trace in which an address of L's space answers a hop and the
//! destination answers after it makes the verdict a re-origination.
//!
//! What it misses: L's router may answer from an exchange LAN address (the packet came in over
//! a route-server session), which is not in L's space, and the crossing probe may lie beyond
//! the calls it makes.

use std::collections::BTreeSet;
use std::net::IpAddr;

use ipnet::IpNet;
use serde_json::Value;

use super::{Evidence, answer, data};

/// Traceroute calls at most (ten probes each).
const MAX_CALLS: usize = 3;
/// Probes per call (the tool's limit).
const PER_CALL: usize = 10;

pub(super) enum Outcome {
    Run(String),
    /// Whether some trace crossed L and reached the destination.
    Reoriginated(bool),
}

/// The next command of the trace step for suspect `l` on `prefix`, or its conclusion.
/// `reported` is the address the report names, if any.
pub(super) fn investigate(
    done: &[(String, String)],
    ev: &Evidence,
    l: u32,
    prefix: &str,
    reported: Option<&str>,
) -> Outcome {
    let Ok(net) = prefix.parse::<IpNet>() else { return Outcome::Reoriginated(false) };
    let Some(at) = first_seen(ev, l, prefix) else { return Outcome::Reoriginated(false) };
    let ann = format!("ripestat announced-prefixes resource=AS{l}");
    let Some(obs) = answer(done, &ann) else { return Outcome::Run(ann) };
    let own = own_space(obs, ev, net);
    if own.is_empty() {
        return Outcome::Reoriginated(false);
    }
    let Some(obs) = answer(done, "atlas probes") else { return Outcome::Run("atlas probes".into()) };
    let target =
        reported.and_then(|a| a.parse::<IpAddr>().ok()).filter(|a| net.contains(a)).unwrap_or(host(net));
    let probes = ranked(obs, ev, l, target.is_ipv6());
    for chunk in probes.chunks(PER_CALL).take(MAX_CALLS) {
        let ids: Vec<String> = chunk.iter().map(u32::to_string).collect();
        let cmd = format!("atlas traceroute --probes {} --target {target} --time {at}", ids.join(","));
        let Some(obs) = answer(done, &cmd) else { return Outcome::Run(cmd) };
        if obs.lines().any(|r| crosses(r, &own, target)) {
            return Outcome::Reoriginated(true);
        }
    }
    Outcome::Reoriginated(false)
}

/// When the first route to `prefix` with origin `l` reached a collector.
fn first_seen(ev: &Evidence, l: u32, prefix: &str) -> Option<u64> {
    let with_l = |u: &&super::Upd| u.prefix == prefix && u.path.as_ref().and_then(|p| p.last()) == Some(&l);
    ev.updates.iter().find(with_l).map(|u| u.t)
}

/// Host 10 of `net` (any address inside it routes the same).
fn host(net: IpNet) -> IpAddr {
    match net {
        IpNet::V4(p) => IpAddr::V4((u32::from(p.network()) + 10).into()),
        IpNet::V6(p) => IpAddr::V6((u128::from(p.network()) + 10).into()),
    }
}

/// L's own prefixes: what it announced, without the prefix in question and any prefix that had
/// another origin before the window.
fn own_space(obs: &str, ev: &Evidence, net: IpNet) -> Vec<IpNet> {
    let Some(d) = data(obs) else { return Vec::new() };
    d["prefixes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["prefix"].as_str()?.parse::<IpNet>().ok())
        .filter(|p| *p != net && !ev.historic.contains_key(&p.to_string()))
        .collect()
}

/// The probes of the target's family, those in ASes seen routing through `l` first.
fn ranked(obs: &str, ev: &Evidence, l: u32, v6: bool) -> Vec<u32> {
    let through: BTreeSet<u32> = ev
        .updates
        .iter()
        .filter_map(|u| u.path.as_ref())
        .filter(|p| p.last() == Some(&l))
        .flat_map(|p| p.iter().copied())
        .collect();
    let mut probes: Vec<(bool, u32)> = obs
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let id = f.first()?.parse::<u32>().ok()?;
            let (asn, addr) = if v6 { (f.get(2)?, f.get(4)?) } else { (f.get(1)?, f.get(3)?) };
            let asn = asn.parse::<u32>().ok()?;
            (*addr != "-").then_some((!through.contains(&asn), id))
        })
        .collect();
    probes.sort_unstable();
    probes.into_iter().map(|(_, id)| id).collect()
}

/// Whether one result line (a compact JSON object) shows an address of `own` answering a hop
/// and then the destination answering.
fn crosses(line: &str, own: &[IpNet], target: IpAddr) -> bool {
    let Ok(r) = serde_json::from_str::<Value>(line.trim_end().trim_end_matches(',')) else { return false };
    let from: Vec<Option<IpAddr>> = r["result"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|hop| hop["result"].as_array()?.iter().find_map(|x| x["from"].as_str()?.parse().ok()))
        .collect();
    let crossed = from.iter().position(|a| a.is_some_and(|a| own.iter().any(|n| n.contains(&a))));
    crossed.is_some_and(|i| from[i..].contains(&Some(target)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_crossing_the_suspect_then_reaching_the_target_counts() {
        let own: Vec<IpNet> = vec!["198.18.16.0/20".parse().unwrap()];
        let target: IpAddr = "100.64.202.10".parse().unwrap();
        let hop = |n: u32, from: &str| format!(r#"{{"hop":{n},"result":[{{"from":"{from}","rtt":1.0}}]}}"#);
        let line = |hops: &[String]| format!(r#"{{"prb_id":1000,"result":[{}]}},"#, hops.join(","));
        let through = line(&[hop(1, "100.65.26.1"), hop(2, "198.18.16.1"), hop(3, "100.64.202.10")]);
        assert!(crosses(&through, &own, target));
        // A hijacker's trace: it answers, then silence.
        let silent = r#"{"hop":3,"result":[{"x":"*"},{"x":"*"},{"x":"*"}]}"#.to_string();
        let captured = line(&[hop(1, "100.65.26.1"), hop(2, "198.18.16.1"), silent]);
        assert!(!crosses(&captured, &own, target));
        // Reaching the target without crossing the suspect.
        let direct = line(&[hop(1, "100.65.26.1"), hop(2, "100.64.202.10")]);
        assert!(!crosses(&direct, &own, target));
        assert!(!crosses("[", &own, target));
    }
}
