//! Atlas-style measurement probes: small hosts inside networks that run traceroutes on demand.
//!
//! Probes live in transits, content networks and stubs (never a Tier-1, as in RIPE Atlas, whose
//! probes sit mostly at the edge), spread over every region that has such ASes: probe `j` goes to
//! the `j`-th region in round-robin order, into an AS of that region drawn uniformly among those
//! without a probe yet (among all of them once each has one). Probe ids start at 1000. A
//! probe's address is host 100 + `j` of its AS's first IPv4 prefix (and of its first IPv6
//! prefix, if the AS has one), so two probes in one AS never collide. Its country is one of its
//! region's two, drawn.
//!
//! Routers answer traceroutes from host 1 of their AS's first prefix ([`router_address`]).
//!
//! Draws, after the collectors: the number of probes, then per probe its AS and its country.

use std::net::IpAddr;

use ipnet::IpNet;

use super::region::Region;
use super::topology::{AsIx, Tier, Topology};
use crate::seed::Stream;

/// The first id handed out.
pub const FIRST_ID: u32 = 1000;

/// One probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub id: u32,
    pub asx: AsIx,
    pub v4: IpAddr,
    pub v6: Option<IpAddr>,
    pub country: &'static str,
    pub region: Region,
}

/// Draws the probes of `t`.
pub fn draw(s: &mut Stream, t: &Topology) -> Vec<Probe> {
    let range = t.level.sizes().probes;
    let count = s.range(*range.start(), *range.end()) as usize;
    let hosts: Vec<(Region, Vec<AsIx>)> = Region::ALL
        .iter()
        .map(|&r| {
            (r, (0..t.len()).filter(|&i| t.ases[i].tier != Tier::Tier1 && t.ases[i].region == r).collect())
        })
        .filter(|(_, list): &(Region, Vec<AsIx>)| !list.is_empty())
        .collect();
    let mut used = vec![false; t.len()];
    let mut out = Vec::with_capacity(count);
    for j in 0..count {
        let Some((region, list)) = hosts.get(j % hosts.len().max(1)) else { break };
        let free: Vec<AsIx> = list.iter().copied().filter(|&a| !used[a]).collect();
        let asx = if free.is_empty() { *s.choose(list) } else { *s.choose(&free) };
        used[asx] = true;
        let country = region.countries()[s.index(2)];
        let Some(v4) = host(t, asx, false, 100 + j as u128) else { continue };
        let v6 = host(t, asx, true, 100 + j as u128);
        out.push(Probe { id: FIRST_ID + out.len() as u32, asx, v4, v6, country, region: *region });
    }
    out
}

/// Host `n` of AS `asx`'s first prefix of the family (`v6`), if it has one that large.
pub fn host(t: &Topology, asx: AsIx, v6: bool, n: u128) -> Option<IpAddr> {
    let net = first_prefix(t, asx, v6)?;
    let size = match net {
        IpNet::V4(p) => 1u128 << (32 - p.prefix_len()),
        IpNet::V6(p) => 1u128 << (128 - p.prefix_len()).min(127),
    };
    if n >= size {
        return None;
    }
    Some(match net {
        IpNet::V4(p) => IpAddr::V4((u32::from(p.network()) + n as u32).into()),
        IpNet::V6(p) => IpAddr::V6((u128::from(p.network()) + n).into()),
    })
}

/// The address AS `asx`'s routers answer traceroutes from: host 1 of its first prefix.
pub fn router_address(t: &Topology, asx: AsIx, v6: bool) -> Option<IpAddr> {
    host(t, asx, v6, 1)
}

fn first_prefix(t: &Topology, asx: AsIx, v6: bool) -> Option<IpNet> {
    t.prefixes.iter().find(|p| p.owner == asx && p.net.addr().is_ipv6() == v6).map(|p| p.net)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bgp::Level;
    use crate::seed::Width;

    fn probes(level: Level, seed: u64) -> (Topology, Vec<Probe>) {
        let mut s = Stream::new(&format!("netpress|bgp|v1|L{}|s{seed}|i0", level.number()), Width::W32);
        let t = Topology::generate(&mut s, level, None).unwrap();
        let p = draw(&mut s, &t);
        (t, p)
    }

    #[test]
    fn probes_sit_outside_tier1_with_distinct_addresses() {
        for level in [Level::L1, Level::L2, Level::L3] {
            let (t, ps) = probes(level, 3);
            assert!(level.sizes().probes.contains(&(ps.len() as u64)));
            let mut addrs: Vec<IpAddr> = ps.iter().map(|p| p.v4).collect();
            addrs.sort();
            addrs.dedup();
            assert_eq!(addrs.len(), ps.len());
            for (j, p) in ps.iter().enumerate() {
                assert_eq!(p.id, FIRST_ID + j as u32);
                assert_ne!(t.ases[p.asx].tier, Tier::Tier1);
                assert_eq!(t.ases[p.asx].region, p.region);
                assert!(p.region.countries().contains(&p.country));
                let owned = t.prefixes.iter().any(|x| x.owner == p.asx && x.net.contains(&p.v4));
                assert!(owned, "probe {} at {} outside its AS", p.id, p.v4);
            }
            if level == Level::L1 {
                assert!(ps.iter().all(|p| p.v6.is_none()));
            }
        }
    }

    #[test]
    fn probes_cover_the_regions_round_robin() {
        let (t, ps) = probes(Level::L3, 8);
        let regions: Vec<Region> = Region::ALL
            .into_iter()
            .filter(|&r| t.ases.iter().any(|a| a.region == r && a.tier != Tier::Tier1))
            .collect();
        for r in regions {
            assert!(ps.iter().any(|p| p.region == r), "no probe in {}", r.name());
        }
    }

    #[test]
    fn routers_answer_from_host_one() {
        let (t, _) = probes(Level::L2, 1);
        let first = t.prefixes.iter().find(|p| p.owner == 0 && p.net.addr().is_ipv4()).unwrap();
        let r = router_address(&t, 0, false).unwrap();
        assert_eq!(
            u32::from(match r {
                IpAddr::V4(a) => a,
                _ => unreachable!(),
            }),
            u32::from(match first.net.addr() {
                IpAddr::V4(a) => a,
                _ => unreachable!(),
            }) + 1
        );
        assert_eq!(host(&t, 0, false, 1 << 20), None);
    }
}
