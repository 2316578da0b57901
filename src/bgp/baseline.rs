//! The deterministic baseline investigator (docs/bgp.md, "Baseline").
//!
//! It reads only the conversation: the report in the prompt, then the answers to its own
//! commands, and derives each reply from the whole transcript (it keeps no state). The calls:
//! the prefix behind a reported address (`prefix-overview`), the updates of the subject
//! (`bgp-updates`), its origins over 30 days (`routing-history`), the relationships
//! (`asrel --all`), the origin validation of the suspect (`rpki-validation`), then the verdict.
//! The rules, first match wins: an origin never seen before is a hijack (exact or sub-prefix)
//! unless its route is RPKI-valid (a planned migration or anycast: none); the historic
//! origin's route invalid is a ROA misconfiguration; a new path through a valley is a route
//! leak of the valley's type; a new origin neighbour absent from the relationships is a
//! forged origin; every vantage point ending withdrawn is an outage; anything else is none.
//!
//! A prefix whose historic origin is seen prepending itself is traffic engineering: its paths
//! changed because the origin asked for it, so the valley and forged-origin rules skip its
//! updates. Without that, the relationships' inference errors (mislabelled or missing links)
//! on the paths the prepending moves vantage points onto read as leaks or forged origins.

use std::collections::{BTreeMap, BTreeSet};

use ipnet::IpNet;
use serde_json::{Value, json};

use super::prompt::REPORTED;
use super::tools::time;
use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message, Role};
use crate::reply::fenced_blocks;

/// The scripted investigator.
#[derive(Debug, Clone, Copy, Default)]
pub struct Investigator;

impl Agent for Investigator {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("baseline", "bgp-rule-investigator")
    }

    fn reply(&mut self, messages: &[Message]) -> std::result::Result<AgentReply, AgentError> {
        let text = match decide(messages) {
            Step::Run(cmd) => format!("```bash\n{cmd}\n```"),
            Step::Submit(v) => format!("submit {v}"),
        };
        Ok(AgentReply { text, ..Default::default() })
    }
}

enum Step {
    Run(String),
    Submit(Value),
}

/// What the report names.
#[derive(Debug, Default)]
struct Report {
    prefix: Option<IpNet>,
    address: Option<String>,
    asns: Vec<u32>,
}

fn report(prompt: &str) -> Report {
    let line = prompt.lines().find_map(|l| l.strip_prefix(REPORTED)).unwrap_or("");
    let mut r = Report::default();
    for word in line.split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')')) {
        let word = word.trim_end_matches('.');
        if let Some(a) = word.strip_prefix("AS").and_then(|d| d.parse().ok()) {
            r.asns.push(a);
        } else if let Ok(p) = word.parse::<IpNet>() {
            r.prefix.get_or_insert(p);
        } else if word.parse::<std::net::IpAddr>().is_ok() {
            r.address.get_or_insert(word.to_string());
        }
    }
    r
}

/// The commands already run and what they printed.
fn history(messages: &[Message]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if m.role != Role::Assistant {
            continue;
        }
        let Some(cmd) = fenced_blocks(&m.content).into_iter().next().map(|f| f.body.trim().to_string())
        else {
            continue;
        };
        let obs = messages
            .get(i + 1)
            .filter(|n| n.role == Role::User)
            .map(|n| n.content.clone())
            .unwrap_or_default();
        out.push((cmd, obs));
    }
    out
}

fn answer<'a>(done: &'a [(String, String)], prefix: &str) -> Option<&'a str> {
    done.iter().find(|(c, _)| c.starts_with(prefix)).map(|(_, o)| o.as_str())
}

/// The `data` of a RIPEstat answer.
fn data(text: &str) -> Option<Value> {
    let start = text.find('{')?;
    let v: Value = serde_json::from_str(text[start..].trim_end().trim_end_matches(|c| c != '}')).ok()?;
    Some(v.get("data")?.clone())
}

fn decide(messages: &[Message]) -> Step {
    let prompt = messages.iter().find(|m| m.role == Role::User).map_or("", |m| m.content.as_str());
    let rep = report(prompt);
    let done = history(messages);
    // The subject: the reported prefix, the prefix behind the address, or the first ASN.
    let subject = match (rep.prefix, &rep.address) {
        (Some(p), _) => p.to_string(),
        (None, Some(addr)) => {
            let overview = format!("ripestat prefix-overview resource={addr}");
            let Some(obs) = answer(&done, &overview) else { return Step::Run(overview) };
            data(obs).and_then(|d| d["resource"].as_str().map(str::to_string)).unwrap_or_else(|| addr.clone())
        }
        (None, None) => rep.asns.first().map_or_else(|| "AS0".into(), |a| format!("AS{a}")),
    };
    let updates_cmd = format!("ripestat bgp-updates resource={subject}");
    let Some(updates) = answer(&done, &updates_cmd) else { return Step::Run(updates_cmd) };
    let history_cmd = format!("ripestat routing-history resource={subject}");
    let Some(hist) = answer(&done, &history_cmd) else { return Step::Run(history_cmd) };
    let Some(rels) = answer(&done, "asrel --all") else { return Step::Run("asrel --all".into()) };
    let ev = Evidence::read(updates, hist, rels);
    let suspect = ev.suspect();
    if let Some((asn, prefix)) = &suspect {
        let rpki = format!("ripestat rpki-validation resource=AS{asn} prefix={prefix}");
        let Some(obs) = answer(&done, &rpki) else { return Step::Run(rpki) };
        let status = data(obs).and_then(|d| d["status"].as_str().map(str::to_string)).unwrap_or_default();
        return Step::Submit(ev.verdict(suspect, &status));
    }
    Step::Submit(ev.verdict(None, ""))
}

/// One announcement or withdrawal from `bgp-updates`.
#[derive(Debug, Clone)]
struct Upd {
    t: u64,
    source: String,
    prefix: String,
    path: Option<Vec<u32>>,
}

/// What the baseline read.
#[derive(Debug, Default)]
struct Evidence {
    updates: Vec<Upd>,
    /// Origins seen before the window, per prefix.
    historic: BTreeMap<String, BTreeSet<u32>>,
    window_start: u64,
    /// (provider, customer) and peer pairs (low, high).
    p2c: BTreeSet<(u32, u32)>,
    p2p: BTreeSet<(u32, u32)>,
}

impl Evidence {
    fn read(updates: &str, hist: &str, rels: &str) -> Evidence {
        let mut ev = Evidence::default();
        if let Some(d) = data(updates) {
            ev.window_start = d["query_starttime"].as_str().and_then(time::parse).unwrap_or(0);
            for u in d["updates"].as_array().into_iter().flatten() {
                let path = u["attrs"]["path"]
                    .as_array()
                    .map(|p| p.iter().filter_map(|a| a.as_u64().map(|a| a as u32)).collect());
                ev.updates.push(Upd {
                    t: u["timestamp"].as_str().and_then(time::parse).unwrap_or(0),
                    source: u["attrs"]["source_id"].as_str().unwrap_or("").to_string(),
                    prefix: u["attrs"]["target_prefix"].as_str().unwrap_or("").to_string(),
                    path,
                });
            }
        }
        if let Some(d) = data(hist) {
            for o in d["by_origin"].as_array().into_iter().flatten() {
                let Some(origin) = o["origin"].as_str().and_then(|a| a.parse::<u32>().ok()) else { continue };
                for p in o["prefixes"].as_array().into_iter().flatten() {
                    let before = p["timelines"].as_array().into_iter().flatten().any(|t| {
                        t["starttime"].as_str().and_then(time::parse).is_some_and(|s| s < ev.window_start)
                    });
                    if before {
                        ev.historic
                            .entry(p["prefix"].as_str().unwrap_or("").to_string())
                            .or_default()
                            .insert(origin);
                    }
                }
            }
        }
        for line in rels.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split('|').collect();
            let (Some(a), Some(b)) =
                (f.first().and_then(|x| x.parse().ok()), f.get(1).and_then(|x| x.parse().ok()))
            else {
                continue;
            };
            match f.get(2) {
                Some(&"-1") => {
                    ev.p2c.insert((a, b));
                }
                Some(&"0") => {
                    ev.p2p.insert((a, b));
                }
                _ => {}
            }
        }
        ev
    }

    fn all_historic(&self) -> BTreeSet<u32> {
        self.historic.values().flatten().copied().collect()
    }

    /// A new origin and its prefix, if some announcement has one.
    fn suspect(&self) -> Option<(u32, String)> {
        let old = self.all_historic();
        if let Some(u) = self
            .updates
            .iter()
            .find(|u| u.path.as_ref().and_then(|p| p.last()).is_some_and(|o| !old.contains(o)))
        {
            return Some((*u.path.as_ref()?.last()?, u.prefix.clone()));
        }
        let v = *old.iter().next()?;
        let prefix = self.historic.iter().find(|(_, o)| o.contains(&v))?.0.clone();
        Some((v, prefix))
    }

    /// What `b` is to `a`: 'c' customer, 'p' provider, 'e' peer, '?' unknown.
    fn rel(&self, a: u32, b: u32) -> char {
        if self.p2c.contains(&(a, b)) {
            'c'
        } else if self.p2c.contains(&(b, a)) {
            'p'
        } else if self.p2p.contains(&(a.min(b), a.max(b))) {
            'e'
        } else {
            '?'
        }
    }

    /// The prefixes whose historic origin prepends itself on some announced path (the origin's
    /// ASN repeated at the path's end): the origin is steering its traffic.
    fn engineered(&self) -> BTreeSet<&str> {
        let old = self.all_historic();
        self.updates
            .iter()
            .filter(|u| {
                u.path.as_ref().is_some_and(|p| match p.as_slice() {
                    [.., a, o] => a == o && old.contains(o),
                    _ => false,
                })
            })
            .map(|u| u.prefix.as_str())
            .collect()
    }

    /// The announcements whose change the origin's own prepending does not explain, with their
    /// paths (prepends collapsed).
    fn unexplained(&self) -> impl Iterator<Item = (&Upd, Vec<u32>)> {
        let engineered = self.engineered();
        self.updates.iter().filter(move |u| !engineered.contains(u.prefix.as_str())).filter_map(|u| {
            let mut p = u.path.clone()?;
            p.dedup();
            Some((u, p))
        })
    }

    /// The first valley on an announced path: (leaker, RFC 7908 type).
    fn valley(&self) -> Option<(u32, u8, u64)> {
        for (u, p) in self.unexplained() {
            for w in p.windows(3) {
                // Routes flow right to left: w[1] learned from w[2] and sent to w[0].
                let (from, to) = (self.rel(w[1], w[2]), self.rel(w[1], w[0]));
                let kind = match (from, to) {
                    ('p', 'p') => 1,
                    ('e', 'e') => 2,
                    ('p', 'e') => 3,
                    ('e', 'p') => 4,
                    _ => continue,
                };
                return Some((w[1], kind, u.t));
            }
        }
        None
    }

    fn forged(&self) -> Option<(u32, u64)> {
        for (u, p) in self.unexplained() {
            if let [.., x, o] = p.as_slice()
                && self.rel(*x, *o) == '?'
            {
                return Some((*x, u.t));
            }
        }
        None
    }

    /// Whether every vantage point withdrew at some time, and when the first did and (if the
    /// prefix came back) when the first announcement after that came.
    fn outage(&self) -> Option<(u64, Option<u64>)> {
        let sources: BTreeSet<&str> = self.updates.iter().map(|u| u.source.as_str()).collect();
        let withdrew: BTreeSet<&str> =
            self.updates.iter().filter(|u| u.path.is_none()).map(|u| u.source.as_str()).collect();
        if sources.is_empty() || sources != withdrew {
            return None;
        }
        let first = self.updates.iter().find(|u| u.path.is_none())?.t;
        let back = self.updates.iter().find(|u| u.t > first && u.path.is_some()).map(|u| u.t);
        Some((first, back))
    }

    fn affected(&self) -> Vec<u32> {
        let set: BTreeSet<u32> =
            self.updates.iter().filter_map(|u| u.path.as_ref()?.first().copied()).collect();
        set.into_iter().collect()
    }

    fn verdict(&self, suspect: Option<(u32, String)>, status: &str) -> Value {
        let none = json!({"incident_type": "none", "mitigation": {"action": "none"}});
        if self.updates.is_empty() {
            return none;
        }
        let start = self.updates.first().map(|u| u.t);
        let old = self.all_historic();
        let accuse = |kind: &str, key: &str, asn: u32, t: Option<u64>| {
            json!({"incident_type": kind, key: asn, "start_ts": t, "end_ts": null, "affected": self.affected(),
                "mitigation": {"action": "contact", "target_asn": asn}})
        };
        if let Some((asn, prefix)) = &suspect {
            if !old.contains(asn) {
                if status == "valid" {
                    return none;
                }
                let exact = self.historic.contains_key(prefix);
                let kind = if exact { "exact_prefix_hijack" } else { "subprefix_hijack" };
                return accuse(kind, "offender_asn", *asn, start);
            }
            if status.starts_with("invalid") {
                return accuse("roa_misconfiguration", "victim_asn", *asn, start);
            }
        }
        if let Some((leaker, kind, t)) = self.valley() {
            return accuse(&format!("route_leak_type{kind}"), "offender_asn", leaker, Some(t));
        }
        if let Some((x, t)) = self.forged() {
            return accuse("forged_origin_hijack", "offender_asn", x, Some(t));
        }
        if let Some((from, back)) = self.outage()
            && let Some(&v) = old.iter().next()
        {
            let mut verdict = accuse("outage", "offender_asn", v, Some(from));
            verdict["end_ts"] = json!(back);
            return verdict;
        }
        none
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_is_read_from_the_prompt() {
        let r = report(
            "x\nReported: users cannot reliably reach 198.18.4.0/22 (originated by AS64541) since about 2025-06-01T10:00:00 (Unix 1).\n",
        );
        assert_eq!(r.prefix, Some("198.18.4.0/22".parse().unwrap()));
        assert_eq!(r.asns, [64541]);
        let r = report(
            "Reported: the operator KORVEX-AS (AS64512) reports trouble reaching its service at 198.18.0.10.",
        );
        assert_eq!(r.address.as_deref(), Some("198.18.0.10"));
    }
}
