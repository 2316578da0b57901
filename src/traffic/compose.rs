//! Level 4 (docs/traffic.md, "Level 4"): questions made of the lower levels' families.
//!
//! - `compose`: two or three change steps, then a question on the graph they leave. Each step
//!   is drawn on the graph the steps before it left and made through the same native change
//!   as its own family (`task::apply`); the question's truth is its family's, on the graph
//!   after the steps, and the final graph must carry the steps' changes.
//! - `flow-graph`: the communication graph of a window's connections, recovered from the
//!   logs by the flow families' connection rule (`flowq::window_graph`), then a question of a
//!   graph family on it.
//!
//! Nothing here computes a truth or a change of its own: the families do, on the graph the
//! composition hands them. The reference Python is the families' own code too, renamed into
//! helper functions (and, for flow-graph, run on a small class with the G methods they call).

use std::collections::BTreeMap;

use super::family::{self, Family, Query, View};
use super::flowq::{self, Logs};
use super::task::{apply, mock_of, view_of};
use crate::flows::graph::Graph;
use crate::seed::Stream;

/// The generator version whose forms level 4 draws its steps and questions in: the first, in
/// every version (the second's /16 and node forms are for levels 1–3; docs/traffic.md,
/// "Versions"), so a composed task is the same in both.
const COMPOSED: u32 = 1;

/// The change steps a composed question draws from; `None` removes the nodes with no edges.
const STEPS: [Option<Family>; 5] = [
    Some(Family::LabelPrefix),
    Some(Family::LabelRemove),
    Some(Family::ColorLabel),
    Some(Family::EdgeFilter),
    None,
];

/// The questions that may end a composed question.
const QUESTIONS: [Family; 7] = [
    Family::Count,
    Family::DegreeStat,
    Family::TopDegree,
    Family::NbrCount,
    Family::PrefixCount,
    Family::Cliques,
    Family::Kmeans,
];

/// The questions a flow-graph question asks of the window's graph.
const FLOW_QUESTIONS: [Family; 5] =
    [Family::Count, Family::DegreeStat, Family::TopDegree, Family::NbrCount, Family::MinCut];

/// Whether a step (`None`: removing isolated nodes) or question can be drawn on `v` and its
/// reference code run there: the draws pick from present labels, prefixes, degrees and
/// edges, and an edge filter's statistic or a maximum needs at least one value.
fn fits(f: Option<Family>, v: &View) -> bool {
    let labelled = v.labels.iter().any(|l| !l.is_empty());
    let nodes = !v.ips.is_empty();
    match f {
        None => true,
        Some(Family::LabelPrefix | Family::DegreeStat | Family::Cliques) => nodes,
        Some(Family::LabelRemove | Family::ColorLabel | Family::NbrCount) => labelled,
        Some(Family::Count) => nodes && labelled,
        Some(Family::EdgeFilter | Family::MinCut) => !v.edges.is_empty(),
        Some(Family::Kmeans) => {
            let totals: std::collections::BTreeSet<i64> = v.totals(0).into_iter().collect();
            totals.len() >= 2
        }
        Some(_) => true,
    }
}

/// A composed question drawn on `graph` (whose view is `base`): the query, and the view and
/// graph the steps leave. Steps are distinct families while one fits (removing isolated
/// nodes always does, so a draw never runs dry).
pub fn draw(s: &mut Stream, base: &View, graph: &Graph) -> (Query, View, Graph) {
    let count = 2 + s.index(2);
    let mut g = graph.clone();
    let mut after: Option<View> = None;
    let mut used: Vec<Option<Family>> = Vec::new();
    let mut steps = Vec::new();
    for _ in 0..count {
        let cur = after.as_ref().unwrap_or(base);
        let fitting: Vec<Option<Family>> = STEPS.into_iter().filter(|f| fits(*f, cur)).collect();
        let fresh: Vec<Option<Family>> = fitting.iter().copied().filter(|f| !used.contains(f)).collect();
        let f = *s.choose(if fresh.is_empty() { &fitting } else { &fresh });
        used.push(f);
        let step = match f {
            Some(f) => family::draw(f, s, cur, None, COMPOSED),
            None => Query::RemoveIsolated,
        };
        apply(&step, cur, &mut g);
        after = Some(view_of(&g));
        steps.push(step);
    }
    let after = after.unwrap_or_else(|| view_of(&g));
    let pool: Vec<Family> = QUESTIONS.into_iter().filter(|f| fits(Some(*f), &after)).collect();
    let question = family::draw(*s.choose(&pool), s, &after, None, COMPOSED);
    (Query::Compose { steps, question: Box::new(question) }, after, g)
}

/// A flow-graph question drawn on a tenant's logs: the query and the window's graph.
pub fn draw_flow_graph(s: &mut Stream, logs: &Logs) -> (Query, View) {
    let (t1, t2) = flowq::window(s, logs.minutes, false);
    let view = window_view(logs, t1, t2);
    let roles = View {
        ips: view.ips.clone(),
        labels: view
            .labels
            .iter()
            .map(|ls| ls.iter().filter(|l| l.starts_with("role=")).cloned().collect())
            .collect(),
        adj: view.adj.clone(),
        edges: view.edges.clone(),
        unit: view.unit,
    };
    let pool: Vec<Family> = FLOW_QUESTIONS
        .into_iter()
        .filter(|&f| fits(Some(f), if f == Family::NbrCount { &roles } else { &view }))
        .collect();
    // Neighbour counts ask about role labels (the tenant's known roles), so they draw on
    // the role labels alone; the truth reads the same nodes' labels either way.
    let question = match *s.choose(&pool) {
        Family::NbrCount => family::draw(Family::NbrCount, s, &roles, None, COMPOSED),
        f => family::draw(f, s, &view, None, COMPOSED),
    };
    (Query::FlowGraph { t1, t2, question: Box::new(question) }, view)
}

/// The view of the window's communication graph, its nodes labelled as in the tenant graph.
pub fn window_view(logs: &Logs, t1: u32, t2: u32) -> View {
    let labels: BTreeMap<String, Vec<String>> = mock_of(&logs.graph).nodes.into_iter().collect();
    View::new(&flowq::window_graph(&logs.conns, t1, t2, &labels))
}

/// The node attributes (or `-edge`, `-node`) a query's own change touches.
pub fn own_scope(q: &Query) -> &'static [&'static str] {
    match q {
        Query::LabelPrefix { .. } | Query::LabelRemove { .. } | Query::Kmeans { color: false, .. } => {
            &["labels"]
        }
        Query::Kmeans { color: true, .. } => &["labels", "color"],
        Query::ColorLabel { .. } => &["color"],
        Query::EdgeFilter { .. } => &["-edge"],
        Query::RemoveIsolated => &["-node"],
        _ => &[],
    }
}

/// What a composed question's answer may change: its steps' scopes and its question's.
pub fn scope(steps: &[Query], question: &Query) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for key in steps.iter().chain([question]).flat_map(|q| own_scope(q).iter().copied()) {
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

/// A family's reference code with its entry point renamed to `name(G)`.
fn renamed(q: &Query, name: &str) -> String {
    family::code(q).replacen("def process_graph(G):", &format!("def {name}(G):"), 1)
}

/// The methods of `G` the flow-graph questions' reference code calls, on a graph held in
/// dictionaries: `adj` maps a node to its neighbours' shared weight dicts, `es` lists each
/// edge once as `(u, v, weights)`, `tags` maps a node to its labels.
const WINDOW_CLASS: &str = "class Window:
    def __init__(self, adj, es, tags):
        self.adj = adj
        self.es = es
        self.tags = tags

    def nodes(self, data=False):
        return list(self.adj)

    def number_of_nodes(self):
        return len(self.adj)

    def number_of_edges(self):
        return len(self.es)

    def neighbors(self, n):
        return list(self.adj[n])

    def labels(self, n):
        return list(self.tags[n])

    def nodes_with_label(self, l):
        return [n for n in self.adj if l in self.tags[n]]

    def degree(self, n=None, weight=None):
        def one(m):
            if weight is None:
                return len(self.adj[m])
            return sum(w[weight] for w in self.adj[m].values())
        if n is None:
            return [(m, one(m)) for m in self.adj]
        return one(n)

    def edges(self, n=None, data=False):
        return [e if data else (e[0], e[1]) for e in self.es if n is None or n in (e[0], e[1])]
";

/// Python that builds the window's graph from `conns` (allowed, starting in `[lo, hi)`) into
/// `Window(adj, es, tags)`, its nodes labelled as in `G`.
const WINDOW_BUILD: &str = "adj = {}
    es = []
    for c in conns:
        a, b = c[0], c[2]
        if not c[6] or not (lo <= c[5] < hi) or a == b:
            continue
        adj.setdefault(a, {})
        adj.setdefault(b, {})
        w = adj[a].get(b)
        if w is None:
            w = {'byte_weight': 0, 'connection_weight': 0, 'packet_weight': 0}
            adj[a][b] = w
            adj[b][a] = w
            es.append((a, b, w))
        w['byte_weight'] += c[7] + c[8]
        w['packet_weight'] += c[9] + c[10]
        w['connection_weight'] += 1
    labels = {}
    for n, d in G.nodes(data=True):
        labels[n] = d['labels']
    tags = {}
    for n in adj:
        tags[n] = labels.get(n, [])";

/// The reference answer of a level-4 question: the entry point first (so an extractor that
/// keeps the code from `def process_...` on keeps it all), then the families' code as helpers.
pub fn code(q: &Query) -> String {
    match q {
        Query::Compose { steps, question } => {
            let calls: Vec<String> = (1..=steps.len()).map(|i| format!("    step_{i}(G)\n")).collect();
            let helpers: Vec<String> =
                steps.iter().enumerate().map(|(i, st)| renamed(st, &format!("step_{}", i + 1))).collect();
            format!(
                "def process_graph(G):\n{}    return question(G)\n\n{}\n{}",
                calls.concat(),
                helpers.join("\n"),
                renamed(question, "question")
            )
        }
        Query::FlowGraph { t1, t2, question } => format!(
            "def process_flows(F, G):\n    {}\n    lo, hi = {}, {}\n    {WINDOW_BUILD}\n    \
             return question(Window(adj, es, tags))\n\n{WINDOW_CLASS}\n{}",
            flowq::connections_code(*t1, *t2),
            t1 * 60,
            t2 * 60,
            renamed(question, "question")
        ),
        _ => family::code(q),
    }
}
