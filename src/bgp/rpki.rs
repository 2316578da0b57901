//! RPKI: Route Origin Authorisations, origin validation (RFC 6811) and who enforces it.
//!
//! A ROA says "AS X may originate prefix P and its more-specifics down to length M". A route
//! for prefix Q with origin O is, against the set of all ROAs (the VRPs):
//! - NotFound if no ROA covers Q (no ROA's prefix contains Q);
//! - Valid if some covering ROA has origin O and M >= len(Q);
//! - Invalid otherwise: covered, but no covering ROA matches both origin and length.
//!
//! An AS that deploys route origin validation (ROV) drops Invalid routes on import, though never
//! its own originations. Everyone else ignores RPKI. That is the whole enforcement model here.
//!
//! Draws, after prefixes: for each AS in creation order, whether it publishes ROAs (Tier-1 0.8,
//! transit 0.6, content 0.9, stub 0.4); if so, one ROA per prefix, origin the AS, with
//! maxLength equal to the length (70%) or loose, two bits longer capped at /24 or /48 (30%).
//! Then, for each AS, whether it deploys ROV (Tier-1 0.7, transit 0.35, content 0.5, stub 0.1).

use ipnet::IpNet;

use super::topology::{AsInfo, Prefix, Tier};
use crate::seed::Stream;

/// One ROA (a validated ROA payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Roa {
    pub prefix: IpNet,
    pub origin: u32,
    pub max_len: u8,
}

/// The outcome of origin validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Validity {
    Valid,
    NotFound,
    /// Covered, and some covering ROA names the origin, but the prefix is too long.
    InvalidLength,
    /// Covered, and no covering ROA names the origin.
    InvalidAsn,
}

impl Validity {
    pub fn is_invalid(self) -> bool {
        matches!(self, Validity::InvalidLength | Validity::InvalidAsn)
    }
}

/// The VRP set, indexed for covering lookups: sorted by prefix, so the ROAs at each shorter
/// length of a prefix are found by binary search, and with the lengths ROAs have in each
/// family, so a lookup searches only those (a handful) rather than every length up to the
/// prefix's (up to 129 for IPv6). Validation runs for every route at every validating AS, and
/// was most of a generation's time on some worlds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vrps {
    roas: Vec<Roa>,
    /// The distinct prefix lengths of the IPv4 ROAs and of the IPv6 ROAs, ascending.
    lengths: [Vec<u8>; 2],
}

impl Vrps {
    pub fn new(roas: &[Roa]) -> Vrps {
        let mut roas = roas.to_vec();
        roas.sort_unstable();
        roas.dedup();
        let mut lengths = [Vec::new(), Vec::new()];
        for r in &roas {
            lengths[family(r.prefix)].push(r.prefix.prefix_len());
        }
        for l in &mut lengths {
            l.sort_unstable();
            l.dedup();
        }
        Vrps { roas, lengths }
    }

    /// Every ROA, sorted by prefix, then origin and maxLength.
    pub fn roas(&self) -> &[Roa] {
        &self.roas
    }

    /// The ROAs whose prefix contains `p` (equal included).
    pub fn covering(&self, p: IpNet) -> impl Iterator<Item = &Roa> {
        let lengths = &self.lengths[family(p)];
        let shorter = &lengths[..lengths.partition_point(|&l| l <= p.prefix_len())];
        shorter.iter().flat_map(move |&len| {
            let key = IpNet::new(p.addr(), len).map(|n| n.trunc()).ok();
            let run = key.map_or(&[][..], |key| {
                let lo = self.roas.partition_point(|r| r.prefix < key);
                let hi = self.roas.partition_point(|r| r.prefix <= key);
                &self.roas[lo..hi]
            });
            run.iter()
        })
    }

    /// RFC 6811 validity of origin `origin` for prefix `p`.
    pub fn validate(&self, p: IpNet, origin: u32) -> Validity {
        let mut covered = false;
        let mut origin_seen = false;
        for roa in self.covering(p) {
            covered = true;
            if roa.origin == origin {
                if p.prefix_len() <= roa.max_len {
                    return Validity::Valid;
                }
                origin_seen = true;
            }
        }
        match (covered, origin_seen) {
            (false, _) => Validity::NotFound,
            (true, true) => Validity::InvalidLength,
            (true, false) => Validity::InvalidAsn,
        }
    }
}

/// The index of `p`'s address family in [`Vrps::lengths`].
fn family(p: IpNet) -> usize {
    usize::from(matches!(p, IpNet::V6(_)))
}

fn roa_chance(tier: Tier) -> u64 {
    match tier {
        Tier::Tier1 => 80,
        Tier::Transit => 60,
        Tier::Content => 90,
        Tier::Stub => 40,
    }
}

fn rov_chance(tier: Tier) -> u64 {
    match tier {
        Tier::Tier1 => 70,
        Tier::Transit => 35,
        Tier::Content => 50,
        Tier::Stub => 10,
    }
}

/// Draws the ROAs of `ases` over their `prefixes` (allocation order, grouped by owner).
pub fn draw_roas(s: &mut Stream, ases: &[AsInfo], prefixes: &[Prefix]) -> Vec<Roa> {
    let mut out = Vec::new();
    for (i, a) in ases.iter().enumerate() {
        if !s.chance(roa_chance(a.tier), 100) {
            continue;
        }
        for p in prefixes.iter().filter(|p| p.owner == i) {
            let len = p.net.prefix_len();
            let cap = if p.net.addr().is_ipv4() { 24 } else { 48 };
            let max_len = if s.chance(70, 100) { len } else { (len + 2).min(cap).max(len) };
            out.push(Roa { prefix: p.net, origin: a.asn, max_len });
        }
    }
    out
}

/// Draws which ASes deploy ROV.
pub fn draw_rov(s: &mut Stream, ases: &[AsInfo]) -> Vec<bool> {
    ases.iter().map(|a| s.chance(rov_chance(a.tier), 100)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(s: &str) -> IpNet {
        s.parse().unwrap()
    }

    fn vrps() -> Vrps {
        Vrps::new(&[
            Roa { prefix: net("198.18.0.0/22"), origin: 64520, max_len: 23 },
            Roa { prefix: net("198.18.0.0/24"), origin: 64530, max_len: 24 },
            Roa { prefix: net("2001:db8::/44"), origin: 64520, max_len: 44 },
        ])
    }

    #[test]
    fn rfc6811_outcomes() {
        let v = vrps();
        assert_eq!(v.validate(net("198.18.0.0/22"), 64520), Validity::Valid);
        assert_eq!(v.validate(net("198.18.2.0/23"), 64520), Validity::Valid);
        assert_eq!(v.validate(net("198.18.2.0/24"), 64520), Validity::InvalidLength);
        assert_eq!(v.validate(net("198.18.0.0/22"), 64999), Validity::InvalidAsn);
        // Two covering ROAs: the more specific one makes 64530 valid, 64520 is too long.
        assert_eq!(v.validate(net("198.18.0.0/24"), 64530), Validity::Valid);
        assert_eq!(v.validate(net("198.18.0.0/24"), 64520), Validity::InvalidLength);
        assert_eq!(v.validate(net("198.18.4.0/22"), 64520), Validity::NotFound);
        assert_eq!(v.validate(net("198.16.0.0/14"), 64520), Validity::NotFound);
        assert_eq!(v.validate(net("2001:db8::/48"), 64520), Validity::InvalidLength);
        assert_eq!(v.validate(net("2001:db8:10::/44"), 64520), Validity::NotFound);
    }

    #[test]
    fn covering_finds_every_shorter_roa() {
        assert_eq!(vrps().covering(net("198.18.0.0/25")).count(), 2);
        assert_eq!(vrps().covering(net("198.18.1.0/24")).count(), 1);
    }
}
