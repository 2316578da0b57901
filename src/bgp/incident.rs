//! Injecting one incident (or benign control) into a world: who does what to which prefix,
//! when, as timeline [`Change`]s, and the truth a verdict is scored against.
//!
//! Every random choice is made here, at generation, and stored: the victim and its prefix, the
//! offender, the leaker and its two neighbours, the times. A family that cannot be placed in
//! this world (no AS with two providers for a type-1 leak, no sibling for anycast, …) returns
//! `None` and the task redraws (see [`super::task`]).
//!
//! Times: the start `t_s` is drawn in the window, at least 10 minutes after its start and 20
//! minutes before its end. 60% of incidents that can end do so 600–10,800 s later if that is
//! still 10 minutes before the window's end; the others are ongoing (`end` is `None`). Benign
//! controls never end.
//!
//! The families, with V the victim origin, P its prefix, X the offender, L the leaker:
//! - EH: X (not V, not V's sibling) originates P too. SH: X originates P', 1–4 bits longer
//!   (at most /24 or /48). FO: X, not adjacent to V, announces P (from L3 also P' inside V's
//!   ROA maxLength) with the forged path `X V`.
//! - RL1–RL4: L hands the routes it learned from neighbour A to neighbour B, as one leaked
//!   route in B's Adj-RIB-In carrying L's frozen path; A and B are providers (type 1), peers
//!   (type 2), provider then peer (type 3), peer then provider (type 4). L1–L2 leak the
//!   victim's prefixes L learned from A, L3+ every route L learned from A. A, B and the victim
//!   prefix are drawn among the triples where B would prefer the leaked route to its own (a
//!   leak no one adopts cannot be seen).
//! - MS: V originates 2–8 more-specifics of P. OW: V withdraws P (L1) or all its prefixes.
//!   LF: a link a–b fails (the graph loses it). RM: V's ROA for P is replaced by one for
//!   another origin, or by a ROA for P's covering /(len−1) with that maxLength.
//! - BM: a ROA for P with a new origin W (V's sibling, else another network) appears 1–6 h
//!   before `t_s` (with one for V too if P had none); W originates P at `t_s`; V withdraws 10–60 min later. BA: V's sibling also
//!   originates P, with ROAs for both. BP: V prepends 1–3 times toward one provider.
//! - RO (re-origination, L3+): L, an AS on some vantage point's baseline path to P with at
//!   least two upstream neighbours (providers or peers), originates P itself to every neighbour
//!   while still forwarding traffic along its frozen pre-incident path, so that the origin
//!   changes to L but packets through L still reach V. Only traceroutes tell it from an
//!   exact-prefix hijack.
//!
//! **Visible leaks.** A leak handed to a peer (types 2 and 3) is only exported to that peer's
//! customers, so most placements change no vantage point's route. The leaker is therefore
//! taken from the candidates in a random order, and its triple drawn among those whose
//! post-leak state changes enough vantage points' views (two at L1–L2, one from L3): up to
//! [`LEAK_TRIES`] draws per leaker without replacement, four times that in all.

use std::sync::Arc;

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

use super::clock::Clock;
use super::family::Family;
use super::level::Level;
use super::routing::{Graph, Leak, Origination, PrefixState, Prepend, Seeds, stable_state};
use super::rpki::{Roa, Vrps};
use super::timeline::{Change, Failure, vp_view};
use super::topology::{AsIx, Rel, Topology};
use super::world::World;
use crate::seed::Stream;

/// How many leak placements are tried for visibility before the family redraws.
pub const LEAK_TRIES: usize = 12;

/// What a verdict must name for the verdict to be correct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Culprit {
    /// `offender_asn`.
    Offender(AsIx),
    /// `link`, an unordered pair.
    Link(AsIx, AsIx),
    /// `victim_asn` (a ROA misconfiguration).
    Victim(AsIx),
    /// Nothing: the truth is `none`.
    Nobody,
}

/// A route leak's parties and what it carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeakInfo {
    pub leaker: AsIx,
    /// The neighbour the routes were learned from.
    pub from: AsIx,
    /// The neighbour they were leaked to.
    pub to: AsIx,
    /// Each leaked prefix with L's frozen path (L first).
    pub routes: Vec<(IpNet, Vec<u32>)>,
}

/// One injected incident or benign control.
#[derive(Debug, Clone)]
pub struct Incident {
    pub family: Family,
    pub victim: AsIx,
    /// The victim prefix (P).
    pub prefix: IpNet,
    pub culprit: Culprit,
    pub start: u64,
    pub end: Option<u64>,
    /// The changes, in time order; `changes[start_change]` happens at `start`.
    pub changes: Vec<Change>,
    pub start_change: usize,
    /// Every prefix whose routes the incident changes (P, more-specifics, leaked prefixes).
    pub prefixes: Vec<IpNet>,
    /// The ASes the incident involves (victim, offender, leaker and its neighbours, link ends).
    pub ases: Vec<AsIx>,
    pub leak: Option<LeakInfo>,
    /// ROAs published by the incident and when (BM, BA).
    pub new_roas: Vec<(u64, Roa)>,
    /// The ROA set from the start on, if the incident changes it (RM).
    pub vrps_after: Option<Arc<Vrps>>,
    /// The graph from the start on, if the incident changes it (LF).
    pub graph_after: Option<Arc<Graph>>,
    /// The offender's (or benign newcomer's) origination, for evidence checks.
    pub new_origin: Option<AsIx>,
    /// The forged adjacency `X V` (FO).
    pub forged: Option<(AsIx, AsIx)>,
    /// The re-originator's frozen forwarding path toward V, L first (RO).
    pub frozen: Option<Vec<u32>>,
}

/// What drawing an incident reads.
pub struct Ctx<'a> {
    pub world: &'a World,
    /// The baseline stable state of each prefix, in allocation order.
    pub base: &'a [PrefixState],
    /// Event names are prefixed with this (`target`, `distractor`).
    pub name: &'a str,
}

impl Ctx<'_> {
    fn t(&self) -> &Topology {
        &self.world.topology
    }

    fn asn(&self, a: AsIx) -> u32 {
        self.t().ases[a].asn
    }

    fn level(&self) -> Level {
        self.t().level
    }

    fn seeds_of(&self, p: IpNet) -> Seeds {
        self.state(p).map_or_else(|| empty(p), |st| st.seeds().clone())
    }

    fn state(&self, p: IpNet) -> Option<&PrefixState> {
        let k = self.t().prefixes.iter().position(|x| x.net == p)?;
        self.base.get(k)
    }

    fn change(&self, t: u64, what: &str, at: Vec<AsIx>, seeds: Vec<Seeds>) -> Change {
        let name = format!("{}-{what}", self.name);
        Change { t, name, at, seeds, graph: None, vrps: None, failure: None }
    }

    fn siblings(&self, a: AsIx) -> Vec<AsIx> {
        let org = self.t().ases[a].org;
        self.t().orgs[org].ases.iter().copied().filter(|&b| b != a).collect()
    }

    fn by_rel(&self, a: AsIx, rel: Rel) -> Vec<AsIx> {
        self.t().neighbours(a).iter().filter(|&&(_, r)| r == rel).map(|&(n, _)| n).collect()
    }

    /// The victim prefix, uniform over every baseline prefix, and its owner.
    fn victim(&self, s: &mut Stream) -> (AsIx, IpNet) {
        let t = self.t();
        let k = s.index(t.prefixes.len());
        let v = t.prefixes[k].owner;
        (v, t.prefixes[k].net)
    }

    fn prefixes_of(&self, v: AsIx) -> Vec<IpNet> {
        self.t().prefixes.iter().filter(|p| p.owner == v).map(|p| p.net).collect()
    }
}

fn empty(p: IpNet) -> Seeds {
    Seeds { prefix: p, originations: Vec::new(), leaks: Vec::new() }
}

fn with_origin(mut s: Seeds, o: Origination) -> Seeds {
    s.originations.push(o);
    s
}

/// Draws `family`'s parameters in `ctx`'s world; `None` when it cannot be placed.
pub fn draw(s: &mut Stream, ctx: &Ctx<'_>, family: Family) -> Option<Incident> {
    let (start, end) = times(s, &ctx.world.clock, !family.is_benign());
    let (v, p) = ctx.victim(s);
    let base = Incident {
        family,
        victim: v,
        prefix: p,
        culprit: Culprit::Nobody,
        start,
        end,
        changes: Vec::new(),
        start_change: 0,
        prefixes: vec![p],
        ases: vec![v],
        leak: None,
        new_roas: Vec::new(),
        vrps_after: None,
        graph_after: None,
        new_origin: None,
        forged: None,
        frozen: None,
    };
    match family {
        Family::Eh => hijack(s, ctx, base, false),
        Family::Sh => hijack(s, ctx, base, true),
        Family::Fo => forged(s, ctx, base),
        Family::Rl1 | Family::Rl2 | Family::Rl3 | Family::Rl4 => leak(s, ctx, base),
        Family::Ms => more_specifics(s, ctx, base),
        Family::Ow => outage(ctx, base),
        Family::Lf => link_failure(s, ctx, base),
        Family::Rm => roa_misconfiguration(s, ctx, base),
        Family::Bm => migration(s, ctx, base),
        Family::Ba => anycast(ctx, base),
        Family::Bp => prepending(s, ctx, base),
        Family::Ro => reorigination(s, ctx, base),
    }
}

/// `(t_s, t_e)`: see the module doc.
fn times(s: &mut Stream, c: &Clock, can_end: bool) -> (u64, Option<u64>) {
    let span = c.end() - c.w0;
    let start = c.w0 + 600 + s.below(span.saturating_sub(1800).max(1));
    let ends = s.chance(6, 10);
    let length = s.range(600, 10_800);
    let end = (can_end && ends && start + length + 600 <= c.end()).then_some(start + length);
    (start, end)
}

/// The start change, then (if the incident ends) the change restoring the baseline seeds.
fn start_and_end(ctx: &Ctx<'_>, mut inc: Incident, at: Vec<AsIx>, seeds: Vec<Seeds>) -> Incident {
    let restore: Vec<Seeds> = seeds.iter().map(|x| ctx.seeds_of(x.prefix)).collect();
    inc.changes.push(ctx.change(inc.start, "start", at.clone(), seeds));
    if let Some(e) = inc.end {
        inc.changes.push(ctx.change(e, "end", at, restore));
    }
    inc
}

/// An AS other than `v` and its siblings, drawn uniformly.
fn outsider(s: &mut Stream, ctx: &Ctx<'_>, v: AsIx, also_not: &[AsIx]) -> Option<AsIx> {
    let sib = ctx.siblings(v);
    let pool: Vec<AsIx> =
        (0..ctx.t().len()).filter(|&a| a != v && !sib.contains(&a) && !also_not.contains(&a)).collect();
    (!pool.is_empty()).then(|| *s.choose(&pool))
}

/// A more-specific of `p`, `extra` bits longer (at most /24 or /48), drawn among its subnets.
fn subnet(s: &mut Stream, p: IpNet, extra: u8) -> Option<IpNet> {
    let cap = if p.addr().is_ipv4() { 24 } else { 48 };
    let len = p.prefix_len() + extra;
    if len > cap {
        return None;
    }
    let k = s.below(1 << extra) as u128;
    Some(match p {
        IpNet::V4(n) => {
            let step = 1u128 << (32 - len);
            IpNet::V4(Ipv4Net::new((u32::from(n.network()) + (k * step) as u32).into(), len).ok()?)
        }
        IpNet::V6(n) => {
            let step = 1u128 << (128 - len);
            IpNet::V6(Ipv6Net::new((u128::from(n.network()) + k * step).into(), len).ok()?)
        }
    })
}

fn hijack(s: &mut Stream, ctx: &Ctx<'_>, mut inc: Incident, sub: bool) -> Option<Incident> {
    let x = outsider(s, ctx, inc.victim, &[])?;
    let target = if sub {
        let extra = s.range(1, 4) as u8;
        let q = subnet(s, inc.prefix, extra)?;
        inc.prefixes = vec![q];
        with_origin(empty(q), Origination::plain(x, ctx.asn(x)))
    } else {
        with_origin(ctx.seeds_of(inc.prefix), Origination::plain(x, ctx.asn(x)))
    };
    inc.culprit = Culprit::Offender(x);
    inc.new_origin = Some(x);
    inc.ases.push(x);
    Some(start_and_end(ctx, inc, vec![x], vec![target]))
}

fn forged(s: &mut Stream, ctx: &Ctx<'_>, mut inc: Incident) -> Option<Incident> {
    let v = inc.victim;
    let adjacent: Vec<AsIx> = ctx.t().neighbours(v).iter().map(|&(n, _)| n).collect();
    let x = outsider(s, ctx, v, &adjacent)?;
    let roa_max = ctx.t().roas.iter().filter(|r| r.prefix == inc.prefix).map(|r| r.max_len).max();
    let mut q = inc.prefix;
    if ctx.level() >= Level::L3
        && s.chance(1, 2)
        && let Some(m) = roa_max.filter(|&m| m > inc.prefix.prefix_len())
    {
        let extra = s.range(1, u64::from(m - inc.prefix.prefix_len())) as u8;
        q = subnet(s, inc.prefix, extra)?;
    }
    let o = Origination { at: x, path: vec![ctx.asn(x), ctx.asn(v)], prepend: Prepend::default() };
    let seeds = if q == inc.prefix { with_origin(ctx.seeds_of(q), o) } else { with_origin(empty(q), o) };
    inc.prefixes = vec![q];
    inc.culprit = Culprit::Offender(x);
    inc.forged = Some((x, v));
    inc.new_origin = Some(x);
    inc.ases.push(x);
    Some(start_and_end(ctx, inc, vec![x], vec![seeds]))
}

/// Whether `b` would prefer the route `l` leaks to it (`path`, `l` first) to its own in `st`.
fn adopts(ctx: &Ctx<'_>, st: &PrefixState, b: AsIx, l: AsIx, path: &[u32]) -> bool {
    let Some(rel) = ctx.t().relation(b, l) else { return false };
    if path.contains(&ctx.asn(b)) {
        return false;
    }
    let (pref, len) = (super::routing::Pref::of(rel), path.len() + 1);
    match st.best(b) {
        None => true,
        Some(cur) if cur.pref != pref => pref > cur.pref,
        Some(cur) if cur.len != len => len < cur.len,
        Some(cur) => cur.neighbour.is_some_and(|n| ctx.asn(l) < ctx.asn(n)),
    }
}

/// The relationships a leak of `family` takes routes from and hands them to.
fn leak_rels(family: Family) -> (Rel, Rel) {
    match family {
        Family::Rl1 => (Rel::Provider, Rel::Provider),
        Family::Rl2 => (Rel::Peer, Rel::Peer),
        Family::Rl3 => (Rel::Provider, Rel::Peer),
        _ => (Rel::Peer, Rel::Provider),
    }
}

fn leak(s: &mut Stream, ctx: &Ctx<'_>, mut inc: Incident) -> Option<Incident> {
    let (from_rel, to_rel) = leak_rels(inc.family);
    let t = ctx.t();
    // The leaker: an AS with a `from_rel` neighbour A and another `to_rel` one B.
    let pairs = |l: AsIx| -> Vec<(AsIx, Vec<AsIx>)> {
        let to = ctx.by_rel(l, to_rel);
        let mut out = Vec::new();
        for a in ctx.by_rel(l, from_rel) {
            let bs: Vec<AsIx> = to.iter().copied().filter(|&b| b != a).collect();
            if !bs.is_empty() {
                out.push((a, bs));
            }
        }
        out
    };
    let leakers: Vec<AsIx> = (0..t.len()).filter(|&l| !pairs(l).is_empty()).collect();
    if leakers.is_empty() {
        return None;
    }
    // Leakers in a random order; the first with a visible placement leaks.
    let mut budget = LEAK_TRIES * 4;
    let mut found = None;
    for i in s.subset(leakers.len(), leakers.len()) {
        let l = leakers[i];
        let triples = adopted_triples(ctx, l, pairs(l));
        if let Some(tr) = visible_triple(s, ctx, l, triples, &mut budget) {
            found = Some((l, tr));
            break;
        }
        if budget == 0 {
            return None;
        }
    }
    let (l, (a, b, k)) = found?;
    let all: Vec<usize> =
        (0..ctx.base.len()).filter(|&j| ctx.base[j].best(l).and_then(|x| x.neighbour) == Some(a)).collect();
    let victim = t.prefixes[k].owner;
    let scope: Vec<usize> = if ctx.level() >= Level::L3 {
        all
    } else {
        all.into_iter().filter(|&j| t.prefixes[j].owner == victim).collect()
    };
    let mut routes = Vec::new();
    let mut seeds = Vec::new();
    for j in scope {
        let st = &ctx.base[j];
        let path = st.path(&ctx.world.graph, l)?;
        let mut sd = st.seeds().clone();
        sd.leaks.push(Leak { at: b, from: l, path: path.clone() });
        routes.push((st.prefix(), path));
        seeds.push(sd);
    }
    inc.victim = victim;
    inc.prefix = t.prefixes[k].net;
    inc.prefixes = routes.iter().map(|r| r.0).collect();
    inc.culprit = Culprit::Offender(l);
    inc.ases = vec![victim, l, a, b];
    inc.leak = Some(LeakInfo { leaker: l, from: a, to: b, routes });
    Some(start_and_end(ctx, inc, vec![l], seeds))
}

/// (A, B, prefix index) triples where B would prefer the route `l` learned from A to what it
/// holds: a leak nobody adopts is invisible by construction.
fn adopted_triples(ctx: &Ctx<'_>, l: AsIx, pairs: Vec<(AsIx, Vec<AsIx>)>) -> Vec<(AsIx, AsIx, usize)> {
    let g = &ctx.world.graph;
    let mut triples = Vec::new();
    for (a, bs) in pairs {
        for k in (0..ctx.base.len()).filter(|&k| ctx.base[k].best(l).and_then(|b| b.neighbour) == Some(a)) {
            let Some(path) = ctx.base[k].path(g, l) else { continue };
            for &b in &bs {
                if adopts(ctx, &ctx.base[k], b, l, &path) {
                    triples.push((a, b, k));
                }
            }
        }
    }
    triples
}

/// Draws among `triples` (A, B, prefix index) without replacement until one whose leak changes
/// enough vantage points' views, at most [`LEAK_TRIES`] times and within `budget` checks
/// overall.
fn visible_triple(
    s: &mut Stream,
    ctx: &Ctx<'_>,
    l: AsIx,
    mut triples: Vec<(AsIx, AsIx, usize)>,
    budget: &mut usize,
) -> Option<(AsIx, AsIx, usize)> {
    let need = if ctx.level() <= Level::L2 { 2 } else { 1 };
    let w = ctx.world;
    for _ in 0..LEAK_TRIES {
        if triples.is_empty() || *budget == 0 {
            return None;
        }
        *budget -= 1;
        let (a, b, k) = triples.swap_remove(s.index(triples.len()));
        let before = &ctx.base[k];
        let Some(path) = before.path(&w.graph, l) else { continue };
        let mut seeds = before.seeds().clone();
        seeds.leaks.push(Leak { at: b, from: l, path });
        let after = stable_state(&w.graph, &w.vrps, seeds);
        let changed = w
            .collectors
            .vps
            .iter()
            .filter(|vp| vp_view(&w.graph, before, vp) != vp_view(&w.graph, &after, vp))
            .count();
        if changed >= need {
            return Some((a, b, k));
        }
    }
    None
}

fn reorigination(s: &mut Stream, ctx: &Ctx<'_>, mut inc: Incident) -> Option<Incident> {
    let (v, p) = (inc.victim, inc.prefix);
    let g = &ctx.world.graph;
    let st = ctx.state(p)?;
    let sib = ctx.siblings(v);
    let upstreams = |a: AsIx| ctx.by_rel(a, Rel::Provider).len() + ctx.by_rel(a, Rel::Peer).len();
    let mut on_paths: Vec<AsIx> = ctx
        .world
        .collectors
        .vps
        .iter()
        .filter_map(|vp| st.path(g, vp.asx))
        .flat_map(|path| path.into_iter().filter_map(|asn| ctx.t().index_of(asn)))
        .filter(|&a| a != v && !sib.contains(&a) && upstreams(a) >= 2)
        .collect();
    on_paths.sort_unstable();
    on_paths.dedup();
    if on_paths.is_empty() {
        return None;
    }
    let l = *s.choose(&on_paths);
    inc.frozen = Some(st.path(g, l)?);
    let seeds = with_origin(ctx.seeds_of(p), Origination::plain(l, ctx.asn(l)));
    inc.culprit = Culprit::Offender(l);
    inc.new_origin = Some(l);
    inc.ases.push(l);
    Some(start_and_end(ctx, inc, vec![l], vec![seeds]))
}

fn more_specifics(s: &mut Stream, ctx: &Ctx<'_>, mut inc: Incident) -> Option<Incident> {
    let count = s.range(2, 8);
    let extra = (64 - (count - 1).leading_zeros()) as u8 + s.below(2) as u8; // 2^extra >= count
    let cap = if inc.prefix.addr().is_ipv4() { 24 } else { 48 };
    if inc.prefix.prefix_len() + extra > cap {
        return None;
    }
    let picks = s.subset(1 << extra, count as usize);
    let mut nets: Vec<IpNet> =
        picks.into_iter().filter_map(|k| nth_subnet(inc.prefix, extra, k as u128)).collect();
    nets.sort();
    let v = inc.victim;
    let seeds = nets.iter().map(|&q| with_origin(empty(q), Origination::plain(v, ctx.asn(v)))).collect();
    inc.prefixes = nets;
    inc.culprit = Culprit::Offender(v);
    inc.new_origin = Some(v);
    Some(start_and_end(ctx, inc, vec![v], seeds))
}

fn nth_subnet(p: IpNet, extra: u8, k: u128) -> Option<IpNet> {
    p.subnets(p.prefix_len() + extra).ok()?.nth(k as usize)
}

fn outage(ctx: &Ctx<'_>, mut inc: Incident) -> Option<Incident> {
    let v = inc.victim;
    let gone = if ctx.level() == Level::L1 { vec![inc.prefix] } else { ctx.prefixes_of(v) };
    inc.prefixes = gone.clone();
    inc.culprit = Culprit::Offender(v);
    let seeds = gone.into_iter().map(empty).collect();
    let mut inc = start_and_end(ctx, inc, vec![v], seeds);
    inc.changes[0].failure = Some(Failure::Origin(ctx.asn(v)));
    Some(inc)
}

fn link_failure(s: &mut Stream, ctx: &Ctx<'_>, mut inc: Incident) -> Option<Incident> {
    let t = ctx.t();
    let g = &ctx.world.graph;
    // A link some VP's baseline path crosses, so that losing it shows.
    let vps: Vec<AsIx> = ctx.world.collectors.vps.iter().map(|v| v.asx).collect();
    let used = |k: usize, link: usize| {
        let (a, b) = (ctx.asn(t.links[link].a), ctx.asn(t.links[link].b));
        vps.iter().any(|&vp| ctx.base[k].path(g, vp).is_some_and(|p| Failure::Link(a, b).used_by(&p)))
    };
    let k = t.prefixes.iter().position(|p| p.net == inc.prefix)?;
    let links: Vec<usize> = (0..t.links.len()).filter(|&i| used(k, i)).collect();
    if links.is_empty() {
        return None;
    }
    let li = *s.choose(&links);
    let (a, b) = (t.links[li].a, t.links[li].b);
    let mut kept = t.clone();
    kept.links.remove(li);
    let kept = Topology::from_parts(
        kept.level,
        kept.ases,
        kept.links,
        kept.ixps,
        kept.orgs,
        kept.prefixes,
        kept.roas,
        kept.rov,
    );
    let graph = Arc::new(Graph::from_topology(&kept));
    let all: Vec<Seeds> = ctx.base.iter().map(|st| st.seeds().clone()).collect();
    inc.culprit = Culprit::Link(a, b);
    inc.ases = vec![inc.victim, a, b];
    inc.graph_after = Some(Arc::clone(&graph));
    let mut inc = start_and_end(ctx, inc, vec![a, b], all);
    inc.changes[0].graph = Some(graph);
    inc.changes[0].failure = Some(Failure::Link(ctx.asn(a), ctx.asn(b)));
    if let Some(c) = inc.changes.get_mut(1) {
        c.graph = Some(Arc::clone(&ctx.world.graph));
    }
    Some(inc)
}

fn roa_misconfiguration(s: &mut Stream, ctx: &Ctx<'_>, mut inc: Incident) -> Option<Incident> {
    let t = ctx.t();
    let old = *t.roas.iter().find(|r| r.prefix == inc.prefix)?;
    let v = inc.victim;
    let new = if s.chance(1, 2) {
        let other = outsider(s, ctx, v, &[])?;
        Roa { origin: ctx.asn(other), ..old }
    } else {
        let len = inc.prefix.prefix_len().checked_sub(1)?;
        Roa { prefix: inc.prefix.supernet()?.trunc(), origin: old.origin, max_len: len }
    };
    let roas: Vec<Roa> = t.roas.iter().map(|&r| if r == old { new } else { r }).collect();
    let vrps = Arc::new(Vrps::new(&roas));
    // Every prefix the old or new ROA covers may change validity.
    let touched: Vec<Seeds> = t
        .prefixes
        .iter()
        .filter(|p| new.prefix.contains(&p.net) || old.prefix.contains(&p.net))
        .map(|p| ctx.seeds_of(p.net))
        .collect();
    inc.prefixes = touched.iter().map(|x| x.prefix).collect();
    inc.culprit = Culprit::Victim(v);
    inc.vrps_after = Some(Arc::clone(&vrps));
    let mut inc = start_and_end(ctx, inc, vec![v], touched);
    inc.changes[0].vrps = Some(vrps);
    inc.changes[0].failure = Some(Failure::Origin(ctx.asn(v)));
    if let Some(c) = inc.changes.get_mut(1) {
        c.vrps = Some(Arc::clone(&ctx.world.vrps));
    }
    Some(inc)
}

fn migration(s: &mut Stream, ctx: &Ctx<'_>, mut inc: Incident) -> Option<Incident> {
    let v = inc.victim;
    let sib = ctx.siblings(v);
    let w = match sib.first() {
        Some(&w) => w,
        None => outsider(s, ctx, v, &[])?,
    };
    let roa_at = inc.start - s.range(3600, 6 * 3600);
    let handover = inc.start + s.range(600, 3600);
    let p = inc.prefix;
    let roa = Roa { prefix: p, origin: ctx.asn(w), max_len: p.prefix_len() };
    let mut roas = ctx.t().roas.clone();
    let mut new_roas = vec![(roa_at, roa)];
    if !roas.iter().any(|r| r.prefix.contains(&p)) {
        // An unsigned prefix gets a ROA for its current origin too, or the new one would make
        // the current route Invalid an hour early.
        let keep = Roa { origin: ctx.asn(v), ..roa };
        roas.push(keep);
        new_roas.push((roa_at, keep));
    }
    roas.push(roa);
    let vrps = Arc::new(Vrps::new(&roas));
    let mut publish = ctx.change(roa_at, "roa", vec![w], vec![ctx.seeds_of(p)]);
    publish.vrps = Some(vrps);
    let both = with_origin(ctx.seeds_of(p), Origination::plain(w, ctx.asn(w)));
    let only_w = with_origin(empty(p), Origination::plain(w, ctx.asn(w)));
    let mut withdraw = ctx.change(handover, "handover", vec![v], vec![only_w]);
    withdraw.failure = Some(Failure::Origin(ctx.asn(v)));
    inc.changes = vec![publish, ctx.change(inc.start, "start", vec![w], vec![both]), withdraw];
    inc.start_change = 1;
    inc.new_roas = new_roas;
    inc.new_origin = Some(w);
    inc.ases.push(w);
    Some(inc)
}

fn anycast(ctx: &Ctx<'_>, mut inc: Incident) -> Option<Incident> {
    let v = inc.victim;
    let w = *ctx.siblings(v).first()?;
    let p = ctx
        .t()
        .prefixes
        .iter()
        .find(|x| x.owner == v && x.anycast_ready && x.net.addr().is_ipv4() == inc.prefix.addr().is_ipv4())
        .map_or(inc.prefix, |x| x.net);
    inc.prefix = p;
    inc.prefixes = vec![p];
    let mut roas = ctx.t().roas.clone();
    let mut new_roas = Vec::new();
    for origin in [v, w] {
        let roa = Roa { prefix: p, origin: ctx.asn(origin), max_len: p.prefix_len() };
        if !roas.iter().any(|r| r.prefix == p && r.origin == roa.origin) {
            roas.push(roa);
            new_roas.push((inc.start, roa));
        }
    }
    let both = with_origin(ctx.seeds_of(p), Origination::plain(w, ctx.asn(w)));
    let mut ch = ctx.change(inc.start, "start", vec![w], vec![both]);
    ch.vrps = (!new_roas.is_empty()).then(|| Arc::new(Vrps::new(&roas)));
    inc.changes = vec![ch];
    inc.new_roas = new_roas;
    inc.new_origin = Some(w);
    inc.ases.push(w);
    Some(inc)
}

fn prepending(s: &mut Stream, ctx: &Ctx<'_>, mut inc: Incident) -> Option<Incident> {
    let v = inc.victim;
    let providers = ctx.by_rel(v, Rel::Provider);
    if providers.is_empty() {
        return None;
    }
    let toward = *s.choose(&providers);
    let k = s.range(1, 3) as u8;
    let mut seeds = ctx.seeds_of(inc.prefix);
    for o in seeds.originations.iter_mut().filter(|o| o.at == v) {
        o.prepend = Prepend { all: 0, toward: vec![(toward, k)] };
    }
    inc.ases.push(toward);
    inc.changes = vec![ctx.change(inc.start, "start", vec![v], vec![seeds])];
    Some(inc)
}

#[cfg(test)]
mod tests;
