//! `ping` (iputils 20221126): probes through the packet engine, printed as iputils does.

use std::net::Ipv4Addr;

use super::{Ctx, Io};
use crate::route::engine::probe::{self, Outcome, ProbeSpec};
use crate::route::engine::{Hop, IcmpError, Kind, LookupError};
use crate::route::net::addr::parse_aton;
use crate::route::text::{c_g, ms3, rtt_text};

/// Probes one ping may send (docs/route.md, "What the agent has": state is bounded).
pub const MAX_COUNT: u64 = 100;

/// Time between probes (iputils' default interval).
const INTERVAL_US: u64 = 1_000_000;

#[derive(Debug)]
struct Opts {
    count: u64,
    wait_us: u64,
    iface: Option<String>,
    size: u32,
    ttl: u8,
    quiet: bool,
    dst: Option<String>,
}

fn bad(io: &mut Io, what: &str) -> i32 {
    io.fail(1, &format!("ping: invalid argument: '{what}'"))
}

fn parse(args: &[String], io: &mut Io) -> Result<Opts, i32> {
    let mut o =
        Opts { count: 4, wait_us: 10_000_000, iface: None, size: 56, ttl: 64, quiet: false, dst: None };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if !a.starts_with('-') || a.len() == 1 {
            o.dst = Some(a.clone());
            continue;
        }
        let flags: Vec<char> = a[1..].chars().collect();
        let mut k = 0;
        while k < flags.len() {
            let f = flags[k];
            k += 1;
            if matches!(f, 'q' | 'n' | '4' | 'v' | 'D' | 'O' | 'U' | 'A' | 'R') {
                o.quiet |= f == 'q';
                continue;
            }
            let value: String = if k < flags.len() {
                let v: String = flags[k..].iter().collect();
                k = flags.len();
                v
            } else if i < args.len() {
                i += 1;
                args[i - 1].clone()
            } else {
                return Err(io.fail(2, &format!("ping: option requires an argument -- '{f}'")));
            };
            match f {
                'c' => {
                    o.count = value.parse().map_err(|_| bad(io, &value))?;
                    if o.count == 0 {
                        return Err(io.fail(1, "ping: bad number of packets to transmit."));
                    }
                    if o.count > MAX_COUNT {
                        return Err(io.refuse(2, "netpress: limit exceeded"));
                    }
                }
                'W' => {
                    let w: f64 = value.parse().map_err(|_| bad(io, &value))?;
                    if !(0.0..=2_147_483.0).contains(&w) {
                        return Err(bad(io, &value));
                    }
                    o.wait_us = (w * 1e6) as u64;
                }
                'I' => o.iface = Some(value),
                's' => {
                    o.size = value.parse().map_err(|_| bad(io, &value))?;
                    if o.size > 65_507 {
                        return Err(io.fail(
                            1,
                            &format!("ping: invalid argument: '{value}': out of range: 0 <= value <= 65507"),
                        ));
                    }
                }
                't' => o.ttl = value.parse().map_err(|_| bad(io, &value))?,
                'i' | 'w' | 'l' | 'M' | 'p' | 'Q' | 'S' | 'T' => {}
                _ => return Err(io.fail(2, &format!("ping: invalid option -- '{f}'"))),
            }
        }
    }
    Ok(o)
}

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let o = match parse(args, io) {
        Ok(o) => o,
        Err(s) => return s,
    };
    let Some(dst_text) = o.dst.clone() else {
        return io.fail(1, "ping: usage error: Destination address required");
    };
    let Some(dst) = parse_aton(&dst_text) else {
        return io.fail(2, &format!("ping: {dst_text}: Temporary failure in name resolution"));
    };
    let mut spec =
        ProbeSpec { node: ctx.node, dst, oif: None, src: None, size: o.size + 28, ttl: o.ttl, pmtu: None };
    let mut from_text = String::new();
    if let Some(i) = &o.iface {
        match parse_aton(i) {
            Some(a) if ctx.node().is_local(a) => {
                spec.src = Some(a);
                from_text = format!("from {a} : ");
            }
            Some(_) => return io.fail(2, "ping: bind: Cannot assign requested address"),
            None => match ctx.node().iface(i) {
                Some(d) => spec.oif = Some(d),
                None => return io.fail(2, &format!("ping: SO_BINDTODEVICE {i}: No such device")),
            },
        }
    }
    let (hop, src) = match probe::route(ctx.net, &spec) {
        Ok(r) => r,
        Err(e) => return local_error(io, e),
    };
    if spec.oif.is_some() {
        from_text = format!("from {src} {}: ", o.iface.as_deref().unwrap_or(""));
    }
    if hop == Hop::Broadcast {
        return local_error(io, LookupError::Prohibit);
    }
    let mut out = format!("PING {dst} ({dst}) {from_text}{}({}) bytes of data.\n", o.size, o.size + 28);
    let mut probes = Vec::new();
    let mut redirects = Vec::new();
    for seq in 0..o.count {
        match probe::send_noting(ctx.net, &spec, Kind::EchoRequest) {
            Ok((outcome, r)) => {
                // The kernel keeps the path MTU a "Frag needed" reports for the next probes.
                if let Outcome::Error { icmp: IcmpError::FragNeeded(mtu), .. } = outcome {
                    spec.pmtu = Some(mtu);
                }
                probes.push((seq * INTERVAL_US, outcome));
                redirects.extend(r.into_iter().map(|r| (seq * INTERVAL_US + r.after_us, seq, r)));
            }
            Err(e) => return local_error(io, e),
        }
    }
    let arrivals = probe::arrivals(&probes);
    // ping waits for answers until the wait after its last probe runs out.
    let limit = (o.count - 1) * INTERVAL_US + o.wait_us;
    let shown: Vec<Option<u64>> = arrivals.iter().map(|a| a.filter(|&t| t < limit)).collect();
    // (time, seq, redirect index or none for the probe's own answer)
    let mut events: Vec<(u64, u64, Option<usize>)> =
        shown.iter().enumerate().filter_map(|(i, a)| a.map(|t| (t, i as u64, None))).collect();
    events
        .extend(redirects.iter().enumerate().filter(|(_, r)| r.0 < limit).map(|(k, r)| (r.0, r.1, Some(k))));
    events.sort_unstable();
    let mut rtts: Vec<u64> = Vec::new();
    let mut errors = 0;
    for (_, i, redirect) in events {
        let seq = i + 1;
        if let Some(k) = redirect {
            let r = redirects[k].2;
            if !o.quiet {
                out.push_str(&format!(
                    "From {}: icmp_seq={seq} Redirect Host(New nexthop: {})\n",
                    r.from, r.gateway
                ));
            }
            continue;
        }
        match probes[i as usize].1 {
            Outcome::Reply { from, ttl, rtt_us } => {
                rtts.push(rtt_us);
                if !o.quiet {
                    out.push_str(&format!(
                        "{} bytes from {from}: icmp_seq={seq} ttl={ttl} time={} ms\n",
                        o.size + 8,
                        rtt_text(rtt_us)
                    ));
                }
            }
            Outcome::Error { from, icmp, send_refused, .. } => {
                errors += 1;
                if !o.quiet {
                    out.push_str(&format!("From {from} icmp_seq={seq} {}\n", icmp.ping_text()));
                }
                if send_refused {
                    io.out(&std::mem::take(&mut out));
                    io.errln("ping: sendmsg: Operation not permitted");
                }
            }
            Outcome::Lost => {}
        }
    }
    let pipe = pipe_size(&probes, &shown);
    out.push_str(&summary(&dst, o.count, &rtts, errors, pipe));
    io.out(&out);
    i32::from(rtts.is_empty())
}

/// iputils' `pipe`: it grows only when an answer (reply or ICMP error) for a probe comes
/// back, to the probes sent by then counted from that one, so probes that are all lost
/// leave it unset.
fn pipe_size(probes: &[(u64, Outcome)], shown: &[Option<u64>]) -> usize {
    shown
        .iter()
        .enumerate()
        .filter_map(|(k, a)| a.map(|t| probes.iter().filter(|p| p.0 <= t).count().saturating_sub(k)))
        .max()
        .unwrap_or(0)
}

fn summary(dst: &Ipv4Addr, sent: u64, rtts: &[u64], errors: u64, pipe: usize) -> String {
    let received = rtts.len() as u64;
    let loss = ((sent - received) as f32 * 100.0 / sent as f32) as f64;
    let errors = if errors > 0 { format!(", +{errors} errors") } else { String::new() };
    let mut s = format!(
        "\n--- {dst} ping statistics ---\n{sent} packets transmitted, {received} received{errors}, {}% packet loss, time {}ms\n",
        c_g(loss, 6),
        (sent - 1) * 1000
    );
    let mut parts = Vec::new();
    if !rtts.is_empty() {
        let min = *rtts.iter().min().expect("non-empty");
        let max = *rtts.iter().max().expect("non-empty");
        let sum: u64 = rtts.iter().sum();
        let avg = sum / received;
        let sum2: u128 = rtts.iter().map(|&r| u128::from(r) * u128::from(r)).sum();
        let var = (sum2 / u128::from(received)).saturating_sub(u128::from(avg) * u128::from(avg));
        let mdev = (var as f64).sqrt() as u64;
        parts.push(format!("rtt min/avg/max/mdev = {}/{}/{}/{} ms", ms3(min), ms3(avg), ms3(max), ms3(mdev)));
    }
    if pipe > 1 {
        parts.push(format!("pipe {pipe}"));
    }
    s.push_str(&parts.join(", "));
    s.push('\n');
    s
}

/// A routing failure before anything is sent.
pub fn local_error(io: &mut Io, e: LookupError) -> i32 {
    match e {
        LookupError::Prohibit => io
            .fail(2, "ping: Do you want to ping broadcast? Then -b. If not, check your local firewall rules"),
        e => io.fail(2, &format!("ping: connect: {}", e.strerror())),
    }
}
