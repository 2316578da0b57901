//! The iptables filter table: three built-in chains, their rules, policies and counters.
//!
//! Only what the lab needs: address, protocol and interface matches (each negatable) and the
//! ACCEPT, DROP and REJECT targets. The command syntax and output live in `cmd::iptables`.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

/// A built-in chain of the filter table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChainId {
    Input,
    Forward,
    Output,
}

impl ChainId {
    pub const ALL: [ChainId; 3] = [ChainId::Input, ChainId::Forward, ChainId::Output];

    pub fn name(self) -> &'static str {
        match self {
            ChainId::Input => "INPUT",
            ChainId::Forward => "FORWARD",
            ChainId::Output => "OUTPUT",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == word)
    }
}

/// The ICMP error a REJECT rule sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectWith {
    Port,
    Host,
    Net,
}

impl RejectWith {
    pub fn name(self) -> &'static str {
        match self {
            RejectWith::Port => "icmp-port-unreachable",
            RejectWith::Host => "icmp-host-unreachable",
            RejectWith::Net => "icmp-net-unreachable",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        [RejectWith::Port, RejectWith::Host, RejectWith::Net].into_iter().find(|r| r.name() == word)
    }
}

/// What a rule (or a policy) does with a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    Accept,
    Drop,
    Reject(RejectWith),
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Accept => "ACCEPT",
            Target::Drop => "DROP",
            Target::Reject(_) => "REJECT",
        }
    }
}

/// A match and whether it is negated (`! -s …`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Neg<T> {
    pub value: T,
    pub negated: bool,
}

impl<T> Neg<T> {
    fn test(&self, hit: bool) -> bool {
        hit != self.negated
    }
}

/// One rule of a chain. Equality and hashing ignore counters (what `-D CH R` compares).
#[derive(Debug, Clone, Eq)]
pub struct FilterRule {
    pub src: Option<Neg<Ipv4Net>>,
    pub dst: Option<Neg<Ipv4Net>>,
    /// IP protocol number; `None` is `all`.
    pub proto: Option<Neg<u8>>,
    pub iif: Option<Neg<String>>,
    pub oif: Option<Neg<String>>,
    pub target: Target,
    pub packets: u64,
    pub bytes: u64,
}

impl FilterRule {
    /// A prefix that every packet the rule matches carries: its source selector, else its
    /// destination selector, unless negated.
    fn selected_prefix(&self) -> Option<Ipv4Net> {
        [&self.src, &self.dst].into_iter().flatten().find(|m| !m.negated).map(|m| m.value)
    }

    /// What identifies the rule: everything but its counters.
    fn key(&self) -> impl PartialEq + std::hash::Hash + '_ {
        (&self.src, &self.dst, &self.proto, &self.iif, &self.oif, self.target)
    }
}

impl PartialEq for FilterRule {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}

impl std::hash::Hash for FilterRule {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state)
    }
}

/// The rules of `of` that `with` has too (`shared`), or lacks, in `of`'s order.
fn rules_in<'a>(
    of: &'a [FilterRule],
    with: &'a [FilterRule],
    shared: bool,
) -> impl Iterator<Item = &'a FilterRule> {
    of.iter().filter(move |r| with.contains(r) == shared)
}

/// What the filter sees of a packet.
#[derive(Debug, Clone, Copy)]
pub struct PacketView<'a> {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub proto: u8,
    pub iif: Option<&'a str>,
    pub oif: Option<&'a str>,
    pub size: u32,
}

/// A protocol number by the name iptables prints without `-n`.
pub fn proto_name(n: u8) -> String {
    match n {
        0 => "all".into(),
        1 => "icmp".into(),
        6 => "tcp".into(),
        17 => "udp".into(),
        n => n.to_string(),
    }
}

/// `eth+` matches every name starting with `eth`.
fn iface_matches(pattern: &str, name: Option<&str>) -> bool {
    let Some(name) = name else { return false };
    match pattern.strip_suffix('+') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

impl FilterRule {
    /// The rule in `-S`/`iptables-save` form: `-A CH [!] -s A/P [!] -d A/P -i IF -o IF -p P
    /// -j T`, protocols by name.
    pub fn save_line(&self, chain: ChainId) -> String {
        let mut s = format!("-A {}", chain.name());
        let bang = |negated: bool| if negated { " !" } else { "" };
        if let Some(m) = &self.src {
            s.push_str(&format!("{} -s {}/{}", bang(m.negated), m.value.addr(), m.value.prefix_len()));
        }
        if let Some(m) = &self.dst {
            s.push_str(&format!("{} -d {}/{}", bang(m.negated), m.value.addr(), m.value.prefix_len()));
        }
        if let Some(m) = &self.iif {
            s.push_str(&format!("{} -i {}", bang(m.negated), m.value));
        }
        if let Some(m) = &self.oif {
            s.push_str(&format!("{} -o {}", bang(m.negated), m.value));
        }
        if let Some(m) = &self.proto {
            s.push_str(&format!("{} -p {}", bang(m.negated), proto_name(m.value)));
        }
        s.push_str(&format!(" -j {}", self.target.name()));
        if let Target::Reject(with) = self.target {
            s.push_str(&format!(" --reject-with {}", with.name()));
        }
        s
    }

    pub fn matches(&self, p: &PacketView<'_>) -> bool {
        self.src.as_ref().is_none_or(|m| m.test(m.value.contains(&p.src)))
            && self.dst.as_ref().is_none_or(|m| m.test(m.value.contains(&p.dst)))
            && self.proto.as_ref().is_none_or(|m| m.test(m.value == p.proto))
            && self.iif.as_ref().is_none_or(|m| m.test(iface_matches(&m.value, p.iif)))
            && self.oif.as_ref().is_none_or(|m| m.test(iface_matches(&m.value, p.oif)))
    }
}

/// A built-in chain.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chain {
    /// iptables-nft creates a base chain on its first change (`-A/-I/-P/-F`); until then
    /// it cannot be zeroed or have rules deleted by number.
    pub exists: bool,
    pub policy: Target,
    pub packets: u64,
    pub bytes: u64,
    pub rules: Vec<FilterRule>,
}

impl Default for Chain {
    fn default() -> Self {
        Chain { exists: false, policy: Target::Accept, packets: 0, bytes: 0, rules: Vec::new() }
    }
}

/// Rules a chain may hold (docs/route.md, "What the agent has": state is bounded).
pub const MAX_RULES: usize = 1024;

/// The filter table of one node.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Filter {
    pub chains: [Chain; 3],
}

impl Filter {
    /// Whether the table exists (some chain was changed): `iptables-save` prints nothing
    /// before.
    pub fn touched(&self) -> bool {
        self.chains.iter().any(|c| c.exists)
    }

    pub fn chain(&self, id: ChainId) -> &Chain {
        &self.chains[id as usize]
    }

    pub fn chain_mut(&mut self, id: ChainId) -> &mut Chain {
        &mut self.chains[id as usize]
    }

    /// The prefixes such that every packet the two tables could judge otherwise carries an
    /// address of one, as its source or destination: each rule one chain has and the other
    /// lacks selects a source (or else a destination) prefix, and the rules they share come in
    /// one order, so a packet no differing rule matches meets the same first rule, or the same
    /// policy, in either. `None` when a policy differs, the shared rules are ordered otherwise,
    /// or a differing rule selects no address (a packet could be judged otherwise whatever its
    /// addresses). Counters, and whether a chain was ever touched, are history: tables with
    /// the same policies and rules have no such prefix.
    pub fn differing_prefixes(&self, other: &Filter) -> Option<Vec<Ipv4Net>> {
        let mut prefixes = Vec::new();
        for (a, b) in self.chains.iter().zip(&other.chains) {
            if a.policy != b.policy {
                return None;
            }
            if a.rules == b.rules {
                continue;
            }
            if !rules_in(&a.rules, &b.rules, true).eq(rules_in(&b.rules, &a.rules, true)) {
                return None;
            }
            for rule in rules_in(&a.rules, &b.rules, false).chain(rules_in(&b.rules, &a.rules, false)) {
                prefixes.push(rule.selected_prefix()?);
            }
        }
        Some(prefixes)
    }

    /// Whether every chain accepts everything (the common case the packet engine skips).
    pub fn is_open(&self) -> bool {
        self.chains.iter().all(|c| c.rules.is_empty() && c.policy == Target::Accept)
    }

    /// A chain's verdict on a packet and the rule that gave it (`None`: the policy), counting
    /// nothing.
    pub fn verdict(&self, id: ChainId, p: &PacketView<'_>) -> (Target, Option<usize>) {
        let chain = self.chain(id);
        match chain.rules.iter().position(|rule| rule.matches(p)) {
            Some(i) => (chain.rules[i].target, Some(i)),
            None => (chain.policy, None),
        }
    }

    /// Counts a packet of `size` bytes against the rule of a chain that judged it (`None`:
    /// the policy).
    pub fn count(&mut self, id: ChainId, hit: Option<usize>, size: u32) {
        let chain = self.chain_mut(id);
        let bytes = u64::from(size);
        let (packets, total) = match hit {
            Some(i) => {
                let rule = &mut chain.rules[i];
                (&mut rule.packets, &mut rule.bytes)
            }
            None => (&mut chain.packets, &mut chain.bytes),
        };
        *packets += 1;
        *total += bytes;
    }

    /// `-Z`: zero the counters of one chain or all.
    pub fn zero(&mut self, id: Option<ChainId>) {
        for (i, chain) in self.chains.iter_mut().enumerate() {
            if id.is_none_or(|c| c as usize == i) {
                chain.packets = 0;
                chain.bytes = 0;
                for r in &mut chain.rules {
                    r.packets = 0;
                    r.bytes = 0;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(src: &str, negated: bool, target: Target) -> FilterRule {
        FilterRule {
            src: Some(Neg { value: src.parse().unwrap(), negated }),
            dst: None,
            proto: Some(Neg { value: 1, negated: false }),
            iif: Some(Neg { value: "r0-eth+".into(), negated: false }),
            oif: None,
            target,
            packets: 0,
            bytes: 0,
        }
    }

    fn view(src: &str, proto: u8) -> PacketView<'static> {
        PacketView {
            src: src.parse().unwrap(),
            dst: "192.168.2.100".parse().unwrap(),
            proto,
            iif: Some("r0-eth1"),
            oif: Some("r0-eth2"),
            size: 84,
        }
    }

    #[test]
    fn first_match_counts_and_decides() {
        let mut f = Filter::default();
        f.chain_mut(ChainId::Forward).rules.push(rule("192.168.1.0/24", false, Target::Drop));
        let mut judge = |p: PacketView<'_>| {
            let (target, hit) = f.verdict(ChainId::Forward, &p);
            f.count(ChainId::Forward, hit, p.size);
            target
        };
        assert_eq!(judge(view("192.168.1.100", 1)), Target::Drop);
        assert_eq!(judge(view("192.168.1.100", 17)), Target::Accept);
        let chain = f.chain(ChainId::Forward);
        assert_eq!((chain.rules[0].packets, chain.rules[0].bytes, chain.packets), (1, 84, 1));
        f.zero(None);
        assert_eq!(f.chain(ChainId::Forward).rules[0].packets, 0);
    }

    #[test]
    fn negation_and_equality_ignore_counters() {
        let r = rule("192.168.1.0/24", true, Target::Accept);
        assert!(!r.matches(&view("192.168.1.100", 1)));
        assert!(r.matches(&view("10.0.0.1", 1)));
        let mut counted = r.clone();
        counted.packets = 7;
        assert_eq!(r, counted);
    }

    /// Tables that differ by rules selecting a source or destination differ only for packets
    /// carrying an address there; a policy, a reordering or a rule selecting no address
    /// changes every packet.
    #[test]
    fn differing_prefixes_of_rules() {
        let healthy = || {
            let mut f = Filter::default();
            f.chain_mut(ChainId::Input).rules.push(rule("10.0.0.0/8", false, Target::Accept));
            f.chain_mut(ChainId::Input).rules.push(rule("10.9.0.0/16", false, Target::Drop));
            f
        };
        let base = healthy();
        assert_eq!(base.differing_prefixes(&healthy()), Some(vec![]));
        let mut added = healthy();
        added.chain_mut(ChainId::Forward).rules.push(rule("192.168.1.0/24", false, Target::Drop));
        let mut by_dst = rule("192.168.1.0/24", true, Target::Drop);
        by_dst.dst = Some(Neg { value: "192.168.3.0/24".parse().unwrap(), negated: false });
        added.chain_mut(ChainId::Output).rules.push(by_dst);
        let expected: Vec<Ipv4Net> =
            vec!["192.168.1.0/24".parse().unwrap(), "192.168.3.0/24".parse().unwrap()];
        assert_eq!(base.differing_prefixes(&added), Some(expected.clone()));
        assert_eq!(added.differing_prefixes(&base), Some(expected));
        let mut negated = healthy();
        negated.chain_mut(ChainId::Forward).rules.push(rule("192.168.1.0/24", true, Target::Drop));
        assert_eq!(base.differing_prefixes(&negated), None);
        let mut reordered = healthy();
        reordered.chain_mut(ChainId::Input).rules.reverse();
        assert_eq!(base.differing_prefixes(&reordered), None);
        let mut policy = healthy();
        policy.chain_mut(ChainId::Forward).policy = Target::Drop;
        assert_eq!(base.differing_prefixes(&policy), None);
    }
}
