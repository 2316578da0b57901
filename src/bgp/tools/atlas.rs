//! `atlas`: the measurement network. `atlas probes [--asn N] [--region R]` lists the probes;
//! `atlas traceroute --probes ID,... --target ADDR [--time T]` runs a one-off ICMP traceroute
//! from up to ten of them ([`super::traceroute`] renders the results).

use std::net::IpAddr;

use super::registry::asn_arg;
use super::traceroute::{self, Request};
use super::{Io, time, unknown_option};
use crate::bgp::probes::Probe;
use crate::bgp::region::Region;
use crate::bgp::task::Task;

/// Probes one traceroute call may use (RIPE Atlas one-offs take many more; ten keep an answer
/// readable).
pub const MAX_PROBES: usize = 10;

const USAGE: &str = "atlas: usage: atlas probes [--asn N] [--region R] | atlas traceroute --probes ID,... --target ADDR [--time T]\nTry 'help'.";

/// `atlas probes ...` or `atlas traceroute ...`.
pub fn atlas(task: &Task, args: &[String], io: &mut Io) -> i32 {
    match args.first().map(String::as_str) {
        Some("probes") => probes(task, &args[1..], io),
        Some("traceroute") => match request(task, &args[1..]) {
            Ok(req) => {
                io.out(&traceroute::render(task, &req));
                0
            }
            Err(Some(msg)) => io.fail(2, &msg),
            Err(None) => io.fail(2, USAGE),
        },
        _ => io.fail(2, USAGE),
    }
}

fn probes(task: &Task, args: &[String], io: &mut Io) -> i32 {
    let mut asn = None;
    let mut region: Option<Region> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--asn" => match it.next().and_then(|v| asn_arg(v)) {
                Some(n) => asn = Some(n),
                None => return io.fail(2, "atlas: --asn takes an AS number"),
            },
            "--region" => {
                let name = it.next().map(String::as_str).unwrap_or("");
                match Region::ALL.iter().find(|r| r.name() == name) {
                    Some(r) => region = Some(*r),
                    None => return io.fail(2, &format!("atlas: unknown region {name}")),
                }
            }
            opt => return unknown_option(io, "atlas", opt),
        }
    }
    let t = &task.world.topology;
    io.outln("prb_id asn_v4 asn_v6 address_v4 address_v6 country region");
    for p in &task.world.probes {
        let a = t.ases[p.asx].asn;
        if asn.is_some_and(|n| n != a) || region.is_some_and(|r| r != p.region) {
            continue;
        }
        let (asn6, v6) = match p.v6 {
            Some(v6) => (a.to_string(), v6.to_string()),
            None => ("-".to_string(), "-".to_string()),
        };
        io.outln(&format!("{} {a} {asn6} {} {v6} {} {}", p.id, p.v4, p.country, p.region.name()));
    }
    0
}

/// The traceroute's arguments; `Err(None)` asks for the usage text, `Err(Some(m))` is an
/// error of its own.
fn request<'t>(task: &'t Task, args: &[String]) -> Result<Request<'t>, Option<String>> {
    let (mut list, mut target, mut when) = (None, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let slot = match a.as_str() {
            "--probes" => &mut list,
            "--target" => &mut target,
            "--time" => &mut when,
            opt => {
                return Err(Some(format!(
                    "atlas: unknown option -- {}\nTry 'help'.",
                    opt.trim_start_matches('-')
                )));
            }
        };
        *slot = Some(it.next().ok_or(None)?.as_str());
    }
    let (Some(list), Some(target)) = (list, target) else { return Err(None) };
    let probes = probe_list(task, list)?;
    let target: IpAddr =
        target.parse().map_err(|_| Some(format!("atlas: invalid target address: {target}")))?;
    let clock = &task.world.clock;
    let time = match when {
        None => clock.end(),
        Some(text) => time::parse(text).ok_or_else(|| Some(format!("atlas: invalid time: {text}")))?,
    };
    if !(clock.w0..=clock.end()).contains(&time) {
        return Err(Some("atlas: --time outside the window".into()));
    }
    if let Some(p) = probes.iter().find(|p| target.is_ipv6() && p.v6.is_none()) {
        return Err(Some(format!("atlas: probe {} has no IPv6 address", p.id)));
    }
    Ok(Request { probes, target, time })
}

/// `1000,1003`: the probes in the order given, each once.
fn probe_list<'t>(task: &'t Task, list: &str) -> Result<Vec<&'t Probe>, Option<String>> {
    let mut ids: Vec<&str> = Vec::new();
    for id in list.split(',').map(str::trim) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.len() > MAX_PROBES {
        return Err(Some(format!("atlas: at most {MAX_PROBES} probes per call")));
    }
    ids.iter()
        .map(|&id| {
            let found = id.parse::<u32>().ok().and_then(|n| task.world.probes.iter().find(|p| p.id == n));
            found.ok_or_else(|| Some(format!("atlas: unknown probe {id}")))
        })
        .collect()
}
