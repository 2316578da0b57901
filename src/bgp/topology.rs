//! The AS-level Internet a task lives in: who exists, who is whose customer, who peers with
//! whom (bilaterally or through an exchange point's route server), who owns which prefixes,
//! which ROAs exist and who validates them.
//!
//! A [`Topology`] is plain data, drawn once per task ([`Topology::generate`], whose draws live
//! in the sibling modules) and read by everything after it: the routing model, and later the
//! collectors, probes, incidents and tools. ASes are addressed by a dense index (their position
//! in [`Topology::ases`], which is creation order); every list here is kept in a fixed order
//! (index order, or ASN order where an output shows it) so nothing depends on hashing.
//!
//! Relationships follow the usual inference vocabulary: a customer–provider (p2c) link, where the
//! customer buys transit, and a peer (p2p) link, where two networks exchange their customers'
//! routes for free. The p2c links form a DAG (no AS is its own indirect provider), which is what
//! makes the stable routing state unique. Exchange points add no relationship kind of their own:
//! their route server is transparent (RFC 7947, it never appears in an AS_PATH), so two members
//! that meet only there simply have a p2p session with each other, remembered as mediated by the
//! route server so later tools can print it.

use ipnet::IpNet;

use super::level::Level;
use super::region::Region;
use super::rpki::Roa;

/// An AS's position in [`Topology::ases`].
pub type AsIx = usize;

/// What role an AS plays in the hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Transit-free backbone; the Tier-1s form a p2p clique.
    Tier1,
    /// Sells transit to stubs and content, buys it from Tier-1s and earlier transits.
    Transit,
    /// A content network or CDN: multihomed, peers widely, at every exchange of its region.
    Content,
    /// An edge network with one to three providers and no customers.
    Stub,
}

impl Tier {
    /// The word an AS of this tier is named with, `Korvex Transit`.
    pub fn word(self) -> &'static str {
        match self {
            Tier::Tier1 => "Backbone",
            Tier::Transit => "Transit",
            Tier::Content => "Cloud",
            Tier::Stub => "Hosting",
        }
    }
}

/// One AS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsInfo {
    pub asn: u32,
    pub tier: Tier,
    pub region: Region,
    /// Index into [`Topology::orgs`].
    pub org: usize,
    /// The AS's handle, `KORVEX-AS` (siblings: `KORVEX-AS2`).
    pub handle: String,
}

/// What a neighbour is to an AS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rel {
    /// The neighbour buys transit from this AS.
    Customer,
    /// The neighbour exchanges customer routes with this AS.
    Peer,
    /// The neighbour sells transit to this AS.
    Provider,
}

impl Rel {
    /// The same link seen from the other end.
    pub fn reverse(self) -> Rel {
        match self {
            Rel::Customer => Rel::Provider,
            Rel::Peer => Rel::Peer,
            Rel::Provider => Rel::Customer,
        }
    }
}

/// How a link came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LinkKind {
    /// `a` is the customer, `b` the provider.
    CustomerProvider,
    /// A bilateral p2p session; `a < b`.
    Peer,
    /// A p2p session through the route server of exchange point `.0`; `a < b`.
    RouteServer(usize),
}

/// One AS adjacency (at most one per pair of ASes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Link {
    pub a: AsIx,
    pub b: AsIx,
    pub kind: LinkKind,
}

impl Link {
    /// Whether this is a p2p link (bilateral or through a route server).
    pub fn is_peer(&self) -> bool {
        !matches!(self.kind, LinkKind::CustomerProvider)
    }
}

/// An exchange point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ixp {
    pub region: Region,
    /// The route server's ASN (65520 + index); it never appears in a path.
    pub rs_asn: u32,
    /// Member ASes, in index order.
    pub members: Vec<AsIx>,
}

/// An organisation: one AS, or two siblings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Org {
    /// `Korvex Transit`.
    pub name: String,
    /// `ORG-KV1-NP`.
    pub id: String,
    /// Its ASes, in index order.
    pub ases: Vec<AsIx>,
}

/// An announced prefix and its owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefix {
    pub net: IpNet,
    pub owner: AsIx,
    /// The content network prefix meant for anycast (at most one per content AS).
    pub anycast_ready: bool,
}

/// The emulated Internet of one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    pub level: Level,
    /// Every AS, in creation order: Tier-1s, transits, content, stubs.
    pub ases: Vec<AsInfo>,
    /// Every link, in creation order.
    pub links: Vec<Link>,
    pub ixps: Vec<Ixp>,
    pub orgs: Vec<Org>,
    /// Every baseline prefix, in allocation order.
    pub prefixes: Vec<Prefix>,
    /// The published ROAs, in prefix allocation order.
    pub roas: Vec<Roa>,
    /// `rov[i]`: AS `i` drops RPKI-Invalid routes.
    pub rov: Vec<bool>,
    /// `neighbours[i]`: AS `i`'s neighbours and what they are to it, in index order.
    neighbours: Vec<Vec<(AsIx, Rel)>>,
}

impl Topology {
    /// Assembles a topology from its parts, deriving the neighbour index from `links`.
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        level: Level,
        ases: Vec<AsInfo>,
        links: Vec<Link>,
        ixps: Vec<Ixp>,
        orgs: Vec<Org>,
        prefixes: Vec<Prefix>,
        roas: Vec<Roa>,
        rov: Vec<bool>,
    ) -> Topology {
        let neighbours = neighbour_index(ases.len(), &links);
        Topology { level, ases, links, ixps, orgs, prefixes, roas, rov, neighbours }
    }

    /// Number of ASes.
    pub fn len(&self) -> usize {
        self.ases.len()
    }

    /// Whether there are no ASes (never for a generated topology).
    pub fn is_empty(&self) -> bool {
        self.ases.is_empty()
    }

    /// AS `i`'s neighbours and what each is to it, in index order.
    pub fn neighbours(&self, i: AsIx) -> &[(AsIx, Rel)] {
        self.neighbours.get(i).map_or(&[], Vec::as_slice)
    }

    /// What `b` is to `a`, if they are adjacent.
    pub fn relation(&self, a: AsIx, b: AsIx) -> Option<Rel> {
        let list = self.neighbours(a);
        list.binary_search_by_key(&b, |&(n, _)| n).ok().map(|k| list[k].1)
    }

    /// The index of the AS with number `asn`.
    pub fn index_of(&self, asn: u32) -> Option<AsIx> {
        // ASNs grow with the index inside each pool, and the 16-bit pool comes first.
        self.ases.binary_search_by_key(&asn, |a| a.asn).ok()
    }

    /// Each AS's rank in the p2c DAG: 0 without customers, else one more than its highest
    /// customer's. The routing model walks ranks up, then down.
    pub fn ranks(&self) -> Vec<u32> {
        ranks(self.len(), self.links.iter().filter(|l| !l.is_peer()).map(|l| (l.a, l.b)))
    }
}

/// The per-AS neighbour lists of `links`, each sorted by neighbour index.
fn neighbour_index(n: usize, links: &[Link]) -> Vec<Vec<(AsIx, Rel)>> {
    let mut out = vec![Vec::new(); n];
    for l in links {
        let rel_of_b = if l.is_peer() { Rel::Peer } else { Rel::Provider };
        out[l.a].push((l.b, rel_of_b));
        out[l.b].push((l.a, rel_of_b.reverse()));
    }
    for list in &mut out {
        list.sort_unstable();
    }
    out
}

/// Ranks of `n` ASes over `(customer, provider)` pairs that form a DAG: a longest-path layering
/// computed in topological order (Kahn), so it costs one pass over the links. Links that would
/// close a cycle leave their ASes at rank 0 instead of looping.
pub fn ranks(n: usize, p2c: impl Iterator<Item = (usize, usize)> + Clone) -> Vec<u32> {
    let mut providers = vec![Vec::new(); n];
    let mut pending = vec![0usize; n]; // customers not yet ranked
    for (c, p) in p2c {
        if c < n && p < n {
            providers[c].push(p);
            pending[p] += 1;
        }
    }
    let mut rank = vec![0u32; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
    while let Some(c) = ready.pop() {
        for &p in &providers[c] {
            rank[p] = rank[p].max(rank[c] + 1);
            pending[p] -= 1;
            if pending[p] == 0 {
                ready.push(p);
            }
        }
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_longest_customer_chains() {
        // 0 -> 1 -> 3, 0 -> 2 -> 3, 2 -> 4 -> 3: 3 sits above the longest chain.
        let r = ranks(5, [(0, 1), (1, 3), (0, 2), (2, 4), (4, 3)].into_iter());
        assert_eq!(r, vec![0, 1, 1, 3, 2]);
    }

    #[test]
    fn ranks_ignore_out_of_range_links() {
        assert_eq!(ranks(2, [(0, 1), (0, 9)].into_iter()), vec![0, 1]);
    }

    #[test]
    fn relations_read_both_ways() {
        let links = vec![
            Link { a: 0, b: 1, kind: LinkKind::CustomerProvider },
            Link { a: 1, b: 2, kind: LinkKind::RouteServer(0) },
        ];
        let idx = neighbour_index(3, &links);
        assert_eq!(idx[0], vec![(1, Rel::Provider)]);
        assert_eq!(idx[1], vec![(0, Rel::Customer), (2, Rel::Peer)]);
        assert_eq!(idx[2], vec![(1, Rel::Peer)]);
    }
}
