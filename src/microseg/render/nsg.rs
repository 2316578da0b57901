//! Azure: one network security group on every tenant NIC, its rules naming application
//! security groups (ASGs) whose members we list (real membership is set on NICs).
//!
//! A connection passes the Outbound rules at a tenant source and the Inbound rules at a tenant
//! destination. In each direction the rules are tried by ascending priority and the first
//! match decides; after them come Azure's default rules, which admit all traffic inside the
//! virtual network (so a policy without Deny rules is not default-deny), load-balancer probes
//! inbound and everything to the Internet outbound, then deny the rest. Stateful: replies
//! are not checked.

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

use ipnet::Ipv4Net;
use serde::{Deserialize, Serialize};

use super::{
    Endpoint, MAX_GROUPS, MAX_MEMBERS, MAX_RULES, Proto, RenderError, TENANT, at_most, invalid, is_tenant,
};

/// The `AzureLoadBalancer` service tag's address in our tenants.
pub const AZURE_LOAD_BALANCER: Ipv4Addr = Ipv4Addr::new(100, 64, 0, 1);
/// Shared address space (RFC 6598), where the platform services live: not `Internet`.
const SHARED: Ipv4Net = Ipv4Net::new_assert(Ipv4Addr::new(100, 64, 0, 0), 10);

/// The JSON form: `{"applicationSecurityGroups": [...], "securityRules": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NsgDoc {
    #[serde(default)]
    pub application_security_groups: Vec<AsgDoc>,
    pub security_rules: Vec<RuleDoc>,
}

/// An application security group and the addresses of its NICs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AsgDoc {
    pub name: String,
    pub members: Vec<Ipv4Addr>,
}

/// A security rule as the Azure API nests it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleDoc {
    pub name: String,
    pub properties: PropertiesDoc,
}

/// A security rule's properties, Azure's field names. Exactly one of each source/destination
/// alternative is given; plural forms are lists of the singular's values.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PropertiesDoc {
    pub priority: i64,
    /// `Inbound` or `Outbound`.
    pub direction: String,
    /// `Allow` or `Deny`.
    pub access: String,
    /// `Tcp`, `Udp`, `*` (or `Icmp`, `Esp`, `Ah`, which match no TCP or UDP connection).
    pub protocol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_port_range: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_port_ranges: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination_port_range: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub destination_port_ranges: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_address_prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_address_prefixes: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_application_security_groups: Vec<AsgRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination_address_prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub destination_address_prefixes: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub destination_application_security_groups: Vec<AsgRef>,
}

/// A reference to an ASG; `id` is its name here (a resource id in Azure).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AsgRef {
    pub id: String,
}

/// A validated NSG, ready to answer for connections.
#[derive(Debug, Clone)]
pub struct Nsg {
    /// Per direction (inbound, outbound): the rules by ascending priority, then the defaults.
    inbound: Vec<Rule>,
    outbound: Vec<Rule>,
    /// Each ASG's members, by the index rules refer to.
    asgs: Vec<BTreeSet<Ipv4Addr>>,
}

#[derive(Debug, Clone)]
struct Rule {
    allow: bool,
    /// None: any protocol.
    proto: Option<Proto>,
    /// False for protocols that are neither TCP nor UDP: the rule matches nothing here.
    live: bool,
    ports: Vec<(u16, u16)>,
    src: Vec<Addr>,
    dst: Vec<Addr>,
}

#[derive(Debug, Clone, PartialEq)]
enum Addr {
    Any,
    Net(Ipv4Net),
    Internet,
    Asg(usize),
}

impl Nsg {
    /// Reads and validates the JSON form.
    pub fn from_json(text: &str) -> Result<Nsg, RenderError> {
        Nsg::new(&super::from_json("NSG", text)?)
    }

    /// Validates the form: unique names, priorities 100..=4096 unique per direction, known
    /// values, existing ASGs, one source and one destination alternative, within the limits.
    pub fn new(doc: &NsgDoc) -> Result<Nsg, RenderError> {
        at_most(doc.security_rules.len(), MAX_RULES, "security rules")?;
        at_most(doc.application_security_groups.len(), MAX_GROUPS, "application security groups")?;
        let members: usize = doc.application_security_groups.iter().map(|a| a.members.len()).sum();
        at_most(members, MAX_MEMBERS, "members")?;
        let mut index = BTreeMap::new();
        for (i, asg) in doc.application_security_groups.iter().enumerate() {
            if asg.name.is_empty() || index.insert(asg.name.as_str(), i).is_some() {
                return Err(invalid(
                    format!("applicationSecurityGroups[{i}]"),
                    format!("name '{}' empty or repeated", asg.name),
                ));
            }
        }
        let (mut inbound, mut outbound) = (BTreeMap::new(), BTreeMap::new());
        let mut names = BTreeSet::new();
        for (i, r) in doc.security_rules.iter().enumerate() {
            let place = format!("securityRules[{i}] '{}'", r.name);
            if !names.insert(r.name.as_str()) {
                return Err(invalid(place, "repeated rule name"));
            }
            let (is_in, prio, rule) = compile(&r.properties, &index).map_err(|what| invalid(&place, what))?;
            let side = if is_in { &mut inbound } else { &mut outbound };
            if side.insert(prio, rule).is_some() {
                return Err(invalid(place, format!("priority {prio} repeated in its direction")));
            }
        }
        let asgs =
            doc.application_security_groups.iter().map(|a| a.members.iter().copied().collect()).collect();
        let with_defaults =
            |rules: BTreeMap<i64, Rule>, defaults: Vec<Rule>| rules.into_values().chain(defaults).collect();
        Ok(Nsg {
            inbound: with_defaults(inbound, default_rules(true)),
            outbound: with_defaults(outbound, default_rules(false)),
            asgs,
        })
    }

    /// Whether the connection passes: Outbound at a tenant source, Inbound at a tenant
    /// destination (an external end has no NSG; with none at either end nothing filters).
    /// ASG membership is the listed one.
    pub fn allows(&self, src: Ipv4Addr, dst: Ipv4Addr, proto: Proto, dport: u16) -> bool {
        self.allows_ends(&self.listed(src), &self.listed(dst), proto, dport)
    }

    /// As [`Nsg::allows`], with each end's ASGs given (the replay membership).
    pub fn allows_ends(&self, src: &Endpoint, dst: &Endpoint, proto: Proto, dport: u16) -> bool {
        let pass = |rules: &[Rule]| {
            rules.iter().find(|r| self.matches(r, src, dst, proto, dport)).is_some_and(|r| r.allow)
        };
        (!is_tenant(src.ip) || pass(&self.outbound)) && (!is_tenant(dst.ip) || pass(&self.inbound))
    }

    /// An address with the ASGs listing it.
    pub fn listed(&self, ip: Ipv4Addr) -> Endpoint {
        Endpoint { ip, groups: (0..self.asgs.len()).filter(|&i| self.asgs[i].contains(&ip)).collect() }
    }

    /// Each ASG's listed members, in the document's order.
    pub fn groups(&self) -> Vec<Vec<u32>> {
        self.asgs.iter().map(|a| a.iter().map(|&ip| u32::from(ip)).collect()).collect()
    }

    /// Every network a rule tests an address against (the tags' included): addresses inside
    /// the same ones, with the same ASGs, are treated alike.
    pub fn nets(&self) -> Vec<Ipv4Net> {
        let mut nets = vec![TENANT, SHARED];
        for r in self.inbound.iter().chain(&self.outbound) {
            nets.extend(
                r.src.iter().chain(&r.dst).filter_map(|a| if let Addr::Net(n) = a { Some(*n) } else { None }),
            );
        }
        nets.sort_unstable();
        nets.dedup();
        nets
    }

    /// User rules (the defaults excluded), ASGs, members.
    pub fn size(&self) -> [usize; 3] {
        let user = self.inbound.len() + self.outbound.len() - 6;
        [user, self.asgs.len(), self.asgs.iter().map(BTreeSet::len).sum()]
    }

    fn matches(&self, r: &Rule, src: &Endpoint, dst: &Endpoint, proto: Proto, dport: u16) -> bool {
        r.live
            && r.proto.is_none_or(|p| p == proto)
            && r.ports.iter().any(|&(a, b)| (a..=b).contains(&dport))
            && r.src.iter().any(|a| addr_has(a, src))
            && r.dst.iter().any(|a| addr_has(a, dst))
    }
}

fn addr_has(a: &Addr, e: &Endpoint) -> bool {
    match a {
        Addr::Any => true,
        Addr::Net(n) => n.contains(&e.ip),
        Addr::Internet => !TENANT.contains(&e.ip) && !SHARED.contains(&e.ip),
        Addr::Asg(i) => e.groups.contains(i),
    }
}

/// Azure's default rules of a direction, after every user rule (priorities 65000, 65001,
/// 65500): AllowVnetInBound, AllowAzureLoadBalancerInBound, DenyAllInBound; AllowVnetOutBound,
/// AllowInternetOutBound, DenyAllOutBound.
fn default_rules(inbound: bool) -> Vec<Rule> {
    let rule = |allow, src: Addr, dst: Addr| Rule {
        allow,
        proto: None,
        live: true,
        ports: vec![(0, u16::MAX)],
        src: vec![src],
        dst: vec![dst],
    };
    let vnet = || Addr::Net(TENANT);
    let second = if inbound {
        rule(true, Addr::Net(Ipv4Net::from(AZURE_LOAD_BALANCER)), Addr::Any)
    } else {
        rule(true, Addr::Any, Addr::Internet)
    };
    vec![rule(true, vnet(), vnet()), second, rule(false, Addr::Any, Addr::Any)]
}

/// One rule's properties: (inbound?, priority, rule) or what is wrong.
fn compile(p: &PropertiesDoc, asgs: &BTreeMap<&str, usize>) -> Result<(bool, i64, Rule), String> {
    if !(100..=4096).contains(&p.priority) {
        return Err(format!("priority {} (100..4096)", p.priority));
    }
    let inbound = match p.direction.as_str() {
        "Inbound" => true,
        "Outbound" => false,
        d => return Err(format!("direction '{d}' (Inbound or Outbound)")),
    };
    let allow = match p.access.as_str() {
        "Allow" => true,
        "Deny" => false,
        a => return Err(format!("access '{a}' (Allow or Deny)")),
    };
    let (proto, live) = match p.protocol.as_str() {
        "Tcp" => (Some(Proto::Tcp), true),
        "Udp" => (Some(Proto::Udp), true),
        "*" => (None, true),
        "Icmp" | "Esp" | "Ah" => (None, false),
        x => return Err(format!("protocol '{x}' (Tcp, Udp, Icmp, Esp, Ah or *)")),
    };
    let any_source_port = p.source_port_range.iter().chain(&p.source_port_ranges).all(|s| s == "*");
    if !any_source_port {
        return Err("source ports must be '*' (they are not filtered in this model)".into());
    }
    let ports = one_of("destinationPortRange", &p.destination_port_range, &p.destination_port_ranges)?
        .iter()
        .map(|s| port_range(s))
        .collect::<Result<_, _>>()?;
    let src = endpoint(
        "source",
        &p.source_address_prefix,
        &p.source_address_prefixes,
        &p.source_application_security_groups,
        asgs,
    )?;
    let dst = endpoint(
        "destination",
        &p.destination_address_prefix,
        &p.destination_address_prefixes,
        &p.destination_application_security_groups,
        asgs,
    )?;
    Ok((inbound, p.priority, Rule { allow, proto, live, ports, src, dst }))
}

/// The values of a field given in its singular or its plural form, not both, not neither.
fn one_of<'a>(field: &str, one: &'a Option<String>, many: &'a [String]) -> Result<Vec<&'a String>, String> {
    match (one, many.is_empty()) {
        (Some(x), true) => Ok(vec![x]),
        (None, false) => Ok(many.iter().collect()),
        (Some(_), false) => Err(format!("both {field} and {field}s")),
        (None, true) => Err(format!("no {field} or {field}s")),
    }
}

fn endpoint(
    side: &str,
    prefix: &Option<String>,
    prefixes: &[String],
    groups: &[AsgRef],
    asgs: &BTreeMap<&str, usize>,
) -> Result<Vec<Addr>, String> {
    let given =
        usize::from(prefix.is_some()) + usize::from(!prefixes.is_empty()) + usize::from(!groups.is_empty());
    if given != 1 {
        return Err(format!(
            "give exactly one of {side}AddressPrefix, {side}AddressPrefixes, {side}ApplicationSecurityGroups"
        ));
    }
    if !groups.is_empty() {
        return groups
            .iter()
            .map(|g| {
                asgs.get(g.id.as_str())
                    .map(|&i| Addr::Asg(i))
                    .ok_or(format!("unknown application security group '{}'", g.id))
            })
            .collect();
    }
    prefix.iter().chain(prefixes).map(|s| address(s)).collect()
}

/// `*`, a service tag, a CIDR or an address.
fn address(s: &str) -> Result<Addr, String> {
    match s {
        "*" => Ok(Addr::Any),
        "VirtualNetwork" => Ok(Addr::Net(TENANT)),
        "Internet" => Ok(Addr::Internet),
        "AzureLoadBalancer" => Ok(Addr::Net(Ipv4Net::from(AZURE_LOAD_BALANCER))),
        _ => s
            .parse::<Ipv4Net>()
            .or_else(|_| s.parse::<Ipv4Addr>().map(Ipv4Net::from))
            .map(Addr::Net)
            .map_err(|_| format!("address prefix '{s}' (a CIDR, an address, *, VirtualNetwork, Internet or AzureLoadBalancer)")),
    }
}

/// `*`, `N` or `A-B` with 0 ≤ A ≤ B ≤ 65535.
fn port_range(s: &str) -> Result<(u16, u16), String> {
    let bad = || format!("destination port range '{s}' (N, A-B or *, 0..65535)");
    let port = |x: &str| x.bytes().all(|b| b.is_ascii_digit()).then(|| x.parse::<u16>().ok()).flatten();
    match s.split_once('-') {
        _ if s == "*" => Ok((0, u16::MAX)),
        Some((a, b)) => port(a).zip(port(b)).filter(|(a, b)| a <= b).ok_or_else(bad),
        None => port(s).map(|n| (n, n)).ok_or_else(bad),
    }
}

#[cfg(test)]
mod tests;
