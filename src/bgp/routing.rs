//! The routing model: each AS's best route to each prefix in the stable state.
//!
//! The model is the one most of the interdomain-routing literature simulates (Gao and Rexford's
//! conditions), reduced to what an investigator can observe at the AS level. Prefixes are
//! independent (longest match matters only when forwarding), so each prefix's state is computed
//! on its own from its *seeds*: the originations of that prefix, plus any leaked routes.
//!
//! **Preference**, first difference wins:
//! 1. a route the AS originates itself (a seed at it);
//! 2. local preference by the relationship of the neighbour it came from: customer over peer
//!    over provider (customers pay, peers are free, providers cost);
//! 3. the shorter AS_PATH, prepends counted;
//! 4. the lower neighbour ASN, so the choice never depends on arrival order.
//!
//! **Import**: a route whose AS_PATH already holds the receiver is dropped (loop prevention); an
//! AS that deploys ROV drops routes that are RPKI-Invalid for the prefix (RFC 6811; see
//! [`super::rpki`]); its own originations are never filtered.
//!
//! **Export** (valley-free): own and customer routes go to everyone; peer and provider routes
//! only to customers. An origination may be prepended: the originating AS repeats its ASN `k`
//! extra times toward one neighbour, or toward all.
//!
//! **Computation.** Under these rules the stable state is unique and is found in three passes
//! over the ranks of the p2c DAG (rank 0 has no customers; a provider sits one above its highest
//! customer): (1) ranks ascending, each AS settles its best customer-or-own route and offers it to
//! its providers, whose customers have all spoken by the time their turn comes; (2) every AS
//! offers its own or customer route to each peer, once; (3) ranks descending, each AS settles its
//! final route and offers it to its customers. A route adopted in one pass is never displaced in
//! a later one, because later passes only bring routes of lower preference. Ties between equally
//! good routes from the same neighbour (only possible with a leak, below) keep the route held
//! first.
//!
//! **Seeds.** An origination is `(AS, prefix, path)`: usually the path is the AS alone, but a
//! forged-origin hijacker X seeds `X V` and the rest of the Internet sees V as the origin. A
//! *leak* is one extra route placed in receiver B's Adj-RIB-In as if sent by L: its path is the
//! path L held before the incident (L first, frozen), and its local preference is B's relation
//! to L. It is injected only if B would accept it (B not on the path, and not Invalid at an ROV
//! B); B then decides and exports it like any other route.
//!
//! **Representation.** Per prefix, one 12-byte slot per AS (dense index): preference, path
//! length, the seed the route descends from and the neighbour it came from. Paths are never
//! stored: a path is the chain of neighbours down to the seed, which is consistent because a
//! neighbour's route is final by the time it is offered. Loop checks walk that chain.

use std::collections::BTreeMap;
use std::sync::Arc;

use ipnet::IpNet;

use super::rpki::Vrps;
use super::topology::{AsIx, Rel, Topology};

/// The adjacency the model runs over: dense AS indexes, neighbour lists by relationship, ROV.
#[derive(Debug, Clone)]
pub struct Graph {
    asn: Vec<u32>,
    rov: Vec<bool>,
    providers: Csr,
    peers: Csr,
    customers: Csr,
    /// AS indexes by (rank, index): phase 1 walks it forwards, phase 3 backwards.
    by_rank: Vec<u32>,
    /// `(asn, index)` sorted by ASN.
    by_asn: Vec<(u32, u32)>,
}

/// Compressed neighbour lists: `list[start[i]..start[i + 1]]` are AS `i`'s.
#[derive(Debug, Clone, Default)]
struct Csr {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Csr {
    fn new(n: usize, pairs: &[(usize, usize)]) -> Csr {
        let mut start = vec![0u32; n + 1];
        for &(a, _) in pairs {
            start[a + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; pairs.len()];
        for &(a, b) in pairs {
            list[fill[a] as usize] = b as u32;
            fill[a] += 1;
        }
        Csr { start, list }
    }

    fn of(&self, i: usize) -> &[u32] {
        &self.list[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

impl Graph {
    /// A graph over ASes numbered `asns` (by index), with `p2c` pairs `(customer, provider)` and
    /// `p2p` pairs of indexes. Pairs naming an index out of range are ignored.
    pub fn new(asns: Vec<u32>, p2c: &[(usize, usize)], p2p: &[(usize, usize)], rov: Vec<bool>) -> Graph {
        let n = asns.len();
        let ok = |&&(a, b): &&(usize, usize)| a < n && b < n && a != b;
        let p2c: Vec<(usize, usize)> = p2c.iter().filter(ok).copied().collect();
        let p2p: Vec<(usize, usize)> = p2p.iter().filter(ok).copied().collect();
        let up: Vec<(usize, usize)> = p2c.clone();
        let down: Vec<(usize, usize)> = p2c.iter().map(|&(c, p)| (p, c)).collect();
        let peers: Vec<(usize, usize)> = p2p.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
        let rank = super::topology::ranks(n, p2c.iter().copied());
        let mut by_rank: Vec<u32> = (0..n as u32).collect();
        by_rank.sort_by_key(|&i| (rank[i as usize], i));
        let mut by_asn: Vec<(u32, u32)> = asns.iter().enumerate().map(|(i, &a)| (a, i as u32)).collect();
        by_asn.sort_unstable();
        let mut rov = rov;
        rov.resize(n, false);
        Graph {
            asn: asns,
            rov,
            providers: Csr::new(n, &up),
            peers: Csr::new(n, &peers),
            customers: Csr::new(n, &down),
            by_rank,
            by_asn,
        }
    }

    /// The graph of a topology (route-server sessions are ordinary peerings).
    pub fn from_topology(t: &Topology) -> Graph {
        let asns = t.ases.iter().map(|a| a.asn).collect();
        let p2c: Vec<(usize, usize)> = t.links.iter().filter(|l| !l.is_peer()).map(|l| (l.a, l.b)).collect();
        let p2p: Vec<(usize, usize)> = t.links.iter().filter(|l| l.is_peer()).map(|l| (l.a, l.b)).collect();
        Graph::new(asns, &p2c, &p2p, t.rov.clone())
    }

    /// Number of ASes.
    pub fn len(&self) -> usize {
        self.asn.len()
    }

    /// Whether the graph has no ASes.
    pub fn is_empty(&self) -> bool {
        self.asn.is_empty()
    }

    /// AS `i`'s number.
    pub fn asn(&self, i: AsIx) -> u32 {
        self.asn[i]
    }

    /// The index of the AS numbered `asn`.
    pub fn index_of(&self, asn: u32) -> Option<AsIx> {
        let k = self.by_asn.binary_search_by_key(&asn, |&(a, _)| a).ok()?;
        Some(self.by_asn[k].1 as usize)
    }

    /// What `b` is to `a`, if adjacent.
    pub fn relation(&self, a: AsIx, b: AsIx) -> Option<Rel> {
        if a >= self.len() {
            return None;
        }
        let b = b as u32;
        let lists =
            [(&self.customers, Rel::Customer), (&self.peers, Rel::Peer), (&self.providers, Rel::Provider)];
        lists.into_iter().find(|(csr, _)| csr.of(a).contains(&b)).map(|(_, rel)| rel)
    }

    /// AS `a`'s neighbours and what each is to it: customers, then peers, then providers.
    pub fn neighbours(&self, a: AsIx) -> impl Iterator<Item = (AsIx, Rel)> + '_ {
        let lists =
            [(&self.customers, Rel::Customer), (&self.peers, Rel::Peer), (&self.providers, Rel::Provider)];
        let a = if a < self.len() { Some(a) } else { None };
        lists.into_iter().flat_map(move |(csr, rel)| {
            a.map_or(&[][..], |a| csr.of(a)).iter().map(move |&n| (n as usize, rel))
        })
    }

    /// Whether AS `a` drops RPKI-Invalid routes.
    pub fn deploys_rov(&self, a: AsIx) -> bool {
        self.rov.get(a).copied().unwrap_or(false)
    }

    /// Whether a leak would be injected at all: B adjacent to L, the path starting at L, B not
    /// on it, and not RPKI-Invalid at an ROV-deploying B.
    pub fn accepts_leak(&self, vrps: &Vrps, prefix: IpNet, leak: &Leak) -> bool {
        let invalid = leak.path.last().is_some_and(|&o| vrps.validate(prefix, o).is_invalid());
        self.leak_fits(leak, invalid)
    }

    /// [`Graph::accepts_leak`] with the leak's RPKI validity already known.
    fn leak_fits(&self, leak: &Leak, invalid: bool) -> bool {
        let (b, l) = (leak.at, leak.from);
        b < self.len()
            && l < self.len()
            && self.relation(b, l).is_some()
            && leak.path.first() == Some(&self.asn[l])
            && !leak.path.contains(&self.asn[b])
            && !(self.rov[b] && invalid)
    }
}

/// Extra copies of the origin's ASN an origination sends: toward listed neighbours, else `all`.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Prepend {
    pub all: u8,
    pub toward: Vec<(AsIx, u8)>,
}

impl Prepend {
    /// Extra copies toward neighbour `to`.
    pub fn extra(&self, to: AsIx) -> u16 {
        u16::from(self.toward.iter().find(|&&(n, _)| n == to).map_or(self.all, |&(_, k)| k))
    }
}

/// An AS originating the prefix with `path` (its own ASN first; usually alone).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Origination {
    pub at: AsIx,
    pub path: Vec<u32>,
    pub prepend: Prepend,
}

impl Origination {
    /// A plain origination by AS `at` numbered `asn`.
    pub fn plain(at: AsIx, asn: u32) -> Origination {
        Origination { at, path: vec![asn], prepend: Prepend::default() }
    }
}

/// A leaked route in `at`'s Adj-RIB-In as sent by neighbour `from`, with `from`'s frozen path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Leak {
    pub at: AsIx,
    pub from: AsIx,
    pub path: Vec<u32>,
}

/// Everything seeded for one prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seeds {
    pub prefix: IpNet,
    pub originations: Vec<Origination>,
    pub leaks: Vec<Leak>,
}

/// Why an AS holds its best route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pref {
    Provider = 1,
    Peer = 2,
    Customer = 3,
    Own = 4,
}

impl Pref {
    /// The preference of a route learned from a neighbour that is `rel` to the receiver.
    pub fn of(rel: Rel) -> Pref {
        match rel {
            Rel::Customer => Pref::Customer,
            Rel::Peer => Pref::Peer,
            Rel::Provider => Pref::Provider,
        }
    }
}

const NONE: u8 = 0;
const OWN: u8 = Pref::Own as u8;
const CUSTOMER: u8 = Pref::Customer as u8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    /// AS_PATH length of the route as held (the AS itself included).
    len: u16,
    /// [`Pref`] as a number, [`NONE`] without a route.
    pref: u8,
    /// Index of the seed: originations first, then leaks.
    seed: u16,
    /// The neighbour the route came from (the AS itself for an origination).
    via: u32,
}

const EMPTY: Slot = Slot { len: 0, pref: NONE, seed: 0, via: 0 };

/// One AS's best route, summarised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Best {
    pub pref: Pref,
    /// AS_PATH length, the AS itself included.
    pub len: usize,
    /// The neighbour it came from (`None` for an own origination).
    pub neighbour: Option<AsIx>,
}

/// The stable state of one prefix.
#[derive(Debug, Clone)]
pub struct PrefixState {
    seeds: Seeds,
    /// Shared between prefixes whose seeds and validity are the same (see [`stable_states`]).
    slots: Arc<[Slot]>,
}

impl PrefixState {
    /// The prefix.
    pub fn prefix(&self) -> IpNet {
        self.seeds.prefix
    }

    /// The seeds it was computed from.
    pub fn seeds(&self) -> &Seeds {
        &self.seeds
    }

    /// AS `a`'s best route, if it has one.
    pub fn best(&self, a: AsIx) -> Option<Best> {
        let s = self.slots.get(a).filter(|s| s.pref != NONE)?;
        let pref = match s.pref {
            OWN => Pref::Own,
            CUSTOMER => Pref::Customer,
            2 => Pref::Peer,
            _ => Pref::Provider,
        };
        Some(Best { pref, len: usize::from(s.len), neighbour: (s.pref != OWN).then_some(s.via as usize) })
    }

    /// The origin ASN of AS `a`'s best route (the last element of its path).
    pub fn origin(&self, a: AsIx) -> Option<u32> {
        let s = self.slots.get(a).filter(|s| s.pref != NONE)?;
        self.seed_path(s.seed).last().copied()
    }

    /// AS `a`'s best AS path, itself first and the origin last, prepends included.
    pub fn path(&self, g: &Graph, a: AsIx) -> Option<Vec<u32>> {
        self.path_from(g, a, None)
    }

    /// The path AS `a` sends neighbour `to`: its best path with the prepending an origination
    /// applies toward `to` (the same as [`PrefixState::path`] unless `a` originates).
    pub fn path_toward(&self, g: &Graph, a: AsIx, to: AsIx) -> Option<Vec<u32>> {
        self.path_from(g, a, Some(to))
    }

    fn path_from(&self, g: &Graph, a: AsIx, to: Option<AsIx>) -> Option<Vec<u32>> {
        let mut out = Vec::with_capacity(8);
        let (mut cur, mut prev) = (a, to);
        for _ in 0..=self.slots.len() {
            let s = *self.slots.get(cur).filter(|s| s.pref != NONE)?;
            if s.pref == OWN {
                let o = &self.seeds.originations[usize::from(s.seed)];
                let extra = prev.map_or(0, |p| o.prepend.extra(p));
                out.extend(std::iter::repeat_n(o.path[0], usize::from(extra) + 1));
                out.extend_from_slice(&o.path[1..]);
                return Some(out);
            }
            out.push(g.asn(cur));
            if let Some(l) = self.injected_leak(cur, s) {
                out.extend_from_slice(&l.path);
                return Some(out);
            }
            (prev, cur) = (Some(cur), s.via as usize);
        }
        None
    }

    fn seed_path(&self, seed: u16) -> &[u32] {
        let k = self.seeds.originations.len();
        let seed = usize::from(seed);
        if seed < k { &self.seeds.originations[seed].path } else { &self.seeds.leaks[seed - k].path }
    }

    /// The leak seeded at `a`, if `a`'s route is that leak itself (not a route learned from it).
    fn injected_leak(&self, a: AsIx, s: Slot) -> Option<&Leak> {
        let k = self.seeds.originations.len();
        let j = usize::from(s.seed).checked_sub(k)?;
        self.seeds.leaks.get(j).filter(|l| l.at == a)
    }
}

/// Computes the stable state of one prefix.
pub fn stable_state(g: &Graph, vrps: &Vrps, seeds: Seeds) -> PrefixState {
    let invalid = invalid_seeds(vrps, &seeds);
    let slots = compute(g, &seeds, &invalid);
    PrefixState { seeds, slots }
}

/// Computes the stable state of every prefix, in the order given.
///
/// The state depends on the prefix only through the RPKI validity of its seeds, so prefixes
/// with the same seeds and the same validity (an AS's IPv4 and IPv6 prefixes, its extra
/// blocks) share one computation.
pub fn stable_states(g: &Graph, vrps: &Vrps, all: Vec<Seeds>) -> Vec<PrefixState> {
    type Key = (Vec<Origination>, Vec<Leak>, Vec<bool>);
    let mut done: BTreeMap<Key, Arc<[Slot]>> = BTreeMap::new();
    all.into_iter()
        .map(|seeds| {
            let invalid = invalid_seeds(vrps, &seeds);
            let key = (seeds.originations.clone(), seeds.leaks.clone(), invalid);
            let slots = match done.get(&key) {
                Some(slots) => Arc::clone(slots),
                None => {
                    let slots = compute(g, &seeds, &key.2);
                    done.insert(key, Arc::clone(&slots));
                    slots
                }
            };
            PrefixState { seeds, slots }
        })
        .collect()
}

/// `invalid[seed]`: routes descending from that seed (originations, then leaks) are
/// RPKI-Invalid for the prefix.
fn invalid_seeds(vrps: &Vrps, seeds: &Seeds) -> Vec<bool> {
    let origin_invalid =
        |path: &[u32]| path.last().is_some_and(|&o| vrps.validate(seeds.prefix, o).is_invalid());
    (seeds.originations.iter().map(|o| origin_invalid(&o.path)))
        .chain(seeds.leaks.iter().map(|l| origin_invalid(&l.path)))
        .collect()
}

fn compute(g: &Graph, seeds: &Seeds, invalid: &[bool]) -> Arc<[Slot]> {
    let loops = !seeds.leaks.is_empty() || seeds.originations.iter().any(|o| o.path.len() > 1);
    let mut run = Run { g, seeds, invalid, loops, slots: vec![EMPTY; g.len()] };
    run.inject();
    run.phases();
    run.slots.into()
}

impl Topology {
    /// The seeds of the baseline: every prefix originated by its owner alone.
    pub fn baseline_seeds(&self) -> Vec<Seeds> {
        self.prefixes
            .iter()
            .map(|p| Seeds {
                prefix: p.net,
                originations: vec![Origination::plain(p.owner, self.ases[p.owner].asn)],
                leaks: Vec::new(),
            })
            .collect()
    }
}

/// The working state of one computation.
struct Run<'a> {
    g: &'a Graph,
    seeds: &'a Seeds,
    /// `invalid[seed]`: routes descending from that seed are RPKI-Invalid.
    invalid: &'a [bool],
    /// Whether a loop check can ever refuse a route here. Without leaks and with every
    /// origination's path its own AS alone, it cannot: a receiver already on the offered path
    /// holds a route the offer cannot beat. In pass 1 it would be a provider inside its own
    /// customer cone and in pass 3 a customer above its provider (both cycles in the p2c DAG);
    /// in pass 2 it holds an own or customer route, which beats a peer route. Then
    /// [`Run::better`] refuses first, and the walk down the chain is skipped.
    loops: bool,
    slots: Vec<Slot>,
}

impl Run<'_> {
    fn inject(&mut self) {
        let g = self.g;
        let total = self.seeds.originations.len() + self.seeds.leaks.len();
        if total > usize::from(u16::MAX) {
            return; // more seeds than a slot can name: nothing sane to compute
        }
        for (k, o) in self.seeds.originations.iter().enumerate() {
            let ok = o.at < g.len() && o.path.first() == Some(&g.asn(o.at)) && o.path.len() < 1000;
            if ok && self.slots[o.at].pref != OWN {
                let len = o.path.len() as u16;
                self.slots[o.at] = Slot { len, pref: OWN, seed: k as u16, via: o.at as u32 };
            }
        }
        let base = self.seeds.originations.len();
        for j in 0..self.seeds.leaks.len() {
            let l = &self.seeds.leaks[j];
            if !g.leak_fits(l, self.invalid[base + j]) || l.path.len() >= 1000 {
                continue;
            }
            let pref = g.relation(l.at, l.from).map_or(NONE, |r| Pref::of(r) as u8);
            let cand =
                Slot { len: l.path.len() as u16 + 1, pref, seed: (base + j) as u16, via: l.from as u32 };
            if self.better(cand, self.slots[l.at]) {
                self.slots[l.at] = cand;
            }
        }
    }

    fn phases(&mut self) {
        let g = self.g;
        for &a in &g.by_rank {
            let a = a as usize;
            if self.slots[a].pref >= CUSTOMER {
                self.export(a, g.providers.of(a), CUSTOMER);
            }
        }
        for a in 0..g.len() {
            if self.slots[a].pref >= CUSTOMER {
                self.export(a, g.peers.of(a), Pref::Peer as u8);
            }
        }
        for &a in g.by_rank.iter().rev() {
            let a = a as usize;
            if self.slots[a].pref != NONE {
                self.export(a, g.customers.of(a), Pref::Provider as u8);
            }
        }
    }

    /// Whether `cand` beats `cur` by preference, path length, then neighbour ASN.
    fn better(&self, cand: Slot, cur: Slot) -> bool {
        if cur.pref == NONE || cand.pref != cur.pref {
            return cand.pref > cur.pref;
        }
        if cand.len != cur.len {
            return cand.len < cur.len;
        }
        cur.pref != OWN && self.g.asn(cand.via as usize) < self.g.asn(cur.via as usize)
    }

    /// `from` offers its best route to each of `to`, who see `from` as `pref`. What does not
    /// depend on the receiver (validity, the base length) is worked out once.
    fn export(&mut self, from: AsIx, to: &[u32], pref: u8) {
        let (g, seeds) = (self.g, self.seeds);
        let s = self.slots[from];
        let invalid = self.invalid[usize::from(s.seed)];
        let prepend = (s.pref == OWN).then(|| &seeds.originations[usize::from(s.seed)].prepend);
        let base = Slot { len: s.len.saturating_add(1), pref, seed: s.seed, via: from as u32 };
        for &t in to {
            let t = t as usize;
            if invalid && g.rov[t] {
                continue;
            }
            let extra = prepend.map_or(0, |p| p.extra(t));
            let cand = Slot { len: base.len.saturating_add(extra), ..base };
            if self.better(cand, self.slots[t]) && !(self.loops && self.path_holds(from, g.asn[t])) {
                self.slots[t] = cand;
            }
        }
    }

    /// Whether AS `a`'s current path holds `asn`.
    fn path_holds(&self, mut a: AsIx, asn: u32) -> bool {
        let k = self.seeds.originations.len();
        for _ in 0..=self.slots.len() {
            if self.g.asn(a) == asn {
                return true;
            }
            let s = self.slots[a];
            let seed = usize::from(s.seed);
            if s.pref == OWN {
                return self.seeds.originations[seed].path.contains(&asn);
            }
            if seed >= k && self.seeds.leaks[seed - k].at == a {
                return self.seeds.leaks[seed - k].path.contains(&asn);
            }
            a = s.via as usize;
        }
        true // a chain longer than the graph is a bug; refusing the route is the safe answer
    }
}

#[cfg(test)]
mod tests;
