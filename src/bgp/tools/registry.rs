//! The registries: `asrel` (CAIDA serial-1 relationships) and `vrps` (Routinator-style CSV of
//! the VRPs at the window's end).

use ipnet::IpNet;

use super::view::vrps_at;
use super::{Io, unknown_option};
use crate::bgp::task::Task;
use crate::bgp::topology::LinkKind;

/// The as-rel file's header.
pub const ASREL_HEADER: &str = "# netpress as-rel serial-1, inferred before the window";

/// Every relationship row as published, sorted: `provider|customer|-1`, `lower|higher|0`,
/// with the task's inference errors ([`crate::bgp::asrel_noise`]).
pub fn asrel_rows(task: &Task) -> Vec<(u32, u32, i8)> {
    let t = &task.world.topology;
    let noise = &task.asrel_noise;
    let mut rows: Vec<(u32, u32, i8)> = t
        .links
        .iter()
        .enumerate()
        .filter(|(i, _)| noise.missing.binary_search(i).is_err())
        .map(|(i, l)| {
            let (a, b) = (t.ases[l.a].asn, t.ases[l.b].asn);
            let p2c = l.kind == LinkKind::CustomerProvider;
            match (p2c, noise.mislabeled.binary_search(&i).is_ok()) {
                (true, false) => (b, a, -1),
                (false, true) => (a.min(b), a.max(b), -1),
                _ => (a.min(b), a.max(b), 0),
            }
        })
        .collect();
    rows.sort_unstable();
    rows
}

/// An AS number as the tools accept it: `64520` or `AS64520`.
pub fn asn_arg(text: &str) -> Option<u32> {
    let digits = text.strip_prefix("AS").or_else(|| text.strip_prefix("as")).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `asrel ASN [ASN]` or `asrel --all`.
pub fn asrel(task: &Task, args: &[String], io: &mut Io) -> i32 {
    let mut asns = Vec::new();
    let mut all = false;
    for a in args {
        match a.as_str() {
            "--all" | "-a" => all = true,
            opt if opt.starts_with('-') => return unknown_option(io, "asrel", opt),
            text => match asn_arg(text) {
                Some(n) => asns.push(n),
                None => return io.fail(2, &format!("asrel: not an AS number: {text}")),
            },
        }
    }
    if !all && !(1..=2).contains(&asns.len()) {
        return io.fail(2, "asrel: usage: asrel ASN [ASN] | asrel --all\nTry 'help'.");
    }
    io.outln(ASREL_HEADER);
    for (a, b, r) in asrel_rows(task) {
        let keep = all || asns.iter().all(|&n| n == a || n == b);
        if keep {
            io.outln(&format!("{a}|{b}|{r}"));
        }
    }
    0
}

/// `vrps [--asn N] [--prefix P]`.
pub fn vrps(task: &Task, args: &[String], io: &mut Io) -> i32 {
    let mut asn = None;
    let mut prefix: Option<IpNet> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--asn" | "-a" => match it.next().and_then(|v| asn_arg(v)) {
                Some(n) => asn = Some(n),
                None => return io.fail(2, "vrps: --asn takes an AS number"),
            },
            "--prefix" | "-p" => {
                let Some(text) = it.next() else { return io.fail(2, "vrps: --prefix takes a prefix") };
                match text.parse::<IpNet>() {
                    Ok(p) if p.trunc() == p => prefix = Some(p),
                    _ => return io.fail(2, &format!("vrps: invalid prefix: {text}")),
                }
            }
            opt => return unknown_option(io, "vrps", opt),
        }
    }
    io.outln("ASN,IP Prefix,Max Length,Trust Anchor");
    for r in vrps_at(task, task.world.clock.end()).roas() {
        if asn.is_some_and(|n| n != r.origin) {
            continue;
        }
        if prefix.is_some_and(|p| !(p == r.prefix || p.contains(&r.prefix) || r.prefix.contains(&p))) {
            continue;
        }
        io.outln(&format!("AS{},{},{},netpress", r.origin, r.prefix, r.max_len));
    }
    0
}
