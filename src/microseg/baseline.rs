//! The agents without a language model (docs/microseg.md, "Baselines"):
//! - `observed` allows exactly what was observed: the built-in `baseline` agent, answering in
//!   Python over `F` and `G` like any agent, and natively (the two are tested to agree);
//! - `portsig` clusters VMs by port signature (native);
//! - `oracle` answers with the truth: the roles and P\*.
//!
//! The native answers are what `netpress microseg baselines` scores over many seeds without
//! the sandbox; each is the JSON an agent's `process_flows` would return.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message, Role};
use crate::flows::tenant::{UDP, dotted};
use crate::flows::{Connection, NO_VM};

use super::family::Family;
use super::policy::{Peer, Policy, Proto, Reserved, Rule};
use super::score::star_policy;
use super::task::Generated;
use super::world::World;
use super::write::write;

/// The baselines by name (`scripted` answers the repair family only, the others every other).
pub const NAMES: [&str; 4] = ["observed", "portsig", "scripted", "oracle"];

/// A baseline's answer (the returned dict) for a task, or `None` for an unknown name. Policies
/// are written in the task's form.
pub fn answer(name: &str, g: &Generated) -> Option<Value> {
    let (w, f, form) = (&*g.world, g.family, g.form);
    let data = match (name, f.roles()) {
        ("observed", true) => observed_roles(w, f),
        ("observed", false) => write(form, &observed_policy(w, f, &g.given), w),
        ("portsig", true) => roles_json(w, &portsig(w).0),
        ("portsig", false) => write(form, &portsig(w).1, w),
        ("oracle", true) => {
            let names: Vec<String> = w.visible.iter().map(|&v| w.role_name(v).to_string()).collect();
            roles_json(w, &names)
        }
        ("oracle", false) => write(form, &star_policy(w), w),
        _ => return None,
    };
    Some(json!({"type": f.answer_type(form), "data": data}))
}

fn roles_json(w: &World, names: &[String]) -> Value {
    let map: serde_json::Map<String, Value> = w
        .visible
        .iter()
        .zip(names)
        .map(|(&v, n)| (dotted(w.trace.vms[v as usize].ip), Value::from(n.clone())))
        .collect();
    Value::Object(map)
}

/// Connections that started in the visible windows, allowed.
fn visible(w: &World) -> impl Iterator<Item = &Connection> {
    w.trace.connections.iter().filter(|c| c.allow && c.start < w.vis_end)
}

fn observed_roles(w: &World, f: Family) -> Value {
    let ips: Vec<String> = w.visible.iter().map(|&v| dotted(w.trace.vms[v as usize].ip)).collect();
    if f == Family::RoleCluster {
        return roles_json(w, &ips);
    }
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for &v in w.visible.iter().filter(|&&v| w.trace.vms[v as usize].known) {
        *count.entry(w.role_name(v)).or_default() += 1;
    }
    let best = count.iter().max_by_key(|(n, c)| (**c, std::cmp::Reverse(**n))).map_or("unknown", |(n, _)| n);
    let names: Vec<String> = w
        .visible
        .iter()
        .map(|&v| if w.trace.vms[v as usize].known { w.role_name(v) } else { best }.to_string())
        .collect();
    roles_json(w, &names)
}

fn host(ip: u32) -> Peer {
    Peer::Cidr(ip, 32)
}

fn proto(p: u8) -> Proto {
    if p == UDP { Proto::Udp } else { Proto::Tcp }
}

/// One /32 rule per distinct visible allowed (client, server, proto), listing its observed ports
/// (incremental: the w1 policy plus w2's keys).
fn observed_policy(w: &World, f: Family, given: &str) -> Policy {
    let (mut p, from) = match f {
        Family::Incremental => {
            let base = serde_json::from_str(given)
                .ok()
                .and_then(|v| super::policy::parse(&v).ok())
                .unwrap_or_default();
            (base, u64::from(w.windows[1].start_min) * 60_000)
        }
        _ => (Policy::default(), 0),
    };
    let mut keys: BTreeMap<(u32, u32, u8), BTreeSet<u16>> = BTreeMap::new();
    for c in visible(w).filter(|c| c.end > from || c.start >= from) {
        keys.entry((c.src, c.dst, c.proto)).or_default().insert(c.dport);
    }
    p.rules.extend(keys.into_iter().map(|((s, d, pr), ports)| Rule {
        src: host(s),
        dst: host(d),
        proto: proto(pr),
        ports: ports.into_iter().map(|x| (x, x)).collect(),
    }));
    p
}

/// Port-signature clusters (names per visible VM) and their policy.
fn portsig(w: &World) -> (Vec<String>, Policy) {
    type Sig = (BTreeSet<(u8, u16)>, BTreeSet<(u8, u16)>);
    let mut served: BTreeMap<(u32, u8, u16), usize> = BTreeMap::new();
    let mut made: BTreeMap<(u32, u8, u16), usize> = BTreeMap::new();
    for c in visible(w) {
        if c.dst_vm != NO_VM {
            *served.entry((c.dst_vm, c.proto, c.dport)).or_default() += 1;
        }
        if c.src_vm != NO_VM {
            *made.entry((c.src_vm, c.proto, c.dport)).or_default() += 1;
        }
    }
    let sig = |v: u32| -> Sig {
        let pick = |m: &BTreeMap<(u32, u8, u16), usize>| {
            m.range((v, 0, 0)..=(v, u8::MAX, u16::MAX))
                .filter(|(_, n)| **n >= 3)
                .map(|(k, _)| (k.1, k.2))
                .collect()
        };
        (pick(&served), pick(&made))
    };
    let mut clusters: BTreeMap<Sig, Vec<u32>> = BTreeMap::new();
    for &v in &w.visible {
        clusters.entry(sig(v)).or_default().push(v);
    }
    let mut list: Vec<Vec<u32>> = clusters.into_values().collect();
    list.sort_by_key(|m| w.trace.vms[m[0] as usize].ip);
    let mut names: BTreeMap<u32, String> = BTreeMap::new();
    let mut used = BTreeSet::new();
    for (i, members) in list.iter().enumerate() {
        let mut tags: BTreeMap<&str, usize> = BTreeMap::new();
        for &v in members.iter().filter(|&&v| w.trace.vms[v as usize].known) {
            *tags.entry(w.role_name(v)).or_default() += 1;
        }
        let tag = tags.iter().max_by_key(|(n, c)| (**c, std::cmp::Reverse(**n))).map(|(n, _)| n.to_string());
        let mut name = tag.unwrap_or_else(|| format!("role{}", i + 1));
        while !used.insert(name.clone()) {
            name.push('x');
        }
        members.iter().for_each(|&v| {
            names.insert(v, name.clone());
        });
    }
    let mut p = Policy::default();
    for &v in &w.visible {
        p.groups.entry(names[&v].clone()).or_default().push(w.trace.vms[v as usize].ip);
    }
    let side = |ip: u32, vm: u32| -> Peer {
        match names.get(&vm) {
            Some(n) if vm != NO_VM => Peer::Group(n.clone()),
            _ => Reserved::of(ip).map_or(host(ip), Peer::Reserved),
        }
    };
    let mut seen = BTreeSet::new();
    for c in visible(w) {
        let (s, d) = (side(c.src, c.src_vm), side(c.dst, c.dst_vm));
        if seen.insert((s.text(), d.text(), c.proto, c.dport)) {
            p.rules.push(Rule { src: s, dst: d, proto: proto(c.proto), ports: vec![(c.dport, c.dport)] });
        }
    }
    let names = w.visible.iter().map(|v| names[v].clone()).collect();
    (names, p)
}

const KEYS: &str = "def keys(F, where):
    rows = F.group(['src', 'dst', 'proto', 'dport'], [('max', 'sport')], where=[['action', '==', 'allow']] + where)
    return [(s, d, p, port) for s, d, p, port, sport in rows if sport > port]

def rules(ks):
    by = {}
    for s, d, p, port in ks:
        by.setdefault((s, d, p), []).append(port)
    return [{'src': s + '/32', 'dst': d + '/32', 'proto': 'udp' if p == 17 else 'tcp', 'ports': [str(x) for x in sorted(ps)]}
            for (s, d, p), ps in sorted(by.items())]
";

/// `observed`'s /32 rules written in a provider form (as `write` does natively).
const FORMS: &str = "def tenant(a):
    return a.split('/')[0].startswith('10.')

def nsg(rs):
    out, prio = [], {'Inbound': 100, 'Outbound': 100}
    for i, r in enumerate(rs):
        for d, on in [('Outbound', tenant(r['src'])), ('Inbound', tenant(r['dst']))]:
            if on:
                p = {'priority': prio[d], 'direction': d, 'access': 'Allow', 'sourcePortRange': '*',
                     'protocol': r['proto'].capitalize(), 'destinationPortRanges': r['ports'],
                     'sourceAddressPrefix': r['src'], 'destinationAddressPrefix': r['dst']}
                prio[d] += 1
                out.append({'name': f'r{i + 1}-' + ('in' if d == 'Inbound' else 'out'), 'properties': p})
    for d in ['Inbound', 'Outbound']:
        out.append({'name': 'deny-all-' + ('in' if d == 'Inbound' else 'out'), 'properties': {'priority': 4096,
            'direction': d, 'access': 'Deny', 'sourcePortRange': '*', 'protocol': '*', 'destinationPortRange': '*',
            'sourceAddressPrefix': '*', 'destinationAddressPrefix': '*'}})
    return {'applicationSecurityGroups': [], 'securityRules': out}

def sg(rs):
    gs = {}
    for r in rs:
        for egress, me, peer in [(True, r['src'], r['dst']), (False, r['dst'], r['src'])]:
            if tenant(me):
                g = gs.setdefault(me, {'GroupName': 'cidr-' + me.replace('.', '-').replace('/', '-'),
                    'Members': [me.split('/')[0]], 'IpPermissions': [], 'IpPermissionsEgress': []})
                key = 'IpPermissionsEgress' if egress else 'IpPermissions'
                g[key] += [{'IpProtocol': r['proto'], 'FromPort': int(p), 'ToPort': int(p),
                            'IpRanges': [{'CidrIp': peer}]} for p in r['ports']]
    return {'SecurityGroups': [gs[k] for k in sorted(gs)]}

def k8s(rs):
    pols = {}
    for r in rs:
        for egress, me, peer in [(True, r['src'], r['dst']), (False, r['dst'], r['src'])]:
            if tenant(me):
                rule = {('to' if egress else 'from'): [{'ipBlock': {'cidr': peer}}],
                        'ports': [{'protocol': r['proto'].upper(), 'port': int(p)} for p in r['ports']]}
                pols.setdefault((egress, me), []).append(rule)
    out = [{'apiVersion': 'networking.k8s.io/v1', 'kind': 'NetworkPolicy',
            'metadata': {'name': 'default-deny', 'namespace': 'tenant'},
            'spec': {'podSelector': {}, 'policyTypes': ['Ingress', 'Egress']}}]
    for i, (egress, me) in enumerate(sorted(pols)):
        sel = {'matchExpressions': [{'key': 'vm', 'operator': 'In', 'values': [me.split('/')[0].replace('.', '-')]}]}
        t = 'Egress' if egress else 'Ingress'
        out.append({'apiVersion': 'networking.k8s.io/v1', 'kind': 'NetworkPolicy',
                    'metadata': {'name': f'p{i + 1}', 'namespace': 'tenant'},
                    'spec': {'podSelector': sel, 'policyTypes': [t], t.lower(): pols[(egress, me)]}})
    return out
";

const CLUSTER: &str = "def process_flows(F, G):
    return {'type': 'roles', 'data': {n: n for n in G.nodes() if n.startswith('10.')}}
";

const LABEL: &str = "def process_flows(F, G):
    vms = [n for n in G.nodes() if n.startswith('10.')]
    tags = {}
    for n in vms:
        for l in G.labels(n):
            if l.startswith('role='):
                tags[n] = l[5:]
    counts = {}
    for t in tags.values():
        counts[t] = counts.get(t, 0) + 1
    best = sorted(counts.items(), key=lambda x: (-x[1], x[0]))[0][0] if counts else 'unknown'
    return {'type': 'roles', 'data': {n: tags.get(n, best) for n in vms}}
";

const POLICY: &str = "def process_flows(F, G):
    return {'type': 'policy', 'data': {'groups': {}, 'rules': rules(keys(F, [])), 'default': 'deny'}}
";

/// The policy written in a form (`FORM` is the form's name).
const RENDER: &str = "def process_flows(F, G):
    rs = rules(keys(F, []))
    return {'type': FORM, 'data': {'nsg': nsg, 'sg': sg, 'k8s': k8s}[FORM](rs)}
";

const UPDATE: &str = "def process_flows(F, G):
    w2 = [w for w in F.info()['windows'] if w[0] == 'w2'][0]
    base = dict(BASE)
    base['rules'] = base['rules'] + rules(keys(F, [['t', '>=', w2[1]]]))
    return {'type': 'policy', 'data': base}
";

/// The `observed` Python for a request (the last `Question:` line of the prompt).
pub fn observed_code(question: &str) -> String {
    if question.contains("{'type': 'roles'") {
        return if question.contains("tag") { LABEL } else { CLUSTER }.to_string();
    }
    let given = question.find("{\"").and_then(|a| {
        let mut depth = 0i32;
        let end = question[a..].char_indices().find_map(|(i, c)| {
            depth += match c {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            (depth == 0).then_some(a + i + 1)
        })?;
        Some(&question[a..end])
    });
    let form = ["nsg", "sg", "k8s"].into_iter().find(|f| question.contains(&format!("{{'type': '{f}'")));
    match (given, form) {
        (_, Some(form)) => format!("{KEYS}\n{FORMS}\nFORM = '{form}'\n\n{RENDER}"),
        (Some(policy), None) => format!("{KEYS}\nBASE = {policy}\n\n{UPDATE}"),
        (None, None) => format!("{KEYS}\n{POLICY}"),
    }
}

/// The built-in agent: `observed`, in Python.
pub struct Baseline;

fn question(messages: &[Message]) -> &str {
    messages
        .iter()
        .filter(|m| m.role == Role::User)
        .find_map(|m| super::prompt::question_of(&m.content))
        .unwrap_or("")
}

impl Agent for Baseline {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("baseline", "microseg-observed")
    }
    fn reply(&mut self, messages: &[Message]) -> Result<AgentReply, AgentError> {
        if messages.iter().any(|m| m.content.contains("\nReport:\n")) {
            return super::scripted::Scripted.reply(messages);
        }
        Ok(AgentReply {
            text: format!("```python\n{}```", observed_code(question(messages))),
            ..Default::default()
        })
    }
}

/// The oracle of a repair task: the known-good fix, then `done`.
pub struct Commands(pub String);

impl Agent for Commands {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("baseline", "microseg-oracle")
    }
    fn reply(&mut self, messages: &[Message]) -> Result<AgentReply, AgentError> {
        let first = messages.iter().filter(|m| m.role == Role::Assistant).count() == 0;
        let text = if first { self.0.clone() } else { "```\ndone\n```".into() };
        Ok(AgentReply { text, ..Default::default() })
    }
}

/// The oracle agent of one task: its answer as a Python literal.
pub struct Oracle(pub Value);

impl Agent for Oracle {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("baseline", "microseg-oracle")
    }
    fn reply(&mut self, _: &[Message]) -> Result<AgentReply, AgentError> {
        let mut py = Literal::default();
        for v in subtrees(&self.0) {
            *py.count.entry(v).or_default() += 1;
        }
        let expr = py.write(&self.0);
        let text = format!("```python\n{}def process_flows(F, G):\n    return {expr}\n```", py.defs);
        Ok(AgentReply { text, ..Default::default() })
    }
}

/// Every object and list inside a value, as JSON text.
fn subtrees(v: &Value) -> Vec<String> {
    let inner: Vec<&Value> = match v {
        Value::Array(a) => a.iter().collect(),
        Value::Object(m) => m.values().collect(),
        _ => return Vec::new(),
    };
    let mut out = vec![v.to_string()];
    out.extend(inner.into_iter().flat_map(subtrees));
    out
}

/// A JSON value as a Python expression whose large repeated parts are variables defined first
/// (a rendered policy repeats its selectors and groups; the sandbox limits the code's size).
#[derive(Default)]
struct Literal {
    count: BTreeMap<String, usize>,
    names: BTreeMap<String, String>,
    defs: String,
}

impl Literal {
    fn write(&mut self, v: &Value) -> String {
        let text = v.to_string();
        if let Some(n) = self.names.get(&text) {
            return n.clone();
        }
        let body = match v {
            Value::Null => return "None".into(),
            Value::Bool(b) => return if *b { "True" } else { "False" }.into(),
            Value::Number(_) | Value::String(_) => return text,
            Value::Array(a) => {
                format!("[{}]", a.iter().map(|x| self.write(x)).collect::<Vec<_>>().join(", "))
            }
            Value::Object(m) => {
                let items: Vec<String> = m
                    .iter()
                    .map(|(k, x)| format!("{}: {}", Value::from(k.as_str()), self.write(x)))
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
        };
        if text.len() < 80 || self.count.get(&text).is_none_or(|&c| c < 2) {
            return body;
        }
        let name = format!("V{}", self.names.len());
        self.defs.push_str(&format!("{name} = {body}\n"));
        self.names.insert(text, name.clone());
        name
    }
}
