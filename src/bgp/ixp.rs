//! Exchange points and their route servers.
//!
//! An IXP is a shared LAN in one region; its route server lets every member peer with every
//! other member over a single session. We model the route server as transparent (RFC 7947: it
//! does not insert its ASN into the AS_PATH), so for routing an IXP is just a set of p2p
//! sessions between members that have no bilateral link already. The relationship is an
//! ordinary peering: members exchange their own and their customers' routes.
//!
//! Draws, after the stubs: the number of IXPs (level table), their regions (distinct, a
//! partial shuffle of the six), and for each IXP in order the share of its region's backbone
//! (Tier-1 and transit ASes) that joins, 40–80%, then that many of them. Every content AS of the
//! region is a member, and so is every stub of the region that chose to join an exchange when it
//! was drawn. Since regions are distinct, a stub's choice never needs a second draw.

use super::graph::Hierarchy;
use super::level::Level;
use super::numbering::route_server_asn;
use super::region::Region;
use super::topology::{AsIx, Ixp, Tier};
use crate::seed::Stream;

/// Draws the exchange points of `level` over `h` and adds their route-server sessions to it.
pub fn draw(s: &mut Stream, level: Level, h: &mut Hierarchy) -> Vec<Ixp> {
    let sizes = level.sizes();
    let k = s.range(*sizes.ixps.start(), *sizes.ixps.end()) as usize;
    let regions = s.subset(Region::ALL.len(), k.min(Region::ALL.len()));
    let mut ixps = Vec::with_capacity(regions.len());
    for (i, r) in regions.into_iter().enumerate() {
        let region = Region::ALL[r];
        let members = members(s, h, region);
        let rs_asn = route_server_asn(i).unwrap_or(*super::numbering::ROUTE_SERVERS.end());
        for (x, &a) in members.iter().enumerate() {
            for &b in &members[x + 1..] {
                h.link_via_route_server(a, b, i);
            }
        }
        ixps.push(Ixp { region, rs_asn, members });
    }
    ixps
}

/// The members of an exchange point in `region`, in index order.
fn members(s: &mut Stream, h: &Hierarchy, region: Region) -> Vec<AsIx> {
    let here = |i: &AsIx| h.regions[*i] == region;
    let backbone: Vec<AsIx> = (0..h.tiers.len())
        .filter(|i| here(i) && matches!(h.tiers[*i], Tier::Tier1 | Tier::Transit))
        .collect();
    let pct = s.range(40, 80) as usize;
    let take = (backbone.len() * pct + 50) / 100;
    let mut members: Vec<AsIx> = s.subset(backbone.len(), take).into_iter().map(|j| backbone[j]).collect();
    members.extend((0..h.tiers.len()).filter(|i| {
        here(i) && (h.tiers[*i] == Tier::Content || (h.tiers[*i] == Tier::Stub && h.wants_ixp[*i]))
    }));
    members.sort_unstable();
    members
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bgp::graph::draw_counts;
    use crate::bgp::topology::LinkKind;
    use crate::seed::Width;

    #[test]
    fn members_meet_pairwise_once() {
        let mut s = Stream::new("ixp", Width::W32);
        let counts = draw_counts(&mut s, Level::L3, None).unwrap();
        let mut h = Hierarchy::draw(&mut s, counts);
        let ixps = draw(&mut s, Level::L3, &mut h);
        assert!((2..=3).contains(&ixps.len()));
        for ixp in &ixps {
            for (x, &a) in ixp.members.iter().enumerate() {
                assert_eq!(h.regions[a], ixp.region);
                for &b in &ixp.members[x + 1..] {
                    assert!(h.is_linked(a, b));
                }
            }
        }
        assert!(h.links.iter().any(|l| matches!(l.kind, LinkKind::RouteServer(_))));
        let mut regions: Vec<Region> = ixps.iter().map(|i| i.region).collect();
        regions.sort();
        regions.dedup();
        assert_eq!(regions.len(), ixps.len());
    }
}
