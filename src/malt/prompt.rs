//! The prompt (docs/malt.md): the agent never sees the graph, only its schema, naming, the
//! current shape, the G API, the Python subset, the output rules, optional examples and the
//! question. The four variants differ only in the examples and the chain-of-thought sentence.

use crate::app::PromptVariant;

use super::topo::Shape;

const ROLE: &str = "You are a network engineer doing capacity planning for a Google Jupiter datacenter \
fabric. The fabric is stored as a directed graph in the MALT model (multi-abstraction-layer topology): \
every entity is a node with a kind and a unique name, and relationships are typed edges.";

const TASK: &str = "Write a Python function `def process_graph(G):` that answers the question at the end \
by calling methods of the graph object `G`, and returns a dict `{'type': ..., 'data': ...}`. Your code \
runs in a sandbox against the real graph; you cannot see the graph, so find what you need through `G`.";

const SCHEMA: &str = "Schema.
- Kinds and attributes: EK_JUPITER (jupiter_type), EK_SUPERBLOCK (index_within_jupiter, 1-based), \
EK_SPINEBLOCK, EK_AGG_BLOCK (aggregation block), EK_PACKET_SWITCH (stage: 2 or 3 in aggregation blocks, \
1 or 2 in spine blocks), EK_PORT (physical_capacity_bps, an int in bps), EK_RACK, EK_CHASSIS, \
EK_CONTROL_DOMAIN, EK_CONTROL_POINT. Every node also has the read-only attributes `name` and `kind`.
- Edges (src -> dst), nothing else is allowed, no self-loops, at most one edge per ordered pair:
  RK_CONTAINS: EK_JUPITER -> EK_SUPERBLOCK and EK_SPINEBLOCK; EK_SUPERBLOCK -> EK_AGG_BLOCK; \
EK_AGG_BLOCK or EK_SPINEBLOCK -> EK_PACKET_SWITCH (exactly one block per switch); EK_PACKET_SWITCH -> \
EK_PORT; EK_RACK -> EK_CHASSIS; EK_CHASSIS -> EK_PACKET_SWITCH and EK_CONTROL_POINT (at most one \
chassis each); EK_CONTROL_DOMAIN -> EK_CONTROL_POINT. Every other node has exactly one parent of its \
kind's parent kind.
  RK_CONTROLS: EK_CONTROL_POINT -> EK_PACKET_SWITCH (at most one per switch).
- EK_JUPITER, EK_RACK and EK_CONTROL_DOMAIN are roots. RK_CONTAINS forms three overlapping trees: \
fabric (jupiter > superblocks > aggregation blocks > switches > ports; jupiter > spine blocks > \
switches), physical (racks > chassis > switch and control point) and control (domains > control \
points, each controlling its switch).
- children(Y) are the RK_CONTAINS successors of Y. \"Contains\", \"in\" and \"under\" mean all nodes \
reachable from Y over one or more RK_CONTAINS edges (its descendants).
- Total capacity of a node = the sum of physical_capacity_bps over the EK_PORT nodes among the node \
itself and its descendants, in bps (a chassis has its switch's capacity; control points, domains and \
empty blocks have 0). The fabric's capacity is that of ju1.
- A ranking of the children of Y by total capacity sorts [child, capacity] rows by capacity (descending \
for highest first, ascending for lowest first), ties by name ascending (Python string order) either \
way, and keeps the first k rows when asked.
- Removing a node removes exactly that node and its edges; a switch removed \"with its ports\" also \
loses its EK_PORT children, an aggregation block removed \"with everything below it\" also its \
switches and their ports. Chassis, control points, racks and domains stay unless named.
- New nodes are always named in the question. A new port X.p{m+1} of switch X gets an RK_CONTAINS edge \
from X; a new switch B.s{stage}c{m+1} gets attribute stage and an edge from its block B, plus the \
stated ports; a new aggregation block Z.m{m+1} gets an edge from superblock Z. New switches get no \
chassis, control point or rack.
- Units: bps; questions may write Gbps (1 Gbps = 1000000000 bps).";

/// Section 4: naming and the ranges of the current shape.
fn naming(shape: Shape) -> String {
    format!(
        "Naming and the current shape ({S} superblocks, {A} aggregation blocks each, {W} switches per block, \
{P} ports per switch).
- ju1 is the fabric; superblocks ju1.a{{i}} and spine blocks ju1.s{{i}} for i = 1..{S}; aggregation blocks \
ju1.a{{i}}.m{{j}} for j = 1..{A}.
- Switches are {{block}}.s{{stage}}c{{c}}: in aggregation blocks stage 2 with c = 1..{lo} and stage 3 with \
c = 1..{hi}; in spine blocks stage 1 with c = 1..{lo} and stage 2 with c = 1..{hi} (e.g. ju1.a3.m4.s3c2, \
ju1.s2.s1c1).
- Ports are {{switch}}.p{{n}}, n = 1..{P} (e.g. ju1.a1.m1.s2c1.p3). Most ports run at 1000000000 bps.
- Each block has a rack {{block}}rack (ju1.a1.m1rack, ju1.s1rack) holding one chassis {{switch}}-chassis per \
switch; each superblock and spine block has a control domain (ju1.a1.dom, ju1.s1.dom) holding one \
control point {{switch}}-cp per switch.
- \".\" separates fabric path components; names use only A-Z a-z 0-9 _ . -",
        S = shape.s,
        A = shape.a,
        W = shape.w,
        P = shape.p,
        lo = shape.lower(),
        hi = shape.upper()
    )
}

const API: &str = "The graph API. Names are str; a missing node raises KeyError('node not found: ...'); an \
unknown kind or relation raises ValueError listing the valid ones; every list comes in the graph's \
canonical order.
- G.has_node(n) -> bool; G.node(n) -> dict of attributes including 'name' and 'kind' (a copy); \
G.kind(n) -> str; G.get_attr(n, key, default=None)
- G.nodes(kind=None, data=False) -> names, or (name, attrs) tuples
- G.number_of_nodes(kind=None), G.number_of_edges(rel=None) -> int
- G.successors(n, rel=None, kind=None), G.predecessors(n, rel=None, kind=None) -> out/in neighbours, \
filtered by edge relation and neighbour kind
- G.children(n, kind=None), G.parents(n, kind=None) -> the same over RK_CONTAINS
- G.descendants(n, kind=None), G.ancestors(n, kind=None) -> all nodes below/above n over RK_CONTAINS, \
excluding n
- G.edges(n=None, rel=None) -> (u, v, rel) tuples (out-edges of n, or all); G.in_edges(n, rel=None); \
G.has_edge(u, v, rel=None) -> bool
- G.count(kind, under=None) -> number of nodes of that kind (among the descendants of under)
- G.capacity(n) -> total capacity of n in bps
- G.add_node(n, kind, **attrs) (the name must be new and valid; attribute values are int, float, str or \
bool); G.add_edge(u, v, rel) (same relation again does nothing); G.remove_edge(u, v); G.remove_node(n) \
(removes the node and its edges only); G.set_attr(n, key, value) (name and kind are read-only)
- The API checks formats, not meaning: it lets you build a wrong hierarchy, and the grader will \
notice.";

const PYTHON: &str = "Python. Your code runs in a restricted Python interpreter. It supports functions, \
closures, recursion, lambdas, simple classes, dataclasses, try/except, comprehensions, sorted() and \
.sort(key=lambda ...), min/max with key, enumerate/zip/map/filter/any/all/sum, f-strings, str.format, \
most str/list/set/dict methods, collections.defaultdict/Counter/deque, math, json, re, \
functools.reduce, itertools.count/islice/chain and print(). It does not support: other imports \
(networkx, heapq, copy, random), OrderedDict, itertools.combinations/groupby/product, class \
inheritance (including custom exceptions), @property/@staticmethod, yield, match, del, '%s' % x, a \
bound method as a value (write key=lambda x: d[x], not key=d.get), eval/exec/open. Calls to G \
cannot run inside a key function of sorted/min/max or .sort: compute the values first \
(rows = [[c, G.capacity(c)] for c in ...]) and sort the rows. G is not a \
networkx graph: it has only the methods above (G.nodes[n], G[n], len(G), n in G and iterating G fail), \
and it cannot be copied: your changes go to a private working copy. Limits: 2 s of run time, 256 MiB \
of memory, 100000 calls to G, recursion depth 1000.";

const OUTPUT: &str = "Output. Return {'type': T, 'data': D}:
- 'text': D is a number (int or float) or a str (a name);
- 'list': D is a list of node names (order does not matter unless asked);
- 'table': D is a list of [name, number] rows, in the order asked;
- 'graph': D is ignored; the graph you leave behind is the answer.
Capacities are in bps. Change exactly what the question asks, nothing else; a question that only asks \
about the graph must leave it unchanged. When a question both changes the graph and asks a question, \
make the changes, then answer about the updated graph.";

/// The fixed examples of few-shot prompts (questions and bodies for the default shape); each
/// is tested against the native ground truth.
pub const EXAMPLES: [(&str, &str); 4] = [
    (
        "How many EK_PORT does ju1.a1.m1 contain? Return the number as text.",
        "def process_graph(G):
    return {'type': 'text', 'data': G.count('EK_PORT', under='ju1.a1.m1')}",
    ),
    (
        "Remove EK_PORT ju1.a1.m1.s2c1.p3. Rank the direct children of ju1.a1.m1 in the updated graph by total \
capacity, highest first, ties by name ascending. Return a table of [name, capacity_bps] rows in that order.",
        "def process_graph(G):
    G.remove_node('ju1.a1.m1.s2c1.p3')
    rows = [[c, G.capacity(c)] for c in G.children('ju1.a1.m1')]
    return {'type': 'table', 'data': sorted(rows, key=lambda r: (-r[1], r[0]))}",
    ),
    (
        "Create a stage-3 switch ju1.a2.m1.s3c9 with 4 ports (ju1.a2.m1.s3c9.p1…ju1.a2.m1.s3c9.p4) of 10 Gbps \
each inside ju1.a2.m1. Answer with type graph.",
        "def process_graph(G):
    sw = 'ju1.a2.m1.s3c9'
    G.add_node(sw, 'EK_PACKET_SWITCH', stage=3)
    G.add_edge('ju1.a2.m1', sw, 'RK_CONTAINS')
    for i in range(1, 5):
        G.add_node(f'{sw}.p{i}', 'EK_PORT', physical_capacity_bps=10 * 10**9)
        G.add_edge(sw, f'{sw}.p{i}', 'RK_CONTAINS')
    return {'type': 'graph', 'data': None}",
    ),
    (
        "Decommission packet switch ju1.s1.s1c1: remove it and its ports; its chassis and control point stay. \
Give the updated graph as the result.",
        "def process_graph(G):
    for port in G.children('ju1.s1.s1c1', kind='EK_PORT'):
        G.remove_node(port)
    G.remove_node('ju1.s1.s1c1')
    return {'type': 'graph', 'data': None}",
    ),
];

fn examples() -> String {
    let mut out = String::from("Examples (for the default 4x4x16x16 shape).");
    for (i, (q, code)) in EXAMPLES.iter().enumerate() {
        out.push_str(&format!("\n\nExample {}\nQuestion: {q}\n```python\n{code}\n```", i + 1));
    }
    out
}

/// The chain-of-thought sentence of the `_cot` variants.
pub const COT: &str = "Think step by step: say which nodes and relations you need, then give the code.";

/// The line that introduces the question; the baseline finds the question after it.
pub const QUESTION_LABEL: &str = "Question: ";

const RESPONSE: &str = "Reply with one fenced ```python block that defines def process_graph(G): and returns \
the dict.";

/// The full prompt of a question on a shape in one variant.
pub fn render(question: &str, shape: Shape, variant: PromptVariant) -> String {
    let mut sections = vec![ROLE.to_string(), TASK.to_string(), SCHEMA.to_string(), naming(shape)];
    sections.extend([API.to_string(), PYTHON.to_string(), OUTPUT.to_string()]);
    if variant.few_shot() {
        sections.push(examples());
    }
    sections.push(closing(question, variant, COT, RESPONSE));
    sections.join("\n\n")
}

/// A Python-answered prompt's last section: the question, the variant's chain-of-thought request
/// and the reply instruction (MALT's and traffic's prompts end alike, with their own texts).
pub fn closing(question: &str, variant: PromptVariant, cot: &str, response: &str) -> String {
    let mut last = format!("The question.\n{QUESTION_LABEL}{question}\n\n");
    if variant.chain_of_thought() {
        last.push_str(cot);
        last.push(' ');
    }
    last.push_str(response);
    last
}

/// The question inside a rendered prompt (the baseline reads only messages).
pub fn question_of(prompt: &str) -> Option<&str> {
    let start = prompt.rfind(&format!("\n{QUESTION_LABEL}"))? + 1 + QUESTION_LABEL.len();
    let rest = &prompt[start..];
    Some(rest.split('\n').next().unwrap_or(rest).trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_differ_as_specified() {
        let q = "How many EK_PORT are in the graph? Return the number as text.";
        let zb = render(q, Shape::DEFAULT, PromptVariant::ZeroshotBase);
        let zc = render(q, Shape::DEFAULT, PromptVariant::ZeroshotCot);
        let fb = render(q, Shape::DEFAULT, PromptVariant::FewshotBase);
        let fc = render(q, Shape::DEFAULT, PromptVariant::FewshotCot);
        assert!(!zb.contains(COT) && zc.contains(COT) && !fb.contains(COT) && fc.contains(COT));
        assert!(!zb.contains("Example 1") && fb.contains("Example 4") && fc.contains("Example 1"));
        for p in [&zb, &zc, &fb, &fc] {
            assert_eq!(question_of(p), Some(q));
        }
        assert!(zb.contains("c = 1..8") && zb.contains("n = 1..16"));
    }
}
