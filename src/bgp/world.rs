//! One task's world before any incident: the Internet, who observes it, and when.
//!
//! [`World::generate`] continues the topology's draws from the same stream in the fixed order
//! collectors and vantage points ([`super::collectors`]), probes ([`super::probes`]), the time
//! base and the history ([`super::clock`]). The incident and the churn draw after it.

use std::sync::Arc;

use super::clock::Clock;
use super::collectors::Collectors;
use super::level::Level;
use super::probes::{self, Probe};
use super::routing::Graph;
use super::rpki::Vrps;
use super::timeline::{Change, Inputs, Timeline};
use super::topology::Topology;
use crate::error::Result;
use crate::seed::Stream;

/// The knobs of an id that shape the world (absent ones are drawn).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Knobs {
    /// `-n`: ASes.
    pub ases: Option<u64>,
    /// `-c`: collectors.
    pub collectors: Option<u64>,
    /// `-v`: vantage points.
    pub vps: Option<u64>,
    /// `-w`: window hours.
    pub hours: Option<u64>,
}

/// The Internet of a task, its observers and its time frame.
#[derive(Debug, Clone)]
pub struct World {
    pub topology: Topology,
    pub collectors: Collectors,
    pub probes: Vec<Probe>,
    pub clock: Clock,
    /// First-seen time of each baseline prefix (allocation order).
    pub first_seen: Vec<u64>,
    /// The routing graph and VRPs of the baseline.
    pub graph: Arc<Graph>,
    pub vrps: Arc<Vrps>,
}

impl World {
    /// Draws a world of `level` as generator `version` does.
    pub fn generate(s: &mut Stream, level: Level, knobs: Knobs, version: u32) -> Result<World> {
        let topology = Topology::generate(s, level, knobs.ases)?;
        let collectors = Collectors::draw(s, &topology, knobs.collectors, knobs.vps, version)?;
        let probes = probes::draw(s, &topology);
        let clock = Clock::draw(s, knobs.hours)?;
        let first_seen = clock.draw_first_seen(s, topology.prefixes.len());
        let graph = Arc::new(Graph::from_topology(&topology));
        let vrps = Arc::new(Vrps::new(&topology.roas));
        Ok(World { topology, collectors, probes, clock, first_seen, graph, vrps })
    }

    /// The timeline of the baseline followed by `changes`; `id` fixes the delay jitter.
    pub fn timeline(&self, id: &str, changes: &[Change]) -> Timeline {
        let baseline = self.topology.baseline_seeds();
        let inp = Inputs {
            id,
            graph: &self.graph,
            vrps: &self.vrps,
            collectors: &self.collectors,
            baseline: &baseline,
            first_seen: &self.first_seen,
            explore: self.topology.level >= Level::L3,
        };
        Timeline::build(inp, changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bgp::routing::Seeds;
    use crate::bgp::timeline::Failure;
    use crate::seed::Width;

    fn world(level: Level, seed: u64) -> World {
        let mut s = Stream::new(&format!("netpress|bgp|v1|L{}|s{seed}|i0", level.number()), Width::W32);
        World::generate(&mut s, level, Knobs::default(), 1).unwrap()
    }

    #[test]
    fn the_draws_continue_one_stream_deterministically() {
        let (a, b) = (world(Level::L2, 3), world(Level::L2, 3));
        assert_eq!(
            (&a.collectors, &a.probes, a.clock, &a.first_seen),
            (&b.collectors, &b.probes, b.clock, &b.first_seen)
        );
        assert_ne!(world(Level::L2, 4).clock, a.clock);
    }

    #[test]
    fn the_baseline_is_quiet_and_every_full_feed_sees_every_prefix() {
        let w = world(Level::L2, 1);
        let tl = w.timeline("bgp-v1-L2-s1-i0", &[]);
        assert!(tl.updates().is_empty());
        for (v, vp) in w.collectors.vps.iter().enumerate() {
            if vp.feed == crate::bgp::collectors::Feed::Full {
                for p in &w.topology.prefixes {
                    assert!(tl.baseline_route(v, p.net).is_some(), "VP {v} misses {}", p.net);
                }
            }
        }
    }

    #[test]
    fn an_outage_withdraws_at_every_vp_that_saw_the_prefix() {
        let w = world(Level::L3, 2);
        let p = w.topology.prefixes.iter().rev().find(|p| p.net.addr().is_ipv4()).unwrap();
        let origin = w.topology.ases[p.owner].asn;
        let gone = Seeds { prefix: p.net, originations: vec![], leaks: vec![] };
        let t = w.clock.w0 + 3600;
        let ch = Change {
            t,
            name: "target".into(),
            at: vec![p.owner],
            seeds: vec![gone],
            graph: None,
            vrps: None,
            failure: Some(Failure::Origin(origin)),
        };
        let tl = w.timeline("bgp-v1-L3-s2-i0", &[ch]);
        let seeing: Vec<usize> =
            (0..w.collectors.vps.len()).filter(|&v| tl.baseline_route(v, p.net).is_some()).collect();
        assert!(!seeing.is_empty());
        for &v in &seeing {
            let mine: Vec<_> = tl.updates().iter().filter(|u| u.vp == v).collect();
            assert!(mine.last().unwrap().route.is_none(), "VP {v} ends withdrawn");
            assert!(mine.iter().all(
                |u| u.secs() >= t + 5 && u.route.as_ref().is_none_or(|r| r.path.last() == Some(&origin))
            ));
        }
        assert!(tl.rib_at(w.clock.end()).iter().all(|e| e.prefix != p.net));
    }
}
