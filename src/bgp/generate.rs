//! Drawing a whole topology from one random stream, in the fixed draw order: N, tier counts,
//! regions, Tier-1s, transits, content, stubs ([`super::graph`]); IXPs ([`super::ixp`]); orgs
//! ([`super::orgs`]); names ([`super::names`]); prefixes ([`super::prefixes`]); ROAs and the
//! ROV set ([`super::rpki`]). Later stages (collectors and vantage points, probes, time, the
//! incident) continue drawing from the same stream after this, so changing anything here
//! changes every task drawn after it, which the golden ids will pin.

use super::graph::{self, Hierarchy};
use super::level::Level;
use super::numbering::AsnAllocator;
use super::topology::{AsInfo, Org, Tier, Topology};
use super::{ixp, names, orgs, prefixes, rpki};
use crate::error::{Error, Result};
use crate::seed::Stream;

impl Topology {
    /// Draws the topology of `level` (with `n` ASes when the knob fixes it).
    pub fn generate(s: &mut Stream, level: Level, n: Option<u64>) -> Result<Topology> {
        let counts = graph::draw_counts(s, level, n)?;
        let mut h = Hierarchy::draw(s, counts);
        let ixps = ixp::draw(s, level, &mut h);
        let org_of = orgs::draw(s, level, h.tiers.len());
        let members = orgs::members(&org_of);
        let first_tiers: Vec<Tier> = members.iter().map(|m| h.tiers[m[0]]).collect();
        let org_names = names::draw(s, &first_tiers);
        let ases = number_ases(level, &h, &org_of, &members, &org_names)?;
        let prefixes = prefixes::draw(s, &h.tiers, level.sizes().ipv6_pct)?;
        let roas = rpki::draw_roas(s, &ases, &prefixes);
        let rov = rpki::draw_rov(s, &ases);
        let orgs = members
            .into_iter()
            .zip(org_names)
            .map(|(ases, n)| Org { name: n.name, id: n.id, ases })
            .collect();
        Ok(Topology::from_parts(level, ases, h.links, ixps, orgs, prefixes, roas, rov))
    }
}

/// ASNs in creation order, with handles from the organisation's word.
fn number_ases(
    level: Level,
    h: &Hierarchy,
    org_of: &[usize],
    members: &[Vec<usize>],
    org_names: &[names::OrgNames],
) -> Result<Vec<AsInfo>> {
    let mut asns = AsnAllocator::default();
    (0..h.tiers.len())
        .map(|i| {
            let tier = h.tiers[i];
            let wide = tier == Tier::Stub && level.stubs_use_32bit_asns();
            let asn = asns.next(wide).ok_or_else(|| Error::Invalid("bgp: private ASNs exhausted".into()))?;
            let org = org_of[i];
            let k = members[org].iter().position(|&m| m == i).unwrap_or(0);
            let handle = names::handle(&org_names[org].word, k);
            Ok(AsInfo { asn, tier, region: h.regions[i], org, handle })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::Width;

    fn topo(level: Level, seed: u64, n: Option<u64>) -> Topology {
        let mut s = Stream::new(&format!("netpress|bgp|v1|L{}|s{seed}|i0", level.number()), Width::W32);
        Topology::generate(&mut s, level, n).unwrap()
    }

    #[test]
    fn same_stream_same_topology() {
        assert_eq!(topo(Level::L2, 7, None), topo(Level::L2, 7, None));
        assert_ne!(topo(Level::L2, 7, None), topo(Level::L2, 8, None));
    }

    #[test]
    fn sizes_follow_the_level_table() {
        for level in [Level::L1, Level::L2, Level::L3] {
            let sizes = level.sizes();
            for seed in 0..5 {
                let t = topo(level, seed, None);
                assert!(sizes.ases.contains(&(t.len() as u64)), "{level:?} {}", t.len());
                let t1 = t.ases.iter().filter(|a| a.tier == Tier::Tier1).count() as u64;
                assert!(sizes.tier1.contains(&t1));
                assert!(sizes.ixps.contains(&(t.ixps.len() as u64)));
            }
        }
        assert_eq!(topo(Level::L4, 0, Some(1000)).len(), 1000);
    }

    #[test]
    fn numbering_and_addresses() {
        let t = topo(Level::L3, 3, None);
        for (i, a) in t.ases.iter().enumerate() {
            assert_eq!(t.index_of(a.asn), Some(i));
            let wide = a.asn >= 4_200_000_000;
            assert_eq!(wide, a.tier == Tier::Stub);
            assert!(t.prefixes.iter().any(|p| p.owner == i && p.net.addr().is_ipv4()));
        }
        for w in t.prefixes.windows(2) {
            assert!(!w[0].net.contains(&w[1].net) && !w[1].net.contains(&w[0].net));
        }
        assert!(t.prefixes.iter().any(|p| p.net.addr().is_ipv6()));
        assert!(topo(Level::L1, 3, None).prefixes.iter().all(|p| p.net.addr().is_ipv4()));
        let l2 = topo(Level::L2, 3, None);
        assert!(l2.ases.iter().all(|a| a.asn < 65500));
    }

    #[test]
    fn roas_cover_their_owner_and_rov_is_drawn() {
        let t = topo(Level::L3, 4, None);
        assert!(!t.roas.is_empty() && t.rov.iter().any(|&r| r) && t.rov.iter().any(|&r| !r));
        for roa in &t.roas {
            let p = t.prefixes.iter().find(|p| p.net == roa.prefix).unwrap();
            assert_eq!(t.ases[p.owner].asn, roa.origin);
            assert!(roa.max_len >= roa.prefix.prefix_len());
        }
    }

    #[test]
    fn handles_and_org_ids_are_unique() {
        let t = topo(Level::L4, 1, Some(2000));
        let mut handles: Vec<&str> = t.ases.iter().map(|a| a.handle.as_str()).collect();
        handles.sort();
        handles.dedup();
        assert_eq!(handles.len(), t.len());
        assert!(t.orgs.iter().any(|o| o.ases.len() == 2));
    }
}
