//! Every incident family's post-state against BGPy: for each family, a few generated tasks
//! (40–60 ASes, the family forced with `-f`), and the routing state once the incident has
//! started (the graph and ROAs then in force, the incident's prefixes with their seeds and
//! leaks) compared AS by AS with BGPy's. A disagreement is shrunk and reported as in
//! [`crate::bgpy`].
//!
//! Sizes: two tasks per family; `NETPRESS_BGPY_TOPOLOGIES=N` (the long run) takes N / 10.

use netpress::bgp::family::{self, Family};
use netpress::bgp::incident::Culprit;
use netpress::bgp::task::Task;
use netpress::bgp::{Level, Roa};
use netpress::id::QueryId;

use crate::bgpy::{mismatches, rerun, run_oracle, shrink};
use crate::case::{Case, LeakSpec, SeedSpec};
use crate::oracle;

/// `k` tasks of each family that can be placed, at the first level that offers it (L2 at the
/// earliest, for siblings, IPv6 and exchange points). A family forced alone can be impossible
/// in one small world, so seeds are tried in order, up to `4k` of them, and every family must
/// give at least one task.
fn tasks(k: u64) -> Vec<Task> {
    let mut out = Vec::new();
    for fam in family::offered(Level::L3).into_iter().filter(|&f| f != Family::Ro) {
        let level = fam.first_level().max(Level::L2).number();
        let made: Vec<Task> = (0..4 * k)
            .filter_map(|seed| {
                let n = 40 + (seed * 7) % 21;
                let id: QueryId =
                    format!("bgp-v1-L{level}-s{seed}-i0-n{n}-f{}", fam.code()).parse().expect("id");
                Task::generate(&id).ok()
            })
            .take(k as usize)
            .collect();
        assert!(!made.is_empty(), "{fam:?} never generates");
        out.extend(made);
    }
    out
}

/// The post-state of `task`'s incident as a case.
fn post_state(task: &Task) -> Case {
    let (w, inc) = (&task.world, &task.incident);
    let t = &w.topology;
    let asn = |i: usize| t.ases[i].asn;
    let mut c = Case::from_topology(format!("{}-post", task.id), t);
    if let (Some(_), Culprit::Link(a, b)) = (&inc.graph_after, inc.culprit) {
        let pair = |x: u32, y: u32| (x, y) == (asn(a), asn(b)) || (x, y) == (asn(b), asn(a));
        c.p2c.retain(|&(x, y)| !pair(x, y));
        c.p2p.retain(|&(x, y)| !pair(x, y));
    }
    c.roas = match &inc.vrps_after {
        Some(v) => v.roas().to_vec(),
        None => t.roas.iter().copied().chain(inc.new_roas.iter().map(|&(_, r): &(u64, Roa)| r)).collect(),
    };
    let start = &inc.changes[inc.start_change];
    for seeds in start.seeds.iter().filter(|s| inc.prefixes.contains(&s.prefix)) {
        for o in &seeds.originations {
            c.seeds.push(SeedSpec {
                asn: asn(o.at),
                prefix: seeds.prefix,
                path: o.path.clone(),
                all: o.prepend.all,
                toward: o.prepend.toward.iter().map(|&(n, k)| (asn(n), k)).collect(),
            });
        }
        for l in &seeds.leaks {
            c.leaks.push(LeakSpec {
                at: asn(l.at),
                from: asn(l.from),
                prefix: seeds.prefix,
                path: l.path.clone(),
            });
        }
    }
    c
}

fn per_family() -> u64 {
    std::env::var("NETPRESS_BGPY_TOPOLOGIES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(2, |n| (n / 10).max(1))
}

#[test]
fn family_post_states_agree_with_bgpy() {
    let Some((python, version)) = oracle::or_skip("bgp-bgpy") else { return };
    let tasks = tasks(per_family());
    let cases: Vec<Case> = tasks.iter().map(post_state).collect();
    let theirs = run_oracle(&python, &cases);
    let mut routes = 0;
    for (case, b) in cases.iter().zip(&theirs) {
        routes += b.len();
        if let Some(first) = mismatches(&case.ours(), b).into_iter().next() {
            let (small, m, runs) = shrink(case, first, |c| rerun(&python, c));
            panic!(
                "bgp-bgpy: family post-state disagreement in {} (shrunk in {runs} reruns to {} ASes):\n  AS{} {}\n  ours: {:?}\n  BGPy: {:?}\ncase: {}",
                case.id,
                small.asns.len(),
                m.asn,
                m.prefix,
                m.ours,
                m.bgpy,
                small.to_json()
            );
        }
    }
    println!(
        "bgp-bgpy: family post-states: {} tasks, {routes} routes agree with bgpy-pkg {version}",
        cases.len()
    );
}

#[test]
fn post_states_carry_each_family_s_seeds() {
    let tasks = tasks(1);
    let cases: Vec<Case> = tasks.iter().map(post_state).collect();
    for (t, c) in tasks.iter().zip(&cases) {
        match t.incident.family {
            // An outage's post-state is the prefixes with no origin at all.
            Family::Ow => assert!(c.seeds.is_empty() && c.leaks.is_empty(), "{}", t.id),
            Family::Rl1 | Family::Rl2 | Family::Rl3 | Family::Rl4 => assert!(!c.leaks.is_empty(), "{}", t.id),
            Family::Fo => assert!(c.seeds.iter().any(|s| s.path.len() == 2), "{}", t.id),
            Family::Bp => assert!(c.seeds.iter().any(|s| !s.toward.is_empty()), "{}", t.id),
            Family::Lf => assert!(c.p2c.len() + c.p2p.len() < t.world.topology.links.len(), "{}", t.id),
            _ => assert!(!c.seeds.is_empty(), "{}: nothing seeded", t.id),
        }
    }
}
