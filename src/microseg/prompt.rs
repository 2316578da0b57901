//! The prompts (docs/microseg.md, "Prompts"): the operator's role, the tenant's address plan
//! and reserved groups, the windows and the log format, the F and G APIs, the policy schema,
//! the return contract and the request. The logs themselves are never in the prompt.

use crate::app::PromptVariant;
use crate::flows::T0;
use crate::flows::tenant::APP_NAMES;

use super::world::World;

const ROLE: &str = "You are a cloud network security engineer. A tenant's flow logs are loaded as the host \
object F (one row per log record) and its communication graph as G (one node per endpoint, one edge per pair \
that talked). Infer which VMs play which role and write least-privilege policies between roles.";

fn tenant(w: &World) -> String {
    let mut vnets = vec!["hub 10.0.0.0/16 (roles dc, monitoring, bastion)".to_string()];
    for a in &w.tenant.apps {
        vnets.push(format!("{} 10.{}.0.0/16", APP_NAMES[a.v as usize - 1], a.v));
    }
    let windows: Vec<String> = w
        .windows
        .iter()
        .map(|x| {
            let (a, b) = (T0 + 60 * u64::from(x.start_min), T0 + 60 * u64::from(x.start_min + x.len_min));
            let hidden = if x.name == "test" { " (hidden: the policy is judged on it)" } else { "" };
            format!("{} [{a}, {b}){hidden}", x.name)
        })
        .collect();
    format!(
        "The tenant.
- VNets: {}. Role names are {{vnet}}.{{role}} (shop.db, hub.dc); roles known for some VMs are tagged \
'role=NAME' in G.labels(ip).
- Reserved groups (usable as src/dst, never as group names): internet (198.18.0.0/15 and 203.0.113.0/24), \
admin (198.51.100.10-11), lb (100.64.0.1), storage (100.64.1.10-13), telemetry (100.64.2.10), any (every address).
- Windows (Unix seconds): {}. F holds only the visible windows; the hidden one follows them.
- Logs: {} records, as the provider writes them. A connection is one (src, sport, dst, dport, proto); the \
initiator has the higher port (servers listen below 32768). Several records (vantage points, minutes, \
reply directions) may describe one connection.",
        vnets.join(", "),
        windows.join(", "),
        w.tenant.key.knobs.format.name()
    )
}

const API: &str = "The F API (methods only): F.info() (format, rows, t_min, t_max, windows, columns), \
F.count(where=None), F.rows(where=None, columns=None, order=None, offset=0, limit=1000) (limit <= 10000), \
F.distinct(columns, where=None), F.group(by, aggs, where=None, order=None, limit=None) (aggs [(op, column)], ops \
count sum min max mean nunique), F.series(bucket_s, aggs, where=None, by=None), F.raw(i). Columns: i t t_end vantage \
dir src dst sport dport proto action state pkts bytes pkts_rev bytes_rev status instance. where = [[column, op, \
value], ...] AND-ed, ops == != < <= > >= in notin cidr notcidr.
The G API: G.nodes(data=False), G.node(n), G.labels(n), G.nodes_with_label(l), G.neighbors(n), G.edges(n=None, \
data=False), G.edge(u, v), G.degree(n=None, weight=None) (weights byte_weight, connection_weight, packet_weight).";

const SCHEMA: &str = "A policy: {\"groups\": {name: [VM address, ...]}, \"rules\": [{\"src\": S, \"dst\": D, \
\"proto\": \"tcp\"|\"udp\"|\"any\", \"ports\": P}], \"default\": \"deny\"}. Group names [a-z][a-z0-9_.-]{0,62}; \
S and D are a group, a reserved group or a CIDR; P is \"N\", \"A-B\", \"any\" or a list of those. Rules only allow; \
replies pass (stateful); source ports are ignored. At most 2000 rules, 200 groups, 100000 members. On the hidden \
window a listed address stands for the VM holding it at the end of the visible windows; a VM created later joins \
every group whose members mostly have its role; a removed VM's address gains nothing through groups.";

fn python(limits: &crate::sandbox::Limits) -> String {
    format!(
        "Python: the sandbox's subset (functions, comprehensions, sorted/min/max with key=, f-strings, str/list/dict/set \
methods, collections, math, json, re; no other imports, no files or network). Limits: {} s, {} MiB; each is a \
Python error you see.",
        limits.time.as_secs_f64(),
        limits.memory / (1024 * 1024)
    )
}

const OUTPUT: &str = "Define def process_flows(F, G): and return a dict {'type': T, 'data': D}: 'roles' with \
{address: role name}, or 'policy' with the policy dict.";

const EXAMPLE: &str = "Example: the distinct (client, server, port) of allowed TCP connections to port 443:
```python
def process_flows(F, G):
    rows = F.group(['src', 'dst', 'proto', 'dport'], [('max', 'sport')], where=[['action', '==', 'allow']])
    keys = [(s, d, p) for s, d, proto, p, sport in rows if sport > p and proto == 6 and p == 443]
    return {'type': 'text', 'data': len(keys)}
```";

/// The chain-of-thought sentence of the `_cot` variants.
pub const COT: &str = "Think step by step: say which records, ports and roles you need, then give the code.";

const RESPONSE: &str =
    "Reply with one fenced ```python block that defines def process_flows(F, G): and returns the dict.";

const REPAIR_RESPONSE: &str = "Reply with one fenced ``` block of commands.";

/// The full prompt of a request in one variant (`repair`: the command family's).
pub fn render(
    w: &World,
    question: &str,
    limits: &crate::sandbox::Limits,
    variant: PromptVariant,
    repair: bool,
) -> String {
    if repair {
        let sections = [ROLE.to_string(), tenant(w), super::repairing::COMMANDS.to_string()];
        let close = crate::malt::prompt::closing(question, variant, COT, REPAIR_RESPONSE);
        return format!("{}\n\n{close}", sections.join("\n\n"));
    }
    let mut sections = vec![ROLE.to_string(), tenant(w), API.to_string(), SCHEMA.to_string(), python(limits)];
    sections.push(OUTPUT.to_string());
    if variant.few_shot() {
        sections.push(EXAMPLE.to_string());
    }
    sections.push(crate::malt::prompt::closing(question, variant, COT, RESPONSE));
    sections.join("\n\n")
}

pub use crate::malt::prompt::question_of;
