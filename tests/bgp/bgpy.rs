//! The differential test: our routing model against BGPy (bgpy-pkg 13.0.x) on seeded
//! topologies, every AS's best path for every seeded prefix, absence included, 100% agreement.
//!
//! Each topology gives three cases: the baseline (every prefix by its owner), an attack mix
//! (half the ASes deploy ROV; exact-prefix, sub-prefix and forged-origin hijacks, origin
//! prepending, loose and wrong ROAs) and route leaks (a leaker hands its pre-incident path to a
//! provider or peer). Large topologies seed a sample of 40 prefixes to keep BGPy's time down.
//!
//! Sizes: 200 topologies, 150 of 20–60 ASes and 50 of 200–600 (about 25 s with BGPy on two
//! cores); `NETPRESS_BGPY_TOPOLOGIES=N` runs N, three quarters small (scripts/bgp-bgpy-long.sh
//! runs 1,000).
//!
//! A disagreement fails with the smallest case that still shows it: first reduced to the one
//! prefix, then ASes that no seed names are removed in halving chunks, at most 40 reruns.

use std::time::Instant;

use ipnet::IpNet;
use netpress::bgp::routing::{Graph, Leak, Pref, stable_state};
use netpress::bgp::{Level, Roa, Topology, Vrps};
use netpress::seed::{Stream, Width};

use crate::case::{Case, LeakSpec, Ribs, SeedSpec};
use crate::oracle;

const SAMPLE: usize = 40;
const RERUNS: usize = 40;

fn topology(k: u64, large: bool) -> Topology {
    let mut s =
        Stream::new(&format!("netpress|bgp|bgpy|{}|s{k}", if large { "large" } else { "small" }), Width::W32);
    let n = if large { s.range(200, 600) } else { s.range(20, 60) };
    let level = if large {
        Level::L3
    } else if k.is_multiple_of(2) {
        Level::L1
    } else {
        Level::L2
    };
    Topology::generate(&mut s, level, Some(n)).expect("generates")
}

/// The baseline seeds of `t`, all of them or a sample of [`SAMPLE`].
fn base_seeds(s: &mut Stream, t: &Topology) -> Vec<SeedSpec> {
    let mut picks: Vec<usize> = if t.prefixes.len() > SAMPLE {
        s.subset(t.prefixes.len(), SAMPLE)
    } else {
        (0..t.prefixes.len()).collect()
    };
    picks.sort_unstable();
    picks
        .into_iter()
        .map(|i| {
            let p = &t.prefixes[i];
            SeedSpec {
                asn: t.ases[p.owner].asn,
                prefix: p.net,
                path: vec![t.ases[p.owner].asn],
                all: 0,
                toward: vec![],
            }
        })
        .collect()
}

pub(crate) fn cases(k: u64, large: bool) -> Vec<Case> {
    let t = topology(k, large);
    let mut s = Stream::new(&format!("netpress|bgp|bgpy-case|{large}|s{k}"), Width::W32);
    let id = |v: &str| format!("{}{k}-{v}-n{}", if large { "large" } else { "small" }, t.len());
    let mut base = Case::from_topology(id("base"), &t);
    base.seeds = base_seeds(&mut s, &t);
    let attack = attack(&mut s, &t, &base, id("attack"));
    let leak = leaks(&mut s, &t, &base, id("leak"));
    vec![base, attack, leak]
}

/// A more specific of `p`, 1–4 bits longer, capped at /24 or /48.
fn more_specific(s: &mut Stream, p: IpNet) -> Option<IpNet> {
    let cap = if p.addr().is_ipv4() { 24 } else { 48 };
    let len = (p.prefix_len() + 1 + s.below(4) as u8).min(cap);
    (len > p.prefix_len()).then(|| IpNet::new(p.addr(), len).ok()).flatten()
}

fn attack(s: &mut Stream, t: &Topology, base: &Case, id: String) -> Case {
    let mut c = base.clone();
    c.id = id;
    c.rov = t.ases.iter().filter(|_| s.chance(1, 2)).map(|a| a.asn).collect();
    let victims = c.seeds.clone();
    for v in &victims {
        let x = t.ases[s.index(t.len())].asn;
        match s.below(6) {
            0 if x != v.asn => c.seeds.push(SeedSpec { asn: x, path: vec![x], ..v.clone() }),
            1 if x != v.asn => {
                if let Some(sub) = more_specific(s, v.prefix) {
                    c.seeds.push(SeedSpec { asn: x, prefix: sub, path: vec![x], all: 0, toward: vec![] });
                }
            }
            2 if x != v.asn => c.seeds.push(SeedSpec { asn: x, path: vec![x, v.asn], ..v.clone() }),
            3 => prepend(s, t, &mut c, v),
            4 => roa_change(s, t, &mut c, v),
            _ => {}
        }
    }
    c
}

/// The victim prepends 1–3 times toward one neighbour, or toward all.
fn prepend(s: &mut Stream, t: &Topology, c: &mut Case, v: &SeedSpec) {
    let Some(i) = t.index_of(v.asn) else { return };
    let times = s.range(1, 3) as u8;
    let seed = c.seeds.iter_mut().find(|x| x.asn == v.asn && x.prefix == v.prefix).expect("victim seed");
    let nbrs = t.neighbours(i);
    if s.chance(1, 2) || nbrs.is_empty() {
        seed.all = times;
    } else {
        seed.toward = vec![(t.ases[nbrs[s.index(nbrs.len())].0].asn, times)];
    }
}

/// A loose ROA for an uncovered prefix, or a covering ROA rewritten to a wrong origin.
fn roa_change(s: &mut Stream, t: &Topology, c: &mut Case, v: &SeedSpec) {
    let cap = if v.prefix.addr().is_ipv4() { 24 } else { 48 };
    match c.roas.iter_mut().find(|r| r.prefix == v.prefix) {
        Some(r) => r.origin = t.ases[s.index(t.len())].asn,
        None => c.roas.push(Roa {
            prefix: v.prefix,
            origin: v.asn,
            max_len: (v.prefix.prefix_len() + 2).min(cap),
        }),
    }
}

/// Up to three leaks: an AS holding a provider or peer route hands its path to another provider
/// or peer (the valleys route leaks make).
fn leaks(s: &mut Stream, t: &Topology, base: &Case, id: String) -> Case {
    let mut c = base.clone();
    c.id = id;
    let g = c.graph();
    let vrps = Vrps::new(&c.roas);
    let all = c.seeds(&g);
    for _ in 0..3 {
        let seeds = all[s.index(all.len())].clone();
        let prefix = seeds.prefix;
        let st = stable_state(&g, &vrps, seeds);
        let leakers: Vec<usize> = (0..g.len())
            .filter(|&a| st.best(a).is_some_and(|b| matches!(b.pref, Pref::Provider | Pref::Peer)))
            .collect();
        if leakers.is_empty() {
            continue;
        }
        let l = leakers[s.index(leakers.len())];
        let came_from = st.best(l).and_then(|b| b.neighbour);
        let upward: Vec<usize> = (t.neighbours(l).iter())
            .filter(|&&(n, rel)| rel != netpress::bgp::Rel::Customer && Some(n) != came_from)
            .map(|&(n, _)| n)
            .collect();
        if upward.is_empty() {
            continue;
        }
        let b = upward[s.index(upward.len())];
        let path = st.path(&g, l).expect("leaker has a route");
        let leak = Leak { at: b, from: l, path: path.clone() };
        if g.accepts_leak(&vrps, prefix, &leak)
            && !c.leaks.iter().any(|x| x.at == g.asn(b) && x.prefix == prefix)
        {
            c.leaks.push(LeakSpec { at: g.asn(b), from: g.asn(l), prefix, path });
        }
    }
    c
}

/// One difference between the two answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mismatch {
    pub asn: u32,
    pub prefix: String,
    pub ours: Option<Vec<u32>>,
    pub bgpy: Option<Vec<u32>>,
}

pub(crate) fn mismatches(ours: &Ribs, bgpy: &Ribs) -> Vec<Mismatch> {
    let mut keys: Vec<&(u32, String)> = ours.keys().chain(bgpy.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .filter(|k| ours.get(k) != bgpy.get(k))
        .map(|k| Mismatch {
            asn: k.0,
            prefix: k.1.clone(),
            ours: ours.get(k).cloned(),
            bgpy: bgpy.get(k).cloned(),
        })
        .collect()
}

/// The first mismatch of `c` after a fresh run of both, if any.
pub(crate) fn rerun(python: &std::path::PathBuf, c: &Case) -> Option<Mismatch> {
    let theirs = oracle::run(python, std::slice::from_ref(c)).pop().expect("one answer");
    mismatches(&c.ours(), &theirs).into_iter().next()
}

/// The smallest case found within [`RERUNS`] calls of `check` that still disagrees, its first
/// mismatch and the number of reruns: other prefixes go first (all at once, then halves,
/// quarters...), then ASes no seed names.
pub(crate) fn shrink(
    case: &Case,
    first: Mismatch,
    mut check: impl FnMut(&Case) -> Option<Mismatch>,
) -> (Case, Mismatch, usize) {
    let mut s = Shrink { best: case.clone(), shown: first, runs: 0 };
    s.reduce(
        &mut check,
        |c, m| c.prefixes().into_iter().filter(|p| p.to_string() != m.prefix).collect(),
        |c, g| c.without_prefixes(g),
    );
    s.reduce(
        &mut check,
        |c, m| c.asns.iter().copied().filter(|&a| a != m.asn && !c.names(a)).collect(),
        |c, g| g.iter().fold(c.clone(), |c, &a| c.without_as(a)),
    );
    (s.best, s.shown, s.runs)
}

struct Shrink {
    best: Case,
    shown: Mismatch,
    runs: usize,
}

impl Shrink {
    /// Removes groups of `items` while the disagreement stays, halving the group size when no
    /// group of the current size can go.
    fn reduce<T>(
        &mut self,
        check: &mut impl FnMut(&Case) -> Option<Mismatch>,
        items: impl Fn(&Case, &Mismatch) -> Vec<T>,
        remove: impl Fn(&Case, &[T]) -> Case,
    ) {
        let mut chunk = items(&self.best, &self.shown).len();
        while chunk >= 1 && self.runs < RERUNS {
            let list = items(&self.best, &self.shown);
            let mut progressed = false;
            for group in list.chunks(chunk) {
                if self.runs >= RERUNS {
                    break;
                }
                let smaller = remove(&self.best, group);
                self.runs += 1;
                if let Some(m) = check(&smaller) {
                    (self.best, self.shown, progressed) = (smaller, m, true);
                    break;
                }
            }
            if !progressed {
                chunk /= 2;
            }
            chunk = chunk.min(items(&self.best, &self.shown).len());
        }
    }
}

fn sizes() -> (u64, u64) {
    match std::env::var("NETPRESS_BGPY_TOPOLOGIES").ok().and_then(|v| v.parse::<u64>().ok()) {
        Some(n) => (n - n / 4, n / 4),
        None => (150, 50),
    }
}

/// Runs BGPy over `cases` in two processes at once (CI has two cores).
pub(crate) fn run_oracle(python: &std::path::PathBuf, cases: &[Case]) -> Vec<Ribs> {
    let half = cases.len().div_ceil(2);
    let (a, b) = cases.split_at(half);
    std::thread::scope(|sc| {
        let first = sc.spawn(|| oracle::run(python, a));
        let mut second = if b.is_empty() { Vec::new() } else { oracle::run(python, b) };
        let mut out = first.join().expect("oracle thread");
        out.append(&mut second);
        out
    })
}

#[test]
fn bgp_bgpy_agreement() {
    let Some((python, version)) = oracle::or_skip("bgp-bgpy") else { return };
    let (small, large) = sizes();
    for (class, count, is_large) in [("20-60 ASes", small, false), ("200-600 ASes", large, true)] {
        if count == 0 {
            continue;
        }
        let cases: Vec<Case> = (0..count).flat_map(|k| cases(k, is_large)).collect();
        let clock = Instant::now();
        let ours: Vec<Ribs> = cases.iter().map(Case::ours).collect();
        let ours_time = clock.elapsed();
        let clock = Instant::now();
        let theirs = run_oracle(&python, &cases);
        let bgpy_time = clock.elapsed();
        let mut routes = 0;
        for ((case, o), b) in cases.iter().zip(&ours).zip(&theirs) {
            routes += b.len();
            if let Some(first) = mismatches(o, b).into_iter().next() {
                let (small_case, m, runs) = shrink(case, first, |c| rerun(&python, c));
                panic!(
                    "bgp-bgpy: disagreement in {} (shrunk in {runs} reruns to {} ASes):\n  AS{} {}\n  ours: {:?}\n  BGPy: {:?}\ncase: {}",
                    case.id,
                    small_case.asns.len(),
                    m.asn,
                    m.prefix,
                    m.ours,
                    m.bgpy,
                    small_case.to_json()
                );
            }
        }
        println!(
            "bgp-bgpy: {class}: {count} topologies, {} cases, {routes} routes agree with bgpy-pkg {version}; \
             ours {:.1} ms (test profile), BGPy {:.1} s (2 processes)",
            cases.len(),
            ours_time.as_secs_f64() * 1e3,
            bgpy_time.as_secs_f64()
        );
    }
}

#[test]
fn cases_are_deterministic_and_exercise_every_seed_kind() {
    let a: Vec<Case> = (0..6).flat_map(|k| cases(k, false)).collect();
    let b: Vec<Case> = (0..6).flat_map(|k| cases(k, false)).collect();
    assert_eq!(a, b);
    assert!(a.iter().any(|c| !c.leaks.is_empty()), "no leak case");
    assert!(a.iter().flat_map(|c| &c.seeds).any(|s| s.path.len() == 2), "no forged origin");
    assert!(a.iter().flat_map(|c| &c.seeds).any(|s| s.all > 0 || !s.toward.is_empty()), "no prepend");
    let g: Graph = a[0].graph();
    assert_eq!(g.len(), a[0].asns.len());
}

#[test]
fn shrinking_keeps_only_what_the_disagreement_needs() {
    let case = cases(3, false).remove(0);
    let (p, q) = (case.seeds[0].prefix, case.seeds[5].prefix);
    let culprit = *case.asns.iter().rev().find(|&&a| !case.names(a)).expect("an AS no seed names");
    let shown = Mismatch { asn: case.seeds[0].asn, prefix: p.to_string(), ours: None, bgpy: Some(vec![1]) };
    let fails = |c: &Case| {
        let has = |x: IpNet| c.seeds.iter().any(|s| s.prefix == x);
        (has(p) && has(q) && c.asns.contains(&culprit)).then(|| shown.clone())
    };
    let (small, _, runs) = shrink(&case, shown.clone(), fails);
    assert!(runs <= RERUNS);
    assert_eq!(small.prefixes(), {
        let mut v = vec![p, q];
        v.sort();
        v
    });
    assert!(small.asns.contains(&culprit));
    assert!(small.asns.len() < case.asns.len(), "{} of {} ASes left", small.asns.len(), case.asns.len());
}
