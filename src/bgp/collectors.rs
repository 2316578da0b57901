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
//! generator v3 on a collector takes at most [`MAX_SESSIONS`] sessions, fewer in worlds larger
//! than the levels draw ([`max_sessions`]), which keeps every RIB dump under 8 MiB (`fit` says
//! how the counts give way, `spare` how second sessions do). VPs are
//! kept in AS index order (which is ASN order), and VP `k` peers from 192.0.2.(1 + k) and
//! 2001:db8:ffff:c::(1 + k) on the collectors' LAN; that position is the "VP order" every
//! output sorts by.
//!
//! Draws, after the topology: the number of collectors, the number of VPs, the tier shuffles,
//! then per VP in draw order its feed and its extra collector.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::level::{COLLECTOR_KNOB, Level, VP_KNOB};
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
/// the levels' 3,000 ASes. Larger worlds (the `-n` knob, up to 5,000) take fewer
/// ([`max_sessions`]).
pub const MAX_SESSIONS: usize = 20;

/// The design's bound on one RIB dump, in bytes.
pub const BVIEW_LIMIT: u64 = 8 << 20;

/// AS hops an estimate counts on every RIB entry's AS_PATH. The full feed with the longest
/// paths of level 3's and 4's 5,000-AS worlds averages up to 6.8 hops a route, prepending
/// included (docs/bgp.md, "Generator versions", has the measurements); 7 is above all of them.
const HOPS: u64 = 7;

/// Bytes one full feed adds to a RIB dump per IPv4 prefix: the entry's peer index, time and
/// attribute length (8), ORIGIN (4), AS_PATH (5 + 4 a hop), NEXT_HOP (7) and COMMUNITIES (7,
/// counted even though only transit VPs tag their routes), as `tools::mrt` writes them.
const ENTRY_V4: u64 = 8 + 4 + 5 + 4 * HOPS + 7 + 7;

/// The same for an IPv6 prefix: the abbreviated MP_REACH_NLRI (20) instead of NEXT_HOP.
const ENTRY_V6: u64 = 8 + 4 + 5 + 4 * HOPS + 20 + 7;

/// Bytes of a prefix's record without its entries: MRT header (12), sequence number (4), the
/// prefix (at most 1 + 6 for the /48s, IPv4 needs less) and the entry count (2).
const RECORD: u64 = 12 + 4 + 7 + 2;

/// The PEER_INDEX_TABLE of a collector with [`MAX_SESSIONS`] VPs: its MRT header, the
/// collector's id, view name length and peer count (12 + 8), and two peers a VP (13 + 25 bytes).
const PEER_TABLE: u64 = 12 + 8 + MAX_SESSIONS as u64 * 38;

/// Prefixes an incident and the background churn may add to a dump beyond the topology's own
/// (a hijacker's more-specifics, the churn's new prefixes), per family.
const ADDED_PREFIXES: u64 = 64;

/// An upper estimate of the IPv4 and IPv6 prefixes a dump of a `level` world of `ases` ASes
/// holds. Every AS has one IPv4 block, and content networks up to four more /24s; the IPv6
/// share is drawn AS by AS at the level's rate, so it is counted a tenth above that rate, plus
/// the content networks' /48s.
fn prefix_estimate(level: Level, ases: u64) -> (u64, u64) {
    let sizes = level.sizes();
    let content_extra = 4 * sizes.content.end();
    let v4 = ases + content_extra + ADDED_PREFIXES;
    let v6 = if sizes.ipv6_pct == 0 {
        0
    } else {
        (ases * sizes.ipv6_pct * 11).div_ceil(1000) + content_extra + ADDED_PREFIXES
    };
    (v4, v6)
}

/// The most sessions a collector of a `level` world of `ases` ASes takes from generator v3 on:
/// [`MAX_SESSIONS`], or fewer where that many full feeds could pass [`BVIEW_LIMIT`] by the
/// estimate above (every feed counted full, since feeds are drawn after the counts). It depends
/// on the level and the AS count alone, both known from the id before anything is drawn, so
/// that whether an id's `-v` fits is a property of the id, not of its seed. Every level's
/// largest drawn world gets [`MAX_SESSIONS`] (a test checks it), so ids without `-n`
/// generate as they did when 20 was the only limit; at level 4 the bound starts to bind
/// above 3,635 ASes and is 14 at 5,000 (level 3: above 4,032, 16 at 5,000).
pub fn max_sessions(level: Level, ases: u64) -> usize {
    let (v4, v6) = prefix_estimate(level, ases);
    let fixed = PEER_TABLE + (v4 + v6) * RECORD;
    let per_session = (v4 * ENTRY_V4 + v6 * ENTRY_V6).max(1);
    let fit = BVIEW_LIMIT.saturating_sub(fixed) / per_session;
    // At least 1 so that a collector can always have a peer (the `-n` limit keeps it far above).
    (fit as usize).clamp(1, MAX_SESSIONS)
}

/// Whether generator `version` caps every collector's sessions (v3 on).
pub fn capped(version: u32) -> bool {
    version >= 3
}

/// Why `vps` vantage points cannot be held by the collectors `collectors` asks for (all 8 the
/// `-c` knob allows when absent) at `cap` sessions each ([`max_sessions`] of the world of
/// `ases` ASes), or `None` if they can.
pub fn too_many(vps: u64, collectors: Option<u64>, cap: usize, ases: u64) -> Option<String> {
    let most = collectors.unwrap_or(*COLLECTOR_KNOB.end());
    let limit = most * cap as u64;
    // The message of the plain cap stays as it was; a smaller one says where it comes from.
    let rule = if cap == MAX_SESSIONS {
        format!("generator v3 on: at most {cap} per collector")
    } else {
        format!(
            "generator v3 on: at most {cap} per collector with {ases} ASes, so that a RIB dump stays under 8 MiB"
        )
    };
    (vps > limit).then(|| match collectors {
        Some(c) => format!("{vps} vantage points do not fit {c} collector(s): at most {limit} ({rule})"),
        None => format!("{vps} vantage points are more than {limit} ({rule}, at most {most} collectors)"),
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
        let cap = max_sessions(t.level, t.len() as u64);
        let (count, wanted) = if capped(version) {
            fit(drawn, wanted, count.is_some(), vps.is_some(), cap, t.len() as u64)?
        } else {
            (drawn, wanted)
        };
        let chosen = pick_ases(s, t, wanted.min(t.len()));
        let mut room =
            if capped(version) { spare(count, chosen.len(), cap) } else { vec![usize::MAX; count] };
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

/// The collector and VP counts once every collector holds at most `cap` homes
/// ([`max_sessions`] of the world's `ases` ASes): a count the id sets stands and a drawn one
/// gives way to it (drawn VPs are cut to what the collectors hold; drawn collectors grow to hold
/// the VPs asked for); both set and too many is refused ([`too_many`], which `spec` also checks
/// before generating).
fn fit(
    count: usize,
    vps: usize,
    count_set: bool,
    vps_set: bool,
    cap: usize,
    ases: u64,
) -> Result<(usize, usize)> {
    if vps <= count * cap {
        return Ok((count, vps));
    }
    if !vps_set {
        return Ok((count, count * cap));
    }
    let known = count_set.then_some(count as u64);
    if let Some(why) = too_many(vps as u64, known, cap, ases) {
        return Err(Error::Invalid(format!("bgp: {why}")));
    }
    Ok((vps.div_ceil(cap), vps))
}

/// Each collector's room for second sessions once the `n` VPs' homes (round-robin) are placed,
/// with `cap` sessions a collector.
fn spare(count: usize, n: usize, cap: usize) -> Vec<usize> {
    (0..count).map(|k| cap.saturating_sub(n / count + usize::from(k < n % count))).collect()
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
        assert!(too_many(161, None, 20, 3000).is_some_and(|w| w.contains("more than 160")));
        assert_eq!((too_many(160, None, 20, 3000), too_many(20, Some(1), 20, 3000)), (None, None));
        // v1 and v2 keep their uncapped draw: level 4 passes 20 somewhere.
        let over = (0..8).any(|seed| {
            let (mut s, t) = topo(Level::L4, seed);
            most_sessions(&Collectors::draw(&mut s, &t, None, None, 2).unwrap()) > MAX_SESSIONS
        });
        assert!(over, "the cap is v3's alone");
    }

    #[test]
    fn the_cap_is_twenty_at_every_levels_drawn_sizes_and_shrinks_with_larger_worlds() {
        for level in [Level::L1, Level::L2, Level::L3, Level::L4] {
            // Ids without -n draw at most the level's largest world: they keep the plain cap.
            assert_eq!(max_sessions(level, *level.sizes().ases.end()), MAX_SESSIONS);
            let caps: Vec<usize> = (10..=5000).map(|n| max_sessions(level, n)).collect();
            assert!(
                caps.windows(2).all(|w| w[0] >= w[1]),
                "L{}: never more for a larger world",
                level.number()
            );
        }
        // Where it binds (docs/bgp.md, "Generator versions", has the measured dumps). Level 2's
        // 19 is moot: its worlds number every AS from 988 16-bit ASNs, and cannot grow that big.
        assert_eq!(
            [1, 2, 3, 4].map(|l| max_sessions(Level::from_number(l).unwrap(), 5000)),
            [20, 19, 16, 14]
        );
        assert_eq!((max_sessions(Level::L4, 3635), max_sessions(Level::L4, 3636)), (20, 19));
        assert_eq!((max_sessions(Level::L3, 4032), max_sessions(Level::L3, 4033)), (20, 19));
        let why = too_many(20, Some(1), 14, 5000).unwrap();
        assert!(
            why.contains("at most 14 (generator v3 on: at most 14 per collector with 5000 ASes"),
            "{why}"
        );
    }

    #[test]
    fn v3_at_five_thousand_ases_cuts_drawn_counts_and_refuses_asked_ones() {
        let topo = || {
            let mut s = Stream::new("netpress|bgp|v3|L4|s0|i0|n5000", Width::W32);
            let t = Topology::generate(&mut s, Level::L4, Some(5000)).unwrap();
            (s, t)
        };
        let (mut s, t) = topo();
        let c = Collectors::draw(&mut s, &t, Some(1), None, 3).unwrap();
        assert_eq!((c.count, c.vps.len(), most_sessions(&c)), (1, 14, 14));
        let (mut s, t) = topo();
        let c = Collectors::draw(&mut s, &t, None, Some(112), 3).unwrap();
        assert_eq!((c.count, c.vps.len()), (8, 112));
        assert!(most_sessions(&c) <= 14);
        let (mut s, t) = topo();
        let err = Collectors::draw(&mut s, &t, Some(1), Some(20), 3).unwrap_err().to_string();
        assert!(err.contains("20 vantage points do not fit 1 collector(s): at most 14"), "{err}");
        // v2 keeps its uncapped draw.
        let (mut s, t) = topo();
        assert_eq!(Collectors::draw(&mut s, &t, Some(1), Some(20), 2).unwrap().vps.len(), 20);
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
        assert_eq!(spare(3, 50, MAX_SESSIONS), vec![3, 3, 4]);
    }
}
