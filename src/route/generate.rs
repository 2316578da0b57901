//! The generator: an id's knobs and seed to a topology and faults (docs/route.md, "Tasks").
//!
//! Draw order, pinned by the golden ids: R (L3), N, M, shape (L3, R ≥ 3), the family
//! combination (L1: one of 5; L2: one of the 15 unordered pairs with repetition; L3: one of
//! the 35 triples), then per fault in injection order its variant, router (L3) and
//! parameters. A draw that is not valid — some fault breaks nothing alone, or is masked by
//! the others — is thrown away and everything not fixed by a knob is drawn again from the
//! same stream, up to 64 attempts.
//!
//! Validity is checked on the same network with one host per subnet: hosts of one subnet
//! are interchangeable for every fault (faults live on routers and name whole subnets), so
//! the verdict is the same and the check is M² times cheaper.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::id::QueryId;
use crate::seed::{Stream, Width};

use super::engine::matrix::{Machine, Matrix};
use super::engine::trace::{self, Changes, Traced};
use super::fault::{self, Family, Fault, Lines};
use super::net::Net;
use super::topology::{PerTopology, Shape, Topology};

/// Attempts before giving up with `GenerationExhausted`.
pub const ATTEMPTS: u32 = 64;

/// Default and largest turn limits.
pub const DEFAULT_TURNS: u32 = 10;
pub const MAX_TURNS: u32 = 50;

/// The knobs an id fixes; `None` is drawn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Knobs {
    pub n: Option<usize>,
    pub m: Option<usize>,
    pub r: Option<usize>,
    pub families: Option<Vec<Family>>,
    pub turns: u32,
}

/// Faults per task at a level.
pub fn faults_at(level: u8) -> usize {
    usize::from(level)
}

fn bad(id: &QueryId, key: char, reason: impl Into<String>) -> Error {
    let value = id.knob(key).unwrap_or_default();
    Error::BadKnob { app: "route".into(), knob: format!("-{key}{value}"), reason: reason.into() }
}

fn number(id: &QueryId, key: char, lo: usize, hi: usize) -> Result<Option<usize>> {
    let Some(v) = id.knob(key) else { return Ok(None) };
    match v.parse::<usize>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(Some(n)),
        _ => Err(bad(id, key, format!("must be a number in {lo}..{hi}"))),
    }
}

/// Parses and checks an id's knobs for its level.
pub fn knobs(id: &QueryId) -> Result<Knobs> {
    let l3 = id.level == 3;
    let r = if l3 {
        number(id, 'r', 1, 4)?
    } else if id.knob('r').is_some() {
        return Err(bad(id, 'r', "routers can be chosen at level 3 only"));
    } else {
        Some(1)
    };
    let n = match (l3, r) {
        (false, _) => number(id, 'n', 2, 8)?,
        (true, Some(1)) => number(id, 'n', 9, 16)?,
        (true, Some(r)) => number(id, 'n', r, 12)?,
        (true, None) => number(id, 'n', 2, 16)?,
    };
    let families = match id.knob('f') {
        None => None,
        Some(v) => {
            let fams: Option<Vec<Family>> = v.split('+').map(Family::parse).collect();
            let fams = fams.ok_or_else(|| bad(id, 'f', "families are DR, DI, RI, DT, WR joined by +"))?;
            if fams.len() != faults_at(id.level) {
                return Err(bad(id, 'f', format!("level {} has {} fault(s)", id.level, faults_at(id.level))));
            }
            if fams.windows(2).any(|w| w[0] > w[1]) {
                return Err(bad(id, 'f', "families must be in the order DR, DI, RI, DT, WR"));
            }
            Some(fams)
        }
    };
    Ok(Knobs {
        n,
        m: number(id, 'm', 1, 4)?,
        r,
        families,
        turns: number(id, 't', 1, MAX_TURNS as usize)?.map_or(DEFAULT_TURNS, |t| t as u32),
    })
}

/// A valid draw: the network and its faults in injection order.
#[derive(Debug, Clone)]
pub struct Drawn {
    pub topo: Topology,
    pub faults: Vec<Fault>,
    /// How many draws were tried (1 when the first was valid).
    pub attempts: u32,
    /// The ping matrix right after injection.
    pub initial: Matrix,
    /// The order (indexes into `faults`) in which their known-good fixes heal the network
    /// together (the generator's `Lab::fix_order`).
    pub fix_order: Vec<usize>,
}

/// Every family combination of a level, in draw order (multisets in lexicographic order).
pub fn combinations(level: u8) -> Vec<Vec<Family>> {
    let mut out: Vec<Vec<Family>> = vec![Vec::new()];
    for _ in 0..faults_at(level) {
        out = out
            .into_iter()
            .flat_map(|c| {
                let from = c.last().map_or(0, |f| Family::ALL.iter().position(|x| x == f).unwrap_or(0));
                Family::ALL[from..].iter().map(move |f| {
                    let mut next = c.clone();
                    next.push(*f);
                    next
                })
            })
            .collect();
    }
    out
}

/// Draws a valid task for an id.
pub fn draw(id: &QueryId) -> Result<Drawn> {
    let k = knobs(id)?;
    let mut stream = Stream::new(&id.seed_material(true), Width::W32);
    let combos = combinations(id.level);
    for attempt in 1..=ATTEMPTS {
        let topo = draw_topology(&mut stream, id.level, &k);
        let families = match &k.families {
            Some(f) => f.clone(),
            None => stream.choose(&combos).clone(),
        };
        let faults: Vec<Fault> = families.iter().map(|&f| fault::draw(&mut stream, &topo, f)).collect();
        let mut lab = Lab::new(&topo, &faults);
        if let Some(small) = lab.valid()
            && let Some(fix_order) = lab.fix_order()
        {
            let initial = expand(&topo, &small);
            return Ok(Drawn { topo, faults, attempts: attempt, initial, fix_order });
        }
    }
    Err(Error::GenerationExhausted(id.to_string()))
}

fn draw_topology(stream: &mut Stream, level: u8, k: &Knobs) -> Topology {
    let r = match k.r {
        Some(r) => r,
        None => {
            let candidates: Vec<usize> = (1..=4)
                .filter(|&r| {
                    k.n.is_none_or(|n| if r == 1 { (9..=16).contains(&n) } else { (r..=12).contains(&n) })
                })
                .collect();
            *stream.choose(&candidates)
        }
    };
    let n = k.n.unwrap_or_else(|| match (level, r) {
        (1 | 2, _) => stream.range(2, 8) as usize,
        (_, 1) => stream.range(9, 16) as usize,
        (_, r) => stream.range(r as u64, 12) as usize,
    });
    let m = k.m.unwrap_or_else(|| stream.range(1, 4) as usize);
    let shape = match r {
        1 => Shape::Single,
        2 => Shape::Chain,
        _ if stream.chance(1, 2) => Shape::Star,
        _ => Shape::Chain,
    };
    Topology { n, m, r, shape }
}

/// The network after injecting `faults` (in order) into the healthy one.
pub fn inject(healthy: &Net, faults: &[&Fault]) -> Net {
    let mut net = healthy.clone();
    for f in faults {
        f.inject(&mut net);
    }
    net
}

/// Checks (a) each fault alone breaks a pair and (b) no fault is masked by the others, on
/// the network with one host per subnet; returns that network's matrix with every fault
/// injected (see [`expand`]) when the faults are valid. `n` and `r` within the knobs' ranges.
pub fn valid(topo: &Topology, faults: &[Fault]) -> Option<Matrix> {
    Lab::new(topo, faults).valid()
}

/// A healthy one-host-per-subnet network, its machines and its traced matrix. There are at
/// most 192 (n ≤ 16, r ≤ 4, three shapes) and every draw is checked on one, so each is built
/// once per process.
struct Small {
    healthy: Net,
    machines: Vec<Machine>,
    /// Loss-free (`healthy_small_networks_lose_nothing`).
    traced: Traced,
}

/// The [`Small`] network of a topology's shape; `n` and `r` within the knobs' ranges.
fn small(topo: &Topology) -> &'static Small {
    static BUILT: PerTopology<Small> = PerTopology::new();
    let topo = Topology { m: 1, ..*topo };
    BUILT.get(&topo, || {
        let machines = topo.machines();
        let healthy = topo.build();
        let traced = Traced::of(&mut healthy.clone(), &machines);
        debug_assert_eq!(traced.matrix.lost(), 0, "{topo:?} is healthy");
        Small { healthy, machines, traced }
    })
}

/// The checks of one draw, on its [`Small`] network with the subsets of its faults they ask
/// for. Each subset's network is built once, from the subset without its last fault, so a
/// level-3 draw injects 7 faults rather than 15; it shares every node its faults leave alone
/// with the healthy network, since the checks' probes write nothing. Each is probed only where
/// it is not alike the network it is compared with (see [`trace`](super::engine::trace)).
struct Lab<'a> {
    faults: &'a [Fault],
    /// Each fault's injection, read once.
    injections: Vec<Lines>,
    small: &'static Small,
    /// By subset, bit i standing for `faults[i]`.
    nets: BTreeMap<u32, Net>,
    /// Where the networks of two subsets differ (0: the healthy one), lower subset first:
    /// the alike checks and the probing checks ask for the same pairs.
    changes: BTreeMap<(u32, u32), Changes>,
}

impl<'a> Lab<'a> {
    fn new(topo: &Topology, faults: &'a [Fault]) -> Self {
        let injections = faults.iter().map(Fault::injection).collect();
        Lab { faults, injections, small: small(topo), nets: BTreeMap::new(), changes: BTreeMap::new() }
    }

    fn all(&self) -> u32 {
        (1 << self.faults.len()) - 1
    }

    /// The network with the faults of `subset` (not empty) injected in order.
    fn net(&mut self, subset: u32) -> &mut Net {
        if !self.nets.contains_key(&subset) {
            let last = 31 - subset.leading_zeros();
            let parent = subset & !(1 << last);
            let mut net = if parent == 0 { self.small.healthy.clone() } else { self.net(parent).clone() };
            self.injections[last as usize].run(&mut net);
            self.nets.insert(subset, net);
        }
        self.nets.get_mut(&subset).expect("built above")
    }

    /// Whether the network of `subset` answers some pair of `pairs` otherwise than `known`,
    /// traced on the network of `base` (0: the healthy one), says.
    fn differs(&mut self, subset: u32, base: u32, known: &Traced, pairs: &[(usize, usize)]) -> bool {
        let key = self.changes(subset, base);
        let machines = &self.small.machines;
        known.differs(self.nets.get_mut(&subset).expect("built"), machines, pairs, &self.changes[&key])
    }

    /// Whether the networks of two subsets (0: none) are alike at every node, and so answer
    /// every probe alike.
    fn alike(&mut self, a: u32, b: u32) -> bool {
        let key = self.changes(a, b);
        self.changes[&key].is_empty()
    }

    /// Builds the networks of two subsets and works out where they differ, once; returns the
    /// key of [`Lab::changes`].
    fn changes(&mut self, a: u32, b: u32) -> (u32, u32) {
        let key = (a.min(b), a.max(b));
        if !self.changes.contains_key(&key) {
            for subset in [a, b].into_iter().filter(|&s| s != 0) {
                self.net(subset);
            }
            let changes = trace::changed(self.network(key.0), self.network(key.1));
            self.changes.insert(key, changes);
        }
        key
    }

    /// The network of `subset`, built already (0: the healthy one).
    fn network(&self, subset: u32) -> &Net {
        if subset == 0 { &self.small.healthy } else { &self.nets[&subset] }
    }

    /// The validity checks. The matrix with every fault comes first: its failing pairs are
    /// where a fault alone, or the faults without one of them, most likely differ, so both
    /// checks probe those pairs first and usually stop within a few probes. A fault alone
    /// breaks a pair exactly when it differs from the healthy network, which loses nothing.
    ///
    /// A fault that leaves its network alike the healthy one breaks nothing, and one whose
    /// removal leaves the network alike is masked: those are seen without a probe, before the
    /// matrix.
    fn valid(&mut self) -> Option<Matrix> {
        let all = self.all();
        let n = self.faults.len();
        if (0..n).any(|f| self.alike(1 << f, 0) || (n > 1 && self.alike(all & !(1 << f), all))) {
            return None;
        }
        let small = self.small;
        let key = self.changes(0, all);
        let full = Traced::after(
            self.nets.get_mut(&all).expect("built"),
            &small.machines,
            &small.traced,
            &self.changes[&key],
        );
        let likely = full.matrix.failing_first();
        for f in 0..self.faults.len() {
            let alone = 1 << f;
            let breaks = if alone == all {
                full.matrix.lost() > 0
            } else {
                self.differs(alone, 0, &small.traced, &likely)
            };
            if !breaks {
                return None;
            }
        }
        if self.faults.len() > 1 {
            for f in 0..self.faults.len() {
                if !self.differs(all & !(1 << f), all, &full, &likely) {
                    return None;
                }
            }
        }
        Some(full.matrix)
    }

    /// The order in which the faults' known-good fixes, run one fault after another, succeed
    /// command by command and leave no lost ping: injection order when it works (almost
    /// always), else the first other permutation that does. Fixes are written against the
    /// healthy network, so one fault can spoil another's fix (a `via` fix resolved through a
    /// transit route another fault moved; a connected route another fault duplicated). `None`
    /// (the draw is thrown away) when no order works. A repaired network is probed only where
    /// it is not alike the healthy one.
    fn fix_order(&mut self) -> Option<Vec<usize>> {
        let all = self.all();
        self.net(all);
        let injected = self.nets.remove(&all).expect("built above");
        let small = self.small;
        let pairs = small.traced.matrix.pairs().collect::<Vec<_>>();
        permutations(self.faults.len()).into_iter().find(|order| {
            let mut net = injected.clone();
            order.iter().all(|&i| self.faults[i].repair(&mut net)) && {
                let changed = trace::changed(&small.healthy, &net);
                !small.traced.differs(&mut net, &small.machines, &pairs, &changed)
            }
        })
    }
}

/// Every order of `0..n`, the identity first, then lexicographic.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for first in 0..n {
        for rest in permutations(n - 1) {
            let mut p = vec![first];
            p.extend(rest.into_iter().map(|x| if x >= first { x + 1 } else { x }));
            out.push(p);
        }
    }
    out
}

/// The matrix of the full network from the one-host-per-subnet matrix: hosts of one subnet
/// behave alike toward everyone (faults sit on routers and name whole subnets), and two hosts
/// of one subnet reach each other over their switch alone.
pub fn expand(topo: &Topology, small: &Matrix) -> Matrix {
    let hosts = topo.hosts();
    let n = hosts + topo.r;
    let rep = |i: usize| if i < hosts { i / topo.m } else { topo.n + (i - hosts) };
    let mut ok = vec![false; n * n];
    for s in 0..n {
        for d in (0..n).filter(|&d| d != s) {
            let same_subnet = s < hosts && d < hosts && s / topo.m == d / topo.m;
            ok[s * n + d] = same_subnet || small.get(rep(s), rep(d));
        }
    }
    Matrix { n, ok }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::engine::matrix;

    fn id(s: &str) -> QueryId {
        s.parse().unwrap()
    }

    #[test]
    fn combinations_count() {
        assert_eq!(combinations(1).len(), 5);
        assert_eq!(combinations(2).len(), 15);
        assert_eq!(combinations(3).len(), 35);
        assert_eq!(combinations(2)[1], [Family::DR, Family::DI]);
    }

    #[test]
    fn knobs_are_checked_per_level() {
        assert_eq!(knobs(&id("route-v1-L1-s0-i0-n3-m2-t5")).unwrap().turns, 5);
        assert!(knobs(&id("route-v1-L1-s0-i0-n9")).is_err());
        assert!(knobs(&id("route-v1-L3-s0-i0-n9-r1")).is_ok());
        assert!(knobs(&id("route-v1-L3-s0-i0-n9-r2")).is_ok());
        assert!(knobs(&id("route-v1-L3-s0-i0-n13-r2")).is_err());
        assert!(knobs(&id("route-v1-L1-s0-i0-r2")).unwrap_err().to_string().contains("level 3 only"));
        assert!(knobs(&id("route-v1-L2-s0-i0-fDR+WR")).is_ok());
        assert!(knobs(&id("route-v1-L2-s0-i0-fWR+DR")).is_err());
        assert!(knobs(&id("route-v1-L2-s0-i0-fWR")).is_err());
        assert!(knobs(&id("route-v1-L1-s0-i0-fXX")).is_err());
    }

    #[test]
    fn draws_are_deterministic_and_valid() {
        for s in ["route-v1-L1-s1-i0", "route-v1-L2-s2-i3", "route-v1-L3-s3-i1"] {
            let a = draw(&id(s)).unwrap();
            let b = draw(&id(s)).unwrap();
            assert_eq!(a.faults, b.faults);
            assert_eq!(a.topo, b.topo);
            assert!(valid(&a.topo, &a.faults).is_some());
        }
    }

    /// The expanded matrix is the one the full network gives.
    #[test]
    fn expansion_matches_the_full_network() {
        for level in 1..=3u8 {
            for seed in 0..40 {
                let q = QueryId::new("route", 1, level, seed, 0);
                let d = draw(&q).unwrap();
                let machines = d.topo.machines();
                let faults: Vec<&Fault> = d.faults.iter().collect();
                let direct = matrix::compute(&mut inject(&d.topo.build(), &faults), &machines);
                assert_eq!(direct, d.initial, "{q}");
            }
        }
    }

    /// Every network a draw can be checked on, healthy, loses no ping: what lets
    /// the validity checks compare with the healthy network instead of probing for failures.
    #[test]
    fn healthy_small_networks_lose_nothing() {
        let mut shapes = (2..=16).map(|n| (n, 1, Shape::Single)).collect::<Vec<_>>();
        for r in 2..=4 {
            for n in r..=12 {
                shapes.push((n, r, Shape::Chain));
                if r > 2 {
                    shapes.push((n, r, Shape::Star));
                }
            }
        }
        for (n, r, shape) in shapes {
            let topo = Topology { n, m: 1, r, shape };
            let lost = matrix::compute(&mut topo.build(), &topo.machines()).lost();
            assert_eq!(lost, 0, "{topo:?}");
        }
    }

    /// A network traced only where it is not alike another gives what probing every pair
    /// gives, footprints included: for every subset of a draw's faults, traced from the
    /// healthy network and from the network with every fault (as the masked check does), and
    /// for the network its fixes repair. Draws the checks reject are traced too: most of the
    /// lab's work is on them.
    #[test]
    fn retracing_matches_probing_everything() {
        let agree_from = |net: &Net, base: &Net, known: &Traced, small: &Small, what: &str| {
            let changed = trace::changed(base, net);
            let after = Traced::after(&mut net.clone(), &small.machines, known, &changed);
            assert_eq!(after, Traced::of(&mut net.clone(), &small.machines), "{what}");
        };
        let agree = |net: &Net, small: &Small, what: &str| {
            agree_from(net, &small.healthy, &small.traced, small, what)
        };
        let agree_on_subsets = |topo: &Topology, faults: &[Fault], what: &str| {
            let small = small(topo);
            let full_net = inject(&small.healthy, &faults.iter().collect::<Vec<_>>());
            let full = Traced::of(&mut full_net.clone(), &small.machines);
            for subset in 1..(1u32 << faults.len()) {
                let some: Vec<&Fault> = faults
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| subset & (1 << i) != 0)
                    .map(|(_, f)| f)
                    .collect();
                let net = inject(&small.healthy, &some);
                agree(&net, small, &format!("{what} subset {subset}"));
                agree_from(&net, &full_net, &full, small, &format!("{what} subset {subset} from all"));
            }
        };
        let mut raw = Stream::new("retracing raw draws", Width::W32);
        for level in 1..=3u8 {
            for seed in 0..100 {
                let q = QueryId::new("route", 1, level, seed, 0);
                let d = draw(&q).unwrap();
                agree_on_subsets(&d.topo, &d.faults, &q.to_string());
                let families = raw.choose(&combinations(level)).clone();
                let faults: Vec<Fault> =
                    families.iter().map(|&f| fault::draw(&mut raw, &d.topo, f)).collect();
                agree_on_subsets(&d.topo, &faults, &format!("{q} raw {faults:?}"));
                let small = small(&d.topo);
                let mut net = inject(&small.healthy, &d.faults.iter().collect::<Vec<_>>());
                for &i in &d.fix_order {
                    assert!(d.faults[i].repair(&mut net));
                }
                agree(&net, small, &format!("{q} repaired"));
            }
        }
    }

    #[test]
    fn permutations_start_with_the_identity() {
        assert_eq!(permutations(1), [[0]]);
        assert_eq!(permutations(3), [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]);
    }

    #[test]
    fn masked_pairs_are_rejected() {
        let topo = Topology { n: 2, m: 1, r: 1, shape: Shape::Single };
        let mut s = Stream::new("x", Width::W32);
        let mut dr = |v: u8| loop {
            let f = fault::draw(&mut s, &topo, Family::DR);
            if f.variant == v {
                break f;
            }
        };
        let (dr1, dr2) = (dr(1), dr(2));
        assert!(valid(&topo, &[dr1, dr2]).is_none());
    }
}
