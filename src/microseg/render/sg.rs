//! AWS: security groups whose instances we list (real membership is set on instances).
//!
//! Security groups only allow, and are stateful. A VM's rules are the union over its groups; a
//! connection needs an egress permission at a tenant source and an ingress permission at a
//! tenant destination. Unlike a group AWS creates, whose egress allows everything until
//! removed, this form has only what it lists: a VM in no group sends and receives nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

use ipnet::Ipv4Net;
use serde::{Deserialize, Serialize};

use super::{Endpoint, MAX_GROUPS, MAX_MEMBERS, MAX_RULES, Proto, RenderError, at_most, invalid, is_tenant};

/// The JSON form: `{"SecurityGroups": [...]}`, AWS's field names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct SgDoc {
    pub security_groups: Vec<GroupDoc>,
}

/// One security group with its instances' addresses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct GroupDoc {
    pub group_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub members: Vec<Ipv4Addr>,
    #[serde(default)]
    pub ip_permissions: Vec<PermissionDoc>,
    #[serde(default)]
    pub ip_permissions_egress: Vec<PermissionDoc>,
}

/// One permission: protocol, port range and peers (CIDRs or groups).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct PermissionDoc {
    /// `tcp`, `udp`, `-1` (all; ports ignored), or `icmp` (matches no TCP or UDP connection).
    pub ip_protocol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_port: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_port: Option<i64>,
    #[serde(default)]
    pub ip_ranges: Vec<IpRangeDoc>,
    #[serde(default)]
    pub user_id_group_pairs: Vec<GroupPairDoc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct IpRangeDoc {
    pub cidr_ip: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct GroupPairDoc {
    pub group_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Validated security groups, ready to answer for connections.
#[derive(Debug, Clone)]
pub struct Sg {
    groups: Vec<Group>,
    /// Each address's groups (indexes into `groups`).
    member_of: BTreeMap<Ipv4Addr, Vec<usize>>,
}

#[derive(Debug, Clone)]
struct Group {
    members: BTreeSet<Ipv4Addr>,
    ingress: Vec<Permission>,
    egress: Vec<Permission>,
}

#[derive(Debug, Clone)]
struct Permission {
    /// None: all protocols.
    proto: Option<Proto>,
    live: bool,
    ports: (u16, u16),
    nets: Vec<Ipv4Net>,
    groups: Vec<usize>,
}

impl Sg {
    /// Reads and validates the JSON form.
    pub fn from_json(text: &str) -> Result<Sg, RenderError> {
        Sg::new(&super::from_json("security groups", text)?)
    }

    /// Validates: unique group names, known protocols, port ranges for tcp and udp, valid
    /// CIDRs, referenced groups that exist, within the limits.
    pub fn new(doc: &SgDoc) -> Result<Sg, RenderError> {
        let gs = &doc.security_groups;
        at_most(gs.len(), MAX_GROUPS, "security groups")?;
        at_most(gs.iter().map(|g| g.members.len()).sum(), MAX_MEMBERS, "members")?;
        at_most(
            gs.iter().map(|g| g.ip_permissions.len() + g.ip_permissions_egress.len()).sum(),
            MAX_RULES,
            "permissions",
        )?;
        let mut index = BTreeMap::new();
        for (i, g) in gs.iter().enumerate() {
            if g.group_name.is_empty() || index.insert(g.group_name.as_str(), i).is_some() {
                return Err(invalid(
                    format!("SecurityGroups[{i}]"),
                    format!("GroupName '{}' empty or repeated", g.group_name),
                ));
            }
        }
        let mut groups = Vec::with_capacity(gs.len());
        let mut member_of: BTreeMap<Ipv4Addr, Vec<usize>> = BTreeMap::new();
        for (i, g) in gs.iter().enumerate() {
            let perms = |list: &[PermissionDoc], field: &str| {
                list.iter()
                    .enumerate()
                    .map(|(k, p)| {
                        permission(p, &index).map_err(|what| {
                            invalid(format!("SecurityGroups[{i}] '{}' {field}[{k}]", g.group_name), what)
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            };
            let (ingress, egress) = (
                perms(&g.ip_permissions, "IpPermissions")?,
                perms(&g.ip_permissions_egress, "IpPermissionsEgress")?,
            );
            for &ip in &g.members {
                member_of.entry(ip).or_default().push(i);
            }
            groups.push(Group { members: g.members.iter().copied().collect(), ingress, egress });
        }
        Ok(Sg { groups, member_of })
    }

    /// Whether the connection passes: some egress permission of the source's groups (if the
    /// source is a tenant VM) and some ingress permission of the destination's groups (if the
    /// destination is one) admit it. With no tenant end nothing filters it. Membership is the
    /// listed one.
    pub fn allows(&self, src: Ipv4Addr, dst: Ipv4Addr, proto: Proto, dport: u16) -> bool {
        self.allows_ends(&self.listed(src), &self.listed(dst), proto, dport)
    }

    /// As [`Sg::allows`], with each end's groups given (the replay membership).
    pub fn allows_ends(&self, src: &Endpoint, dst: &Endpoint, proto: Proto, dport: u16) -> bool {
        let admits = |vm: &Endpoint, peer: &Endpoint, egress: bool| {
            vm.groups.iter().any(|&g| {
                let g = &self.groups[g];
                let perms = if egress { &g.egress } else { &g.ingress };
                perms.iter().any(|p| permits(p, peer, proto, dport))
            })
        };
        (!is_tenant(src.ip) || admits(src, dst, true)) && (!is_tenant(dst.ip) || admits(dst, src, false))
    }

    /// An address with the groups listing it.
    pub fn listed(&self, ip: Ipv4Addr) -> Endpoint {
        Endpoint { ip, groups: self.member_of.get(&ip).cloned().unwrap_or_default() }
    }

    /// Each group's listed members, in the document's order.
    pub fn groups(&self) -> Vec<Vec<u32>> {
        self.groups.iter().map(|g| g.members.iter().map(|&ip| u32::from(ip)).collect()).collect()
    }

    /// Every network a permission tests an address against, and the tenant's.
    pub fn nets(&self) -> Vec<Ipv4Net> {
        let mut nets = vec![super::TENANT];
        for g in &self.groups {
            nets.extend(g.ingress.iter().chain(&g.egress).flat_map(|p| p.nets.iter().copied()));
        }
        nets.sort_unstable();
        nets.dedup();
        nets
    }

    /// Permissions, groups, members.
    pub fn size(&self) -> [usize; 3] {
        let perms = self.groups.iter().map(|g| g.ingress.len() + g.egress.len()).sum();
        [perms, self.groups.len(), self.groups.iter().map(|g| g.members.len()).sum()]
    }
}

fn permits(p: &Permission, peer: &Endpoint, proto: Proto, dport: u16) -> bool {
    p.live
        && p.proto.is_none_or(|x| x == proto)
        && (p.ports.0..=p.ports.1).contains(&dport)
        && (p.nets.iter().any(|n| n.contains(&peer.ip)) || p.groups.iter().any(|g| peer.groups.contains(g)))
}

fn permission(p: &PermissionDoc, index: &BTreeMap<&str, usize>) -> Result<Permission, String> {
    let (proto, live) = match p.ip_protocol.as_str() {
        "tcp" | "6" => (Some(Proto::Tcp), true),
        "udp" | "17" => (Some(Proto::Udp), true),
        "-1" => (None, true),
        "icmp" | "1" => (None, false),
        x => return Err(format!("IpProtocol '{x}' (tcp, udp, icmp or -1)")),
    };
    let ports = match (p.from_port, p.to_port) {
        _ if proto.is_none() => (0, u16::MAX),
        (Some(a), Some(b)) if 0 <= a && a <= b && b <= 65535 => (a as u16, b as u16),
        (a, b) => {
            return Err(format!(
                "FromPort {a:?} ToPort {b:?} (0 ≤ FromPort ≤ ToPort ≤ 65535 for tcp and udp)"
            ));
        }
    };
    let nets = p
        .ip_ranges
        .iter()
        .map(|r| {
            r.cidr_ip
                .parse::<Ipv4Net>()
                .map_err(|_| format!("CidrIp '{}' (a CIDR such as 10.1.0.0/16)", r.cidr_ip))
        })
        .collect::<Result<_, _>>()?;
    let groups = p
        .user_id_group_pairs
        .iter()
        .map(|u| index.get(u.group_name.as_str()).copied().ok_or(format!("unknown group '{}'", u.group_name)))
        .collect::<Result<_, _>>()?;
    Ok(Permission { proto, live, ports, nets, groups })
}

#[cfg(test)]
mod tests;
