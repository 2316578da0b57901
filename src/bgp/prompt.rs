//! The investigator's prompt, in the four variants (docs/bgp.md, "Prompts").

use std::fmt::Write as _;

use super::collectors::Feed;
use super::task::{Task, Trigger};
use super::tools::{commands, time};
use crate::app::PromptVariant;

/// The line that starts the report, which the baseline reads.
pub const REPORTED: &str = "Reported: ";

/// The report that starts the investigation.
pub fn report(trigger: &Trigger) -> String {
    let asns: Vec<String> = trigger.asns.iter().map(|a| format!("AS{a}")).collect();
    match (&trigger.prefix, &trigger.name, trigger.address, trigger.time) {
        (Some(p), _, _, Some(t)) => format!(
            "users cannot reliably reach {p} (originated by {}) since about {} (Unix {t}).",
            asns.join(", "),
            time::iso(t)
        ),
        (Some(p), _, _, None) => format!("users report trouble reaching {p} during the window."),
        (None, Some(name), Some(addr), _) => {
            format!(
                "the operator {name} ({}) reports trouble reaching its service at {addr}.",
                asns.join(", ")
            )
        }
        (None, Some(name), None, _) => format!(
            "the organisation {name} ({}) asks whether anything happened to its routes during the window.",
            asns.join(", ")
        ),
        _ => "something may have happened during the window.".into(),
    }
}

const TYPES: &str = "\
- exact_prefix_hijack: another AS originates the victim's exact prefix (offender_asn = that AS).
- subprefix_hijack: another AS originates a more-specific of the victim's prefix (offender_asn).
- forged_origin_hijack: an AS announces the victim's prefix with a path that falsely ends in the victim, \"X V\" (offender_asn = X).
- route_leak_type1: an AS passes routes from one provider to another provider (offender_asn = the leaker).
- route_leak_type2: from one peer to another peer. route_leak_type3: from a provider to a peer. route_leak_type4: from a peer to a provider.
- reorigination: an AS on the path re-originates the victim's prefix as its own (offender_asn).
- more_specific_leak: the victim announces internal more-specifics of its prefix (offender_asn = the victim).
- outage: the origin withdraws its prefix(es) (offender_asn = the origin).
- link_failure: a link between two ASes fails (link = [A, B]).
- roa_misconfiguration: a ROA makes the victim's own route RPKI-invalid (victim_asn).
- none: nothing went wrong (an announced origin migration, anycast from a sibling, traffic engineering by prepending).";

/// The few-shot example's numbers: a sub-prefix hijack of `prefix` by `offender`, seen as
/// `more_specific`, whose ROA names `victim` only.
struct Example {
    prefix: &'static str,
    more_specific: &'static str,
    offender: u32,
    victim: u32,
}

/// v1's and v2's example, in space every task uses (198.18.8.0/22 is inside the first Tier-1's
/// /20, and the ASNs are ordinary private ones), so its numbers can be a task's own.
const SHARED_EXAMPLE: Example =
    Example { prefix: "198.18.8.0/22", more_specific: "198.18.8.0/24", offender: 64577, victim: 64530 };

/// v3's example, in documentation space no task draws from: IPv6 3fff::/20 (RFC 9637; tasks
/// route from 2001:db8::/32, and every IPv4 documentation and benchmarking range is already a
/// task's routed space or a LAN) and the documentation ASNs 64496-64511 (RFC 5398; tasks use
/// the private ranges from 64512 up).
const OWN_EXAMPLE: Example =
    Example { prefix: "3fff:0:80::/44", more_specific: "3fff:0:80::/48", offender: 64510, victim: 64500 };

/// The example of generator `version`.
fn example_of(version: u32) -> &'static Example {
    if version >= 3 { &OWN_EXAMPLE } else { &SHARED_EXAMPLE }
}

/// The few-shot example in `e`'s numbers.
fn example(e: &Example) -> String {
    let Example { prefix, more_specific, offender, victim } = e;
    format!(
        "\
Example (another task):
```bash
ripestat bgp-updates resource={prefix}
```
(the updates show AS{offender} originating {more_specific} at several vantage points from 2025-03-02T10:14:05)
```bash
ripestat rpki-validation resource=AS{offender} prefix={more_specific}
```
(status invalid_asn: the ROA names AS{victim} only)
submit {{\"incident_type\": \"subprefix_hijack\", \"offender_asn\": {offender}, \"victim_prefix\": \"{prefix}\", \"victim_asn\": {victim}, \"start_ts\": \"2025-03-02T10:14:00\", \"end_ts\": null, \"mitigation\": {{\"action\": \"contact\", \"target_asn\": {offender}}}}}
"
    )
}

/// The prompt of `task` in `variant`.
pub fn prompt(task: &Task, variant: PromptVariant) -> String {
    let w = &task.world;
    let c = w.clock;
    let full = w.collectors.vps.iter().filter(|v| v.feed == Feed::Full).count();
    let mut p = String::new();
    let _ = writeln!(
        p,
        "You are a network researcher investigating a possible routing incident in an emulated Internet (task {}).",
        task.id
    );
    p.push_str("\nConventions:\n");
    p.push_str("- AS numbers are private-use numbers and addresses come from documentation and benchmarking ranges (198.18.0.0/15, 100.64.0.0/10, 2001:db8::/32); treat them as ordinary Internet space.\n");
    let _ = writeln!(
        p,
        "- Times are UTC. The window under investigation is {} to {} (Unix {} to {}); data goes back 30 days before it.",
        time::iso(c.w0),
        time::iso(c.end()),
        c.w0,
        c.end()
    );
    let _ = writeln!(
        p,
        "- {} route collector(s) (rc00 ...) hear {} vantage points; {full} send their full table, the others only their own and their customers' routes.",
        w.collectors.count,
        w.collectors.vps.len()
    );
    let _ = writeln!(p, "\n{REPORTED}{}", report(&task.trigger));
    p.push_str("\nTools (one command line per turn, in a ```bash fenced block):\n");
    p.push_str(commands(task.id.version));
    p.push_str("\nWhen you are confident, submit your verdict as one JSON object, e.g.\nsubmit {\"incident_type\": \"route_leak_type1\", \"offender_asn\": 64533, \"link\": null, \"victim_prefix\": \"198.18.4.0/22\", \"victim_asn\": 64541, \"start_ts\": 1748790100, \"end_ts\": null, \"affected\": [64512, 64530], \"mitigation\": {\"action\": \"contact\", \"target_asn\": 64533}}\n");
    p.push_str("Only incident_type is required; start_ts/end_ts are Unix seconds or ISO 8601 (end_ts null if still ongoing); affected lists the vantage points' AS numbers that saw it. Types:\n");
    p.push_str(TYPES);
    p.push_str("\nMitigation actions: none, contact, filter, depeer, roa, announce_more_specific, withdraw (with target_asn, prefix, origin, max_length as needed).\n");
    let _ = writeln!(
        p,
        "False accusations and harmful mitigations are penalised. You have {} turns; the verdict ends the investigation.",
        task.spec.turns
    );
    if variant.few_shot() {
        p.push('\n');
        p.push_str(&example(example_of(task.id.version)));
    }
    if variant.chain_of_thought() {
        p.push_str(
            "\nReason step by step: say which hypothesis each command tests, then give the command last.\n",
        );
    }
    p
}

#[cfg(test)]
mod tests {
    use ipnet::IpNet;

    use super::*;
    use crate::bgp::numbering::{COLLECTORS, PRIVATE_16, PRIVATE_32, ROUTE_SERVERS};
    use crate::bgp::prefixes::{collector_lan, ipv4_pools, ipv6_pool, ixp_lan};

    /// Every range a task's addresses come from: the routed pools (the Tier-1s' blocks first,
    /// churn's fresh space last), the whole IPv6 /32 with its LANs, and the IPv4 LANs.
    fn task_space() -> Vec<IpNet> {
        let mut out: Vec<IpNet> = ipv4_pools().into_iter().map(IpNet::V4).collect();
        out.push(IpNet::V6(ipv6_pool().0));
        let (lan4, lan6) = collector_lan();
        out.extend([IpNet::V4(lan4), IpNet::V6(lan6)]);
        out.extend((0..8).filter_map(ixp_lan).flat_map(|(a, b)| [IpNet::V4(a), IpNet::V6(b)]));
        out
    }

    fn task_asn(asn: u32) -> bool {
        [PRIVATE_16, PRIVATE_32, COLLECTORS, ROUTE_SERVERS].iter().any(|r| r.contains(&asn))
    }

    fn collides(e: &Example) -> bool {
        let nets = [e.prefix, e.more_specific].map(|p| p.parse::<IpNet>().unwrap());
        let overlap = |a: &IpNet, b: &IpNet| a.contains(&b.network()) || b.contains(&a.network());
        nets.iter().any(|n| task_space().iter().any(|t| overlap(n, t)))
            || [e.offender, e.victim].into_iter().any(task_asn)
    }

    #[test]
    fn v3_example_is_outside_every_task_range() {
        assert!(!collides(&OWN_EXAMPLE));
        assert!(collides(&SHARED_EXAMPLE), "v1's and v2's example sits in task space, why v3 moved it");
        let (p, m): (IpNet, IpNet) =
            (OWN_EXAMPLE.prefix.parse().unwrap(), OWN_EXAMPLE.more_specific.parse().unwrap());
        assert!(p.contains(&m) && m.prefix_len() > p.prefix_len(), "a sub-prefix hijack");
        let text = example(example_of(3));
        assert!(text.contains("AS64510 originating 3fff:0:80::/48") && !text.contains("198.18"));
        assert!(example(example_of(2)).contains("AS64577 originating 198.18.8.0/24"));
    }
}
