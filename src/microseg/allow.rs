//! What a policy allows on the hidden window (docs/microseg.md, "Allow semantics").
//!
//! A listed address denotes the VM holding it at the end of the last visible window, which
//! keeps its groups; a VM created later joins every group whose plurality true role is its
//! own (as if deployed with its role's security group); a departed VM's membership lapses, so
//! a reused address gains nothing through groups, while CIDR rules still match it. Each
//! endpoint is compiled once into the bitsets of the rules its source and destination sides
//! match, so a key is decided by intersecting two bitsets.

use std::collections::{BTreeMap, BTreeSet};

use crate::flows::tenant::dotted;

use super::policy::{Peer, Policy};
use super::world::World;

/// An endpoint of the hidden window: an address and the VM holding it there, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct End {
    pub ip: u32,
    pub vm: Option<u32>,
}

/// One bit per rule.
pub type Bits = Vec<u64>;

/// A policy compiled against a world.
pub struct Compiled<'a> {
    pub policy: &'a Policy,
    world: &'a World,
    /// Group names in the policy's (sorted) order.
    names: Vec<&'a str>,
    /// Each test VM's groups (indexes into `names`).
    member_of: BTreeMap<u32, BTreeSet<usize>>,
    /// What the answer listed that is not a visible VM, for the explanation.
    pub notes: Vec<String>,
}

/// The role the most listed VMs of a group have (ties: the smallest name).
pub fn plurality<'w>(world: &'w World, holders: &[u32]) -> Option<&'w str> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for &v in holders {
        *count.entry(world.role_name(v)).or_default() += 1;
    }
    let best = count.values().copied().max()?;
    count.into_iter().find(|&(_, c)| c == best).map(|(r, _)| r)
}

/// Each test VM's groups at replay, given each group's listed addresses (group indexes in the
/// order given), and a note on listed addresses that are not VMs of the visible windows.
pub fn replay<'m>(
    world: &World,
    groups: impl Iterator<Item = &'m [u32]>,
) -> (BTreeMap<u32, BTreeSet<usize>>, Vec<String>) {
    let visible: BTreeSet<u32> = world.visible.iter().map(|&v| world.trace.vms[v as usize].ip).collect();
    let mut notes = BTreeSet::new();
    let mut listed: BTreeMap<u32, BTreeSet<usize>> = BTreeMap::new();
    let mut plural = Vec::new();
    for (g, members) in groups.enumerate() {
        let mut holders: Vec<u32> = Vec::new();
        for &ip in members {
            if !visible.contains(&ip) {
                notes.insert(dotted(ip));
                continue;
            }
            if let Some(v) = world.holder(ip)
                && listed.entry(v).or_default().insert(g)
            {
                holders.push(v);
            }
        }
        plural.push(plurality(world, &holders).map(str::to_string));
    }
    let mut member_of = BTreeMap::new();
    for &v in &world.test_vms {
        let vm = &world.trace.vms[v as usize];
        let groups = if vm.start_ms < world.vis_end {
            listed.get(&v).cloned().unwrap_or_default()
        } else {
            let role = world.role_name(v);
            (0..plural.len()).filter(|&g| plural[g].as_deref() == Some(role)).collect()
        };
        member_of.insert(v, groups);
    }
    let notes = if notes.is_empty() {
        Vec::new()
    } else {
        let list: Vec<String> = notes.into_iter().collect();
        vec![format!("ignored members that are not VMs of the visible windows: {}", list.join(", "))]
    };
    (member_of, notes)
}

impl<'a> Compiled<'a> {
    pub fn new(policy: &'a Policy, world: &'a World) -> Compiled<'a> {
        let names: Vec<&str> = policy.groups.keys().map(String::as_str).collect();
        let (member_of, notes) = replay(world, policy.groups.values().map(Vec::as_slice));
        Compiled { policy, world, names, member_of, notes }
    }

    /// The policy over the visible windows: every VM seen there is in the groups listing its
    /// address (what the repair report judges).
    pub fn visible(policy: &'a Policy, world: &'a World) -> Compiled<'a> {
        let names: Vec<&str> = policy.groups.keys().map(String::as_str).collect();
        let mut member_of: BTreeMap<u32, BTreeSet<usize>> = BTreeMap::new();
        for (g, members) in policy.groups.values().enumerate() {
            for &v in &world.visible {
                if members.contains(&world.trace.vms[v as usize].ip) {
                    member_of.entry(v).or_default().insert(g);
                }
            }
        }
        Compiled { policy, world, names, member_of, notes: Vec::new() }
    }

    /// The groups a test VM is in at replay.
    pub fn groups_of(&self, vm: u32) -> Vec<&'a str> {
        self.member_of.get(&vm).map_or_else(Vec::new, |g| g.iter().map(|&i| self.names[i]).collect())
    }

    fn matches(&self, peer: &Peer, e: End) -> bool {
        match peer {
            Peer::Reserved(r) => r.contains(e.ip),
            Peer::Cidr(net, len) => {
                let mask = if *len == 0 { 0 } else { u32::MAX << (32 - len) };
                e.ip & mask == *net
            }
            Peer::Group(g) => e.vm.is_some_and(|v| {
                self.member_of.get(&v).is_some_and(|gs| gs.iter().any(|&i| self.names[i] == g))
            }),
        }
    }

    /// The rules whose source (`src`) or destination side matches `e`.
    pub fn bits(&self, e: End, src: bool) -> Bits {
        let mut b = vec![0u64; self.policy.rules.len().div_ceil(64)];
        for (i, r) in self.policy.rules.iter().enumerate() {
            if self.matches(if src { &r.src } else { &r.dst }, e) {
                b[i / 64] |= 1 << (i % 64);
            }
        }
        b
    }

    /// The first rule admitting (proto, port) between endpoints of these bitsets.
    pub fn admits(&self, s: &Bits, d: &Bits, proto: u8, port: u16) -> Option<usize> {
        for (w, (a, b)) in s.iter().zip(d).enumerate() {
            let mut both = a & b;
            while both != 0 {
                let i = w * 64 + both.trailing_zeros() as usize;
                if self.policy.rules[i].admits_port(proto, port) {
                    return Some(i);
                }
                both &= both - 1;
            }
        }
        None
    }

    /// The world the policy was compiled against.
    pub fn world(&self) -> &'a World {
        self.world
    }
}
