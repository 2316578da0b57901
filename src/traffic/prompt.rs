//! The prompts (docs/traffic.md, "Prompts"): the analyst's role, the graph's schema, the G
//! API, the return contract and the question. The graph itself is never in the prompt.

use crate::app::PromptVariant;

const ROLE: &str = "You are a network analyst. A communication graph of a cloud tenant is loaded as the \
host object G: one node per endpoint (its id is its IPv4 address), one undirected edge per pair of \
endpoints that talked.";

const SCHEMA: &str = "Schema (NeMoEval node-link).
- Node attributes: id, ip_address (both read-only), color (str, default 'steelblue'), size (int or \
float, default 4), labels (a list of str used as a set, e.g. 'type=VM', 'app:prod', 'tier:web').
- Edge weights: byte_weight, connection_weight, packet_weight (ints).
- Degree = number of neighbours; the total w weight of a node = the sum of w over its edges.";

const API: &str = "The G API (methods only; G has no attributes, no len() and no indexing):
G.has_node(n), G.node(n) (a dict copy), G.nodes(data=False), G.number_of_nodes(), G.number_of_edges(),
G.get(n, key, default=None), G.set(n, key, value), G.labels(n), G.add_label(n, l), G.remove_label(n, l),
G.neighbors(n), G.degree(n=None, weight=None) (an int, or [(n, d)] for every node; weight e.g. 'byte_weight'),
G.edges(n=None, data=False) ([(u, v)] or [(u, v, weights)]), G.has_edge(u, v), G.edge(u, v),
G.set_edge(u, v, key, value), G.add_edge(u, v, **weights), G.remove_edge(u, v), G.add_node(n, **attrs),
G.remove_node(n), G.nodes_with_label(l).
A missing node raises KeyError; a bad argument TypeError or ValueError.";

/// The Python the sandbox runs and its limits (the defaults; a worker may set tighter ones).
fn python() -> String {
    let l = crate::sandbox::Limits::default();
    format!(
        "Python: the sandbox's subset (functions, lambdas, comprehensions, sorted/min/max with key=, \
f-strings, str/list/dict/set methods, collections, math, json, re; no other imports, no files or \
network). Limits: {} s, {} MiB, {} calls to G, recursion depth {}; each is a Python error you see.",
        l.time.as_secs_f64(),
        l.memory / (1024 * 1024),
        l.host_calls,
        l.recursion
    )
}

const OUTPUT: &str = "Define def process_graph(G): and return a dict {'type': T, 'data': D}:
- 'text': a number or a str; 'list': a list; 'table': a list of rows (lists), with a header row first \
when the question gives one;
- 'graph': the answer is G itself as your code left it (return {'type': 'graph', 'data': G});
- 'new': a graph you build, as node-link data: {'nodes': [{'id': ...}, ...], 'links': [{'source': ..., \
'target': ..., and the attributes the question names}, ...]} ('edges' may stand for 'links').
Change G only when the question asks for a change.";

const EXAMPLES: [(&str, &str); 4] = [
    (
        "How many nodes have the label app:prod? Return the number as text.",
        "def process_graph(G):\n    return {'type': 'text', 'data': len(G.nodes_with_label('app:prod'))}",
    ),
    (
        "What is the highest degree in the graph? Return the number as text.",
        "def process_graph(G):\n    return {'type': 'text', 'data': max(d for n, d in G.degree())}",
    ),
    (
        "Give every node with the label tier:db the size 8. Return the graph.",
        "def process_graph(G):\n    for n in G.nodes_with_label('tier:db'):\n        G.set(n, 'size', 8)\n    \
         return {'type': 'graph', 'data': G}",
    ),
    (
        "List the nodes with no edges. Return a list.",
        "def process_graph(G):\n    return {'type': 'list', 'data': [n for n in G.nodes() if G.degree(n) == 0]}",
    ),
];

/// The chain-of-thought sentence of the `_cot` variants.
pub const COT: &str = "Think step by step: say which nodes, labels and weights you need, then give the code.";

const RESPONSE: &str =
    "Reply with one fenced ```python block that defines def process_graph(G): and returns the dict.";

const FLOWS: &str = "The tenant's flow logs are loaded as the host object F, one row per log record (Azure: \
per flow tuple), in file order; G is the communication graph derived from them (node labels type=VM, \
type=Platform, type=Internet and role=... where known).
F columns: i, t, t_end (Unix seconds; Azure: the tuple's time), vantage (the logging interface's address), \
dir ('in'/'out' at the vantage), src, dst (dotted addresses), sport, dport, proto (6 tcp, 17 udp, 0 for a \
record without traffic), action ('allow'/'deny'), state (Azure B, C, E, D, else ''), pkts, bytes (src to dst), \
pkts_rev, bytes_rev (Azure's received counters, else 0), status (AWS 'OK'/'NODATA', else ''), instance.
F.info()['format'] names the format (aws2, aws5: AWS VPC Flow Logs; nsg2, vnet4: Azure NSG and VNet flow logs; \
gcp: GCP VPC Flow Logs). A connection has an initiator (the higher port) and a responder (the lower, \
listening port); both ends may log it, in both directions, over several intervals (AWS logs replies as \
records with source and destination swapped; Azure counts the reply as bytes_rev; GCP logs only the \
initiator's direction and no denials). Times of day are UTC; the trace starts 2025-01-06 00:00 UTC \
(Unix 1736121600).
The F API (methods only): F.info(), F.count(where=None), F.rows(where=None, columns=None, order=None, \
offset=0, limit=None) (at most 10,000 rows), F.distinct(columns, where=None), F.group(by, aggs, where=None, \
order=None, limit=None) (rows of the key columns then one value per agg), F.series(bucket_s, aggs, where=None, \
by=None), F.raw(i). where is a list of [column, op, value] (ops == != < <= > >= in notin cidr notcidr), \
AND-ed; aggs a list of (op, column) with ops count sum min max mean nunique.";

const FLOW_OUTPUT: &str = "Define def process_flows(F, G): and return a dict {'type': T, 'data': D}:
- 'text': a number or a str; 'list': a list; 'table': a list of rows (lists), with a header row first \
when the question gives one.
Change nothing.";

const FLOW_RESPONSE: &str =
    "Reply with one fenced ```python block that defines def process_flows(F, G): and returns the dict.";

/// What only a flow question's prompt says: its entry point.
pub const FLOW_ENTRY: &str = "def process_flows(F, G):";

/// What a `nemo` question's prompt says besides: its graph's float weights, and how
/// NeMoEval's return phrases map to the return contract (its questions are kept verbatim).
const NEMO: &str = "The question is NeMoEval's, word for word. Its graph: nodes in the /16s 149.196, \
15.76 and 10.55, each labelled only 'type=VM' until a change adds labels; the edge weights are floats. \
'Return the networkx graph object' means return {'type': 'graph', 'data': G} after changing G; \
'Return only the number' means {'type': 'text', 'data': the number}.";

/// What a `nemo` question that builds a new graph adds: the new graph cannot be G, so "the
/// networkx graph object" it returns is node-link data (`new` passes too).
const NEMO_NEW: &str = "This question builds a new graph: return it as {'type': 'graph', 'data': {'nodes': \
[{'id': ...}, ...], 'links': [{'source': ..., 'target': ...}, ...]}} and leave G as it is.";

/// The `nemo` questions that build a new graph (question 15, the label graph).
const NEMO_NEW_GRAPH: [usize; 1] = [15];

/// What a `chain` prompt adds: the episode's shape, and that G persists between questions.
fn chain_note() -> String {
    format!(
        "This is NeMoEval's chain: its {} questions asked one a turn, all of the same G. {CHAIN_STATE}",
        super::chain::QUESTIONS
    )
}

/// How G carries over in a chain (the note's second half).
const CHAIN_STATE: &str = "G keeps every change your code makes from one question to the next, except question 15's, which builds \
a new graph and leaves G as it was; each answer is checked on the G your earlier answers left. Answer \
the question below; the result of each answer comes with the next question.";

/// The full prompt of a question in one variant; `flows` for a question on the flow logs,
/// `nemo` the NeMoEval question number of a question of the `nemo` mode.
pub fn render(question: &str, variant: PromptVariant, flows: bool, nemo: Option<usize>) -> String {
    render_with(question, variant, flows, nemo, false)
}

/// The first prompt of a `chain` episode: NeMoEval's question 1 with the chain's note.
pub fn render_chain(question: &str, variant: PromptVariant) -> String {
    render_with(question, variant, false, Some(1), true)
}

/// The question block a `chain` episode sends after an answer: question `number`, with the
/// new-graph note where it builds one, ending as every prompt ends.
pub fn chain_question(number: usize, question: &str) -> String {
    let mut out = format!("Question {number} of {}.", super::chain::QUESTIONS);
    if NEMO_NEW_GRAPH.contains(&number) {
        out = format!("{out} {NEMO_NEW}");
    }
    format!("{out}\n\n{}", crate::malt::prompt::closing(question, PromptVariant::ZeroshotBase, COT, RESPONSE))
}

fn render_with(
    question: &str,
    variant: PromptVariant,
    flows: bool,
    nemo: Option<usize>,
    chain: bool,
) -> String {
    let mut sections = vec![ROLE.to_string(), SCHEMA.to_string(), API.to_string()];
    if flows {
        sections.push(FLOWS.to_string());
    }
    sections.push(python());
    sections.push(if flows { FLOW_OUTPUT } else { OUTPUT }.to_string());
    if let Some(k) = nemo {
        sections.push(NEMO.to_string());
        if NEMO_NEW_GRAPH.contains(&k) {
            sections.push(NEMO_NEW.to_string());
        }
    }
    if chain {
        sections.push(chain_note());
    }
    if variant.few_shot() {
        let mut ex = String::from("Examples.");
        for (i, (q, code)) in EXAMPLES.iter().enumerate() {
            ex.push_str(&format!("\n\nExample {}\nQuestion: {q}\n```python\n{code}\n```", i + 1));
        }
        sections.push(ex);
    }
    sections.push(crate::malt::prompt::closing(
        question,
        variant,
        COT,
        if flows { FLOW_RESPONSE } else { RESPONSE },
    ));
    sections.join("\n\n")
}

/// The question inside a rendered prompt: the line after the last `Question: `, as MALT's.
pub use crate::malt::prompt::question_of;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_and_question() {
        let q = "How many nodes are in the graph? Return the number as text.";
        let zb = render(q, PromptVariant::ZeroshotBase, false, None);
        let fc = render(q, PromptVariant::FewshotCot, true, None);
        assert!(fc.contains("process_flows(F, G)") && !zb.contains("F.group("));
        assert!(
            !zb.contains(COT) && fc.contains(COT) && fc.contains("Example 4") && !zb.contains("Example 1")
        );
        assert_eq!(question_of(&zb), Some(q));
        assert_eq!(question_of(&fc), Some(q));
        // A nemo question adds its note and keeps the question as the last line.
        let nemo = render(q, PromptVariant::ZeroshotBase, false, Some(1));
        assert!(nemo.contains(NEMO) && !zb.contains(NEMO) && !nemo.contains(NEMO_NEW));
        assert_eq!(question_of(&nemo), Some(q));
        let new = render(q, PromptVariant::ZeroshotBase, false, Some(15));
        assert!(new.contains(NEMO_NEW));
        assert_eq!(question_of(&new), Some(q));
    }
}
