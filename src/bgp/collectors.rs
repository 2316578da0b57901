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
//! balanced) and, with probability 1/5 when there are several, a session to one more. From
//! generator v3 on a collector takes at most [`MAX_SESSIONS`] sessions, which keeps a RIB dump
//! under 8 MiB at the levels' sizes (`fit` says how the counts give way, `spare` how second
//! sessions do). VPs are
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

/// The most sessions (home and second ones) a collector takes from generator v3 on: each
/// session adds its VP's table to every RIB dump, and 20 keep the largest dump under 8 MiB up to
/// the levels' 3,000 ASes (not at `-n5000`: docs/bgp.md, "Not done yet").
pub const MAX_SESSIONS: usize = 20;

/// Whether generator `version` caps every collector at [`MAX_SESSIONS`] (v3 on).
pub fn capped(version: u32) -> bool {
    version >= 3
}

/// Why `vps` vantage points cannot be held by the collectors `collectors` asks for (all 8 the
/// `-c` knob allows when absent) at [`MAX_SESSIONS`] each, or `None` if they can.
pub fn too_many(vps: u64, collectors: Option<u64>) -> Option<String> {
    let most = collectors.unwrap_or(*COLLECTOR_KNOB.end());
    let limit = most * MAX_SESSIONS as u64;
    (vps > limit).then(|| match collectors {
        Some(c) => format!(
            "{vps} vantage points do not fit {c} collector(s): at most {limit} (generator v3 on: at most {MAX_SESSIONS} per collector)"
        ),
        None => format!(
            "{vps} vantage points are more than {limit} (generator v3 on: at most {MAX_SESSIONS} per collector, at most {most} collectors)"
        ),
    })
}

impl Collectors {
    /// Draws the collectors and VPs of `t`; `count` and `vps` are the `-c` and `-v` knobs,
    /// `version` the generator's (v3 on caps the sessions per collector).
    pub fn draw(
        s: &mut Stream,
        t: &Topology,
        count: Option<u64>,
        vps: Option<u64>,
        version: u32,
    ) -> Result<Collectors> {
        let sizes = t.level.sizes();
        let drawn = knob_or_draw(s, count, &COLLECTOR_KNOB, &sizes.collectors, "collectors")?;
        let wanted = knob_or_draw(s, vps, &VP_KNOB, &sizes.vps, "vantage points")?;
        let (count, wanted) = if capped(version) {
            fit(drawn, wanted, count.is_some(), vps.is_some())?
        } else {
            (drawn, wanted)
        };
        let chosen = pick_ases(s, t, wanted.min(t.len()));
        let mut room = if capped(version) { spare(count, chosen.len()) } else { vec![usize::MAX; count] };
        let mut vps: Vec<(AsIx, Feed, Vec<usize>)> = Vec::with_capacity(chosen.len());
        for (j, &asx) in chosen.iter().enumerate() {
            let feed = if s.chance(7, 10) { Feed::Full } else { Feed::Partial };
            let home = j % count;
            let mut collectors = vec![home];
            if count > 1
                && s.chance(1, 5)
                && let Some(k) = second(s, home, &mut room)
            {
                collectors.push(k);
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

    /// How many sessions collector `k` has (home and second ones).
    pub fn sessions(&self, k: usize) -> usize {
        self.feeding(k).count()
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

/// The collector and VP counts once every collector holds at most [`MAX_SESSIONS`] homes: a
/// count the id sets stands and a drawn one gives way to it (drawn VPs are cut to what the
/// collectors hold; drawn collectors grow to hold the VPs asked for); both set and too many
/// is refused ([`too_many`], which `spec` also checks before generating).
fn fit(count: usize, vps: usize, count_set: bool, vps_set: bool) -> Result<(usize, usize)> {
    if vps <= count * MAX_SESSIONS {
        return Ok((count, vps));
    }
    if !vps_set {
        return Ok((count, count * MAX_SESSIONS));
    }
    let known = count_set.then_some(count as u64);
    if let Some(why) = too_many(vps as u64, known) {
        return Err(Error::Invalid(format!("bgp: {why}")));
    }
    Ok((vps.div_ceil(MAX_SESSIONS), vps))
}

/// Each collector's room for second sessions once the `n` VPs' homes (round-robin) are placed.
fn spare(count: usize, n: usize) -> Vec<usize> {
    (0..count).map(|k| MAX_SESSIONS.saturating_sub(n / count + usize::from(k < n % count))).collect()
}

/// A second collector for a VP homed at `home`, drawn among the others with room left (all of
/// them before v3, in the order v1 and v2 drew from); `None` if every other one is full.
fn second(s: &mut Stream, home: usize, room: &mut [usize]) -> Option<usize> {
    let count = room.len();
    let open: Vec<usize> = (1..count).map(|i| (home + i) % count).filter(|&k| room[k] > 0).collect();
    if open.is_empty() {
        return None;
    }
    let k = open[s.index(open.len())];
    room[k] -= 1;
    Some(k)
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
            let c = Collectors::draw(&mut s, &t, None, None, 1).unwrap();
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
        let c = Collectors::draw(&mut s, &t, Some(5), Some(30), 1).unwrap();
        assert_eq!((c.count, c.vps.len()), (5, 30));
        let (mut s, t) = topo(Level::L2, 1);
        assert!(Collectors::draw(&mut s, &t, Some(9), None, 1).is_err());
        assert!(Collectors::draw(&mut s, &t, None, Some(1), 1).is_err());
        // More VPs than ASes: every AS feeds.
        let (mut s, t) = topo(Level::L1, 1);
        let c = Collectors::draw(&mut s, &t, None, Some(200), 1).unwrap();
        assert_eq!(c.vps.len(), t.len());
    }

    #[test]
    fn partial_feeds_send_own_and_customer_routes_only() {
        assert!(Feed::Partial.exports(Pref::Own) && Feed::Partial.exports(Pref::Customer));
        assert!(!Feed::Partial.exports(Pref::Peer) && !Feed::Partial.exports(Pref::Provider));
        assert!(Feed::Full.exports(Pref::Provider));
        let (mut s, t) = topo(Level::L3, 2);
        let c = Collectors::draw(&mut s, &t, None, None, 1).unwrap();
        assert!(c.vps.iter().any(|v| v.feed == Feed::Partial) && c.vps.iter().any(|v| v.feed == Feed::Full));
    }

    /// Every collector's sessions, and the largest.
    fn most_sessions(c: &Collectors) -> usize {
        (0..c.count).map(|k| c.sessions(k)).max().unwrap_or(0)
    }

    #[test]
    fn v3_holds_every_collector_to_twenty_sessions() {
        let knobs: [(Option<u64>, Option<u64>); 7] = [
            (None, None),
            (None, Some(160)),
            (Some(1), None),
            (Some(1), Some(20)),
            (Some(2), Some(40)),
            (Some(8), Some(160)),
            (Some(8), Some(2)),
        ];
        for level in [Level::L1, Level::L2, Level::L3, Level::L4] {
            for seed in 0..8 {
                for &(count, vps) in &knobs {
                    let (mut s, t) = topo(level, seed);
                    let c = Collectors::draw(&mut s, &t, count, vps, 3).unwrap();
                    assert!(
                        most_sessions(&c) <= MAX_SESSIONS,
                        "L{} s{seed} {count:?} {vps:?}",
                        level.number()
                    );
                    assert!((0..c.count).all(|k| c.sessions(k) > 0 || c.vps.len() < c.count));
                    if let Some(v) = vps {
                        assert_eq!(c.vps.len() as u64, v.min(t.len() as u64), "asked VPs are kept");
                    }
                }
            }
        }
    }

    #[test]
    fn v3_counts_give_way_to_the_knobs_and_refuse_what_cannot_fit() {
        // L4 draws 4 collectors: -c1 cuts the drawn 40-80 VPs to 20.
        let (mut s, t) = topo(Level::L4, 3);
        let c = Collectors::draw(&mut s, &t, Some(1), None, 3).unwrap();
        assert_eq!((c.count, c.vps.len()), (1, 20));
        // L1 draws 1 collector: -v41 needs three.
        let (mut s, t) = topo(Level::L1, 3);
        let c = Collectors::draw(&mut s, &t, None, Some(41), 3).unwrap();
        assert_eq!(c.count, 3);
        let (mut s, t) = topo(Level::L2, 3);
        let err = Collectors::draw(&mut s, &t, Some(2), Some(41), 3).unwrap_err().to_string();
        assert!(err.contains("41 vantage points do not fit 2 collector(s): at most 40"), "{err}");
        assert!(too_many(161, None).is_some_and(|w| w.contains("more than 160")));
        assert_eq!((too_many(160, None), too_many(20, Some(1))), (None, None));
        // v1 and v2 keep their uncapped draw: level 4 passes 20 somewhere.
        let over = (0..8).any(|seed| {
            let (mut s, t) = topo(Level::L4, seed);
            most_sessions(&Collectors::draw(&mut s, &t, None, None, 2).unwrap()) > MAX_SESSIONS
        });
        assert!(over, "the cap is v3's alone");
    }

    #[test]
    fn second_sessions_draw_as_before_while_every_collector_has_room() {
        let mut room = vec![usize::MAX; 4];
        let (mut a, mut b) = (Stream::new("x", Width::W32), Stream::new("x", Width::W32));
        for home in [0, 1, 2, 3, 1] {
            assert_eq!(second(&mut a, home, &mut room), Some((home + 1 + b.index(3)) % 4));
        }
        let mut full = vec![1, 0, 0];
        assert_eq!(second(&mut a, 1, &mut full), Some(0));
        assert_eq!((second(&mut a, 1, &mut full), full), (None, vec![0, 0, 0]));
        assert_eq!(spare(3, 50), vec![3, 3, 4]);
    }
}
