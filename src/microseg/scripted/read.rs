//! Reading what the `scripted` baseline was shown: the policy listed by the last `show`, the
//! final report, and the results of its own probes (a `check` after deleting a rule or after
//! `default deny`, and `flows` listings of one address) echoed in the same observation.

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

use crate::microseg::mend::rule_of;
use crate::microseg::policy::Rule;
use crate::microseg::repair::{Command, parse_command};

/// A visible connection key: source, destination, protocol number, destination port.
pub type Key = (u32, u32, u8, u16);

/// One end of a `Denied observed` line: the name the report gives it and its address.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct End {
    pub name: String,
    pub ip: u32,
}

/// One `Denied observed` line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Denied {
    pub src: End,
    pub dst: End,
    pub proto: u8,
    pub port: u16,
}

/// What a denied line is grouped by in the report, as far as its text shows: the names.
pub type LineKey = (String, String, u8, u16);

impl Denied {
    pub fn key(&self) -> LineKey {
        (self.src.name.clone(), self.dst.name.clone(), self.proto, self.port)
    }
}

/// A report's lines.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub denied: Vec<Denied>,
    /// The denied lines were cut (`… and m more`).
    pub more: bool,
    /// Rule numbers of `Unobserved allow` lines.
    pub unobserved: Vec<usize>,
    pub default_allow: bool,
    pub clean: bool,
}

/// The visible connections of one address, from `flows src=A` and `flows dst=A`.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub as_src: bool,
    pub as_dst: bool,
    pub keys: BTreeSet<Key>,
}

/// Everything read from one observation.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    pub groups: BTreeMap<String, BTreeSet<u32>>,
    /// Rules as listed (text) and parsed.
    pub rules: Vec<(String, Rule)>,
    pub default_allow: bool,
    /// The report after the turn.
    pub report: Report,
    /// The report after `default deny` (probe).
    pub deny_probe: Option<Report>,
    /// Per rule number, the report with that rule deleted (probe).
    pub rule_probes: BTreeMap<usize, Report>,
    pub profiles: BTreeMap<u32, Profile>,
}

/// Where the lines being read belong.
enum Part {
    Listing,
    Check(Option<Command>),
    Flows(Option<(bool, u32)>),
    Report,
    Other,
}

fn addr(s: &str) -> Option<u32> {
    s.parse::<Ipv4Addr>().ok().map(u32::from)
}

fn proto_port(s: &str) -> Option<(u8, u16)> {
    let (p, port) = s.split_once('/')?;
    let p = match p {
        "tcp" => 6,
        "udp" => 17,
        _ => return None,
    };
    Some((p, port.parse().ok()?))
}

/// `Denied observed: NAME IP → NAME IP proto/port (n connections)`.
fn denied(rest: &str) -> Option<Denied> {
    let w: Vec<&str> = rest.split_whitespace().collect();
    let [sn, si, "→", dn, di, pp, ..] = w[..] else { return None };
    let (proto, port) = proto_port(pp)?;
    let end = |name: &str, ip: &str| Some(End { name: name.to_string(), ip: addr(ip)? });
    Some(Denied { src: end(sn, si)?, dst: end(dn, di)?, proto, port })
}

impl Report {
    fn line(&mut self, l: &str) {
        if let Some(d) = l.strip_prefix("Denied observed: ").and_then(denied) {
            self.denied.push(d);
        } else if l.starts_with("… and ") {
            self.more = true;
        } else if let Some(rest) = l.strip_prefix("Unobserved allow: rule ") {
            self.unobserved.extend(rest.split_whitespace().next().and_then(|n| n.parse::<usize>().ok()));
        } else if l.starts_with("Default allow") {
            self.default_allow = true;
        } else if l == "No findings." {
            self.clean = true;
        }
    }
}

impl Seen {
    /// A line of a `show` listing (the request's or an echoed `show`'s).
    fn listing(&mut self, l: &str) {
        if let Some((name, ips)) = l.strip_prefix("group ").and_then(|r| r.split_once(':')) {
            if !name.contains(' ') {
                self.groups.insert(name.to_string(), ips.split_whitespace().filter_map(addr).collect());
            }
        } else if let Some((_, text)) = l.strip_prefix("rule ").and_then(|r| r.split_once(": ")) {
            if let Some(spec) = spec(text)
                && let Ok(Command::RuleAdd { rule, .. }) = parse_command(&format!("rule add {spec}"))
            {
                self.rules.push((text.to_string(), rule_of(&rule)));
            }
        } else if l == "default allow" || l == "default deny" {
            self.default_allow = l == "default allow";
        }
    }

    /// A line of a `flows` listing: `a → b tcp/3000: n connections, m bytes`.
    fn flow(&mut self, of: (bool, u32), l: &str) {
        let w: Vec<&str> = l.split_whitespace().collect();
        if let [a, "→", b, pp, ..] = w[..]
            && let (Some(a), Some(b), Some((p, port))) =
                (addr(a), addr(b), proto_port(pp.trim_end_matches(':')))
        {
            self.profiles.entry(of.1).or_default().keys.insert((a, b, p, port));
        }
    }
}

/// A rule's listed text (`src → dst proto/ports`) as `rule add` arguments.
pub fn spec(text: &str) -> Option<String> {
    let (ends, pp) = text.rsplit_once(' ')?;
    let (proto, ports) = pp.split_once('/')?;
    Some(format!("{} {proto} {ports}", ends.replacen(" → ", " ", 1)))
}

/// Files a finished `check` section under the probe that preceded it.
fn close(seen: &mut Seen, part: &Part, check: &mut Report) {
    if let Part::Check(before) = part {
        let r = std::mem::take(check);
        match before {
            Some(Command::RuleDel(i)) => {
                seen.rule_probes.insert(*i, r);
            }
            Some(Command::Default { deny: true }) => seen.deny_probe = Some(r),
            _ => {}
        }
    }
}

/// `flows src=A top=N` or `flows dst=A top=N`: (as source, A).
fn flows_of(c: &str) -> Option<(bool, u32)> {
    c.split_whitespace().find_map(|w| match w.split_once('=') {
        Some(("src", a)) => Some((true, addr(a)?)),
        Some(("dst", a)) => Some((false, addr(a)?)),
        _ => None,
    })
}

/// Reads an observation (or the request, whose listing has no `> show` echo before it).
pub fn read(text: &str) -> Seen {
    let mut seen = Seen::default();
    let mut part = Part::Listing;
    let mut last: Option<Command> = None;
    let mut check = Report::default();
    for l in text.lines() {
        if let Some(c) = l.strip_prefix("> ") {
            close(&mut seen, &part, &mut check);
            let cmd = parse_command(c).ok();
            part = match &cmd {
                Some(Command::Show(_)) => {
                    (seen.groups, seen.rules) = Default::default();
                    Part::Listing
                }
                Some(Command::Check) => Part::Check(last.take()),
                Some(Command::Flows(_)) => {
                    let of = flows_of(c);
                    if let Some((src, ip)) = of {
                        let p = seen.profiles.entry(ip).or_default();
                        if src { p.as_src = true } else { p.as_dst = true }
                    }
                    Part::Flows(of)
                }
                _ => Part::Other,
            };
            if !matches!(cmd, Some(Command::Check | Command::Show(_) | Command::Flows(_))) {
                last = cmd;
            }
        } else if l == "Report:" {
            close(&mut seen, &part, &mut check);
            seen.report = Report::default();
            part = Part::Report;
        } else {
            match part {
                Part::Listing => seen.listing(l),
                Part::Check(_) => check.line(l),
                Part::Flows(Some(of)) => seen.flow(of, l),
                Part::Report => seen.report.line(l),
                Part::Flows(None) | Part::Other => {}
            }
        }
    }
    close(&mut seen, &part, &mut check);
    seen
}
