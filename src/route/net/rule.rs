//! Policy routing rules (`ip rule`), ordered as the kernel keeps them.
//!
//! Rules are sorted by preference; a new rule goes after the rules of equal preference, and a
//! rule added without a preference takes the second rule's preference minus one (0 when that
//! is not positive) — the kernel's `fib_default_rule_pref`, measured on Linux 6.1.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

use super::addr::{covers, show_prefix};

/// The three tables of the lab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TableId {
    Local,
    Main,
    Default,
}

impl TableId {
    pub fn name(self) -> &'static str {
        match self {
            TableId::Local => "local",
            TableId::Main => "main",
            TableId::Default => "default",
        }
    }

    /// Names and the kernel's numbers (255, 254, 253).
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "local" | "255" => Some(TableId::Local),
            "main" | "254" => Some(TableId::Main),
            "default" | "253" => Some(TableId::Default),
            _ => None,
        }
    }
}

/// What a matching rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleAction {
    Lookup(TableId),
    Blackhole,
    Prohibit,
    Unreachable,
}

impl RuleAction {
    pub fn text(self) -> String {
        match self {
            RuleAction::Lookup(t) => format!("lookup {}", t.name()),
            RuleAction::Blackhole => "blackhole".into(),
            RuleAction::Prohibit => "prohibit".into(),
            RuleAction::Unreachable => "unreachable".into(),
        }
    }
}

/// One rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rule {
    pub pref: u32,
    pub from: Option<Ipv4Net>,
    pub to: Option<Ipv4Net>,
    pub action: RuleAction,
}

impl Rule {
    /// Whether the rule applies to a packet; `from` never matches an unknown source.
    pub fn matches(&self, dst: Ipv4Addr, src: Option<Ipv4Addr>) -> bool {
        let from_ok = match (self.from, src) {
            (None, _) => true,
            (Some(p), Some(s)) => covers(&p, s),
            (Some(_), None) => false,
        };
        from_ok && self.to.is_none_or(|p| covers(&p, dst))
    }

    /// `ip rule` output line.
    pub fn show(&self) -> String {
        let from = self.from.map_or_else(|| "all".to_string(), show_prefix);
        let to = self.to.map(|p| format!(" to {}", show_prefix(p))).unwrap_or_default();
        format!("{}:\tfrom {from}{to} {}", self.pref, self.action.text())
    }
}

/// A rule as given to `ip rule add|del`: every field optional.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RuleSpec {
    pub pref: Option<u32>,
    pub from: Option<Ipv4Net>,
    pub to: Option<Ipv4Net>,
    pub action: Option<RuleAction>,
}

/// Why a rule change failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleError {
    Exists,
    NotFound,
    Full,
}

/// Rules a node may hold (docs/route.md, "What the agent has": state is bounded).
pub const MAX_RULES: usize = 1024;

/// The three rules every node starts with.
pub fn default_rules() -> Vec<Rule> {
    [(0, TableId::Local), (32766, TableId::Main), (32767, TableId::Default)]
        .into_iter()
        .map(|(pref, t)| Rule { pref, from: None, to: None, action: RuleAction::Lookup(t) })
        .collect()
}

/// `ip rule add`: a rule without an action looks up nothing useful in the kernel; iproute2
/// defaults it to `lookup main`.
pub fn add(rules: &mut Vec<Rule>, spec: RuleSpec) -> Result<(), RuleError> {
    let pref = spec.pref.unwrap_or_else(|| rules.get(1).map_or(0, |r| r.pref.saturating_sub(1)));
    let rule = Rule {
        pref,
        from: spec.from.map(|p| p.trunc()),
        to: spec.to.map(|p| p.trunc()),
        action: spec.action.unwrap_or(RuleAction::Lookup(TableId::Main)),
    };
    if rules.contains(&rule) {
        return Err(RuleError::Exists);
    }
    if rules.len() >= MAX_RULES {
        return Err(RuleError::Full);
    }
    let at = rules.iter().position(|r| r.pref > pref).unwrap_or(rules.len());
    rules.insert(at, rule);
    Ok(())
}

/// `ip rule del`: the first rule matching every given field.
pub fn delete(rules: &mut Vec<Rule>, spec: RuleSpec) -> Result<(), RuleError> {
    let hit = rules.iter().position(|r| {
        spec.pref.is_none_or(|p| r.pref == p)
            && spec.from.is_none_or(|p| r.from == Some(p.trunc()))
            && spec.to.is_none_or(|p| r.to == Some(p.trunc()))
            && spec.action.is_none_or(|a| r.action == a)
    });
    rules.remove(hit.ok_or(RuleError::NotFound)?);
    Ok(())
}

/// `ip rule flush`: every rule except those of preference 0.
pub fn flush(rules: &mut Vec<Rule>) {
    rules.retain(|r| r.pref == 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(pref: Option<u32>, action: RuleAction) -> RuleSpec {
        RuleSpec { pref, action: Some(action), ..Default::default() }
    }

    fn shown(rules: &[Rule]) -> Vec<String> {
        rules.iter().map(Rule::show).collect()
    }

    #[test]
    fn prohibit_at_zero_goes_after_local() {
        let mut rules = default_rules();
        add(&mut rules, spec(Some(0), RuleAction::Prohibit)).unwrap();
        assert_eq!(shown(&rules)[..2], ["0:\tfrom all lookup local", "0:\tfrom all prohibit"]);
        assert_eq!(add(&mut rules, spec(Some(0), RuleAction::Prohibit)), Err(RuleError::Exists));
        delete(&mut rules, RuleSpec { pref: Some(0), ..Default::default() }).unwrap();
        assert_eq!(shown(&rules)[0], "0:\tfrom all prohibit");
    }

    #[test]
    fn default_preference_is_second_minus_one() {
        let mut rules = default_rules();
        add(&mut rules, RuleSpec { to: Some("10.0.0.0/8".parse().unwrap()), ..Default::default() }).unwrap();
        assert_eq!(rules[1].show(), "32765:\tfrom all to 10.0.0.0/8 lookup main");
        add(&mut rules, spec(Some(0), RuleAction::Blackhole)).unwrap();
        add(&mut rules, spec(None, RuleAction::Unreachable)).unwrap();
        assert_eq!(rules[2].show(), "0:\tfrom all unreachable");
    }

    #[test]
    fn flush_keeps_preference_zero_and_delete_reports_missing() {
        let mut rules = default_rules();
        let from = Some("192.168.1.0/24".parse().unwrap());
        add(&mut rules, RuleSpec { pref: Some(100), from, action: Some(RuleAction::Blackhole), to: None })
            .unwrap();
        assert_eq!(rules[1].show(), "100:\tfrom 192.168.1.0/24 blackhole");
        flush(&mut rules);
        assert_eq!(shown(&rules), ["0:\tfrom all lookup local"]);
        assert_eq!(delete(&mut rules, spec(Some(5), RuleAction::Prohibit)), Err(RuleError::NotFound));
    }

    #[test]
    fn from_never_matches_an_unset_source() {
        let r = Rule {
            pref: 1,
            from: Some("10.0.0.0/8".parse().unwrap()),
            to: None,
            action: RuleAction::Prohibit,
        };
        let dst = "1.2.3.4".parse().unwrap();
        assert!(!r.matches(dst, None));
        assert!(r.matches(dst, Some("10.7.8.9".parse().unwrap())));
    }
}
