//! Inference errors in the published AS-relationship file.
//!
//! Real relationship datasets (CAIDA's serial-1 and serial-2) are inferred from paths and are
//! wrong for a few percent of links: a transit link labelled as peering or the other way round,
//! and links the inference never saw. An investigator who trusts them blindly finds valleys
//! that are not there and misses real ones. From L3 on the task's `asrel` output carries such
//! errors, drawn at generation: at L3 3% of the links mislabelled and 2% missing, at L4 5% and
//! 3% (rounded to the nearest link). A customer–provider link mislabelled becomes a peering; a
//! peering becomes customer–provider with the lower ASN as provider. The truth and the routing
//! always use the true relationships.
//!
//! The links that carry a route leak's evidence (the leaker's links to the neighbour it learned
//! from and to the neighbour it leaked to, for the incident and the distractor) are never
//! touched: the leak must stay identifiable from the tools.

use super::incident::Incident;
use super::level::Level;
use super::topology::Topology;
use crate::seed::Stream;

/// Which links `asrel` misreports, as indexes into the topology's links, ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AsRelNoise {
    pub mislabeled: Vec<usize>,
    pub missing: Vec<usize>,
}

/// Percent of links mislabelled and missing at `level`.
pub fn rates(level: Level) -> (usize, usize) {
    match level {
        Level::L1 | Level::L2 => (0, 0),
        Level::L3 => (3, 2),
        Level::L4 => (5, 3),
    }
}

/// The link indexes a leak's evidence rests on.
fn protected(t: &Topology, incidents: &[&Incident]) -> Vec<usize> {
    let pairs: Vec<(usize, usize)> = incidents
        .iter()
        .filter_map(|i| i.leak.as_ref())
        .flat_map(|l| [(l.leaker, l.from), (l.leaker, l.to)])
        .collect();
    (0..t.links.len())
        .filter(|&i| {
            let l = &t.links[i];
            pairs.iter().any(|&(x, y)| (l.a, l.b) == (x, y) || (l.a, l.b) == (y, x))
        })
        .collect()
}

/// Draws the errors of a task at `t.level` whose incident and distractor are `incidents`.
pub fn draw(s: &mut Stream, t: &Topology, incidents: &[&Incident]) -> AsRelNoise {
    let (mis_pct, miss_pct) = rates(t.level);
    if mis_pct + miss_pct == 0 {
        return AsRelNoise::default();
    }
    let keep = protected(t, incidents);
    let pool: Vec<usize> = (0..t.links.len()).filter(|i| !keep.contains(i)).collect();
    let round = |pct: usize| (t.links.len() * pct + 50) / 100;
    let (mis, miss) = (round(mis_pct), round(miss_pct));
    let picks = s.subset(pool.len(), (mis + miss).min(pool.len()));
    let mut mislabeled: Vec<usize> = picks.iter().take(mis).map(|&k| pool[k]).collect();
    let mut missing: Vec<usize> = picks.iter().skip(mis).map(|&k| pool[k]).collect();
    mislabeled.sort_unstable();
    missing.sort_unstable();
    AsRelNoise { mislabeled, missing }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bgp::task::Task;
    use crate::id::QueryId;

    #[test]
    fn errors_follow_the_level_and_spare_the_leak() {
        let t2 = Task::generate(&"bgp-v1-L2-s1-i0".parse::<QueryId>().unwrap()).unwrap();
        assert_eq!(t2.asrel_noise, AsRelNoise::default());
        for seed in 0..6 {
            let id: QueryId = format!("bgp-v1-L3-s{seed}-i0-n300-fRL1+RL2+RL3+RL4").parse().unwrap();
            let t = Task::generate(&id).unwrap();
            let links = t.world.topology.links.len();
            let n = &t.asrel_noise;
            assert_eq!(n.mislabeled.len(), (links * 3 + 50) / 100);
            assert_eq!(n.missing.len(), (links * 2 + 50) / 100);
            assert!(n.mislabeled.iter().all(|i| !n.missing.contains(i)));
            let keep = protected(&t.world.topology, &[&t.incident]);
            assert_eq!(keep.len(), 2, "{id}");
            assert!(keep.iter().all(|i| !n.mislabeled.contains(i) && !n.missing.contains(i)));
        }
    }
}
