//! The forms a policy answer may take (docs/microseg-render.md): the neutral JSON (`np`), an
//! Azure NSG (`nsg`), AWS security groups (`sg`) or Kubernetes NetworkPolicies (`k8s`).
//!
//! A rendered answer is read by its provider's evaluator (`render`) and scored by the same
//! rates over the same key sets as the neutral form; only membership is ours: a group's
//! listed addresses follow the replay rule of `allow::replay` (NSG, SG), and the k8s cluster
//! labels VMs so that selectors can express it (`render::k8s`).

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

use ipnet::Ipv4Net;
use serde_json::Value;

use crate::k8s::eval::{Compiled as K8sCompiled, End as K8sEnd, PodRef};
use crate::k8s::labels::Labels;

use super::allow::{End, replay};
use super::render::{self, Endpoint, K8s, Nsg, Proto, Sg};
use super::score::{Allows, Metrics, measure};
use super::world::World;

/// A policy form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Form {
    Np,
    Nsg,
    Sg,
    K8s,
}

impl Form {
    /// The forms the render family draws from.
    pub const RENDERED: [Form; 3] = [Form::Nsg, Form::Sg, Form::K8s];

    pub fn name(self) -> &'static str {
        match self {
            Form::Np => "np",
            Form::Nsg => "nsg",
            Form::Sg => "sg",
            Form::K8s => "k8s",
        }
    }

    pub fn parse(s: &str) -> Option<Form> {
        [Form::Np, Form::Nsg, Form::Sg, Form::K8s].into_iter().find(|f| f.name() == s)
    }

    /// The answer's `type`.
    pub fn answer_type(self) -> &'static str {
        if self == Form::Np { "policy" } else { self.name() }
    }

    /// How the request names the form.
    pub fn phrase(self) -> &'static str {
        match self {
            Form::Np => "the policy JSON",
            Form::Nsg => "an Azure NSG with application security groups",
            Form::Sg => "AWS security groups",
            Form::K8s => "Kubernetes NetworkPolicies",
        }
    }

    /// The form's schema and semantics, for the prompt.
    pub fn schema(self) -> &'static str {
        match self {
            Form::Np => "",
            Form::Nsg => NSG,
            Form::Sg => SG,
            Form::K8s => K8S,
        }
    }
}

const NSG: &str = " The NSG: {\"applicationSecurityGroups\": [{\"name\": N, \"members\": [VM address, ...]}], \
\"securityRules\": [{\"name\": N, \"properties\": {\"priority\": 100..4096, \"direction\": \"Inbound\"|\"Outbound\", \
\"access\": \"Allow\"|\"Deny\", \"protocol\": \"Tcp\"|\"Udp\"|\"*\", \"sourcePortRange\": \"*\", \
\"destinationPortRange\": \"N\"|\"A-B\"|\"*\" (or destinationPortRanges: [...]), one of sourceAddressPrefix(es) \
(CIDR, *, VirtualNetwork, Internet, AzureLoadBalancer) or sourceApplicationSecurityGroups [{\"id\": ASG name}], \
the same for destination}}]}. One NSG sits on every tenant NIC: a connection passes Outbound at a tenant source \
and Inbound at a tenant destination, lowest priority first, first match wins, then Azure's defaults \
(AllowVnetInBound, AllowAzureLoadBalancerInBound, DenyAllInBound; AllowVnetOutBound, AllowInternetOutBound, \
DenyAllOutBound), so default deny needs explicit Deny rules.";

const SG: &str = " The security groups: {\"SecurityGroups\": [{\"GroupName\": N, \"Members\": [VM address, ...], \
\"IpPermissions\": [{\"IpProtocol\": \"tcp\"|\"udp\"|\"-1\", \"FromPort\": A, \"ToPort\": B, \"IpRanges\": \
[{\"CidrIp\": CIDR}], \"UserIdGroupPairs\": [{\"GroupName\": N}]}], \"IpPermissionsEgress\": [...]}]}. Allow-only \
and stateful; a VM's permissions are the union over its groups; a connection needs egress at a tenant source and \
ingress at a tenant destination; there is no implicit egress: a VM in no group sends and receives nothing.";

const K8S: &str = " The NetworkPolicies: a JSON list of networking.k8s.io/v1 NetworkPolicy objects in namespace \
'tenant'. Each VM is a pod there with the VM's address, labelled vm=a-b-c-d (its address with dashes) if it ran \
in a visible window and role=NAME if its role is tagged or it is created after the visible windows (so new VMs \
carry only a role label); external endpoints are bare addresses (use ipBlock); numeric ports only. Default deny \
is a policy with podSelector {} and both policyTypes.";

/// An NSG or security groups bound to a world: each endpoint's groups by the replay rule,
/// classes by the networks its address is in.
struct Grouped<'a> {
    allows: &'a dyn Fn(&Endpoint, &Endpoint, Proto, u16) -> bool,
    member_of: BTreeMap<u32, BTreeSet<usize>>,
    nets: Vec<Ipv4Net>,
    size: [usize; 3],
    notes: Vec<String>,
}

fn proto(p: u8) -> Proto {
    if p == crate::flows::tenant::UDP { Proto::Udp } else { Proto::Tcp }
}

impl Allows for Grouped<'_> {
    type Side = Endpoint;
    fn side(&self, e: End) -> Endpoint {
        let groups =
            e.vm.and_then(|v| self.member_of.get(&v)).map_or_else(Vec::new, |g| g.iter().copied().collect());
        Endpoint { ip: Ipv4Addr::from(e.ip), groups }
    }
    fn class(&self, s: &Endpoint) -> Vec<u64> {
        let inside = self.nets.iter().map(|n| u64::from(n.contains(&s.ip)));
        inside.chain([u64::MAX]).chain(s.groups.iter().map(|&g| g as u64)).collect()
    }
    fn admit(&self, s: &Endpoint, d: &Endpoint, p: u8, port: u16) -> Option<usize> {
        (self.allows)(s, d, proto(p), port).then_some(0)
    }
    fn rule_name(&self, _: usize) -> String {
        "the rendering".into()
    }
    fn rule_text(&self, _: usize) -> String {
        "the rendering".into()
    }
    fn size(&self) -> [usize; 4] {
        [self.size[0], self.size[1], self.size[2], 0]
    }
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}

/// NetworkPolicies compiled against the cluster of a world's test VMs.
struct Pods<'a> {
    compiled: K8sCompiled<'a>,
    index: BTreeMap<u32, usize>,
    policies: usize,
}

impl Allows for Pods<'_> {
    type Side = K8sEnd;
    fn side(&self, e: End) -> K8sEnd {
        e.vm.and_then(|v| self.index.get(&v)).map_or(K8sEnd::Ip(Ipv4Addr::from(e.ip)), |&i| K8sEnd::Pod(i))
    }
    fn class(&self, s: &K8sEnd) -> Vec<u64> {
        match *s {
            K8sEnd::Pod(i) => vec![0, i as u64],
            K8sEnd::Ip(a) => vec![1, u64::from(u32::from(a))],
        }
    }
    fn admit(&self, s: &K8sEnd, d: &K8sEnd, p: u8, port: u16) -> Option<usize> {
        render::k8s::allowed(&self.compiled, *s, *d, proto(p), port).then_some(0)
    }
    fn rule_name(&self, _: usize) -> String {
        "the NetworkPolicies".into()
    }
    fn rule_text(&self, _: usize) -> String {
        "the NetworkPolicies".into()
    }
    fn size(&self) -> [usize; 4] {
        [self.policies, 0, 0, 0]
    }
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The labels of each test VM's pod (docs/microseg-render.md).
pub fn pod_labels(w: &World) -> Vec<(u32, Ipv4Addr, Labels)> {
    w.test_vms
        .iter()
        .map(|&v| {
            let vm = &w.trace.vms[v as usize];
            let seen = vm.start_ms < w.vis_end;
            let role = (vm.known || !seen).then(|| w.role_name(v));
            let ip = Ipv4Addr::from(vm.ip);
            (v, ip, render::k8s::labels(ip, seen, role))
        })
        .collect()
}

/// Scores a rendered answer's data on a world, or says why the rendering is invalid.
pub fn score(w: &World, form: Form, data: &Value) -> Result<Metrics, String> {
    let text = data.to_string();
    let grouped =
        |allows: &dyn Fn(&Endpoint, &Endpoint, Proto, u16) -> bool, groups: Vec<Vec<u32>>, nets, size| {
            let (member_of, notes) = replay(w, groups.iter().map(Vec::as_slice));
            measure(w, w.sets(), &Grouped { allows, member_of, nets, size, notes })
        };
    match form {
        Form::Np => {
            let p = super::policy::parse(data)?;
            Ok(super::score::evaluate(w, w.sets(), &p))
        }
        Form::Nsg => {
            let n = Nsg::from_json(&text).map_err(|e| e.to_string())?;
            Ok(grouped(&|s, d, p, port| n.allows_ends(s, d, p, port), n.groups(), n.nets(), n.size()))
        }
        Form::Sg => {
            let g = Sg::from_json(&text).map_err(|e| e.to_string())?;
            Ok(grouped(&|s, d, p, port| g.allows_ends(s, d, p, port), g.groups(), g.nets(), g.size()))
        }
        Form::K8s => {
            if text.len() > render::MAX_BYTES {
                return Err(format!("{} bytes (at most {})", text.len(), render::MAX_BYTES));
            }
            let doc = K8s::from_value(data).map_err(|e| e.to_string())?;
            let labels = pod_labels(w);
            let pods: Vec<PodRef<'_>> = labels.iter().map(|(_, ip, l)| render::k8s::pod(l, *ip)).collect();
            let index = labels.iter().enumerate().map(|(i, (v, _, _))| (*v, i)).collect();
            Ok(measure(
                w,
                w.sets(),
                &Pods { compiled: doc.compile(&pods), index, policies: doc.policies.len() },
            ))
        }
    }
}
