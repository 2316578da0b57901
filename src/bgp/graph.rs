//! Drawing the AS hierarchy: how many ASes of each tier, where they live and whom they buy
//! transit from or peer with.
//!
//! The shape imitates what AS-relationship inference shows of the real Internet, small enough to
//! read: a clique of Tier-1s at the top; transits that each buy from one to three earlier
//! networks, chosen with probability growing with their degree (preferential attachment, so a few
//! big transits emerge) and peer with some transits of their own region; content networks that
//! are multihomed and peer with half their region's transits; and a long tail of stubs, most
//! single-homed, buying from a transit at home and now and then straight from a Tier-1.
//!
//! Providers are always created before their customers, so p2c links point from later to
//! earlier ASes and can never close a cycle: the p2c graph is a DAG by construction.
//!
//! Draw order: N; tier counts; regions (every non-Tier-1 AS, in creation order; Tier-1s take
//! home regions round-robin); Tier-1s (no draws: the clique is fixed); transits; content; stubs.
//! A region without a transit sends its stubs' and content's regional picks to all transits.

use std::collections::HashSet;

use super::level::{Level, N_KNOB};
use super::region::Region;
use super::topology::{AsIx, Link, LinkKind, Tier};
use crate::error::{Error, Result};
use crate::seed::Stream;

/// The hierarchy as drawn, before exchange points, names and addresses are added.
#[derive(Debug, Clone, Default)]
pub struct Hierarchy {
    pub tiers: Vec<Tier>,
    pub regions: Vec<Region>,
    pub links: Vec<Link>,
    /// Stubs that chose to join their region's exchange point (if it has one).
    pub wants_ixp: Vec<bool>,
    /// Every linked pair `(min, max)`: membership only, never iterated.
    linked: HashSet<(AsIx, AsIx)>,
    degree: Vec<u64>,
}

/// Tier counts of one topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TierCounts {
    pub tier1: usize,
    pub transit: usize,
    pub content: usize,
    pub stub: usize,
}

/// Draws N (unless `n` fixes it) and the tier counts.
pub fn draw_counts(s: &mut Stream, level: Level, n: Option<u64>) -> Result<TierCounts> {
    let sizes = level.sizes();
    let n = match n {
        Some(n) if N_KNOB.contains(&n) => n,
        Some(n) => {
            return Err(Error::BadKnob {
                app: "bgp".into(),
                knob: format!("n{n}"),
                reason: format!("N must be within {}..={}", N_KNOB.start(), N_KNOB.end()),
            });
        }
        None => s.range(*sizes.ases.start(), *sizes.ases.end()),
    };
    let tier1 = s.range(*sizes.tier1.start(), *sizes.tier1.end());
    let content = s.range(*sizes.content.start(), *sizes.content.end());
    // Shares round to the nearest AS; small knob values squeeze content first, so a stub
    // always remains (N >= 10 leaves room for 8 Tier-1s, 1 transit and 1 stub).
    let transit = ((n * sizes.transit_pct + 50) / 100).max(1).min(n - tier1 - 1);
    let content = content.min(n - tier1 - transit - 1);
    let stub = n - tier1 - transit - content;
    Ok(TierCounts {
        tier1: tier1 as usize,
        transit: transit as usize,
        content: content as usize,
        stub: stub as usize,
    })
}

impl Hierarchy {
    /// Draws regions and all links of the hierarchy for `counts`.
    pub fn draw(s: &mut Stream, counts: TierCounts) -> Hierarchy {
        let mut h = Hierarchy::default();
        let tiers = [
            (Tier::Tier1, counts.tier1),
            (Tier::Transit, counts.transit),
            (Tier::Content, counts.content),
            (Tier::Stub, counts.stub),
        ];
        for (tier, k) in tiers {
            h.tiers.extend(std::iter::repeat_n(tier, k));
        }
        let n = h.tiers.len();
        h.degree = vec![0; n];
        h.wants_ixp = vec![false; n];
        h.regions =
            (0..n).map(|i| if i < counts.tier1 { Region::nth(i) } else { Region::nth(s.index(6)) }).collect();
        h.tier1_clique(counts.tier1);
        let transits = counts.tier1..counts.tier1 + counts.transit;
        for t in transits.clone() {
            h.transit(s, t);
        }
        let content_start = transits.end;
        for c in content_start..content_start + counts.content {
            h.content(s, c, transits.clone());
        }
        for st in content_start + counts.content..n {
            h.stub(s, st, counts.tier1, transits.clone());
        }
        h
    }

    fn link(&mut self, a: AsIx, b: AsIx, kind: LinkKind) -> bool {
        if a == b || !self.linked.insert((a.min(b), a.max(b))) {
            return false;
        }
        let (a, b) = if kind == LinkKind::CustomerProvider { (a, b) } else { (a.min(b), a.max(b)) };
        self.links.push(Link { a, b, kind });
        self.degree[a] += 1;
        self.degree[b] += 1;
        true
    }

    /// Whether `a` and `b` already share a link.
    pub fn is_linked(&self, a: AsIx, b: AsIx) -> bool {
        self.linked.contains(&(a.min(b), a.max(b)))
    }

    /// Adds a route-server-mediated p2p session unless the pair already has a link.
    pub fn link_via_route_server(&mut self, a: AsIx, b: AsIx, ixp: usize) -> bool {
        self.link(a, b, LinkKind::RouteServer(ixp))
    }

    fn tier1_clique(&mut self, k: usize) {
        for a in 0..k {
            for b in a + 1..k {
                self.link(a, b, LinkKind::Peer);
            }
        }
    }

    /// `k` distinct providers among `pool`, each drawn with weight degree + 1.
    fn providers_by_degree(&mut self, s: &mut Stream, pool: &[AsIx], k: usize) -> Vec<AsIx> {
        let mut weights: Vec<u64> = pool.iter().map(|&p| self.degree[p] + 1).collect();
        let mut chosen = Vec::with_capacity(k);
        for _ in 0..k.min(pool.len()) {
            let j = s.weighted(&weights);
            weights[j] = 0;
            chosen.push(pool[j]);
        }
        chosen
    }

    fn transit(&mut self, s: &mut Stream, t: AsIx) {
        let pool: Vec<AsIx> = (0..t).collect();
        let k = s.range(1, 3) as usize;
        for p in self.providers_by_degree(s, &pool, k) {
            self.link(t, p, LinkKind::CustomerProvider);
        }
        let tier1s = self.tiers.iter().take_while(|&&x| x == Tier::Tier1).count();
        for other in tier1s..t {
            if self.regions[other] == self.regions[t] && !self.is_linked(t, other) && s.chance(1, 4) {
                self.link(t, other, LinkKind::Peer);
            }
        }
    }

    /// The transits of `region`, or all of them when the region has none.
    fn regional(&self, region: Region, transits: std::ops::Range<AsIx>) -> Vec<AsIx> {
        let local: Vec<AsIx> = transits.clone().filter(|&t| self.regions[t] == region).collect();
        if local.is_empty() { transits.collect() } else { local }
    }

    fn content(&mut self, s: &mut Stream, c: AsIx, transits: std::ops::Range<AsIx>) {
        let pool: Vec<AsIx> = (0..transits.end).collect();
        let k = s.range(2, 4) as usize;
        for p in self.providers_by_degree(s, &pool, k) {
            self.link(c, p, LinkKind::CustomerProvider);
        }
        let local = self.regional(self.regions[c], transits);
        let open: Vec<AsIx> = local.iter().copied().filter(|&t| !self.is_linked(c, t)).collect();
        let k = (local.len() / 2).min(open.len());
        for j in s.subset(open.len(), k) {
            self.link(c, open[j], LinkKind::Peer);
        }
    }

    fn stub(&mut self, s: &mut Stream, st: AsIx, tier1s: usize, transits: std::ops::Range<AsIx>) {
        let k = s.weighted(&[60, 35, 5]) + 1;
        let local = self.regional(self.regions[st], transits);
        for _ in 0..k {
            let from_tier1 = s.chance(1, 10);
            let pool: Vec<AsIx> = if from_tier1 { (0..tier1s).collect() } else { local.clone() };
            let open: Vec<AsIx> = pool.into_iter().filter(|&p| !self.is_linked(st, p)).collect();
            if !open.is_empty() {
                let p = open[s.index(open.len())];
                self.link(st, p, LinkKind::CustomerProvider);
            }
        }
        self.wants_ixp[st] = s.chance(1, 5);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::Width;

    fn drawn(level: Level, seed: &str) -> Hierarchy {
        let mut s = Stream::new(seed, Width::W32);
        let counts = draw_counts(&mut s, level, None).unwrap();
        Hierarchy::draw(&mut s, counts)
    }

    #[test]
    fn providers_come_first_so_p2c_is_a_dag() {
        for seed in ["a", "b", "c"] {
            let h = drawn(Level::L3, seed);
            for l in h.links.iter().filter(|l| l.kind == LinkKind::CustomerProvider) {
                assert!(l.b < l.a, "provider {} created after customer {}", l.b, l.a);
            }
        }
    }

    #[test]
    fn every_non_tier1_has_a_provider_and_tier1s_form_a_clique() {
        let h = drawn(Level::L2, "x");
        let t1 = h.tiers.iter().filter(|&&t| t == Tier::Tier1).count();
        for a in t1..h.tiers.len() {
            assert!(h.links.iter().any(|l| l.kind == LinkKind::CustomerProvider && l.a == a), "AS {a}");
        }
        for a in 0..t1 {
            for b in a + 1..t1 {
                assert!(h.is_linked(a, b));
            }
        }
    }

    #[test]
    fn counts_respect_the_table_and_knob() {
        let mut s = Stream::new("k", Width::W32);
        let c = draw_counts(&mut s, Level::L4, Some(10)).unwrap();
        assert_eq!(c.tier1 + c.transit + c.content + c.stub, 10);
        assert!(c.stub >= 1 && c.transit >= 1);
        assert!(draw_counts(&mut s, Level::L1, Some(9)).is_err());
        assert!(draw_counts(&mut s, Level::L1, Some(5001)).is_err());
        let c = draw_counts(&mut s, Level::L1, Some(40)).unwrap();
        assert_eq!((c.tier1, c.transit), (3, 4));
    }

    #[test]
    fn one_link_per_pair() {
        let h = drawn(Level::L3, "pairs");
        let mut pairs: Vec<(usize, usize)> = h.links.iter().map(|l| (l.a.min(l.b), l.a.max(l.b))).collect();
        let before = pairs.len();
        pairs.sort_unstable();
        pairs.dedup();
        assert_eq!(pairs.len(), before);
    }
}
