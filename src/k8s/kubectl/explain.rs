//! `kubectl explain`: the plaintext template over an embedded copy of the upstream OpenAPI v3
//! descriptions.
//!
//! The NetworkPolicy schema is embedded down to every leaf (it is what agents ask about);
//! the other kinds of this cluster are described at their top level. Descriptions are the
//! upstream API texts; wrapping and layout follow kubectl's plaintext template.

use super::args::Args;
use crate::k8s::objects::Kind;
use crate::k8s::output::Output;

/// One schema field.
pub struct Field {
    pub name: &'static str,
    pub ty: &'static str,
    pub desc: &'static str,
    pub required: bool,
    pub enumeration: Option<&'static str>,
    /// The field type's own description (shown after the field's when it is explained).
    pub type_desc: &'static str,
    pub children: &'static [Field],
}

const fn f(name: &'static str, ty: &'static str, desc: &'static str) -> Field {
    Field { name, ty, desc, required: false, enumeration: None, type_desc: "", children: &[] }
}

const API_VERSION: Field = f(
    "apiVersion",
    "string",
    "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources",
);
const KIND: Field = f(
    "kind",
    "string",
    "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
);
const METADATA: Field = Field {
    type_desc: "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
    ..f(
        "metadata",
        "ObjectMeta",
        "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    )
};

const REQUIREMENT: [Field; 3] = [
    Field { required: true, ..f("key", "string", "key is the label key that the selector applies to.") },
    Field {
        required: true,
        ..f(
            "operator",
            "string",
            "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.",
        )
    },
    f(
        "values",
        "[]string",
        "values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.",
    ),
];

const SELECTOR: [Field; 2] = [
    Field {
        type_desc: "A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.",
        children: &REQUIREMENT,
        ..f(
            "matchExpressions",
            "[]LabelSelectorRequirement",
            "matchExpressions is a list of label selector requirements. The requirements are ANDed.",
        )
    },
    f(
        "matchLabels",
        "map[string]string",
        "matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is \"key\", the operator is \"In\", and the values array contains only \"value\". The requirements are ANDed.",
    ),
];

const SELECTOR_DESC: &str = "A label selector is a label query over a set of resources. The result of matchLabels and matchExpressions are ANDed. An empty label selector matches all objects. A null label selector matches no objects.";

const IP_BLOCK: [Field; 2] = [
    Field {
        required: true,
        ..f(
            "cidr",
            "string",
            "cidr is a string representing the IPBlock Valid examples are \"192.168.1.0/24\" or \"2001:db8::/64\"",
        )
    },
    f(
        "except",
        "[]string",
        "except is a slice of CIDRs that should not be included within an IPBlock Valid examples are \"192.168.1.0/24\" or \"2001:db8::/64\" Except values will be rejected if they are outside the cidr range",
    ),
];

const PEER: [Field; 3] = [
    Field {
        type_desc: "IPBlock describes a particular CIDR (Ex. \"192.168.1.0/24\",\"2001:db8::/64\") that is allowed to the pods matched by a NetworkPolicySpec's podSelector. The except entry describes CIDRs that should not be included within this rule.",
        children: &IP_BLOCK,
        ..f(
            "ipBlock",
            "IPBlock",
            "ipBlock defines policy on a particular IPBlock. If this field is set then neither of the other fields can be.",
        )
    },
    Field {
        type_desc: SELECTOR_DESC,
        children: &SELECTOR,
        ..f(
            "namespaceSelector",
            "LabelSelector",
            "namespaceSelector selects namespaces using cluster-scoped labels. This field follows standard label selector semantics; if present but empty, it selects all namespaces.\n\nIf podSelector is also set, then the NetworkPolicyPeer as a whole selects the pods matching podSelector in the namespaces selected by namespaceSelector. Otherwise it selects all pods in the namespaces selected by namespaceSelector.",
        )
    },
    Field {
        type_desc: SELECTOR_DESC,
        children: &SELECTOR,
        ..f(
            "podSelector",
            "LabelSelector",
            "podSelector is a label selector which selects pods. This field follows standard label selector semantics; if present but empty, it selects all pods.\n\nIf namespaceSelector is also set, then the NetworkPolicyPeer as a whole selects the pods matching podSelector in the Namespaces selected by NamespaceSelector. Otherwise it selects the pods matching podSelector in the policy's own namespace.",
        )
    },
];

const PEER_DESC: &str = "NetworkPolicyPeer describes a peer to allow traffic to/from. Only certain combinations of fields are allowed";

const PORT: [Field; 3] = [
    f(
        "endPort",
        "integer",
        "endPort indicates that the range of ports from port to endPort if set, inclusive, should be allowed by the policy. This field cannot be defined if the port field is not defined or if the port field is defined as a named (string) port. The endPort must be equal or greater than port.",
    ),
    f(
        "port",
        "IntOrString",
        "port represents the port on the given protocol. This can either be a numerical or named port on a pod. If this field is not provided, this matches all port names and numbers. If present, only traffic on the specified protocol AND port will be matched.",
    ),
    Field {
        enumeration: Some("SCTP, TCP, UDP"),
        ..f(
            "protocol",
            "string",
            "protocol represents the protocol (TCP, UDP, or SCTP) which traffic must match. If not specified, this field defaults to TCP.\n\nPossible enum values:\n - `\"SCTP\"` is the SCTP protocol.\n - `\"TCP\"` is the TCP protocol.\n - `\"UDP\"` is the UDP protocol.",
        )
    },
];

const PORT_DESC: &str = "NetworkPolicyPort describes a port to allow traffic on";

const INGRESS_RULE: [Field; 2] = [
    Field {
        type_desc: PEER_DESC,
        children: &PEER,
        ..f(
            "from",
            "[]NetworkPolicyPeer",
            "from is a list of sources which should be able to access the pods selected for this rule. Items in this list are combined using a logical OR operation. If this field is empty or missing, this rule matches all sources (traffic not restricted by source). If this field is present and contains at least one item, this rule allows traffic only if the traffic matches at least one item in the from list.",
        )
    },
    Field {
        type_desc: PORT_DESC,
        children: &PORT,
        ..f(
            "ports",
            "[]NetworkPolicyPort",
            "ports is a list of ports which should be made accessible on the pods selected for this rule. Each item in this list is combined using a logical OR. If this field is empty or missing, this rule matches all ports (traffic not restricted by port). If this field is present and contains at least one item, then this rule allows traffic only if the traffic matches at least one port in the list.",
        )
    },
];

const EGRESS_RULE: [Field; 2] = [
    Field {
        type_desc: PORT_DESC,
        children: &PORT,
        ..f(
            "ports",
            "[]NetworkPolicyPort",
            "ports is a list of destination ports for outgoing traffic. Each item in this list is combined using a logical OR. If this field is empty or missing, this rule matches all ports (traffic not restricted by port). If this field is present and contains at least one item, then this rule allows traffic only if the traffic matches at least one port in the list.",
        )
    },
    Field {
        type_desc: PEER_DESC,
        children: &PEER,
        ..f(
            "to",
            "[]NetworkPolicyPeer",
            "to is a list of destinations for outgoing traffic of pods selected for this rule. Items in this list are combined using a logical OR operation. If this field is empty or missing, this rule matches all destinations (traffic not restricted by destination). If this field is present and contains at least one item, this rule allows traffic only if the traffic matches at least one item in the to list.",
        )
    },
];

const SPEC: [Field; 4] = [
    Field {
        type_desc: "NetworkPolicyEgressRule describes a particular set of traffic that is allowed out of pods matched by a NetworkPolicySpec's podSelector. The traffic must match both ports and to. This type is beta-level in 1.8",
        children: &EGRESS_RULE,
        ..f(
            "egress",
            "[]NetworkPolicyEgressRule",
            "egress is a list of egress rules to be applied to the selected pods. Outgoing traffic is allowed if there are no NetworkPolicies selecting the pod (and cluster policy otherwise allows the traffic), OR if the traffic matches at least one egress rule across all of the NetworkPolicy objects whose podSelector matches the pod. If this field is empty then this NetworkPolicy limits all outgoing traffic (and serves solely to ensure that the pods it selects are isolated by default). This field is beta-level in 1.8",
        )
    },
    Field {
        type_desc: "NetworkPolicyIngressRule describes a particular set of traffic that is allowed to the pods matched by a NetworkPolicySpec's podSelector. The traffic must match both ports and from.",
        children: &INGRESS_RULE,
        ..f(
            "ingress",
            "[]NetworkPolicyIngressRule",
            "ingress is a list of ingress rules to be applied to the selected pods. Traffic is allowed to a pod if there are no NetworkPolicies selecting the pod (and cluster policy otherwise allows the traffic), OR if the traffic source is the pod's local node, OR if the traffic matches at least one ingress rule across all of the NetworkPolicy objects whose podSelector matches the pod. If this field is empty then this NetworkPolicy does not allow any traffic (and serves solely to ensure that the pods it selects are isolated by default)",
        )
    },
    Field {
        required: true,
        type_desc: SELECTOR_DESC,
        children: &SELECTOR,
        ..f(
            "podSelector",
            "LabelSelector",
            "podSelector selects the pods to which this NetworkPolicy object applies. The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.",
        )
    },
    f(
        "policyTypes",
        "[]string",
        "policyTypes is a list of rule types that the NetworkPolicy relates to. Valid options are [\"Ingress\"], [\"Egress\"], or [\"Ingress\", \"Egress\"]. If this field is not specified, it will default based on the existence of ingress or egress rules; policies that contain an egress section are assumed to affect egress, and all policies (whether or not they contain an ingress section) are assumed to affect ingress. If you want to write an egress-only policy, you must explicitly specify policyTypes [ \"Egress\" ]. Likewise, if you want to write a policy that specifies that no egress is allowed, you must specify a policyTypes value that include \"Egress\" (since such a policy would not include an egress section and would otherwise default to just [ \"Ingress\" ]). This field is beta-level in 1.8",
    ),
];

const POLICY_FIELDS: [Field; 4] = [
    API_VERSION,
    KIND,
    METADATA,
    Field {
        type_desc: "NetworkPolicySpec provides the specification of a NetworkPolicy",
        children: &SPEC,
        ..f(
            "spec",
            "NetworkPolicySpec",
            "spec represents the specification of the desired behavior for this NetworkPolicy.",
        )
    },
];

// The admin-policy CRDs. Their descriptions are ours, shorter than the CRD's (docs/k8s.md,
// "Admin network policies in kubectl"); the field names, types, enums and required marks
// are the schema's.
const ADMIN_SELECTOR: &str = "Object";
const NAMESPACES_PEER: Field =
    f("namespaces", ADMIN_SELECTOR, "Every pod of the namespaces this label selector matches.");
const PODS_PEER: Field =
    f("pods", "Object", "The pods matching podSelector in the namespaces matching namespaceSelector.");
const INGRESS_PEERS: [Field; 2] = [NAMESPACES_PEER, PODS_PEER];
const EGRESS_PEERS: [Field; 4] = [
    NAMESPACES_PEER,
    f("networks", "[]string", "Up to 25 CIDRs; pod-to-pod traffic matches them too."),
    f("nodes", ADMIN_SELECTOR, "The nodes this label selector matches."),
    PODS_PEER,
];
const ADMIN_PORT_FIELDS: [Field; 3] = [
    f("namedPort", "string", "A container port of the destination pod, by name."),
    f("portNumber", "Object", "One port: `port` (1-65535) and `protocol` (TCP, UDP or SCTP; default TCP)."),
    f(
        "portRange",
        "Object",
        "Ports `start` to `end` inclusive (start < end) and a `protocol` (default TCP).",
    ),
];
const RULE_ACTION: Field = Field {
    required: true,
    ..f(
        "action",
        "string",
        "What a connection this rule matches gets. Allow and Deny decide it; Pass (AdminNetworkPolicy only) hands it to the NetworkPolicies, then the baseline.",
    )
};
const RULE_NAME: Field = f("name", "string", "An identifier for the rule, up to 100 characters.");
const RULE_PORTS: Field = Field {
    children: &ADMIN_PORT_FIELDS,
    ..f("ports", "[]Object", "Destination ports the rule matches; every port when unset.")
};
// kubectl lists fields in name order.
const ANP_INGRESS: [Field; 4] = [
    RULE_ACTION,
    Field {
        required: true,
        children: &INGRESS_PEERS,
        ..f("from", "[]Object", "The sources the rule matches (1 to 100 peers; any one matching is enough).")
    },
    RULE_NAME,
    RULE_PORTS,
];
const ANP_EGRESS: [Field; 4] = [
    RULE_ACTION,
    RULE_NAME,
    RULE_PORTS,
    Field {
        required: true,
        children: &EGRESS_PEERS,
        ..f(
            "to",
            "[]Object",
            "The destinations the rule matches (1 to 100 peers; any one matching is enough).",
        )
    },
];
const ADMIN_SUBJECT: Field = Field {
    required: true,
    ..f(
        "subject",
        "Object",
        "The pods the policy applies to: `namespaces` (a namespace label selector) or `pods` (namespaceSelector and podSelector), exactly one.",
    )
};
const ANP_SPEC: [Field; 4] = [
    Field {
        children: &ANP_EGRESS,
        ..f("egress", "[]Object", "Rules on traffic the subject's pods send, first match first (up to 100).")
    },
    Field {
        children: &ANP_INGRESS,
        ..f(
            "ingress",
            "[]Object",
            "Rules on traffic the subject's pods receive, first match first (up to 100).",
        )
    },
    Field {
        required: true,
        ..f(
            "priority",
            "integer",
            "0 to 1000; a lower number is evaluated first. Two policies of one priority have no defined order.",
        )
    },
    ADMIN_SUBJECT,
];
const BANP_SPEC: [Field; 3] = [
    Field {
        children: &ANP_EGRESS,
        ..f(
            "egress",
            "[]Object",
            "Rules on traffic the subject's pods send, evaluated after every NetworkPolicy (Allow or Deny).",
        )
    },
    Field {
        children: &ANP_INGRESS,
        ..f(
            "ingress",
            "[]Object",
            "Rules on traffic the subject's pods receive, evaluated after every NetworkPolicy (Allow or Deny).",
        )
    },
    ADMIN_SUBJECT,
];

fn admin_resource(kind: Kind) -> (&'static str, Vec<Field>) {
    let spec: &'static [Field] = if kind == Kind::AdminNetworkPolicy { &ANP_SPEC } else { &BANP_SPEC };
    let desc = if kind == Kind::AdminNetworkPolicy {
        "A cluster-wide policy that administrators write; it is evaluated before any NetworkPolicy."
    } else {
        "The cluster's default policy (the one object named default); it is evaluated after every NetworkPolicy."
    };
    let meta = Field { type_desc: "", ..f("metadata", "ObjectMeta", METADATA.desc) };
    let spec = Field {
        required: true,
        children: spec,
        ..f("spec", "Object", "The desired behavior of the policy.")
    };
    let status = f("status", "Object", "Conditions that the network plugin reports about the policy.");
    (desc, vec![API_VERSION, KIND, meta, spec, status])
}

/// Top-level description and fields of a kind.
fn resource(kind: Kind) -> (&'static str, Vec<Field>) {
    let spec = |ty: &'static str, desc: &'static str| f("spec", ty, desc);
    let status = |ty: &'static str, desc: &'static str| f("status", ty, desc);
    let base = || vec![API_VERSION, KIND, METADATA];
    let with = |extra: Vec<Field>| {
        let mut v = base();
        v.extend(extra);
        v
    };
    match kind {
        Kind::AdminNetworkPolicy | Kind::BaselineAdminNetworkPolicy => admin_resource(kind),
        Kind::NetworkPolicy => (
            "NetworkPolicy describes what network traffic is allowed for a set of Pods",
            POLICY_FIELDS.into_iter().collect(),
        ),
        Kind::Pod => (
            "Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.",
            with(vec![
                spec(
                    "PodSpec",
                    "Specification of the desired behavior of the pod. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
                ),
                status(
                    "PodStatus",
                    "Most recently observed status of the pod. This data may not be up to date. Populated by the system. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
                ),
            ]),
        ),
        Kind::Service => (
            "Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.",
            with(vec![
                spec(
                    "ServiceSpec",
                    "Spec defines the behavior of a service. https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
                ),
                status(
                    "ServiceStatus",
                    "Most recently observed status of the service. Populated by the system. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
                ),
            ]),
        ),
        Kind::Endpoints => (
            "Endpoints is a collection of endpoints that implement the actual service. Example:\n\n\t Name: \"mysvc\",\n\t Subsets: [\n\t   {\n\t     Addresses: [{\"ip\": \"10.10.1.1\"}, {\"ip\": \"10.10.2.2\"}],\n\t     Ports: [{\"name\": \"a\", \"port\": 8675}, {\"name\": \"b\", \"port\": 309}]\n\t   },\n\t   {\n\t     Addresses: [{\"ip\": \"10.10.3.3\"}],\n\t     Ports: [{\"name\": \"a\", \"port\": 93}, {\"name\": \"b\", \"port\": 76}]\n\t   },\n\t]\n\nEndpoints is a legacy API and does not contain information about all Service features. Use discoveryv1.EndpointSlice for complete information about Service endpoints.\n\nDeprecated: This API is deprecated in v1.33+. Use discoveryv1.EndpointSlice.",
            with(vec![f(
                "subsets",
                "[]EndpointSubset",
                "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.",
            )]),
        ),
        Kind::Deployment => (
            "Deployment enables declarative updates for Pods and ReplicaSets.",
            with(vec![
                spec("DeploymentSpec", "Specification of the desired behavior of the Deployment."),
                status("DeploymentStatus", "Most recently observed status of the Deployment."),
            ]),
        ),
        Kind::ReplicaSet => (
            "ReplicaSet ensures that a specified number of pod replicas are running at any given time.",
            with(vec![
                spec(
                    "ReplicaSetSpec",
                    "Spec defines the specification of the desired behavior of the ReplicaSet. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
                ),
                status(
                    "ReplicaSetStatus",
                    "Status is the most recently observed status of the ReplicaSet. This data may be out of date by some window of time. Populated by the system. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
                ),
            ]),
        ),
        Kind::Namespace => (
            "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
            with(vec![
                spec(
                    "NamespaceSpec",
                    "Spec defines the behavior of the Namespace. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
                ),
                status(
                    "NamespaceStatus",
                    "Status describes the current status of a Namespace. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
                ),
            ]),
        ),
        Kind::Node => (
            "Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).",
            with(vec![
                spec(
                    "NodeSpec",
                    "Spec defines the behavior of a node. https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
                ),
                status(
                    "NodeStatus",
                    "Most recently observed status of the node. Populated by the system. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
                ),
            ]),
        ),
    }
}

/// Greedy word wrap of each paragraph to `width` columns after `indent`.
fn wrap(text: &str, indent: usize, width: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    for para in text.split('\n') {
        if para.trim().is_empty() {
            out.push_str(&pad);
            out.push('\n');
            continue;
        }
        let mut line = String::new();
        for word in para.split(' ') {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width - indent {
                out.push_str(&format!("{pad}{line}\n"));
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push_str(&format!("{pad}{line}\n"));
    }
    out
}

fn field_header(fl: &Field) -> String {
    let req = if fl.required { " -required-" } else { "" };
    format!("<{}>{req}", fl.ty)
}

fn field_list(fields: &[Field], out: &mut String) {
    for fl in fields {
        out.push_str(&format!("  {}\t{}\n", fl.name, field_header(fl)));
        if let Some(e) = fl.enumeration {
            out.push_str(&format!("  enum: {e}\n"));
        }
        out.push_str(&wrap(fl.desc, 4, 80));
        out.push('\n');
    }
}

fn recursive_list(fields: &[Field], depth: usize, out: &mut String) {
    for fl in fields {
        let pad = "  ".repeat(depth + 1);
        out.push_str(&format!("{pad}{}\t{}\n", fl.name, field_header(fl)));
        if let Some(e) = fl.enumeration {
            out.push_str(&format!("{pad}enum: {e}\n"));
        }
        recursive_list(fl.children, depth + 1, out);
    }
}

pub fn command(a: &Args) -> Output {
    let Some(path) = a.positional.first() else {
        return Output::error(
            "error: You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.\n",
        );
    };
    if let Some(o) = a.value("output")
        && o != "plaintext"
        && o != "plaintext-openapiv2"
    {
        return Output::error(format!(
            "error: supported output format are plaintext, plaintext-openapiv2. not {o:?}"
        ));
    }
    let mut parts = path.split('.');
    let type_word = parts.next().unwrap_or("");
    let Some(kind) = Kind::parse(type_word) else {
        return Output::error(format!("error: the server doesn't have a resource type \"{type_word}\""));
    };
    let (desc, fields) = resource(kind);
    let mut header = String::new();
    if !kind.group().is_empty() {
        header.push_str(&format!("GROUP:      {}\n", kind.group()));
    }
    let version = kind.api_version().rsplit('/').next().unwrap_or("v1");
    header.push_str(&format!("KIND:       {}\nVERSION:    {version}\n\n", kind.name()));
    let mut current: &[Field] = &fields;
    let mut chosen: Option<&Field> = None;
    for name in parts {
        match current.iter().find(|x| x.name == name) {
            Some(fl) => {
                chosen = Some(fl);
                current = fl.children;
            }
            None => return Output::error(format!("error: field \"{name}\" does not exist")),
        }
    }
    let mut out = header;
    match chosen {
        None => {
            out.push_str("DESCRIPTION:\n");
            out.push_str(&wrap(desc, 4, 80));
            out.push_str("    \n");
        }
        Some(fl) => {
            out.push_str(&format!("FIELD: {} {}\n\n", fl.name, field_header(fl)));
            if let Some(e) = fl.enumeration {
                out.push_str(&format!("ENUM:\n    {}\n\n", e.replace(", ", "\n    ")));
            }
            out.push_str("DESCRIPTION:\n");
            out.push_str(&wrap(fl.desc, 4, 80));
            if !fl.type_desc.is_empty() {
                out.push_str(&wrap(fl.type_desc, 4, 80));
            }
            out.push_str("    \n");
        }
    }
    if !current.is_empty() {
        out.push_str("FIELDS:\n");
        if a.is_set("recursive") {
            recursive_list(current, 0, &mut out);
            out.push('\n');
        } else {
            field_list(current, &mut out);
        }
    }
    let mut o = Output::default();
    o.out(out);
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explain(line: &str) -> Output {
        let argv: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        command(&super::super::args::parse(&argv, "explain").unwrap())
    }

    #[test]
    fn explains_paths() {
        let o = explain("explain networkpolicy.spec.ingress.ports");
        let t = o.text();
        assert!(t.starts_with("GROUP:      networking.k8s.io\nKIND:       NetworkPolicy\nVERSION:    v1\n\nFIELD: ports <[]NetworkPolicyPort>\n"), "{t}");
        assert!(t.contains("  protocol\t<string>\n  enum: SCTP, TCP, UDP\n"));
        assert!(explain("explain netpol.spec.fromm").text().contains("field \"fromm\" does not exist"));
        assert!(explain("explain pods").text().contains("Pod is a collection of containers"));
        let r = explain("explain netpol --recursive").text();
        assert!(r.contains("        ipBlock\t<IPBlock>\n          cidr\t<string> -required-\n"), "{r}");
    }

    #[test]
    fn wraps_at_eighty_columns() {
        let w = wrap(&"word ".repeat(40), 4, 80);
        assert!(w.lines().all(|l| l.len() <= 80));
    }
}
