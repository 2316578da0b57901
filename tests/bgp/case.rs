//! A routing case both simulators can read: plain ASNs and prefixes, no indexes, so it can be
//! printed, shrunk and replayed. [`Case::ours`] answers it with our model.

use std::collections::BTreeMap;

use ipnet::IpNet;
use netpress::bgp::routing::{Graph, Leak, Origination, Prepend, Seeds, stable_state};
use netpress::bgp::{Rel, Roa, Topology, Vrps};
use serde_json::{Value, json};

/// An origination: `asn` originates `prefix` with `path` (its own ASN first), prepending its ASN
/// `all` extra times toward everyone, or `toward[n]` extra times toward neighbour `n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedSpec {
    pub asn: u32,
    pub prefix: IpNet,
    pub path: Vec<u32>,
    pub all: u8,
    pub toward: Vec<(u32, u8)>,
}

/// A leaked route: in `at`'s Adj-RIB-In as if sent by `from`, with `from`'s frozen `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeakSpec {
    pub at: u32,
    pub from: u32,
    pub prefix: IpNet,
    pub path: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    pub id: String,
    pub asns: Vec<u32>,
    /// `(customer, provider)`.
    pub p2c: Vec<(u32, u32)>,
    pub p2p: Vec<(u32, u32)>,
    pub rov: Vec<u32>,
    pub roas: Vec<Roa>,
    pub seeds: Vec<SeedSpec>,
    pub leaks: Vec<LeakSpec>,
}

/// Every AS's path per prefix: `(asn, prefix) -> path` (the AS first). Absent = no route.
pub type Ribs = BTreeMap<(u32, String), Vec<u32>>;

fn entry(m: &mut BTreeMap<IpNet, Seeds>, p: IpNet) -> &mut Seeds {
    m.entry(p).or_insert_with(|| Seeds { prefix: p, originations: Vec::new(), leaks: Vec::new() })
}

impl Case {
    /// A case over a generated topology's ASes, links, ROV set and ROAs, with no seeds yet.
    pub fn from_topology(id: String, t: &Topology) -> Case {
        let asn = |i: usize| t.ases[i].asn;
        Case {
            id,
            asns: t.ases.iter().map(|a| a.asn).collect(),
            p2c: t.links.iter().filter(|l| !l.is_peer()).map(|l| (asn(l.a), asn(l.b))).collect(),
            p2p: t.links.iter().filter(|l| l.is_peer()).map(|l| (asn(l.a), asn(l.b))).collect(),
            rov: (0..t.len()).filter(|&i| t.rov[i]).map(asn).collect(),
            roas: t.roas.clone(),
            seeds: Vec::new(),
            leaks: Vec::new(),
        }
    }

    /// Our graph of the case (ASNs index in `asns` order).
    pub fn graph(&self) -> Graph {
        let ix: BTreeMap<u32, usize> = self.asns.iter().enumerate().map(|(i, &a)| (a, i)).collect();
        let pairs = |links: &[(u32, u32)]| -> Vec<(usize, usize)> {
            links.iter().filter_map(|(a, b)| Some((*ix.get(a)?, *ix.get(b)?))).collect()
        };
        let rov = self.asns.iter().map(|a| self.rov.contains(a)).collect();
        Graph::new(self.asns.clone(), &pairs(&self.p2c), &pairs(&self.p2p), rov)
    }

    /// Our seeds, grouped by prefix (in prefix order).
    pub fn seeds(&self, g: &Graph) -> Vec<Seeds> {
        let mut by_prefix: BTreeMap<IpNet, Seeds> = BTreeMap::new();
        for s in &self.seeds {
            let Some(at) = g.index_of(s.asn) else { continue };
            let toward = s.toward.iter().filter_map(|&(n, k)| Some((g.index_of(n)?, k))).collect();
            let prepend = Prepend { all: s.all, toward };
            entry(&mut by_prefix, s.prefix).originations.push(Origination {
                at,
                path: s.path.clone(),
                prepend,
            });
        }
        for l in &self.leaks {
            let (Some(at), Some(from)) = (g.index_of(l.at), g.index_of(l.from)) else { continue };
            entry(&mut by_prefix, l.prefix).leaks.push(Leak { at, from, path: l.path.clone() });
        }
        by_prefix.into_values().collect()
    }

    /// Our answer.
    pub fn ours(&self) -> Ribs {
        let g = self.graph();
        let vrps = Vrps::new(&self.roas);
        let mut out = Ribs::new();
        for seeds in self.seeds(&g) {
            let st = stable_state(&g, &vrps, seeds);
            let prefix = st.prefix().to_string();
            for a in 0..g.len() {
                if let Some(path) = st.path(&g, a) {
                    out.insert((g.asn(a), prefix.clone()), path);
                }
            }
        }
        out
    }

    /// The oracle's JSON for this case (leaks carry the receiver's relation to the sender).
    pub fn to_json(&self) -> Value {
        let g = self.graph();
        let rel = |at: u32, from: u32| {
            let r = g.index_of(at).zip(g.index_of(from)).and_then(|(a, f)| g.relation(a, f));
            match r {
                Some(Rel::Customer) => "customers",
                Some(Rel::Peer) => "peers",
                _ => "providers",
            }
        };
        json!({
            "id": self.id,
            "asns": self.asns,
            "p2c": self.p2c.iter().map(|&(c, p)| [c, p]).collect::<Vec<_>>(),
            "p2p": self.p2p.iter().map(|&(a, b)| [a, b]).collect::<Vec<_>>(),
            "rov": self.rov,
            "roas": self.roas.iter().map(|r| json!([r.prefix.to_string(), r.origin, r.max_len])).collect::<Vec<_>>(),
            "seeds": self.seeds.iter().map(|s| json!({
                "asn": s.asn, "prefix": s.prefix.to_string(), "path": s.path,
                "prepend": {"all": s.all, "toward": s.toward.iter().map(|&(n, k)| [n, u32::from(k)]).collect::<Vec<_>>()},
            })).collect::<Vec<_>>(),
            "leaks": self.leaks.iter().map(|l| json!({
                "at": l.at, "from": l.from, "prefix": l.prefix.to_string(), "path": l.path, "rel": rel(l.at, l.from),
            })).collect::<Vec<_>>(),
        })
    }

    /// The case [`Case::to_json`] wrote (or a script in the same format; a leak's `rel` is
    /// recomputed from the links, so it is not read).
    pub fn from_json(v: &Value) -> Case {
        let u32s = |v: &Value| -> Vec<u32> {
            v.as_array().expect("array").iter().map(|x| x.as_u64().expect("number") as u32).collect()
        };
        let pairs = |v: &Value| -> Vec<(u32, u32)> {
            v.as_array().expect("array").iter().map(|p| (u32s(p)[0], u32s(p)[1])).collect()
        };
        let net = |v: &Value| -> IpNet { v.as_str().expect("prefix").parse().expect("prefix parses") };
        let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
        Case {
            id: v["id"].as_str().expect("id").to_string(),
            asns: u32s(&v["asns"]),
            p2c: pairs(&v["p2c"]),
            p2p: pairs(&v["p2p"]),
            rov: u32s(&v["rov"]),
            roas: list(&v["roas"])
                .iter()
                .map(|r| Roa {
                    prefix: net(&r[0]),
                    origin: r[1].as_u64().expect("origin") as u32,
                    max_len: r[2].as_u64().expect("max length") as u8,
                })
                .collect(),
            seeds: list(&v["seeds"])
                .iter()
                .map(|s| SeedSpec {
                    asn: s["asn"].as_u64().expect("asn") as u32,
                    prefix: net(&s["prefix"]),
                    path: u32s(&s["path"]),
                    all: s["prepend"]["all"].as_u64().unwrap_or(0) as u8,
                    toward: list(&s["prepend"]["toward"])
                        .iter()
                        .map(|t| (u32s(t)[0], u32s(t)[1] as u8))
                        .collect(),
                })
                .collect(),
            leaks: list(&v["leaks"])
                .iter()
                .map(|l| LeakSpec {
                    at: l["at"].as_u64().expect("at") as u32,
                    from: l["from"].as_u64().expect("from") as u32,
                    prefix: net(&l["prefix"]),
                    path: u32s(&l["path"]),
                })
                .collect(),
        }
    }

    /// The case without AS `asn` (its links, ROV flag and any seed or leak naming it).
    pub fn without_as(&self, asn: u32) -> Case {
        let mut c = self.clone();
        c.asns.retain(|&a| a != asn);
        c.p2c.retain(|&(a, b)| a != asn && b != asn);
        c.p2p.retain(|&(a, b)| a != asn && b != asn);
        c.rov.retain(|&a| a != asn);
        c.seeds.retain(|s| !s.path.contains(&asn));
        c.leaks.retain(|l| l.at != asn && !l.path.contains(&asn));
        c
    }

    /// The seeded prefixes, sorted.
    pub fn prefixes(&self) -> Vec<IpNet> {
        let mut out: Vec<IpNet> =
            self.seeds.iter().map(|s| s.prefix).chain(self.leaks.iter().map(|l| l.prefix)).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether a seed or leak names AS `asn` (so removing the AS would change the question).
    pub fn names(&self, asn: u32) -> bool {
        self.seeds.iter().any(|s| s.path.contains(&asn) || s.toward.iter().any(|t| t.0 == asn))
            || self.leaks.iter().any(|l| l.at == asn || l.path.contains(&asn))
    }

    /// The case without the seeds and leaks of `prefixes`, and without ROAs covering none of
    /// the prefixes left.
    pub fn without_prefixes(&self, prefixes: &[IpNet]) -> Case {
        let mut c = self.clone();
        c.seeds.retain(|s| !prefixes.contains(&s.prefix));
        c.leaks.retain(|l| !prefixes.contains(&l.prefix));
        let left = c.prefixes();
        c.roas.retain(|r| left.iter().any(|p| r.prefix.contains(p)));
        c
    }
}
