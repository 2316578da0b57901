//! A generated traffic task and its episode: the id's graph and question, the expected value
//! or graph, the sandbox run of each reply and its score.

use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Value, json};

use crate::app::{Episode, Finish, PromptVariant, Score, ScoreDetails, StepOutcome, Task, TaskCard};
use crate::error::Result;
use crate::flows::graph::{self as fgraph, Graph};
use crate::flows::table::{self as ftable, Table};
use crate::id::QueryId;
use crate::malt::api::{ApiResult, Budget, Py, unlimited};
use crate::malt::extract;
use crate::malt::sandbox::{self, Host, Limits};
use crate::seed::{Stream, Width};
use crate::view::Picture;

use super::check::{self, Change};
use super::compose;
use super::family::{self, Family, Query, Truth, View};
use super::flowq::{self, FlowKnobs};
use super::mock::{Mock, MockKnobs, mock};
use super::nemo_check::Loose;
use super::panels;
use super::picture::{self, Marks};
use super::prompt;
use super::prop;

/// What an agent's code runs against: the graph `G`, and for flow questions the flows table `F`
/// first (`process_flows(F, G)`).
#[derive(Debug, Clone)]
pub struct TrafficHost {
    pub flows: Option<Arc<Table>>,
    pub graph: Graph,
}

impl Host for TrafficHost {
    fn names(&self) -> &'static [&'static str] {
        if self.flows.is_some() { &["F", "G"] } else { &["G"] }
    }
    fn class(&self, object: usize) -> &'static str {
        if self.flows.is_some() && object == 0 { "Flows" } else { "Graph" }
    }
    fn call(
        &mut self,
        object: usize,
        method: &str,
        args: Vec<Py>,
        kwargs: Vec<(String, Py)>,
        budget: Budget<'_>,
    ) -> ApiResult<Py> {
        match (&self.flows, object) {
            (Some(f), 0) => ftable::call(f, method, args, kwargs, budget),
            _ => fgraph::call(&mut self.graph, method, args, kwargs, budget),
        }
    }
    fn attribute_message(&self, object: usize) -> &'static str {
        if self.flows.is_some() && object == 0 {
            "F has only methods, e.g. F.count()"
        } else {
            fgraph::ATTRIBUTE_MESSAGE
        }
    }
}

/// Everything generation resolved.
#[derive(Debug, Clone)]
pub struct Generated {
    pub id: QueryId,
    pub family: Family,
    pub wording: usize,
    pub query: Query,
    pub question: String,
    /// The turns an episode allows by default (`t`).
    pub turns: u32,
    /// The graph asked of, shared with the seed's cached mock (or the tenant's logs): a task
    /// only reads it, and an episode's run copies it into the sandbox's working `G`.
    pub graph: Arc<Graph>,
    /// The flows table of a flow question (`process_flows(F, G)`), else `None`.
    pub flows: Option<Arc<Table>>,
    /// The logs behind `flows`.
    pub logs: Option<Arc<flowq::Logs>>,
    /// The read-only truth, or `None` when the expected outcome is a changed graph.
    pub truth: Option<Truth>,
    /// The graph an exact answer leaves as node-link data (`expected_graph`), made when first
    /// read: a question leaves its graph as it is, and rendering a 10,000-node graph costs
    /// more than generating the rest of its task.
    pub(super) expected: OnceLock<Value>,
    /// The graph an exact answer leaves when it is not the one asked of (a change's outcome;
    /// for a property question the native witness, one valid answer of many); `None` for a
    /// question, whose graph is `state` or else `graph`.
    pub(super) changed: Option<Graph>,
    /// A property question's rules, which check the final graph instead of `expected_graph`.
    pub prop: Option<prop::Spec>,
    /// A composed question's graph after its steps, which the final graph must equal outside
    /// what the question itself changes (`compose::own_scope`); `None` otherwise.
    pub state: Option<Value>,
    /// NeMoEval's question number (1..=24) in the `nemo` mode, else `None`.
    pub nemo: Option<usize>,
    /// A `nemo` question checked more loosely than its family (any tied node, any valid top
    /// k, a new graph returned as `graph`); `None` for the family's own check.
    pub loose: Option<Loose>,
    /// The `chain` mode's golden chain (this task is its question 1), else `None`.
    pub chain: Option<Arc<super::chain::Chain>>,
}

/// The nodes of the highest and of the lowest degree, in address order: for a colour-extreme
/// question where any of them may take the colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ties {
    pub hi: Vec<String>,
    pub lo: Vec<String>,
}

impl Generated {
    /// The graph an exact answer leaves (the base graph for questions, or the one a
    /// composition's steps left; for a property question the native witness).
    pub fn expected_graph(&self) -> &Value {
        self.expected.get_or_init(|| match &self.changed {
            Some(g) => g.to_json(),
            None => self.state.clone().unwrap_or_else(|| self.graph.to_json()),
        })
    }

    /// The node attributes (or `-edge`, `-node`) an answer may change: the family's, narrowed
    /// for a k-means question that does not ask for colours; a composed question's steps' and
    /// question's.
    pub fn scope(&self) -> Vec<&'static str> {
        match &self.query {
            // NeMoEval's question 20 may state its clusters as colours.
            Query::Kmeans { color: false, .. } if self.nemo.is_none() => vec!["labels"],
            Query::ColorExtreme { case: 'a', .. } => vec!["color"],
            Query::Compose { steps, question } => compose::scope(steps, question),
            _ => self.family.scope().to_vec(),
        }
    }

    /// The question whose truth or rule is checked: a level-4 question's final one, else the
    /// query itself.
    pub fn asked(&self) -> &Query {
        match &self.query {
            Query::Compose { question, .. } | Query::FlowGraph { question, .. } => question,
            q => q,
        }
    }
}

/// The id's choices beyond sizes: the graph source (`g`), the mode (`m`) and the turns (`t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modes {
    /// `g=flows`: graph questions on the tenant's communication graph instead of the mock.
    pub tenant_graph: bool,
    /// `m=nemo`: NeMoEval's questions on its kind of graph (`super::nemo`).
    pub nemo: bool,
    /// `m=chain`: NeMoEval's 24 questions as one episode (`super::chain`).
    pub chain: bool,
    pub turns: u32,
}

/// Reads and checks `g`, `m` and `t`.
pub fn modes(id: &QueryId) -> Result<Modes> {
    let bad = |m: String| crate::Error::bad_id(&id.to_string(), m);
    let tenant_graph = match id.knob('g') {
        None | Some("mock") => false,
        Some("flows") => true,
        Some(v) => return Err(bad(format!("knob g must be mock or flows, got {v:?}"))),
    };
    let (nemo, chain) = match id.knob('m') {
        None | Some("std") => (false, false),
        Some("nemo") if id.level <= 3 => (true, false),
        Some("chain") if id.level == 4 => (false, true),
        Some(v @ ("nemo" | "chain" | "straw")) => {
            return Err(bad(format!(
                "knob m={v}: not in this version of traffic at level {} (m=nemo and m=straw are at levels 1 \
                 to 3, NeMoEval's easy, medium and hard eight; m=chain, all 24 in one episode, at level 4; \
                 m takes std otherwise)",
                id.level
            )));
        }
        Some(v) => return Err(bad(format!("knob m must be std, nemo, chain or straw, got {v:?}"))),
    };
    if (nemo || chain) && tenant_graph {
        return Err(bad("knob g=flows: m=nemo and m=chain ask of NeMoEval's mock graph only".into()));
    }
    let turns = if chain {
        // One turn per question: the chain has exactly as many turns as questions.
        let all = super::chain::QUESTIONS as u64;
        match num(id, 't', all)? {
            t if t == all => t,
            t => {
                return Err(bad(format!(
                    "knob t: m=chain asks its {all} questions one a turn, t must be {all}, got {t}"
                )));
            }
        }
    } else {
        let turns = num(id, 't', 1)?;
        if !(1..=u64::from(MAX_TURNS)).contains(&turns) {
            return Err(bad(format!("knob t must be 1..{MAX_TURNS}, got {turns}")));
        }
        turns
    };
    Ok(Modes { tenant_graph, nemo, chain, turns: turns as u32 })
}

/// A graph as a mock (nodes with labels in address order, weighted edges by index), so the
/// graph families' truths run on the tenant's graph, or on a graph changed by steps, unchanged.
pub(super) fn mock_of(g: &Graph) -> Mock {
    read(g).0
}

/// A graph as a mock and the unit of its weights: 1 when every weight is an integer (the
/// standard and tenant graphs, read exactly as before), else [`family::FIXED_UNIT`], each
/// weight rounded to a whole number of units (the nemo mock's floats). A weight that is not a
/// number reads as 0.
fn read(g: &Graph) -> (Mock, f64) {
    let doc = g.to_json();
    let nodes: Vec<(String, Vec<String>)> = doc["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| {
            let labels =
                n["labels"].as_array().into_iter().flatten().filter_map(|l| l.as_str().map(String::from));
            (n["id"].as_str().unwrap_or("").to_string(), labels.collect())
        })
        .collect();
    let index: std::collections::BTreeMap<&str, usize> =
        nodes.iter().enumerate().map(|(i, (ip, _))| (ip.as_str(), i)).collect();
    let links: Vec<&Value> = doc["links"].as_array().into_iter().flatten().collect();
    let integral = links.iter().all(|l| fgraph::WEIGHTS.iter().all(|k| l[*k].is_i64() || !l[*k].is_number()));
    let unit = if integral { 1.0 } else { family::FIXED_UNIT };
    // Scaling by a power of two is exact; `round` is correctly rounded on every platform.
    let weight = |x: &Value| match x.as_i64() {
        Some(i) if integral => i,
        _ if integral => 0,
        _ => (x.as_f64().unwrap_or(0.0) / unit).round() as i64,
    };
    let edges = links
        .iter()
        .filter_map(|l| {
            let end = |k: &str| l[k].as_str().and_then(|x| index.get(x).copied());
            Some((end("source")?, end("target")?, fgraph::WEIGHTS.map(|k| weight(&l[k]))))
        })
        .collect();
    (Mock { nodes, edges }, unit)
}

/// The view the truths read of a graph.
pub(super) fn view_of(g: &Graph) -> View {
    let (m, unit) = read(g);
    View { unit, ..View::new(&m) }
}

/// A numeric knob of an id, or its default.
fn num(id: &QueryId, key: char, default: u64) -> Result<u64> {
    match id.knob(key) {
        None => Ok(default),
        Some(v) => v.parse().map_err(|_| {
            crate::Error::bad_id(&id.to_string(), format!("knob {key} must be a number, got {v:?}"))
        }),
    }
}

/// The mock graph's nodes when the id has no `n` knob.
pub const DEFAULT_NODES: u64 = 60;

/// The graph knobs of an id (defaults where absent).
pub fn knobs(id: &QueryId) -> Result<MockKnobs> {
    let n = num(id, 'n', DEFAULT_NODES)? as usize;
    let k = MockKnobs { n, p: num(id, 'p', 4)? as usize, e: num(id, 'e', MockKnobs::default_density(n))? };
    k.check().map_err(|e| crate::Error::bad_id(&id.to_string(), e.to_string()))?;
    Ok(k)
}

/// The tenant knobs of an id (`a d c k f`, defaults where absent), checked.
pub fn flow_knobs(id: &QueryId, tenant_graph: bool) -> Result<FlowKnobs> {
    let bad = |m: String| crate::Error::bad_id(&id.to_string(), m);
    let d = FlowKnobs::default();
    let small = |key: char, default: u32| -> Result<u32> {
        u32::try_from(num(id, key, u64::from(default))?).map_err(|_| bad(format!("knob {key} is too large")))
    };
    let f =
        match id.knob('f') {
            None => None,
            Some(v) => Some(crate::flows::Format::parse(v).ok_or_else(|| {
                bad(format!("knob f must be one of aws2, aws5, nsg2, vnet4, gcp, got {v:?}"))
            })?),
        };
    // With the tenant as the graph source, `n` is its instance scale (and `c` follows it).
    let n = if tenant_graph { small('n', d.n)? } else { d.n };
    let c = small('c', if tenant_graph { 50 * n } else { d.c })?;
    let k = FlowKnobs { a: small('a', d.a)?, d: small('d', d.d)?, c, k: small('k', d.k)?, f, n };
    flowq::tenant_key(id.level, id.seed, &k).knobs.validate().map_err(bad)?;
    Ok(k)
}

/// The mock a seed's indexes share, cached (the last one: runs walk a seed's indexes in turn).
fn cached_mock(material: &str, k: MockKnobs) -> Result<Arc<(View, Arc<Graph>)>> {
    type Slot = Option<(String, Arc<(View, Arc<Graph>)>)>;
    static LAST: OnceLock<Mutex<Slot>> = OnceLock::new();
    let slot = LAST.get_or_init(|| Mutex::new(None));
    if let Some((_, v)) = slot.lock().ok().and_then(|s| s.clone()).filter(|(m, _)| m == material) {
        return Ok(v);
    }
    let m = mock(material, k)?;
    let view = View::new(&m);
    let v = Arc::new((view, Arc::new(m.graph())));
    if let Ok(mut s) = slot.lock() {
        *s = Some((material.to_string(), v.clone()));
    }
    Ok(v)
}

/// The version the graph's and the query stream's seed material name, in every version: the
/// second changed only what four families draw from the stream, so a seed's graph, and every
/// other task, is the same in both (docs/traffic.md, "Versions").
const MATERIAL_VERSION: u32 = 1;

/// Generates the task of an id (already checked against the app's description).
pub fn generate(id: &QueryId) -> Result<Generated> {
    // m=straw is m=nemo's task asked in NeMoEval's strawman form (`super::straw`).
    if super::straw::is_straw(id) {
        return super::straw::generate(id);
    }
    let modes = modes(id)?;
    let fk = flow_knobs(id, modes.tenant_graph)?;
    let material = format!(
        "netpress|traffic-graph|v{}|L{}|s{}|{}",
        MATERIAL_VERSION,
        id.level,
        id.seed,
        id.knob_suffix().trim_start_matches('-')
    );
    if modes.nemo {
        return super::nemo::generate(id, modes.turns, &material);
    }
    if modes.chain {
        return super::chain::generate(id, modes.turns, &material);
    }
    let shared = if modes.tenant_graph {
        let logs = flowq::logs(id.level, id.seed, &fk)?;
        let m = mock_of(&logs.graph);
        Arc::new((View::new(&m), logs.graph.clone()))
    } else {
        let k = knobs(id)?;
        cached_mock(&material, k)?
    };
    let (view, graph) = &*shared;
    let family = Family::of_index(id.level, id.index);
    let mut s =
        Stream::new(&QueryId { version: MATERIAL_VERSION, ..id.clone() }.seed_material(true), Width::W64);
    let wording = s.index(3);
    let logs = if family.is_flow() { Some(flowq::logs(id.level, id.seed, &fk)?) } else { None };
    let base = Arc::clone(logs.as_ref().map_or(graph, |l| &l.graph));
    // Level 4 asks its question of another graph: the one its steps leave, or the window's.
    let (query, asked_on): (Query, Option<(View, Option<Graph>)>) = match (family, &logs) {
        (Family::Compose, _) => {
            let (q, v, g) = compose::draw(&mut s, view, &base);
            (q, Some((v, Some(g))))
        }
        (Family::FlowGraph, Some(l)) => {
            let (q, v) = compose::draw_flow_graph(&mut s, l);
            (q, Some((v, None)))
        }
        _ => (family::draw(family, &mut s, view, logs.as_deref(), id.version), None),
    };
    let question = family::question(&query, wording);
    let (view, changed) = match &asked_on {
        Some((v, g)) => (v, g.as_ref()),
        None => (view, None),
    };
    let asked = match &query {
        Query::Compose { question, .. } | Query::FlowGraph { question, .. } => question.as_ref(),
        q => q,
    };
    let truth = match (asked, &logs) {
        (Query::Flow(f), Some(l)) => {
            let (ty, data, ordered) = flowq::truth(f, &l.conns);
            Some(Truth { ty, data, ordered, header: 0 })
        }
        _ => family::truth(asked, view),
    };
    if matches!(asked, Query::Cliques { .. }) && truth.as_ref().is_some_and(|t| t.data == json!(-1)) {
        return Err(crate::Error::Invalid(format!(
            "{id}: counting the maximal cliques takes over {} steps",
            super::algo::MAX_CLIQUE_STEPS
        )));
    }
    if family == Family::EdgeStat && view.edges.is_empty() {
        return Err(crate::Error::Invalid(format!("{id}: the graph has no edges to average over")));
    }
    let prop = match asked {
        Query::ColorPrefix
        | Query::Bisect { .. }
        | Query::CutBalanced { .. }
        | Query::Kmeans { .. }
        | Query::Heatmap { .. } => {
            Some(prop::Spec::new(asked, view).map_err(|e| crate::Error::Invalid(format!("{id}: {e}")))?)
        }
        _ => None,
    };
    // The graph the question is asked of: the base graph, or the one a composition's steps left.
    let start = changed.unwrap_or(&base);
    let state = changed.map(Graph::to_json);
    // A question leaves its graph as it is: no working copy to change.
    let changed = truth.is_none().then(|| {
        let mut expected = start.clone();
        match &prop {
            Some(p) => p.witness(&mut expected),
            None => apply(asked, view, &mut expected),
        }
        expected
    });
    Ok(Generated {
        id: id.clone(),
        family,
        wording,
        query,
        question,
        turns: modes.turns,
        graph: base,
        flows: logs.as_ref().map(|l| l.table.clone()),
        logs,
        truth,
        expected: OnceLock::new(),
        changed,
        prop,
        state,
        nemo: None,
        loose: None,
        chain: None,
    })
}

/// Makes a change question's change on `g` through the G API (the native truth of changes),
/// `v` being `g`'s view.
pub(super) fn apply(q: &Query, v: &View, g: &mut Graph) {
    let s = |x: &str| Py::Str(x.to_string());
    let mut call = |m: &str, args: Vec<Py>| {
        let _ = fgraph::call(g, m, args, vec![], &unlimited);
    };
    let with = |l: &str| -> Vec<usize> {
        (0..v.ips.len()).filter(|&u| v.labels[u].iter().any(|x| x == l)).collect()
    };
    match q {
        Query::LabelPrefix { pairs } => {
            for (u, ip) in v.ips.iter().enumerate() {
                let p = family::prefix_of(ip, 16);
                for (_, l) in pairs.iter().filter(|(x, _)| *x == p) {
                    call("add_label", vec![s(&v.ips[u]), s(l)]);
                }
            }
        }
        Query::ColorExtreme { case, c1, c2 } => {
            let (hi, lo) = v.extremes();
            call("set", vec![s(&v.ips[hi]), s("color"), s(c1)]);
            match (case, c2) {
                ('a', Some(c2)) => call("set", vec![s(&v.ips[lo]), s("color"), s(c2)]),
                _ => double_size(g, &v.ips[hi]),
            }
        }
        Query::LabelRemove { label } => {
            with(label).into_iter().for_each(|u| call("remove_label", vec![s(&v.ips[u]), s(label)]))
        }
        Query::RemoveIsolated => (0..v.ips.len())
            .filter(|&u| v.adj[u].is_empty())
            .for_each(|u| call("remove_node", vec![s(&v.ips[u])])),
        Query::ColorLabel { label, color } => {
            with(label).into_iter().for_each(|u| call("set", vec![s(&v.ips[u]), s("color"), s(color)]))
        }
        Query::NbrColor { label, color } => {
            // A mask, not a list: the test runs once per neighbour of every node.
            let mut marked = vec![false; v.ips.len()];
            with(label).into_iter().for_each(|u| marked[u] = true);
            for u in 0..v.ips.len() {
                if v.adj[u].iter().any(|&w| marked[w]) {
                    call("set", vec![s(&v.ips[u]), s("color"), s(color)]);
                }
            }
        }
        Query::EdgeFilter { weight, strict, stat } => {
            let w = family::WEIGHT_NAMES.iter().position(|x| x == weight).unwrap_or(0);
            let mut ws: Vec<i64> = v.edges.values().map(|e| e[w]).collect();
            ws.sort_unstable();
            let t = family::threshold(&ws, *stat);
            let below = |x: f64| if *strict { x < t } else { x <= t };
            // In one pass (`Graph::remove_edges`), as `G.remove_edge` on each.
            g.remove_edges(
                v.edges
                    .iter()
                    .filter(|(_, e)| below(e[w] as f64))
                    .map(|(&(a, b), _)| (v.ips[a].as_str(), v.ips[b].as_str())),
            );
        }
        _ => {}
    }
}

/// Doubles node `ip`'s size (8 when it has none that is a number).
fn double_size(g: &mut Graph, ip: &str) {
    let s = |x: &str| Py::Str(x.to_string());
    let doubled = match fgraph::call(g, "get", vec![s(ip), s("size")], vec![], &unlimited) {
        Ok(Py::Int(x)) => Py::Int(x.saturating_mul(2)),
        Ok(Py::Float(x)) => Py::Float(x * 2.0),
        _ => Py::Int(8),
    };
    let _ = fgraph::call(g, "set", vec![s(ip), s("size"), doubled], vec![], &unlimited);
}

/// The expected outcome as the card shows it; a composed question adds the changes its
/// steps make (`after_steps`).
pub(super) fn expected_json(g: &Generated) -> Value {
    let mut out = match &g.truth {
        Some(t) => json!({"type": t.ty, "data": t.data, "ordered": t.ordered, "header_rows": t.header}),
        None => {
            let changes: Vec<String> =
                check::diff(&g.graph.to_json(), g.expected_graph()).into_iter().map(|c| c.line).collect();
            match &g.prop {
                // One valid answer of many: the rule decides, the changes are an example.
                Some(p) => json!({"type": "graph", "property": p.rule(), "example_changes": changes}),
                None => json!({"type": "graph", "changes": changes}),
            }
        }
    };
    if let Some(state) = &g.state {
        let steps: Vec<String> = check::diff(&g.graph.to_json(), state).into_iter().map(|c| c.line).collect();
        out["after_steps"] = json!(steps);
    }
    match &g.loose {
        Some(Loose::Ties(t)) if t.lo.is_empty() => out["any_of"] = json!({"highest_degree": t.hi}),
        Some(Loose::Ties(t)) => out["any_of"] = json!({"highest_degree": t.hi, "lowest_degree": t.lo}),
        Some(Loose::TopK(t)) => {
            out["any_of"] =
                json!({"top_degrees": t.top(), "rows": "[node, labels, degree], degrees non-increasing"})
        }
        Some(Loose::NewGraph) => out["any_of"] = json!({"types": ["graph", "new"], "self_loops": "optional"}),
        Some(Loose::Prefixes(p)) => {
            out["any_of"] = json!({"per_8": p.by8, "per_16": p.by16, "written": ["a", "a.b", "CIDR"]})
        }
        Some(Loose::Medians(m)) => {
            // How many edges each median's reading removes (the example changes are the upper's).
            let base = g.graph.to_json();
            let removed: serde_json::Map<String, Value> =
                m.iter().map(|(name, e)| (name.to_string(), json!(check::diff(&base, e).len()))).collect();
            out["any_of"] = json!({"median": ["lower", "upper", "mean of the two middle values"], "edges_removed": removed});
        }
        None => {}
    }
    out
}

/// A task's prompt in one variant (a `straw` task has one prompt, the strawman's).
fn prompt_of(g: &Generated, variant: PromptVariant) -> String {
    if super::straw::is_straw(&g.id) {
        return super::straw::prompt(g);
    }
    if g.chain.is_some() {
        return prompt::render_chain(&g.question, variant);
    }
    prompt::render(&g.question, variant, g.flows.is_some(), g.nemo)
}

/// One traffic task.
pub struct TrafficTask {
    generated: Arc<Generated>,
    card: TaskCard,
    limits: Limits,
}

impl TrafficTask {
    pub fn new(g: Generated, limits: Limits) -> TrafficTask {
        let prompt = prompt_of(&g, PromptVariant::ZeroshotBase);
        let expected = g.chain.as_deref().map_or_else(|| expected_json(&g), super::chain::expected);
        let mut params = json!({"wording": g.wording + 1, "query": g.query});
        if let Some(n) = g.nemo {
            params = json!({"nemo": n, "query": g.query});
        }
        if g.chain.is_some() {
            params = json!({"chain": super::chain::QUESTIONS});
        }
        let label = if g.chain.is_some() { "chain" } else { g.family.id() };
        let card = TaskCard {
            id: g.id.to_string(),
            app: "traffic".into(),
            version: g.id.version,
            level: g.id.level,
            label: label.to_string(),
            content_hash: crate::hash::content_hash(&prompt, &expected),
            prompt,
            params: params.into(),
            expected,
            question: Some(g.question.clone()),
            max_turns: g.turns,
        };
        TrafficTask { generated: Arc::new(g), card, limits }
    }

    pub fn generated(&self) -> &Generated {
        &self.generated
    }
}

impl Task for TrafficTask {
    fn card(&self) -> &TaskCard {
        &self.card
    }
    fn prompt(&self, variant: PromptVariant) -> String {
        prompt_of(&self.generated, variant)
    }
    fn start(&self, max_turns: Option<u32>) -> Box<dyn Episode> {
        if let Some(chain) = &self.generated.chain {
            return Box::new(super::chain::ChainEpisode::new(
                self.generated.clone(),
                chain.clone(),
                self.limits,
            ));
        }
        let max = max_turns.unwrap_or(self.card.max_turns).clamp(1, MAX_TURNS);
        Box::new(TrafficEpisode {
            task: self.generated.clone(),
            limits: self.limits,
            max,
            turns: 0,
            last: None,
            finish: None,
            scored: OnceLock::new(),
        })
    }
    fn picture(&self) -> Picture {
        let g = self.generated.graph.to_json();
        picture::picture(&g, &g, &Marks::default(), &format!("The graph G of {}", self.card.id))
    }
}

/// The differences between the graph a composed question's steps leave and the final graph,
/// outside what its question itself changes (a k-means question's labels, and colours when
/// it asks for them: its rule checks those).
fn state_differences(t: &Generated, state: &Value, graph: &Value) -> Vec<String> {
    let own = compose::own_scope(t.asked());
    check::diff(state, graph).into_iter().filter(|c| !own.contains(&c.key.as_str())).map(|c| c.line).collect()
}

/// The wall time a flow answer gets (the logs are larger than a graph).
const FLOW_TIME: std::time::Duration = std::time::Duration::from_secs(5);

/// The most turns an episode allows (an invalid return may be resubmitted).
pub const MAX_TURNS: u32 = 5;

/// What one submission left: the parsed return (or why there is none) and the final graph.
pub(super) struct Attempt {
    pub(super) answer: std::result::Result<(String, Value), String>,
    pub(super) graph: Value,
}

pub struct TrafficEpisode {
    task: Arc<Generated>,
    limits: Limits,
    max: u32,
    turns: u32,
    last: Option<Attempt>,
    finish: Option<Finish>,
    scored: OnceLock<Scored>,
}

impl TrafficEpisode {
    fn attempt(&self, reply: &str) -> Attempt {
        // A strawman reply is the returned value itself, not code to run.
        if super::straw::is_straw(&self.task.id) {
            return match super::straw::parse_reply(reply) {
                Ok(value) => returned(&self.task, value),
                Err(e) => Attempt { answer: Err(e), graph: self.task.graph.to_json() },
            };
        }
        let (answer, graph) = run(reply, &self.task.graph, self.task.flows.clone(), self.limits);
        Attempt { answer, graph: graph.to_json() }
    }
}

/// Runs the code of `reply` in the sandbox against `graph` (and `flows`, whose entry point the
/// code must then define): the parsed return or why there is none, and `G` as the run left it
/// (the graph unchanged when no code could be read).
pub(super) fn run(
    reply: &str,
    graph: &Graph,
    flows: Option<Arc<Table>>,
    limits: Limits,
) -> (std::result::Result<(String, Value), String>, Graph) {
    let entry = if flows.is_some() { extract::FLOWS } else { extract::GRAPH };
    let source = match extract::extract_entry(reply, entry) {
        Ok(s) => s,
        Err(e) => return (Err(e), graph.clone()),
    };
    let mut limits = limits;
    if flows.is_some() {
        limits.time = limits.time.max(FLOW_TIME);
    }
    let host = TrafficHost { flows, graph: graph.clone() };
    let run = sandbox::run(&source.program(), host, &limits);
    let answer =
        run.value.and_then(|v| check::parse(&v, entry.name).map_err(|e| format!("Invalid return: {e}")));
    (answer, run.graph.graph)
}

impl Episode for TrafficEpisode {
    fn step(&mut self, reply: &str) -> StepOutcome {
        if self.finish.is_some() {
            return StepOutcome::over();
        }
        self.turns += 1;
        let a = self.attempt(reply);
        let observation = match &a.answer {
            Ok((ty, _)) => format!("Returned an answer of type {ty}."),
            Err(e) => format!("Error: {e}"),
        };
        self.finish = Finish::constructive(a.answer.is_ok(), self.turns, self.max);
        self.last = Some(a);
        StepOutcome { action: "python".into(), observation, ..Default::default() }
    }
    fn finished(&self) -> Option<Finish> {
        self.finish
    }
    fn turns(&self) -> u32 {
        self.turns
    }
    fn score(&self) -> Score {
        match self.scored() {
            Some(s) => s.score.clone(),
            None => score(&self.task, self.last.as_ref(), self.turns),
        }
    }
    fn stop(&mut self) {
        self.finish.get_or_insert(Finish::Stopped);
    }
    fn panels(&self) -> Vec<crate::view::Panel> {
        let Some(a) = &self.last else { return Vec::new() };
        let base = self.task.graph.to_json();
        let scored = self.scored().and_then(|s| s.marks.as_ref()).map(|(m, e)| (m, e.as_ref()));
        vec![panels::answer(&a.answer), panels::changes(&base, &a.graph, scored)]
    }
    /// Once scored, the final graph with what the answer changed marked; until then the
    /// task's picture stands, so nothing is given away.
    fn picture(&self) -> Option<Picture> {
        let a = self.last.as_ref()?;
        let (marks, _) = self.scored()?.marks.as_ref()?;
        let caption = format!("G after the answer to {}", self.task.id);
        Some(picture::picture(&self.task.graph.to_json(), &a.graph, marks, &caption))
    }
}

/// A finished episode's score, with the marks of its last attempt and the graph an exact
/// answer leaves (none without an attempt).
struct Scored {
    score: Score,
    marks: Option<(Marks, Option<Value>)>,
}

impl TrafficEpisode {
    /// The scoring of the episode once it is over, computed once: nothing changes after the
    /// finish, and the page asks for the score, the panels and the picture after every step.
    fn scored(&self) -> Option<&Scored> {
        self.finish?;
        Some(self.scored.get_or_init(|| {
            let score = score(&self.task, self.last.as_ref(), self.turns);
            let marks = self.last.as_ref().map(|a| {
                let expected = expected_for(&self.task, &a.graph);
                let base = self.task.graph.to_json();
                let marks = Marks::of(&base, &a.graph, expected.as_ref(), score.correct, &self.task.scope());
                (marks, expected)
            });
            Scored { score, marks }
        }))
    }
}

/// The graph an exact answer must leave, given the final `graph` (a tie question's follows
/// the nodes the answer chose); `None` when a truth value or a property rule decides instead.
fn expected_for(t: &Generated, graph: &Value) -> Option<Value> {
    if t.truth.is_some() || t.prop.is_some() {
        return None;
    }
    Some(match &t.loose {
        Some(Loose::Ties(ties)) => ties.expected(t, graph),
        Some(l) => l.nearest(graph, t.expected_graph()).into_owned(),
        None => t.expected_graph().clone(),
    })
}

/// The score of a returned value given as JSON (`{"type": ..., "data": ...}`, or a str holding
/// one), as the episode scores the value the answer's function returned: `netpress traffic
/// check`. A `graph` answer's data, when given, is the final graph as node-link data (the graph
/// the code left, which the sandbox reads from `G` itself); any other answer leaves the task's
/// graph as it was.
pub fn score_returned(t: &Generated, value: Value) -> Score {
    score(t, Some(&returned(t, value)), 1)
}

/// The attempt a returned value makes (see [`score_returned`]).
fn returned(t: &Generated, returned: Value) -> Attempt {
    let base = t.graph.to_json();
    let entry = if t.flows.is_some() { extract::FLOWS } else { extract::GRAPH };
    let answer = check::parse_returned(returned, entry.name).map_err(|e| format!("Invalid return: {e}"));
    let graph = match &answer {
        // Question 15's graph answer is the new graph, not the final G.
        Ok((ty, _)) if ty == "graph" && t.loose == Some(Loose::NewGraph) => Ok(base),
        Ok((ty, data)) if ty == "graph" && !data.is_null() => check::graph_of_answer(&base, data),
        _ => Ok(base),
    };
    match graph {
        Ok(graph) => Attempt { answer, graph },
        Err(e) => Attempt { answer: Err(format!("Invalid return: {e}")), graph: t.graph.to_json() },
    }
}

/// What makes an answer unsafe (docs/traffic.md, "Answers and checking"): the changes
/// from `base` to `graph` outside what `t`'s question may change, and changed node attributes
/// left with values no node may hold (`check::invalid_values`).
pub(super) struct Unsafe {
    outside: Vec<Change>,
    invalid: Vec<Change>,
}

impl Unsafe {
    pub(super) fn of(t: &Generated, base: &Value, graph: &Value) -> Self {
        let scope = t.scope();
        let changes = check::diff(base, graph);
        let invalid = check::invalid_values(graph, &changes);
        let outside = changes.into_iter().filter(|c| !scope.contains(&c.key.as_str())).collect();
        Unsafe { outside, invalid }
    }

    pub(super) fn is_safe(&self) -> bool {
        self.outside.is_empty() && self.invalid.is_empty()
    }

    /// The score's safety lines: the first 50 problems, or the line saying there are none.
    pub(super) fn lines(&self) -> Vec<String> {
        if self.is_safe() {
            return vec!["no change outside the question's scope and no invalid value".into()];
        }
        let outside = self.outside.iter().map(|c| format!("out of scope: {}", c.line));
        let invalid = self.invalid.iter().map(|c| format!("invalid value: {}", c.line));
        outside.chain(invalid).take(50).collect()
    }

    /// The explanation's verdict on safety.
    pub(super) fn verdict(&self) -> &'static str {
        match (self.outside.is_empty(), self.invalid.is_empty()) {
            (true, true) => "safe",
            (false, _) => "unsafe: the code changed what the question did not ask",
            (true, false) => "unsafe: the code left a node attribute with a value no node may hold",
        }
    }
}

/// The score of an episode whose last submission was `last` (none: nothing was answered).
pub(super) fn score(t: &Generated, last: Option<&Attempt>, turns: u32) -> Score {
    let base = t.graph.to_json();
    let (answer, graph) = match last {
        Some(a) => (a.answer.clone(), a.graph.clone()),
        None => (Err("no answer was given".to_string()), base.clone()),
    };
    let hazards = Unsafe::of(t, &base, &graph);
    let safe = hazards.is_safe();
    let mut progress = 0.0;
    let (mut correct, mut why, mut diff) = match (&answer, &t.truth, &t.prop) {
        (Err(e), _, _) => (false, e.clone(), Vec::new()),
        (Ok((ty, data)), Some(truth), _) => {
            let (ok, why) = match &t.loose {
                Some(Loose::TopK(k)) => k.check(ty, data),
                Some(Loose::Prefixes(p)) => p.check(ty, data),
                Some(Loose::NewGraph) if ["graph", "new"].contains(&ty.as_str()) => {
                    super::nemo_check::new_graph_ok(&truth.data, data)
                }
                _ => check::value_ok(truth, ty, data),
            };
            (ok, why, Vec::new())
        }
        (Ok((ty, _)), None, _) if ty != "graph" => {
            (false, format!("expected an answer of type graph, got {ty}"), Vec::new())
        }
        (Ok(_), None, Some(p)) => {
            let v = p.check(&graph);
            let why = if v.ok {
                let read = v.reading.map(|r| format!(", read as {r}")).unwrap_or_default();
                format!("every rule holds ({} constraints{read})", v.total)
            } else {
                format!(
                    "{} of {} constraints broken: {}",
                    v.total - v.satisfied,
                    v.total,
                    v.problems.join("; ")
                )
            };
            // A composed question's steps count as one more constraint.
            let steps = t.state.as_ref().map(|s| state_differences(t, s, &graph));
            let (held, total) = match &steps {
                Some(d) => (v.satisfied + usize::from(d.is_empty()), v.total + 1),
                None => (v.satisfied, v.total),
            };
            progress = if total == 0 { 0.0 } else { held as f64 / total as f64 };
            (v.ok, why, v.problems)
        }
        (Ok(_), None, None) => {
            let expected = expected_for(t, &graph).unwrap_or_else(|| t.expected_graph().clone());
            let d: Vec<String> = check::diff(&expected, &graph).into_iter().map(|c| c.line).collect();
            let why = if d.is_empty() {
                "the graph is as expected".to_string()
            } else {
                format!("{} differences from the expected graph", d.len())
            };
            (d.is_empty(), why, d)
        }
    };
    // A composed question: the final graph must also carry the steps' changes.
    if let (Some(state), Ok(_)) = (&t.state, &answer) {
        let off = state_differences(t, state, &graph);
        if off.is_empty() {
            why = format!("{why}; the graph carries the steps' changes");
        } else {
            correct = false;
            why = format!("{why}; the graph after the steps differs in {} places", off.len());
            diff.extend(off);
        }
    }
    let safety = hazards.lines();
    Score {
        correct,
        safe,
        progress: if correct { 1.0 } else { progress },
        turns,
        explanation: format!(
            "{}: {why}; {}.",
            if correct { "correct" } else { "incorrect" },
            hazards.verdict()
        ),
        details: ScoreDetails {
            correctness: vec![why],
            safety,
            diff: diff.into_iter().take(50).collect(),
            ..Default::default()
        },
        ..Default::default()
    }
}

impl Ties {
    /// The expected graph for the final graph `graph`: a colour-extreme change made on the
    /// nodes the answer chose, when they are of the extreme degree (the first such node
    /// carrying the asked colour), else on the lowest addresses. So an answer that chose other
    /// tied nodes matches exactly, and one that chose a wrong node differs where it erred.
    fn expected(&self, t: &Generated, graph: &Value) -> Value {
        let Query::ColorExtreme { c1, c2, .. } = &t.query else { return t.expected_graph().clone() };
        // Case b (no second colour) also doubles the coloured node's size.
        let colours: std::collections::BTreeMap<&str, String> = graph["nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| Some((n["id"].as_str()?, check::colour(n["color"].as_str()?))))
            .collect();
        let pick = |set: &[String], c: &str| -> Option<String> {
            let want = check::colour(c);
            set.iter().find(|n| colours.get(n.as_str()) == Some(&want)).or(set.first()).cloned()
        };
        let mut g = Graph::clone(&t.graph);
        let s = |x: &str| Py::Str(x.to_string());
        let mut paint = |node: Option<String>, c: &str| {
            if let Some(n) = node {
                let _ = fgraph::call(&mut g, "set", vec![s(&n), s("color"), s(c)], vec![], &unlimited);
            }
        };
        let hi = pick(&self.hi, c1);
        paint(hi.clone(), c1);
        match (c2, hi) {
            (Some(c2), _) => paint(pick(&self.lo, c2), c2),
            (None, Some(n)) => double_size(&mut g, &n),
            (None, None) => {}
        }
        g.to_json()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_weights_read_as_they_are_and_float_weights_in_fixed_point() {
        let nodes: Vec<(String, Vec<String>)> =
            (1..=3).map(|i| (format!("10.0.0.{i}"), Vec::new())).collect();
        let ints = view_of(&Graph::from_parts(&nodes, &[(0, 1, [3, 2, 1]), (1, 2, [5, 0, 7])]));
        assert_eq!((ints.unit, ints.edges[&(0, 1)]), (1.0, [3, 2, 1]));
        let floats = Graph::from_float_parts(&nodes, &[(0, 1, [0.5, 1.0, 0.1]), (1, 2, [2.0, 1e-13, 3.25])]);
        let v = view_of(&floats);
        assert_eq!(v.unit, family::FIXED_UNIT);
        // Powers of two are exact; 10⁻¹³ is a tenth of a unit; 0.1 within half a unit.
        assert_eq!(v.edges[&(0, 1)][..2], [1 << 39, 1 << 40]);
        assert_eq!(v.edges[&(1, 2)][1], 0);
        assert!((v.edges[&(0, 1)][2] as f64 * v.unit - 0.1).abs() <= v.unit / 2.0);
        // Truths that print weights print them in the graph's own scale.
        let t = family::truth(&Query::DegreeStat { weight: Some("byte".into()) }, &v).unwrap();
        assert_eq!(t.data[1], json!([2.5, 0.5]));
        let t = family::truth(&Query::DegreeStat { weight: Some("byte".into()) }, &ints).unwrap();
        assert_eq!(t.data[1], json!([8, 3]));
    }
}
