//! The `scripted` repair baseline (docs/microseg-repair.md, "Baselines"): a fixed procedure
//! over what each turn shows, in the command language only.
//!
//! A turn's batch is: the fixes the last observation justifies, then probes for what it does
//! not know yet, then `show` (so the next turn reads the policy as it stands). Probes leave the
//! policy as they found it: `rule del i`, `check`, `rule add … at i` tells which observed
//! connections rule i carries; `default deny`, `check`, …, `default allow` which ones only the
//! default admits; `flows src=A` and `flows dst=A` list one address's connections.
//!
//! Why probe: a fix must never deny, even for one turn, a connection the policy got right, and a
//! rule to be deleted may still carry intended traffic (a widened port or source), so its
//! replacements are added in the same batch that deletes it. And a `Denied observed` line is
//! either a missing rule or a VM in the wrong group: moving the VM is the fix when another group
//! would admit more of its observed connections than its own does; a rule between the groups
//! would open the wrong group's ports to every member.

mod read;

use std::collections::{BTreeMap, BTreeSet};

use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message, Role};
use crate::flows::tenant::dotted;
use crate::microseg::policy::Peer;

use read::{Denied, Key, LineKey, Seen, read};

/// Lines per batch (the language's limit).
const MAX_LINES: usize = 32;

/// Where an address is during planning: its groups, with planned moves applied.
struct Groups<'a> {
    seen: &'a Seen,
    base: BTreeMap<u32, BTreeSet<&'a str>>,
    moved: BTreeMap<u32, &'a str>,
    /// Rule numbers the report flags as unobserved.
    suspect: BTreeSet<usize>,
}

/// An address tried in exactly one group.
type Trial<'a> = Option<(u32, &'a str)>;

impl<'a> Groups<'a> {
    fn new(seen: &'a Seen) -> Groups<'a> {
        let mut base: BTreeMap<u32, BTreeSet<&str>> = BTreeMap::new();
        for (g, m) in &seen.groups {
            for &ip in m {
                base.entry(ip).or_default().insert(g.as_str());
            }
        }
        let suspect = seen.report.unobserved.iter().copied().collect();
        Groups { seen, base, moved: BTreeMap::new(), suspect }
    }

    fn of(&self, ip: u32) -> BTreeSet<&'a str> {
        match self.moved.get(&ip) {
            Some(z) => BTreeSet::from([*z]),
            None => self.base.get(&ip).cloned().unwrap_or_default(),
        }
    }

    fn member(&self, ip: u32, g: &str, trial: Trial<'_>) -> bool {
        match (trial, self.moved.get(&ip)) {
            (Some((t, z)), _) if t == ip => z == g,
            (_, Some(z)) => *z == g,
            _ => self.base.get(&ip).is_some_and(|s| s.contains(g)),
        }
    }

    fn holds(&self, p: &Peer, ip: u32, trial: Trial<'_>) -> bool {
        match p {
            Peer::Reserved(r) => r.contains(ip),
            Peer::Cidr(net, len) => ip & if *len == 0 { 0 } else { u32::MAX << (32 - len) } == *net,
            Peer::Group(g) => self.member(ip, g, trial),
        }
    }

    /// Whether a rule admits the key (the default is left out: it is what is being judged).
    fn admits(&self, &(s, d, p, port): &Key, trial: Trial<'_>) -> bool {
        self.seen.rules.iter().enumerate().any(|(i, (_, r))| {
            !self.suspect.contains(&(i + 1))
                && r.admits_port(p, port)
                && self.holds(&r.src, s, trial)
                && self.holds(&r.dst, d, trial)
        })
    }

    /// Whether a flagged rule naming group `g` on `ip`'s side admits the key with `ip` in `g`.
    fn granted(&self, &(s, d, p, port): &Key, ip: u32, g: &str) -> bool {
        let names = |peer: &Peer| matches!(peer, Peer::Group(x) if x == g);
        let trial = Some((ip, g));
        self.suspect.iter().filter_map(|i| self.seen.rules.get(i - 1)).any(|(_, r)| {
            r.admits_port(p, port)
                && (s != ip || names(&r.src))
                && (d != ip || names(&r.dst))
                && self.holds(&r.src, s, trial)
                && self.holds(&r.dst, d, trial)
        })
    }

    /// The group to move `ip` into: under it the rules admit every observed connection of the
    /// address they admit now, and more; no other group does as well. Rules the report calls
    /// unobserved are left out of the count (an `any any` rule would make every group look
    /// alike), but one that names the group itself still keeps a connection: a moved VM can
    /// leave its own group's rule unobserved (the bastion's ssh to the one api VM it reached).
    fn better(&self, ip: u32, keys: &BTreeSet<Key>) -> Option<&'a str> {
        let now = self.of(ip);
        let here: BTreeSet<&Key> = keys.iter().filter(|k| self.admits(k, None)).collect();
        let mut scores: Vec<(usize, &str)> = Vec::new();
        for g in self.seen.groups.keys().map(String::as_str).filter(|g| !now.contains(g)) {
            let there = keys.iter().filter(|k| self.admits(k, Some((ip, g)))).count();
            let kept = |k: &&Key| self.admits(k, Some((ip, g))) || self.granted(k, ip, g);
            if there > here.len() && here.iter().all(kept) {
                scores.push((there, g));
            }
        }
        scores.sort_by_key(|a| std::cmp::Reverse(a.0));
        match scores[..] {
            [(best, g), (next, _), ..] if best > next => Some(g),
            [(_, g)] => Some(g),
            _ => None,
        }
    }

    /// The name a rule uses for an end: its (new) group, a reserved group, else its address.
    fn name(&self, e: &read::End) -> String {
        match self.moved.get(&e.ip) {
            Some(z) => z.to_string(),
            None => e.name.clone(),
        }
    }
}

fn tenant(ip: u32) -> bool {
    ip >> 24 == 10
}

/// The lines to resolve: the report's (or, under a default allow, those `default deny`
/// showed) and those the probed rules carry together (the probe deletes them one after
/// another, so two rules admitting the same traffic do not hide it from each other); and
/// whether the probes listed every line.
fn lines(s: &Seen) -> (BTreeMap<LineKey, Denied>, bool) {
    let reference = match (&s.deny_probe, s.report.default_allow) {
        (Some(r), true) => r,
        _ => &s.report,
    };
    let mut all: BTreeMap<LineKey, Denied> = reference.denied.iter().map(|d| (d.key(), d.clone())).collect();
    let mut complete = true;
    for p in s.rule_probes.values() {
        complete &= !p.more;
        for d in &p.denied {
            all.entry(d.key()).or_insert_with(|| d.clone());
        }
    }
    (all, complete)
}

/// Addresses of tenant VMs in the lines, most lines first.
fn addresses(lines: &BTreeMap<LineKey, Denied>) -> Vec<u32> {
    let mut n: BTreeMap<u32, usize> = BTreeMap::new();
    for d in lines.values() {
        for ip in [d.src.ip, d.dst.ip].into_iter().filter(|&ip| tenant(ip)) {
            *n.entry(ip).or_default() += 1;
        }
    }
    let mut v: Vec<(usize, u32)> = n.into_iter().map(|(ip, c)| (c, ip)).collect();
    v.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    v.into_iter().map(|(_, ip)| ip).collect()
}

/// The fixes, and the lines still unresolved for lack of a profile.
struct Fixes {
    lines: Vec<String>,
    deleted: Vec<usize>,
    deny: bool,
    /// Addresses to list, both ends of each unresolved line in line order.
    pending: Vec<u32>,
}

fn fixes(s: &Seen) -> Fixes {
    let (lines, complete) = lines(s);
    let profiled = |ip: u32| !tenant(ip) || s.profiles.get(&ip).is_some_and(|p| p.as_src && p.as_dst);
    let mut g = Groups::new(s);
    for ip in addresses(&lines).into_iter().filter(|&ip| tenant(ip) && profiled(ip)) {
        if let Some(z) = g.better(ip, &s.profiles[&ip].keys) {
            g.moved.insert(ip, z);
        }
    }
    let mut adds: Vec<String> = Vec::new();
    let mut unresolved: BTreeSet<LineKey> = BTreeSet::new();
    let mut pending: Vec<u32> = Vec::new();
    for (k, d) in &lines {
        let moved = g.moved.contains_key(&d.src.ip) || g.moved.contains_key(&d.dst.ip);
        if moved && g.admits(&(d.src.ip, d.dst.ip, d.proto, d.port), None) {
            continue;
        }
        if !profiled(d.src.ip) || !profiled(d.dst.ip) {
            // Both ends again, even one listed now: the next turn sees only its own listings.
            for ip in [d.src.ip, d.dst.ip].into_iter().filter(|&ip| tenant(ip)) {
                if !pending.contains(&ip) {
                    pending.push(ip);
                }
            }
            unresolved.insert(k.clone());
            continue;
        }
        let proto = if d.proto == 17 { "udp" } else { "tcp" };
        let add = format!("rule add {} {} {proto} {}", g.name(&d.src), g.name(&d.dst), d.port);
        if !adds.contains(&add) {
            adds.push(add);
        }
    }
    let mut out: Vec<String> =
        g.moved.iter().map(|(ip, z)| format!("member add {z} {}", dotted(*ip))).collect();
    out.extend(adds);
    let dels: Vec<String> = g
        .moved
        .iter()
        .flat_map(|(ip, z)| {
            let from = g.base.get(ip).cloned().unwrap_or_default();
            from.into_iter()
                .filter(|f| f != z)
                .map(|f| format!("member del {f} {}", dotted(*ip)))
                .collect::<Vec<_>>()
        })
        .collect();
    // The probed rules go together, once what they carry is added; not in a batch that moves a
    // VM, since the probes judged them with the old membership, nor while a line waits for
    // profiles, since it may turn out to be a moved VM whose return makes a flagged rule observed.
    let probed: Vec<usize> =
        s.report.unobserved.iter().filter(|i| s.rule_probes.contains_key(i)).copied().collect();
    let mut deleted = Vec::new();
    if complete && g.moved.is_empty() && unresolved.is_empty() {
        deleted = probed;
        deleted.sort_unstable_by(|a, b| b.cmp(a));
    }
    let deny = s.report.default_allow
        && s.deny_probe
            .as_ref()
            .is_some_and(|p| !p.more && p.denied.iter().all(|d| !unresolved.contains(&d.key())));
    let mut rest: Vec<String> = dels;
    rest.extend(deleted.iter().map(|i| format!("rule del {i}")));
    if deny {
        rest.push("default deny".into());
    }
    // Over the limit, only the additions go now (they never deny anything); the rest next turn.
    if out.len() + rest.len() >= MAX_LINES {
        out.truncate(MAX_LINES - 1);
        return Fixes { lines: out, deleted: Vec::new(), deny: false, pending };
    }
    out.extend(rest);
    Fixes { lines: out, deleted, deny, pending }
}

/// Probes for what the fixes could not settle, numbered as the rules will be after the fixes.
fn probes(s: &Seen, f: &Fixes, room: usize) -> Vec<String> {
    let mut out = Vec::new();
    let allow = s.report.default_allow && !f.deny;
    let mut room = room.saturating_sub(if allow { 3 } else { 0 });
    if allow {
        out.extend(["default deny".to_string(), "check".to_string()]);
    }
    for &ip in &f.pending {
        if room < 2 {
            break;
        }
        out.extend(["src", "dst"].map(|side| format!("flows {side}={} top=1000", dotted(ip))));
        room -= 2;
    }
    // Deleted one after another, highest number first, then put back lowest first.
    let mut probe: Vec<(usize, String)> = Vec::new();
    for &i in s.report.unobserved.iter().filter(|i| !f.deleted.contains(i)) {
        let Some(spec) = s.rules.get(i - 1).and_then(|(text, _)| read::spec(text)) else { continue };
        if room < 3 {
            break;
        }
        probe.push((i - f.deleted.iter().filter(|&&d| d < i).count(), spec));
        room -= 3;
    }
    probe.sort_by_key(|a| std::cmp::Reverse(a.0));
    for (j, _) in &probe {
        out.extend([format!("rule del {j}"), "check".into()]);
    }
    out.extend(probe.iter().rev().map(|(j, spec)| format!("rule add {spec} at {j}")));
    if allow {
        out.push("default allow".into());
    }
    out
}

/// The next batch for an observation (the request, or the last turn's output).
pub fn scripted(observation: &str) -> String {
    let s = read(observation);
    let lines = if s.report.clean {
        vec!["done".to_string()]
    } else {
        let f = fixes(&s);
        let mut lines = f.lines.clone();
        lines.extend(probes(&s, &f, MAX_LINES - 1 - lines.len()));
        if lines.is_empty() {
            // Nothing left that it can tell how to fix.
            lines.push("done".into());
        } else {
            lines.push("show".into());
        }
        lines
    };
    format!("```\n{}\n```", lines.join("\n"))
}

/// The `scripted` baseline as an agent: it reads the last message it was shown.
pub struct Scripted;

impl Agent for Scripted {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("baseline", "microseg-scripted")
    }
    fn reply(&mut self, messages: &[Message]) -> Result<AgentReply, AgentError> {
        let last = messages.iter().rev().find(|m| m.role == Role::User).map_or("", |m| m.content.as_str());
        Ok(AgentReply { text: scripted(last), ..Default::default() })
    }
}

#[cfg(test)]
mod tests;
