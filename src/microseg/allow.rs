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

use super::policy::{Peer, Policy, Reserved};
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
    /// Each rule's source and destination with group names resolved to indexes once, so that
    /// deciding a key compares no strings (a repair turn decides every key of the window).
    sides: Vec<[Side; 2]>,
    /// What the answer listed that is not a visible VM, for the explanation.
    pub notes: Vec<String>,
}

/// One side of a rule: a group (its index; `None` for a group the policy does not define),
/// a reserved group, or a CIDR block (network address and mask).
#[derive(Clone, Copy)]
enum Side {
    Group(Option<usize>),
    Reserved(Reserved),
    Cidr(u32, u32),
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
        let (member_of, notes) = replay(world, policy.groups.values().map(Vec::as_slice));
        Compiled::with(policy, world, member_of, notes)
    }

    fn with(
        policy: &'a Policy,
        world: &'a World,
        member_of: BTreeMap<u32, BTreeSet<usize>>,
        notes: Vec<String>,
    ) -> Compiled<'a> {
        let names: Vec<&str> = policy.groups.keys().map(String::as_str).collect();
        let side = |p: &Peer| match p {
            Peer::Group(g) => Side::Group(names.iter().position(|n| n == g)),
            Peer::Reserved(r) => Side::Reserved(*r),
            Peer::Cidr(net, len) => Side::Cidr(*net, if *len == 0 { 0 } else { u32::MAX << (32 - len) }),
        };
        let sides = policy.rules.iter().map(|r| [side(&r.src), side(&r.dst)]).collect();
        Compiled { policy, world, names, member_of, sides, notes }
    }

    /// The policy over the visible windows: every VM seen there is in the groups listing its
    /// address (what the repair report judges).
    pub fn visible(policy: &'a Policy, world: &'a World) -> Compiled<'a> {
        let mut member_of: BTreeMap<u32, BTreeSet<usize>> = BTreeMap::new();
        for (g, members) in policy.groups.values().enumerate() {
            for &v in &world.visible {
                if members.contains(&world.trace.vms[v as usize].ip) {
                    member_of.entry(v).or_default().insert(g);
                }
            }
        }
        Compiled::with(policy, world, member_of, Vec::new())
    }

    /// The groups a test VM is in at replay.
    pub fn groups_of(&self, vm: u32) -> Vec<&'a str> {
        self.member_of.get(&vm).map_or_else(Vec::new, |g| g.iter().map(|&i| self.names[i]).collect())
    }

    /// The rules whose source (`src`) or destination side matches `e`.
    pub fn bits(&self, e: End, src: bool) -> Bits {
        let groups = e.vm.and_then(|v| self.member_of.get(&v));
        let mut b = vec![0u64; self.sides.len().div_ceil(64)];
        for (i, side) in self.sides.iter().enumerate() {
            let hit = match side[usize::from(!src)] {
                Side::Group(g) => g.is_some_and(|g| groups.is_some_and(|gs| gs.contains(&g))),
                Side::Reserved(r) => r.contains(e.ip),
                Side::Cidr(net, mask) => e.ip & mask == net,
            };
            if hit {
                b[i / 64] |= 1 << (i % 64);
            }
        }
        b
    }

    /// A memo of endpoints' bitsets over this policy: a window has many more keys than
    /// endpoints, and deciding a key is then one intersection of two remembered bitsets.
    pub fn memo(&self) -> Memo<'_, 'a> {
        Memo { compiled: self, sides: BTreeMap::new() }
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

/// Endpoints' source and destination bitsets, each computed once ([`Compiled::memo`]).
pub struct Memo<'c, 'a> {
    compiled: &'c Compiled<'a>,
    sides: BTreeMap<End, (Bits, Bits)>,
}

impl Memo<'_, '_> {
    /// The rules whose source and whose destination side match `e`.
    pub fn sides(&mut self, e: End) -> &(Bits, Bits) {
        let c = self.compiled;
        self.sides.entry(e).or_insert_with(|| (c.bits(e, true), c.bits(e, false)))
    }

    /// The first rule admitting (proto, port) from `s` to `d`.
    pub fn admits(&mut self, s: End, d: End, proto: u8, port: u16) -> Option<usize> {
        self.sides(s);
        self.sides(d);
        self.compiled.admits(&self.sides[&s].0, &self.sides[&d].1, proto, port)
    }
}
