//! Route collectors and their vantage points: which ASes an investigator can see the routing
//! table of, and how much of it.
//!
//! A collector (`rc00`, `rc01`, …, ASN 65500 + its number) is a passive BGP speaker, like a RIS
//! route collector: ASes open a session to it and send it routes, and it records them in RIB
//! dumps and update files. An AS with a session to at least one collector is a *vantage point*
//! (VP). Real collector projects get most of their full tables from large networks, so the
//! Tier-1s are drawn first, then transits, then content networks, then stubs (each tier in a
//! random order), until the level's count is reached.
//!
//! A VP sends a *full* feed (its whole Loc-RIB, 70% of VPs) or a *partial* one (only its own and
//! its customers' routes, 30%), the way real peers choose what to export to a collector. Each VP
//! has a home collector (round-robin over the VPs in draw order, so the collectors stay
//! balanced) and, with probability 1/5 when there are several, a session to one more. VPs are
//! kept in AS index order (which is ASN order), and VP `k` peers from 192.0.2.(1 + k) and
//! 2001:db8:ffff:c::(1 + k) on the collectors' LAN; that position is the "VP order" every
//! output sorts by.
//!
//! Draws, after the topology: the number of collectors, the number of VPs, the tier shuffles,
//! then per VP in draw order its feed and its extra collector.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::level::{COLLECTOR_KNOB, VP_KNOB};
use super::prefixes::collector_lan;
use super::routing::Pref;
use super::topology::{AsIx, Tier, Topology};
use crate::error::{Error, Result};
use crate::seed::Stream;

/// What a vantage point sends its collectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Feed {
    /// Every best route (the whole Loc-RIB).
    Full,
    /// Only its own and its customers' routes.
    Partial,
}

impl Feed {
    /// Whether a best route held for `pref` reaches the collector.
    pub fn exports(self, pref: Pref) -> bool {
        self == Feed::Full || pref >= Pref::Customer
    }

    /// `full` or `partial`, as prompts and tools name it.
    pub fn name(self) -> &'static str {
        match self {
            Feed::Full => "full",
            Feed::Partial => "partial",
        }
    }
}

/// One vantage point: an AS with sessions to one or more collectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vp {
    pub asx: AsIx,
    pub feed: Feed,
    /// Collector numbers, ascending.
    pub collectors: Vec<usize>,
    /// Its peer address on the collectors' LAN.
    pub ip4: Ipv4Addr,
    pub ip6: Ipv6Addr,
}

/// The collectors of a task and everyone feeding them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collectors {
    /// How many collectors there are (`rc00` … `rc{count-1}`).
    pub count: usize,
    /// Vantage points in VP order (AS index order).
    pub vps: Vec<Vp>,
}

/// Collector `k`'s name, `rc03`.
pub fn name(k: usize) -> String {
    format!("rc{k:02}")
}

/// Collector `k`'s ASN, 65500 + k.
pub fn asn(k: usize) -> u32 {
    65_500 + k as u32
}

/// Collector `k`'s BGP identifier (the id its RIB dumps carry), 192.0.2.(200 + k).
pub fn bgp_id(k: usize) -> Ipv4Addr {
    Ipv4Addr::new(192, 0, 2, 200 + k as u8)
}

impl Collectors {
    /// Draws the collectors and VPs of `t`; `count` and `vps` are the `-c` and `-v` knobs.
    pub fn draw(s: &mut Stream, t: &Topology, count: Option<u64>, vps: Option<u64>) -> Result<Collectors> {
        let sizes = t.level.sizes();
        let count = knob_or_draw(s, count, &COLLECTOR_KNOB, &sizes.collectors, "collectors")?;
        let wanted = knob_or_draw(s, vps, &VP_KNOB, &sizes.vps, "vantage points")?;
        let chosen = pick_ases(s, t, wanted.min(t.len()));
        let mut vps: Vec<(AsIx, Feed, Vec<usize>)> = Vec::with_capacity(chosen.len());
        for (j, &asx) in chosen.iter().enumerate() {
            let feed = if s.chance(7, 10) { Feed::Full } else { Feed::Partial };
            let home = j % count;
            let mut collectors = vec![home];
            if count > 1 && s.chance(1, 5) {
                collectors.push((home + 1 + s.index(count - 1)) % count);
                collectors.sort_unstable();
            }
            vps.push((asx, feed, collectors));
        }
        vps.sort_by_key(|v| v.0);
        let (lan4, lan6) = collector_lan();
        let vps = vps
            .into_iter()
            .enumerate()
            .map(|(k, (asx, feed, collectors))| Vp {
                asx,
                feed,
                collectors,
                ip4: Ipv4Addr::from(u32::from(lan4.network()) + 1 + k as u32),
                ip6: Ipv6Addr::from(u128::from(lan6.network()) + 1 + k as u128),
            })
            .collect();
        Ok(Collectors { count, vps })
    }

    /// The VP position of AS `asx`, if it is one.
    pub fn vp_of(&self, asx: AsIx) -> Option<usize> {
        self.vps.binary_search_by_key(&asx, |v| v.asx).ok()
    }

    /// The VP positions feeding collector `k`, in VP order.
    pub fn feeding(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        self.vps.iter().enumerate().filter(move |(_, v)| v.collectors.contains(&k)).map(|(i, _)| i)
    }
}

/// A knob's value if set (checked against its range), else a uniform draw from `drawn`.
fn knob_or_draw(
    s: &mut Stream,
    knob: Option<u64>,
    allowed: &std::ops::RangeInclusive<u64>,
    drawn: &std::ops::RangeInclusive<u64>,
    what: &str,
) -> Result<usize> {
    let v = match knob {
        Some(v) if allowed.contains(&v) => v,
        Some(v) => {
            return Err(Error::Invalid(format!(
                "bgp: {v} {what} is outside {}..={}",
                allowed.start(),
                allowed.end()
            )));
        }
        None => s.range(*drawn.start(), *drawn.end()),
    };
    Ok(v as usize)
}

/// `k` ASes: Tier-1s, then transits, content and stubs, each tier in a drawn order.
fn pick_ases(s: &mut Stream, t: &Topology, k: usize) -> Vec<AsIx> {
    let mut out = Vec::with_capacity(k);
    for tier in [Tier::Tier1, Tier::Transit, Tier::Content, Tier::Stub] {
        if out.len() == k {
            break;
        }
        let members: Vec<AsIx> = (0..t.len()).filter(|&i| t.ases[i].tier == tier).collect();
        let take = (k - out.len()).min(members.len());
        out.extend(s.subset(members.len(), take).into_iter().map(|j| members[j]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bgp::Level;
    use crate::seed::Width;

    fn topo(level: Level, seed: u64) -> (Stream, Topology) {
        let mut s = Stream::new(&format!("netpress|bgp|v1|L{}|s{seed}|i0", level.number()), Width::W32);
        let t = Topology::generate(&mut s, level, None).unwrap();
        (s, t)
    }

    #[test]
    fn tier1s_first_sorted_and_addressed() {
        for level in [Level::L1, Level::L2, Level::L3] {
            let (mut s, t) = topo(level, 5);
            let c = Collectors::draw(&mut s, &t, None, None).unwrap();
            let sizes = level.sizes();
            assert!(sizes.collectors.contains(&(c.count as u64)));
            assert!(sizes.vps.contains(&(c.vps.len() as u64)));
            let tier1 = t.ases.iter().filter(|a| a.tier == Tier::Tier1).count();
            assert!((0..tier1).all(|i| c.vp_of(i).is_some()), "every Tier-1 is a VP");
            assert!(c.vps.windows(2).all(|w| w[0].asx < w[1].asx));
            assert_eq!(c.vps[0].ip4, Ipv4Addr::new(192, 0, 2, 1));
            assert_eq!(c.vps[1].ip6, "2001:db8:ffff:c::2".parse::<Ipv6Addr>().unwrap());
            for k in 0..c.count {
                assert!(c.feeding(k).next().is_some(), "collector {k} has a VP");
            }
        }
    }

    #[test]
    fn knobs_fix_the_counts_and_are_checked() {
        let (mut s, t) = topo(Level::L2, 1);
        let c = Collectors::draw(&mut s, &t, Some(5), Some(30)).unwrap();
        assert_eq!((c.count, c.vps.len()), (5, 30));
        let (mut s, t) = topo(Level::L2, 1);
        assert!(Collectors::draw(&mut s, &t, Some(9), None).is_err());
        assert!(Collectors::draw(&mut s, &t, None, Some(1)).is_err());
        // More VPs than ASes: every AS feeds.
        let (mut s, t) = topo(Level::L1, 1);
        let c = Collectors::draw(&mut s, &t, None, Some(200)).unwrap();
        assert_eq!(c.vps.len(), t.len());
    }

    #[test]
    fn partial_feeds_send_own_and_customer_routes_only() {
        assert!(Feed::Partial.exports(Pref::Own) && Feed::Partial.exports(Pref::Customer));
        assert!(!Feed::Partial.exports(Pref::Peer) && !Feed::Partial.exports(Pref::Provider));
        assert!(Feed::Full.exports(Pref::Provider));
        let (mut s, t) = topo(Level::L3, 2);
        let c = Collectors::draw(&mut s, &t, None, None).unwrap();
        assert!(c.vps.iter().any(|v| v.feed == Feed::Partial) && c.vps.iter().any(|v| v.feed == Feed::Full));
    }
}
