//! The faults of the repair family (docs/microseg-repair.md, "Faults"): drawn into P\*, each
//! visible in the report and none masked by the others, with the known-good fix.

use crate::error::{Error, Result};
use crate::flows::tenant::UDP;
use crate::seed::Stream;

use super::mend::{State, report};
use super::policy::{Peer, Policy, Proto};
use super::world::World;

/// One injected fault; rule indexes are P\*'s (0-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    DropRule(usize),
    WrongPort(usize, u16),
    AnyPort(usize),
    Swap(usize),
    /// A VM's address moved from one group to another of its VNet.
    MemberMoved {
        ip: u32,
        from: String,
        to: String,
    },
    BroadCidr(usize),
    AnyAny,
    DefaultAllow,
}

/// The fault types in catalogue order; level 2 draws from the first five.
pub const TYPES: [&str; 8] = ["DR", "WP", "AP", "SW", "MV", "BC", "AA", "DF"];

impl Fault {
    pub fn code(&self) -> &'static str {
        TYPES[match self {
            Fault::DropRule(_) => 0,
            Fault::WrongPort(..) => 1,
            Fault::AnyPort(_) => 2,
            Fault::Swap(_) => 3,
            Fault::MemberMoved { .. } => 4,
            Fault::BroadCidr(_) => 5,
            Fault::AnyAny => 6,
            Fault::DefaultAllow => 7,
        }]
    }

    fn rule(&self) -> Option<usize> {
        match *self {
            Fault::DropRule(i)
            | Fault::WrongPort(i, _)
            | Fault::AnyPort(i)
            | Fault::Swap(i)
            | Fault::BroadCidr(i) => Some(i),
            _ => None,
        }
    }
}

/// P\* with the faults injected: edits in place, then dropped rules, then `any any any any`
/// appended, then the default.
pub fn inject(star: &Policy, faults: &[Fault]) -> State {
    let mut p = star.clone();
    let mut drop = Vec::new();
    let mut s = State::default();
    for f in faults {
        match f {
            Fault::DropRule(i) => drop.push(*i),
            Fault::WrongPort(i, port) => p.rules[*i].ports = vec![(*port, *port)],
            Fault::AnyPort(i) => p.rules[*i].ports = Vec::new(),
            Fault::Swap(i) => {
                let r = &mut p.rules[*i];
                std::mem::swap(&mut r.src, &mut r.dst);
            }
            Fault::MemberMoved { ip, from, to } => {
                p.groups.entry(from.clone()).or_default().retain(|a| a != ip);
                p.groups.entry(to.clone()).or_default().push(*ip);
            }
            Fault::BroadCidr(i) => p.rules[*i].src = Peer::Cidr(10 << 24, 8),
            Fault::AnyAny => {}
            Fault::DefaultAllow => s.default_allow = true,
        }
    }
    drop.sort_unstable();
    for i in drop.into_iter().rev() {
        p.rules.remove(i);
    }
    if faults.contains(&Fault::AnyAny) {
        let any = Peer::Reserved(super::policy::Reserved::Any);
        p.rules.push(super::policy::Rule {
            src: any.clone(),
            dst: any,
            proto: Proto::Any,
            ports: Vec::new(),
        });
    }
    s.policy = p;
    s
}

fn draw(code: &str, s: &mut Stream, w: &World, star: &Policy, used: &mut Vec<usize>) -> Option<Fault> {
    let free: Vec<usize> = (0..star.rules.len()).filter(|i| !used.contains(i)).collect();
    let mut rule = || -> Option<usize> {
        let i = *free.get(s.index(free.len().max(1)))?;
        used.push(i);
        Some(i)
    };
    Some(match code {
        "DR" => Fault::DropRule(rule()?),
        "WP" => {
            let i = rule()?;
            let r = &star.rules[i];
            let proto = if r.proto == Proto::Udp { UDP } else { 6 };
            let others: Vec<u16> = w
                .served()
                .into_iter()
                .filter(|&(p, x)| p == proto && !r.admits_port(p, x))
                .map(|(_, x)| x)
                .collect();
            let port = if s.below(2) == 0 && !others.is_empty() {
                others[s.index(others.len())]
            } else {
                1025 + s.below(31743) as u16
            };
            Fault::WrongPort(i, port)
        }
        "AP" => Fault::AnyPort(rule()?),
        "SW" => Fault::Swap(rule()?),
        "BC" => Fault::BroadCidr(rule()?),
        "MV" => {
            let names: Vec<&String> = star.groups.keys().collect();
            let from = names[s.index(names.len())].clone();
            let members = &star.groups[&from];
            let ip = members[s.index(members.len().max(1)).min(members.len().saturating_sub(1))];
            let vnet = from.split('.').next().unwrap_or_default();
            let to: Vec<&&String> =
                names.iter().filter(|g| **g != &from && g.starts_with(&format!("{vnet}."))).collect();
            let to = (*to.get(s.index(to.len().max(1)))?).to_string();
            Fault::MemberMoved { ip, from, to }
        }
        "AA" => Fault::AnyAny,
        _ => Fault::DefaultAllow,
    })
}

/// Draws the level's faults: the types, then parameters, resampled (at most 64 times) until
/// every fault shows in the report and none is masked by the others. Some pairs of types can
/// never both show (a default allow hides a dropped rule), so when 64 draws of parameters fail
/// the types are drawn again, from the same stream: a task whose first types work is drawn
/// exactly as before, and one that could not be generated now can.
pub fn faults(s: &mut Stream, level: u8, w: &World, star: &Policy) -> Result<Vec<Fault>> {
    let mut tried = Vec::new();
    for _ in 0..8 {
        let codes = fault_types(s, level);
        if let Some(f) = visible_faults(s, &codes, w, star) {
            return Ok(f);
        }
        tried.push(codes);
    }
    Err(Error::GenerationExhausted(format!(
        "no visible, unmasked repair faults of {tried:?} in 64 draws each"
    )))
}

/// The types of the level's faults: one at levels 1 and 2, two or three distinct above.
fn fault_types(s: &mut Stream, level: u8) -> Vec<&'static str> {
    if level <= 2 {
        vec![TYPES[s.index(5)]]
    } else {
        let count = 2 + s.index(2);
        let mut k = s.subset(8, count);
        k.sort_unstable();
        k.into_iter().map(|i| TYPES[i]).collect()
    }
}

/// Faults of the given types whose report differs from the clean one and from the report of
/// every subset missing one of them, within 64 draws of parameters.
fn visible_faults(s: &mut Stream, codes: &[&str], w: &World, star: &Policy) -> Option<Vec<Fault>> {
    for _ in 0..64 {
        let mut used = Vec::new();
        let drawn: Option<Vec<Fault>> = codes.iter().map(|c| draw(c, s, w, star, &mut used)).collect();
        let Some(f) = drawn else { continue };
        let all = report(&inject(star, &f), w);
        let clean = vec!["No findings.".to_string()];
        let unmasked = (0..f.len()).all(|j| {
            let mut rest = f.clone();
            rest.remove(j);
            report(&inject(star, &rest), w) != all
        });
        if all != clean && unmasked {
            return Some(f);
        }
    }
    None
}

/// The known-good fix of the injected policy, as one command block.
pub fn fix(star: &Policy, faults: &[Fault]) -> String {
    let dropped: Vec<usize> =
        faults.iter().filter_map(|f| matches!(f, Fault::DropRule(_)).then(|| f.rule()).flatten()).collect();
    let now = |i: usize| i + 1 - dropped.iter().filter(|&&d| d < i).count();
    let mut out = Vec::new();
    if faults.contains(&Fault::AnyAny) {
        out.push(format!("rule del {}", star.rules.len() - dropped.len() + 1));
    }
    let ports = |i: usize| {
        let r = &star.rules[i];
        let p: Vec<String> =
            r.ports.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect();
        if p.is_empty() { "any".into() } else { p.join(",") }
    };
    for f in faults {
        match f {
            Fault::WrongPort(i, _) | Fault::AnyPort(i) => {
                out.push(format!("rule set {} ports {}", now(*i), ports(*i)))
            }
            Fault::Swap(i) => {
                out.push(format!("rule set {} src {}", now(*i), star.rules[*i].src.text()));
                out.push(format!("rule set {} dst {}", now(*i), star.rules[*i].dst.text()));
            }
            Fault::BroadCidr(i) => {
                out.push(format!("rule set {} src {}", now(*i), star.rules[*i].src.text()))
            }
            Fault::MemberMoved { ip, from, to } => {
                let a = crate::flows::tenant::dotted(*ip);
                out.push(format!("member del {to} {a}"));
                out.push(format!("member add {from} {a}"));
            }
            Fault::DefaultAllow => out.push("default deny".into()),
            _ => {}
        }
    }
    let mut dropped = dropped;
    dropped.sort_unstable();
    for i in dropped {
        let r = &star.rules[i];
        out.push(format!(
            "rule add {} {} {} {} at {}",
            r.src.text(),
            r.dst.text(),
            r.proto.name(),
            ports(i),
            i + 1
        ));
    }
    format!("```\n{}\n```", out.join("\n"))
}
