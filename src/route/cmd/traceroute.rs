//! `traceroute` (2.1): UDP probes with rising TTL, three per hop by default.

use super::{Ctx, Io};
use crate::route::engine::probe::{self, Outcome, ProbeSpec};
use crate::route::engine::{IcmpError, Kind};
use crate::route::net::addr::parse_aton;

/// Largest `-m` the lab accepts (docs/route.md, "What the agent has": state is bounded).
pub const MAX_HOPS: u8 = 64;

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let mut numeric = false;
    let mut queries = 3u32;
    let mut wait_us = 5_000_000u64;
    let mut max = 30u8;
    let mut dst_text = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if !a.starts_with('-') {
            dst_text.get_or_insert(a);
            continue;
        }
        let (flag, attached) = a[1..].split_at(a[1..].char_indices().nth(1).map_or(a.len() - 1, |(p, _)| p));
        if flag == "n" && attached.is_empty() {
            numeric = true;
            continue;
        }
        let value = if attached.is_empty() {
            i += 1;
            args.get(i - 1).map(String::as_str)
        } else {
            Some(attached)
        };
        let Some(value) = value else {
            return io.fail(
                2,
                &format!("Option `-{flag}' (argc {}) requires an argument: `-{flag} value'", i - 1),
            );
        };
        let bad = |io: &mut Io| {
            io.fail(2, &format!("Cannot handle `-{flag}' option with arg `{value}' (argc {})", i - 1))
        };
        match flag {
            "q" => match value.parse::<u32>() {
                Ok(q) if (1..=10).contains(&q) => queries = q,
                _ => return bad(io),
            },
            "w" => match value.parse::<f64>() {
                Ok(w) if (0.0..=1e6).contains(&w) => wait_us = (w * 1e6) as u64,
                _ => return bad(io),
            },
            "m" => match value.parse::<u16>() {
                Ok(m) if m > u16::from(MAX_HOPS) => return io.refuse(2, "netpress: limit exceeded"),
                Ok(m) if m > 0 => max = m as u8,
                _ => return bad(io),
            },
            "N" | "f" | "p" | "z" => {}
            _ => return super::unsupported(io, &format!("traceroute -{flag}")),
        }
    }
    let Some(dst_text) = dst_text else {
        return io.fail(2, "Specify \"host\" missing argument.");
    };
    let Some(dst) = parse_aton(dst_text) else {
        return io.fail(2, &format!("{dst_text}: Temporary failure in name resolution\nCannot handle \"host\" cmdline arg `{dst_text}' on position 1 (argc {})", args.len()));
    };
    let mut out = format!("traceroute to {dst} ({dst}), {max} hops max, 60 byte packets\n");
    let spec = ProbeSpec { node: ctx.node, dst, oif: None, src: None, size: 60, ttl: 1, pmtu: None };
    if let Err(e) = probe::route(ctx.net, &spec) {
        io.out(&out);
        return io.fail(1, &format!("connect: {}", e.strerror()));
    }
    // Probes go one after another: the next leaves when an answer comes or the wait runs
    // out. An answer that comes too late for its own probe (a neighbour resolution giving up
    // after 3 s) is shown at the probe waiting when it lands, as traceroute does.
    let mut now = 0u64;
    let mut sent: Vec<(u64, Outcome)> = Vec::new();
    let mut late: Vec<(u64, Outcome)> = Vec::new();
    for ttl in 1..=max {
        out.push_str(&format!("{ttl:>2} "));
        let mut last_from = None;
        let mut done = false;
        for _ in 0..queries {
            let outcome =
                probe::send(ctx.net, &ProbeSpec { ttl, ..spec }, Kind::Udp).unwrap_or(Outcome::Lost);
            sent.push((now, outcome));
            let arrival = *probe::arrivals(&sent).last().expect("just pushed");
            let window = now..now + wait_us;
            let shown = match arrival {
                Some(t) if window.contains(&t) => Some((t, outcome)),
                _ => {
                    if let Some(t) = arrival {
                        late.push((t, outcome));
                    }
                    late.iter().filter(|(t, _)| window.contains(t)).min_by_key(|(t, _)| *t).copied()
                }
            };
            let Some((t, Outcome::Error { from, icmp, .. })) = shown else {
                out.push_str(" *");
                now += wait_us;
                continue;
            };
            let rtt = t - now;
            now = t;
            if last_from != Some(from) {
                if numeric {
                    out.push_str(&format!(" {from}"));
                } else {
                    out.push_str(&format!(" {from} ({from})"));
                }
                last_from = Some(from);
            }
            out.push_str(&format!("  {}.{:03} ms", rtt / 1000, rtt % 1000));
            let mark = match icmp {
                IcmpError::TimeExceeded => None,
                IcmpError::PortUnreachable => Some(String::new()),
                IcmpError::NetUnreachable => Some(" !N".into()),
                IcmpError::HostUnreachable => Some(" !H".into()),
                IcmpError::Filtered => Some(" !X".into()),
                IcmpError::FragNeeded(mtu) => Some(format!(" !F-{mtu}")),
            };
            if let Some(m) = mark {
                out.push_str(&m);
                done = true;
            }
        }
        out.push('\n');
        if done {
            break;
        }
    }
    io.out(&out);
    0
}
