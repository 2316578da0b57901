//! API-server validation of NetworkPolicies, in the server's order and wording.
//!
//! The checks follow `ValidateNetworkPolicy` of Kubernetes 1.34: object metadata, the pod
//! selector, each ingress rule (ports, then peers), each egress rule, then policy types.
//! Each failure is a [`FieldError`]; [`invalid_message`] renders a list the way kubectl
//! prints an `Invalid` status (one line, or a header and `* ` bullets).

use std::net::IpAddr;

use ipnet::IpNet;

use super::labels::{validate_key, validate_subdomain, validate_value};
use super::policy::{IntOrString, IpBlock, LabelSelector, NetworkPolicy, Peer, PolicyPort, Rule};

/// One field error: `<field>: <body>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub body: String,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.body)
    }
}

fn invalid_str(field: &str, value: &str, detail: &str) -> FieldError {
    FieldError { field: field.to_string(), body: format!("Invalid value: {value:?}: {detail}") }
}

fn invalid_int(field: &str, value: i64, detail: &str) -> FieldError {
    FieldError { field: field.to_string(), body: format!("Invalid value: {value}: {detail}") }
}

fn required(field: &str, detail: &str) -> FieldError {
    let body =
        if detail.is_empty() { "Required value".to_string() } else { format!("Required value: {detail}") };
    FieldError { field: field.to_string(), body }
}

fn forbidden(field: &str, detail: &str) -> FieldError {
    FieldError { field: field.to_string(), body: format!("Forbidden: {detail}") }
}

fn unsupported(field: &str, value: &str, supported: &[&str]) -> FieldError {
    let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    FieldError {
        field: field.to_string(),
        body: format!("Unsupported value: {value:?}: supported values: {}", list.join(", ")),
    }
}

/// kubectl's rendering of an `Invalid` status for `<kind> "<name>"`.
pub fn invalid_message(kind: &str, name: &str, errors: &[FieldError]) -> String {
    let head = format!("The {kind} {name:?} is invalid: ");
    match errors {
        [one] => format!("{head}{one}"),
        many => {
            let mut s = head;
            for e in many {
                s.push_str(&format!("\n* {e}"));
            }
            s
        }
    }
}

/// Validates a defaulted policy. `has_pod_selector` says whether the written object carried
/// `spec.podSelector` at all (the typed form cannot tell an absent selector from `{}`).
pub fn validate_policy(p: &NetworkPolicy, has_pod_selector: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    validate_meta(p, &mut errs);
    if has_pod_selector {
        validate_selector(&p.spec.pod_selector, "spec.podSelector", &mut errs);
    } else {
        errs.push(required("spec.podSelector", ""));
    }
    for (key, peers_key, rules) in [("ingress", "from", &p.spec.ingress), ("egress", "to", &p.spec.egress)] {
        for (i, rule) in rules.iter().enumerate() {
            validate_rule(rule, &format!("spec.{key}[{i}]"), peers_key, &mut errs);
        }
    }
    let types = &p.spec.policy_types;
    if types.len() > 2 {
        errs.push(FieldError {
            field: "spec.policyTypes".into(),
            body: format!("Invalid value: {types:?}: may not specify more than two policyTypes"),
        });
    } else {
        for (i, t) in types.iter().enumerate() {
            if t != "Ingress" && t != "Egress" {
                errs.push(unsupported(&format!("spec.policyTypes[{i}]"), t, &["Ingress", "Egress"]));
            }
        }
    }
    errs
}

fn validate_meta(p: &NetworkPolicy, errs: &mut Vec<FieldError>) {
    let name = &p.meta.name;
    if name.is_empty() {
        errs.push(required("metadata.name", "name or generateName is required"));
    } else if let Err(e) = validate_subdomain(name) {
        errs.push(invalid_str("metadata.name", name, &e));
    }
    for (k, v) in &p.meta.labels {
        if let Err(e) = validate_key(k) {
            errs.push(invalid_str("metadata.labels", k, &e));
        }
        if let Err(e) = validate_value(v) {
            errs.push(invalid_str("metadata.labels", v, &e));
        }
    }
    for k in p.meta.annotations.keys() {
        if let Err(e) = validate_key(&k.to_ascii_lowercase()) {
            errs.push(invalid_str("metadata.annotations", k, &e));
        }
    }
}

/// `ValidateLabelSelector` with label values checked (the 1.34 default).
pub fn validate_selector(s: &LabelSelector, path: &str, errs: &mut Vec<FieldError>) {
    for (i, e) in s.match_expressions.iter().enumerate() {
        let epath = format!("{path}.matchExpressions[{i}]");
        match e.operator.as_str() {
            "In" | "NotIn" if e.values.is_empty() => errs.push(required(
                &format!("{epath}.values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !e.values.is_empty() => errs.push(forbidden(
                &format!("{epath}.values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => {
                errs.push(invalid_str(&format!("{epath}.operator"), other, "not a valid selector operator"))
            }
        }
        if let Err(m) = validate_key(&e.key) {
            errs.push(invalid_str(&format!("{epath}.key"), &e.key, &m));
        }
        for (j, v) in e.values.iter().enumerate() {
            if let Err(m) = validate_value(v) {
                errs.push(invalid_str(&format!("{epath}.values[{j}]"), v, &m));
            }
        }
    }
    for (k, v) in &s.match_labels {
        if let Err(m) = validate_key(k) {
            errs.push(invalid_str(&format!("{path}.matchLabels"), k, &m));
        }
        if let Err(m) = validate_value(v) {
            errs.push(invalid_str(&format!("{path}.matchLabels"), v, &m));
        }
    }
}

fn validate_rule(rule: &Rule, path: &str, peers_key: &str, errs: &mut Vec<FieldError>) {
    for (i, port) in rule.ports.iter().enumerate() {
        validate_port(port, &format!("{path}.ports[{i}]"), errs);
    }
    for (i, peer) in rule.peers.iter().enumerate() {
        validate_peer(peer, &format!("{path}.{peers_key}[{i}]"), errs);
    }
}

const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";

fn validate_port(port: &PolicyPort, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(proto) = &port.protocol
        && !matches!(proto.as_str(), "TCP" | "UDP" | "SCTP")
    {
        errs.push(unsupported(&format!("{path}.protocol"), proto, &["TCP", "UDP", "SCTP"]));
    }
    let end_path = format!("{path}.endPort");
    match (&port.port, port.end_port) {
        (Some(IntOrString::Int(n)), end) => {
            if !(1..=65535).contains(n) {
                errs.push(invalid_int(&format!("{path}.port"), i64::from(*n), PORT_RANGE));
            }
            if let Some(e) = end {
                if e < *n {
                    errs.push(invalid_int(
                        &end_path,
                        i64::from(*n),
                        "must be greater than or equal to `port`",
                    ));
                }
                if !(1..=65535).contains(&e) {
                    errs.push(invalid_int(&end_path, i64::from(e), PORT_RANGE));
                }
            }
        }
        (Some(IntOrString::Str(name)), end) => {
            if let Some(e) = end {
                errs.push(invalid_int(
                    &end_path,
                    i64::from(e),
                    "may not be specified when `port` is non-numeric",
                ));
            }
            for m in port_name_errors(name) {
                errs.push(invalid_str(&format!("{path}.port"), name, m));
            }
        }
        (None, Some(e)) => errs.push(invalid_int(
            &end_path,
            i64::from(e),
            "may not be specified when `port` is not specified",
        )),
        (None, None) => {}
    }
}

/// `IsValidPortName`: IANA service names.
pub fn port_name_errors(name: &str) -> Vec<&'static str> {
    let mut errs = Vec::new();
    if name.len() > 15 {
        errs.push("must be no more than 15 characters");
    }
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)");
    }
    if name.contains("--") {
        errs.push("must not contain consecutive hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        errs.push("must not begin or end with a hyphen");
    }
    errs
}

fn validate_peer(peer: &Peer, path: &str, errs: &mut Vec<FieldError>) {
    let mut count = 0;
    if let Some(s) = &peer.pod_selector {
        count += 1;
        validate_selector(s, &format!("{path}.podSelector"), errs);
    }
    if let Some(s) = &peer.namespace_selector {
        count += 1;
        validate_selector(s, &format!("{path}.namespaceSelector"), errs);
    }
    if let Some(b) = &peer.ip_block {
        count += 1;
        validate_ip_block(b, &format!("{path}.ipBlock"), errs);
    }
    if count == 0 {
        errs.push(required(path, "must specify a peer"));
    } else if count > 1 && peer.ip_block.is_some() {
        errs.push(forbidden(path, "may not specify both ipBlock and another peer"));
    }
}

const CIDR_MSG: &str = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

/// Parses a CIDR as Go's `ParseCIDRSloppy` does (host bits may be set).
pub fn parse_cidr(s: &str) -> Option<IpNet> {
    let (addr, len) = s.split_once('/')?;
    let addr: IpAddr = addr.parse().ok()?;
    if len.is_empty() || len.len() > 3 || !len.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    IpNet::new(addr, len.parse().ok()?).ok()
}

fn validate_ip_block(b: &IpBlock, path: &str, errs: &mut Vec<FieldError>) {
    if b.cidr.is_empty() {
        errs.push(required(&format!("{path}.cidr"), ""));
        return;
    }
    let Some(cidr) = parse_cidr(&b.cidr) else {
        errs.push(invalid_str(&format!("{path}.cidr"), &b.cidr, CIDR_MSG));
        return;
    };
    for (i, e) in b.except.iter().enumerate() {
        let epath = format!("{path}.except[{i}]");
        let Some(ex) = parse_cidr(e) else {
            errs.push(invalid_str(&epath, e, CIDR_MSG));
            continue;
        };
        if !cidr.contains(&ex.addr()) || cidr.prefix_len() >= ex.prefix_len() {
            errs.push(invalid_str(&epath, e, "must be a strict subset of `cidr`"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::policy::{PolicySpec, Rule};

    fn policy(spec: PolicySpec) -> NetworkPolicy {
        let mut p = NetworkPolicy { meta: Default::default(), spec };
        p.meta.name = "np".into();
        p
    }

    fn msgs(spec: PolicySpec) -> Vec<String> {
        validate_policy(&policy(spec), true).iter().map(|e| e.to_string()).collect()
    }

    fn ingress_port(port: PolicyPort) -> PolicySpec {
        PolicySpec { ingress: vec![Rule { peers: vec![], ports: vec![port] }], ..Default::default() }
    }

    #[test]
    fn port_errors() {
        let p =
            PolicyPort { protocol: Some("ICMP".into()), port: Some(IntOrString::Int(70000)), end_port: None };
        assert_eq!(
            msgs(ingress_port(p)),
            vec![
                "spec.ingress[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"TCP\", \"UDP\", \"SCTP\"",
                "spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
            ]
        );
        let p = PolicyPort { protocol: None, port: Some(IntOrString::Str("8080".into())), end_port: None };
        assert_eq!(
            msgs(ingress_port(p)),
            vec![
                "spec.ingress[0].ports[0].port: Invalid value: \"8080\": must contain at least one letter (a-z)"
            ]
        );
        let p = PolicyPort { protocol: None, port: Some(IntOrString::Int(90)), end_port: Some(80) };
        assert_eq!(
            msgs(ingress_port(p)),
            vec![
                "spec.ingress[0].ports[0].endPort: Invalid value: 90: must be greater than or equal to `port`"
            ]
        );
        let p = PolicyPort { protocol: None, port: None, end_port: Some(80) };
        assert!(msgs(ingress_port(p))[0].ends_with("may not be specified when `port` is not specified"));
    }

    #[test]
    fn peer_errors() {
        let spec = PolicySpec {
            ingress: vec![Rule {
                peers: vec![
                    Peer::default(),
                    Peer {
                        pod_selector: Some(LabelSelector::default()),
                        ip_block: Some(IpBlock {
                            cidr: "10.0.0.0/8".into(),
                            except: vec!["11.0.0.0/16".into()],
                        }),
                        ..Default::default()
                    },
                    Peer {
                        ip_block: Some(IpBlock { cidr: "x".into(), except: vec![] }),
                        ..Default::default()
                    },
                ],
                ports: vec![],
            }],
            ..Default::default()
        };
        assert_eq!(
            msgs(spec),
            vec![
                "spec.ingress[0].from[0]: Required value: must specify a peer",
                "spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: \"11.0.0.0/16\": must be a strict subset of `cidr`",
                "spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer",
                "spec.ingress[0].from[2].ipBlock.cidr: Invalid value: \"x\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
            ]
        );
    }

    #[test]
    fn renders_like_kubectl() {
        let one = [FieldError { field: "a".into(), body: "Required value".into() }];
        assert_eq!(
            invalid_message("NetworkPolicy", "x", &one),
            "The NetworkPolicy \"x\" is invalid: a: Required value"
        );
        let two = [one[0].clone(), one[0].clone()];
        assert_eq!(
            invalid_message("NetworkPolicy", "x", &two),
            "The NetworkPolicy \"x\" is invalid: \n* a: Required value\n* a: Required value"
        );
    }

    #[test]
    fn types_and_names() {
        let spec = PolicySpec { policy_types: vec!["Ingres".into()], ..Default::default() };
        assert_eq!(
            msgs(spec),
            vec![
                "spec.policyTypes[0]: Unsupported value: \"Ingres\": supported values: \"Ingress\", \"Egress\""
            ]
        );
        let mut p = policy(PolicySpec::default());
        p.meta.name = "Bad_Name".into();
        assert!(
            validate_policy(&p, true)[0]
                .to_string()
                .starts_with("metadata.name: Invalid value: \"Bad_Name\"")
        );
        assert_eq!(
            validate_policy(&policy(PolicySpec::default()), false)[0].to_string(),
            "spec.podSelector: Required value"
        );
    }
}
