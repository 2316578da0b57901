//! Exchange points in the picture: a peering over an exchange point's route server is drawn
//! through the exchange point, a square node of its own, rather than as a direct line.
//!
//! Each exchange point with a shown route-server session is one node, linked once to each of
//! its members that has such a session (a spoke); the session `a`–`b` is the two spokes
//! `a`–IXP–`b`. Spokes are shared rather than drawn once per session because an exchange's
//! members meet pairwise: a drawing per session would repeat every spoke. Nothing is lost by
//! sharing them, since two spoke members without a line of their own meet at the route server
//! (the route server only links members that have no link already, and every link between
//! shown ASes is drawn).

use std::collections::{BTreeMap, BTreeSet};

use crate::bgp::topology::{AsIx, LinkKind, Topology};

/// The shown route-server sessions and the exchange points they run over.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exchanges {
    /// The exchange point of each shown session, keyed `(low, high)`.
    sessions: BTreeMap<(AsIx, AsIx), usize>,
    /// Each exchange point with a shown session, and its members that have one.
    members: BTreeMap<usize, BTreeSet<AsIx>>,
}

impl Exchanges {
    /// The route-server sessions among `links` (as [`super::Neighbourhood::links`] gives them).
    pub fn of(t: &Topology, links: &[(AsIx, AsIx, bool)]) -> Exchanges {
        let wanted: BTreeSet<(AsIx, AsIx)> =
            links.iter().filter(|l| l.2).map(|&(a, b, _)| (a.min(b), a.max(b))).collect();
        let mut ex = Exchanges::default();
        for l in &t.links {
            match l.kind {
                LinkKind::RouteServer(i) if i < t.ixps.len() && wanted.contains(&(l.a, l.b)) => {
                    ex.sessions.insert((l.a, l.b), i);
                    ex.members.entry(i).or_default().extend([l.a, l.b]);
                }
                _ => {}
            }
        }
        ex
    }

    /// The exchange point whose route server the shown session `a`–`b` runs over.
    pub fn via(&self, a: AsIx, b: AsIx) -> Option<usize> {
        self.sessions.get(&(a.min(b), a.max(b))).copied()
    }

    /// Each exchange point with a shown session, ascending, with its members that have one,
    /// ascending.
    pub fn members(&self) -> impl Iterator<Item = (usize, &BTreeSet<AsIx>)> {
        self.members.iter().map(|(&i, m)| (i, m))
    }

    /// Whether no shown peering is a route-server session.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}

/// The node id of exchange point `i`: its region, which no other exchange point shares.
pub fn node_id(t: &Topology, i: usize) -> String {
    t.ixps.get(i).map_or_else(|| format!("IXP-{i}"), |x| format!("IXP-{}", x.region.name()))
}

/// The label of exchange point `i`: its region and its route server's ASN, the one
/// `netpress bgp topo --format json` names.
pub fn label(t: &Topology, i: usize) -> String {
    t.ixps.get(i).map_or_else(String::new, |x| format!("IXP {} RS:AS{}", x.region.name(), x.rs_asn))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bgp::level::Level;
    use crate::bgp::region::Region;
    use crate::bgp::topology::{AsInfo, Ixp, Link, Tier};

    fn topology(links: Vec<Link>) -> Topology {
        let ases = (0..4)
            .map(|i| AsInfo {
                asn: 64500 + i,
                tier: Tier::Stub,
                region: Region::EuWest,
                org: 0,
                handle: format!("AS{i}"),
            })
            .collect();
        let ixps = vec![Ixp { region: Region::EuWest, rs_asn: 65520, members: vec![0, 1, 2] }];
        Topology::from_parts(Level::L1, ases, links, ixps, vec![], vec![], vec![], vec![false; 4])
    }

    #[test]
    fn only_shown_route_server_sessions_count() {
        let t = topology(vec![
            Link { a: 0, b: 1, kind: LinkKind::RouteServer(0) },
            Link { a: 1, b: 2, kind: LinkKind::RouteServer(0) },
            Link { a: 0, b: 2, kind: LinkKind::Peer },
            Link { a: 2, b: 3, kind: LinkKind::RouteServer(7) },
        ]);
        let ex = Exchanges::of(&t, &[(0, 1, true), (0, 2, true), (2, 3, true)]);
        assert_eq!((ex.via(1, 0), ex.via(0, 2), ex.via(1, 2), ex.via(2, 3)), (Some(0), None, None, None));
        let members: Vec<_> = ex.members().map(|(i, m)| (i, m.iter().copied().collect::<Vec<_>>())).collect();
        assert_eq!(members, vec![(0, vec![0, 1])]);
        assert!(Exchanges::of(&t, &[(0, 2, true)]).is_empty());
        assert_eq!((node_id(&t, 0), label(&t, 0)), ("IXP-eu-w".into(), "IXP eu-w RS:AS65520".into()));
    }
}
