//! NeMoEval's 24 traffic questions and how each reads in our families' terms (docs/traffic.md,
//! "NeMoEval-compatible modes"). The texts are NeMoEval's, byte for byte, in its order (the
//! easy, medium and hard eight), kept in `nemo_questions.txt`; the reading of each says which
//! family's semantics it has, what defect of NeMoEval's golden answer the reading fixes, and
//! whether the family's own check decides it as read or a looser one (`nemo_check`) does.
//! The `nemo` task of an id (levels 1 to 3) is built here too: the question on the golden
//! chain's state, with the looser checks of `nemo_check` where NeMoEval's wording needs them.

use std::sync::Arc;

use super::check::colour;
use super::family::{self, COLORS, Family, Query, Stat, View, prefix_of};
use super::nemo_check::{Form, Loose, Looser, Prefixes, TopK};
use super::nemo_mock::{DEFAULT_DENSITY, DEFAULT_NODES, NemoKnobs, PREFIXES, nemo_mock};
use super::prop::{Spec, palette};
use super::task::{Generated, Ties, apply, view_of};
use crate::error::{Error, Result};
use crate::flows::graph::{self as fgraph, Graph};
use crate::id::QueryId;
use crate::malt::api::{Py, unlimited};
use crate::seed::{Stream, Width};

/// The question file: one question a line, `#` lines are comments.
const FILE: &str = include_str!("nemo_questions.txt");

/// The 24 questions in NeMoEval's order.
pub fn texts() -> Vec<&'static str> {
    FILE.lines().filter(|l| !l.starts_with('#')).collect()
}

/// NeMoEval's questions per level (its easy, medium and hard eight).
pub const PER_LEVEL: u64 = 8;

/// The question an id of level 1..=3 asks: its level's eight (easy, medium, hard) at
/// `index mod 8`, with its number 1..=24; `None` at other levels.
pub fn at(level: u8, index: u64) -> Option<(usize, &'static str)> {
    if !(1..=3).contains(&level) {
        return None;
    }
    let number = (usize::from(level) - 1) * PER_LEVEL as usize + (index % PER_LEVEL) as usize + 1;
    texts().get(number - 1).map(|t| (number, *t))
}

/// How one question reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    /// The family whose semantics the question has.
    pub family: Family,
    /// What the reading changes from NeMoEval's golden answer, if anything.
    pub fix: Option<&'static str>,
    /// Why the question cannot be checked yet, if it cannot (the check it needs).
    pub missing: Option<&'static str>,
}

const fn read(family: Family, fix: Option<&'static str>, missing: Option<&'static str>) -> Reading {
    Reading { family, fix, missing }
}

const ANY_EXTREME: &str =
    "any node of the extreme degree passes (the golden takes the first in its node order)";

/// The reading of question `number` (1..=24), as the mode's table in docs/traffic.md gives it.
pub fn reading(number: usize) -> Option<Reading> {
    use Family as F;
    let r = match number {
        1 | 2 => read(F::Count, None, None),
        3 => read(F::LabelPrefix, None, None),
        4 => read(F::LabelTable, None, None),
        5 => read(F::LabelRemove, None, None),
        6 => read(F::DegreeStat, None, None),
        7 => read(F::ColorLabel, None, None),
        8 => read(F::ColorExtreme, Some(ANY_EXTREME), None),
        9 | 21 => read(F::NbrCount, None, None),
        10 => read(
            F::ColorPrefix,
            Some("distinct colours per /16 are required (the golden's random hex colours could collide)"),
            None,
        ),
        11 => read(
            F::ColorExtreme,
            Some(
                "any node of the maximum degree; size 4 becomes 8 (the golden reads `nodesize`, a KeyError)",
            ),
            None,
        ),
        12 => read(
            F::TopDegree,
            Some("any ten nodes of the highest degrees, in non-increasing degree (no tie rule is asked)"),
            None,
        ),
        13 => read(F::NbrColor, None, None),
        14 => read(
            F::CutBalanced,
            Some(
                "the golden balances node counts, the wording edges: a balanced cut (D = ⌊Δ/2⌋) or a bisection passes",
            ),
            None,
        ),
        15 => read(
            F::LabelGraph,
            Some(
                "self-loops optional; the new graph comes back as type graph (or new) and G is left as it is",
            ),
            None,
        ),
        16 => read(
            F::Kmeans,
            Some(
                "k = 5, cost within 1.05 of the optimum (the optimum is not asked); the partition is the one label \
                 each node gains, whatever its text; one colour per cluster",
            ),
            None,
        ),
        17 => read(F::Cliques, None, None),
        18 => read(
            F::Heatmap,
            Some("any palette: at least two distinct colours, monotone in the total byte weight"),
            None,
        ),
        19 => read(F::Bisect, Some("any two colours (the question names none)"), None),
        20 => read(
            F::Kmeans,
            Some(
                "k = 5, cost within 1.05 of the optimum; labels of any common prefix, or colours, as the partition",
            ),
            None,
        ),
        22 => read(
            F::PrefixCount,
            Some("rows per /8 or per /16, written `a`, `a.b` or as a CIDR (the golden counts /8 as `a`)"),
            None,
        ),
        23 => read(
            F::EdgeFilter,
            Some(
                "byte weight below the median: the lower, upper or mean median passes (the golden takes the upper)",
            ),
            None,
        ),
        24 => read(F::EdgeStat, None, None),
        _ => return None,
    };
    Some(r)
}

/// Our query for question `number` when it can be checked (the family's parameters fixed to
/// NeMoEval's; the looser checks are `nemo_check::Loose`); `None` when a check is missing
/// ([`Reading::missing`]). Question 14's D depends on the graph: [`query_on`] sets it.
pub fn query(number: usize) -> Option<Query> {
    if reading(number)?.missing.is_some() {
        return None;
    }
    let s = String::from;
    Some(match number {
        1 => Query::Count { case: 'a', label: None, k: None, prefix: None },
        2 => Query::Count { case: 'c', label: None, k: None, prefix: None },
        3 => Query::LabelPrefix {
            pairs: vec![(s("15.76.0.0/16"), s("app:prod")), (s("149.196.0.0/16"), s("app:test"))],
        },
        4 => Query::LabelTable,
        5 => Query::LabelRemove { label: s("type=VM") },
        6 => Query::DegreeStat { weight: None },
        7 => Query::ColorLabel { label: s("app:prod"), color: s("purple") },
        8 => Query::ColorExtreme { case: 'a', c1: s("red"), c2: Some(s("green")) },
        9 => Query::NbrCount { labels: vec![s("app:prod"), s("app:test")], prefix: None },
        10 => Query::ColorPrefix,
        11 => Query::ColorExtreme { case: 'b', c1: s("green"), c2: None },
        12 => Query::TopDegree { k: 10 },
        13 => Query::NbrColor { label: s("app:prod"), color: s("green") },
        14 => Query::CutBalanced { c1: s("red"), c2: s("blue"), d: 0 },
        15 => Query::LabelGraph { prefix: None },
        16 => Query::Kmeans { k: 5, color: true },
        17 => Query::Cliques { node: None },
        // The golden's palette stands in for "a heatmap": the ramp's six colours.
        18 => Query::Heatmap { palette: palette(6) },
        19 => Query::Bisect { c1: s("red"), c2: s("blue") },
        20 => Query::Kmeans { k: 5, color: false },
        21 => Query::NbrCount { labels: vec![s("app:prod")], prefix: None },
        22 => Query::PrefixCount { bits: 16 },
        23 => Query::EdgeFilter { weight: s("byte"), strict: true, stat: Stat::Median },
        24 => Query::EdgeStat { label: s("app:prod") },
        _ => return None,
    })
}

/// [`query`] on the graph whose view is `v`: question 14's D is ⌊Δ/2⌋, Δ its highest degree
/// (the bound a balanced cut can always meet).
pub fn query_on(number: usize, v: &View) -> Option<Query> {
    let mut q = query(number)?;
    if let Query::CutBalanced { d, .. } = &mut q {
        *d = v.adj.iter().map(std::collections::BTreeSet::len).max().unwrap_or(0) as i64 / 2;
    }
    Some(q)
}

/// The nemo mock's knobs of an id: `n` (default 50) and `e` (default 50); `p` has no
/// meaning for a graph of three fixed prefixes and is refused.
pub fn knobs(id: &QueryId) -> Result<NemoKnobs> {
    let bad = |m: String| Error::bad_id(&id.to_string(), m);
    if id.knob('p').is_some() {
        return Err(bad("knob p: m=nemo draws its nodes over NeMoEval's three /16s, p is not taken".into()));
    }
    let num = |key: char, default: usize| -> Result<usize> {
        id.knob(key).map_or(Ok(default), |v| {
            v.parse().map_err(|_| bad(format!("knob {key} must be a number, got {v:?}")))
        })
    };
    let k = NemoKnobs { n: num('n', DEFAULT_NODES)?, e: num('e', DEFAULT_DENSITY as usize)? as u64 };
    k.check().map_err(|e| bad(e.to_string()))?;
    Ok(k)
}

/// Where several answers pass, the golden chain takes the golden's own choice on our
/// canonical node order: question 8's and 11's ties to the lowest address (the golden keeps
/// the first node of the extreme degree), question 14 as a bisection (what the golden
/// computes), 16 and 20 the optimal clusters numbered by ascending totals as labels
/// `cluster_label: i` (16 with the colours red, green, blue, purple, orange), 18 the heat
/// map in the ramp's six colours, 19 the bisection in address order red and blue, 23 the upper
/// median; or a seeded stand-in for its random choice (question 10's colours,
/// [`golden_colours`]).
const CLUSTER_LABEL: &str = "cluster_label: ";

/// Question 10's colours: each /16 (`a.b.0.0/16`) with its colour.
pub(super) type Colours = Vec<(String, String)>;

/// The colour of each of NeMoEval's three /16s (written `a.b.0.0/16`) in the golden chain's
/// answer to question 10. The golden draws random hex colours; these are drawn from the
/// graph's own stream instead (`material`, so every question of one graph sees the same
/// chain), redrawn until distinct and unlike the named colours the questions ask for (so a
/// later green or red node is never a prefix colour by chance).
fn golden_colours(material: &str) -> Colours {
    let mut s = Stream::new(&format!("{material}|nemo-golden|q10"), Width::W64);
    let reserved: Vec<String> = COLORS.iter().chain(&["steelblue"]).map(|c| colour(c)).collect();
    let mut out: Vec<(String, String)> = Vec::new();
    for (a, b) in PREFIXES {
        let c = loop {
            let c = format!("#{:06x}", s.below(1 << 24));
            if !reserved.contains(&c) && out.iter().all(|(_, x)| *x != c) {
                break c;
            }
        };
        out.push((format!("{a}.{b}.0.0/16"), c));
    }
    out
}

/// Makes the golden chain's answer to question `number` on `g` (its view `v`): the family's
/// change, or the golden's own choice where several pass (see [`CLUSTER_LABEL`]).
fn golden_step(
    number: usize,
    v: &View,
    g: &mut Graph,
    colours: &[(String, String)],
) -> std::result::Result<(), String> {
    let q = query_on(number, v).ok_or_else(|| format!("question {number} has no query"))?;
    let str = |x: &str| Py::Str(x.to_string());
    let call = |g: &mut Graph, m: &str, args: Vec<Py>| {
        let _ = fgraph::call(g, m, args, vec![], &unlimited);
    };
    match q {
        Query::ColorPrefix => {
            for ip in v.ips.iter() {
                let p = prefix_of(ip, 16);
                if let Some((_, c)) = colours.iter().find(|(x, _)| *x == p) {
                    call(g, "set", vec![str(ip), str("color"), str(c)]);
                }
            }
        }
        Query::CutBalanced { c1, c2, .. } => Spec::new(&Query::Bisect { c1, c2 }, v)?.witness(g),
        Query::Kmeans { color, .. } => {
            let spec = Spec::new(&q, v)?;
            for (u, c) in spec.clusters().into_iter().enumerate() {
                call(g, "add_label", vec![str(&v.ips[u]), str(&format!("{CLUSTER_LABEL}{c}"))]);
                if color {
                    call(g, "set", vec![str(&v.ips[u]), str("color"), str(COLORS[c])]);
                }
            }
        }
        Query::Heatmap { .. } | Query::Bisect { .. } => Spec::new(&q, v)?.witness(g),
        Query::EdgeFilter { .. } => remove_below(v, g, medians(v)[0].1),
        q => apply(&q, v, g),
    }
    Ok(())
}

/// Question 23's medians of the byte weights (in the view's units): the upper (the golden's),
/// the lower, and the mean of the two middle values; all one for an odd count.
fn medians(v: &View) -> [(&'static str, f64); 3] {
    let mut ws: Vec<i64> = v.edges.values().map(|e| e[0]).collect();
    ws.sort_unstable();
    let at = |i: usize| ws.get(i).map_or(0.0, |&x| x as f64);
    let n = ws.len();
    [
        ("upper", at(n / 2)),
        ("lower", at(n.saturating_sub(1) / 2)),
        ("mean", family::threshold(&ws, Stat::Median)),
    ]
}

/// Removes every edge whose byte weight is below `t` (view units).
fn remove_below(v: &View, g: &mut Graph, t: f64) {
    for (&(a, b), w) in &v.edges {
        if (w[0] as f64) < t {
            let s = |x: &str| Py::Str(x.to_string());
            let _ = fgraph::call(g, "remove_edge", vec![s(&v.ips[a]), s(&v.ips[b])], vec![], &unlimited);
        }
    }
}

/// The golden chain's state before question `number` (NeMoEval's stateful run, made
/// explicit): the mock after our expected answers to questions 1..number−1, each made on the
/// state before it, so a question sees the labels and colours earlier ones added without
/// inheriting an agent's errors.
fn chain_state(
    base: &Graph,
    number: usize,
    colours: &[(String, String)],
) -> std::result::Result<Graph, String> {
    let mut g = base.clone();
    for j in 1..number {
        let v = view_of(&g);
        golden_step(j, &v, &mut g, colours)?;
    }
    Ok(g)
}

/// The looser check a question needs, if any (or why the graph `g`, whose view is `v`,
/// cannot ask it).
fn loose(number: usize, q: &Query, v: &View, g: &Graph) -> std::result::Result<Option<Loose>, String> {
    Ok(match (number, q) {
        (8 | 11, Query::ColorExtreme { case, .. }) => Some(Loose::Ties(ties(v, *case == 'a')?)),
        (12, Query::TopDegree { k }) => Some(Loose::TopK(TopK::new(*k as usize, v))),
        (15, _) => Some(Loose::NewGraph),
        (22, _) => Some(Loose::Prefixes(Prefixes::new(v))),
        (23, _) => {
            let after = |t: f64| {
                let mut e = g.clone();
                remove_below(v, &mut e, t);
                e.to_json()
            };
            Some(Loose::Medians(medians(v).into_iter().map(|(name, t)| (name, after(t))).collect()))
        }
        _ => None,
    })
}

/// The nodes of the highest and (`both`) of the lowest degree, in address order; a graph
/// whose nodes all have one degree has no highest and lowest node for question 8.
fn ties(v: &View, both: bool) -> std::result::Result<Ties, String> {
    let degree: Vec<usize> = v.adj.iter().map(std::collections::BTreeSet::len).collect();
    let (hi, lo) = (degree.iter().max().copied(), degree.iter().min().copied());
    if both && hi == lo {
        return Err("every node has the same degree: no highest and lowest node".into());
    }
    let with = |d: Option<usize>| -> Vec<String> {
        let mut ips: Vec<&String> =
            (0..degree.len()).filter(|&u| Some(degree[u]) == d).map(|u| &v.ips[u]).collect();
        ips.sort_by_key(|ip| family::ip_number(ip));
        ips.into_iter().cloned().collect()
    };
    Ok(Ties { hi: with(hi), lo: if both { with(lo) } else { Vec::new() } })
}

/// The property rules of a question with many valid answers: question 10's colours by
/// prefix, question 14's balanced cut or bisection in red and blue; 16, 18, 19 and 20 with
/// NeMoEval's looser readings (`nemo_check::Form`), which need the colours of `g` before.
fn spec(number: usize, q: &Query, v: &View, g: &Graph) -> std::result::Result<Option<Spec>, String> {
    let form = match number {
        16 => Form::AddedLabel,
        18 => Form::AnyPalette,
        19 => Form::AnyTwo,
        20 => Form::StemOrColour,
        _ => {
            return Ok(match q {
                Query::ColorPrefix => Some(Spec::new(q, v)?),
                Query::CutBalanced { c1, c2, .. } => {
                    let bisect = Query::Bisect { c1: c1.clone(), c2: c2.clone() };
                    Some(Spec::new(q, v)?.or(Spec::new(&bisect, v)?))
                }
                _ => None,
            });
        }
    };
    let doc = g.to_json();
    let by_id: std::collections::BTreeMap<&str, String> = doc["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| Some((n["id"].as_str()?, colour(n["color"].as_str().unwrap_or("")))))
        .collect();
    let before = v.ips.iter().map(|ip| by_id.get(ip.as_str()).cloned().unwrap_or_default()).collect();
    Ok(Some(Spec { nemo: Some(Looser { form, before }), ..Spec::new(q, v)? }))
}

/// Why a graph cannot ask a question whose truth is `truth`: too many maximal cliques to
/// count (question 17), or no edge to average over (question 24).
fn unaskable(q: &Query, v: &View, truth: Option<&family::Truth>) -> std::result::Result<(), String> {
    match q {
        Query::Cliques { .. } if truth.is_some_and(|t| t.data == serde_json::json!(-1)) => {
            Err(format!("counting the maximal cliques takes over {} steps", super::algo::MAX_CLIQUE_STEPS))
        }
        Query::EdgeStat { label }
            if !v.edges.keys().any(|&(a, b)| v.labels[a].contains(label) || v.labels[b].contains(label)) =>
        {
            Err(format!("no edge touches a node with the label {label}: no average"))
        }
        _ => Ok(()),
    }
}

/// Generates a `nemo` task: NeMoEval's question of the id's level and index, verbatim, on the
/// golden chain's state of the nemo mock of `material` (the graph's seed material).
pub fn generate(id: &QueryId, turns: u32, material: &str) -> Result<Generated> {
    let invalid = |m: String| Error::Invalid(format!("{id}: {m}"));
    let (number, _) = at(id.level, id.index).ok_or_else(|| invalid("m=nemo asks at levels 1 to 3".into()))?;
    let mock = nemo_mock(material, knobs(id)?)?.graph();
    let colours = golden_colours(material);
    let graph = chain_state(&mock, number, &colours).map_err(invalid)?;
    on_graph(id, number, turns, graph, &colours)
}

/// The golden chain of the nemo mock of `material`: question k's task (index k − 1) asked of
/// the state S(k−1) the golden answers to 1..k−1 leave (the `chain` mode's reference), and
/// the golden colours of question 10 (which the chain's own questions need again).
pub(super) fn golden_chain(id: &QueryId, turns: u32, material: &str) -> Result<(Vec<Generated>, Colours)> {
    let invalid = |m: String| Error::Invalid(format!("{id}: {m}"));
    let mut graph = nemo_mock(material, knobs(id)?)?.graph();
    let colours = golden_colours(material);
    let mut tasks = Vec::with_capacity(texts().len());
    for number in 1..=texts().len() {
        tasks.push(on_graph(id, number, turns, graph.clone(), &colours)?);
        golden_step(number, &view_of(&graph), &mut graph, &colours).map_err(invalid)?;
    }
    Ok((tasks, colours))
}

/// NeMoEval's question `number`, verbatim, asked of `graph` (the golden chain's state, or in
/// the `chain` mode the graph an agent's earlier answers left): its query, truth or rules,
/// looser check, and the graph the golden answer leaves; an error when the graph cannot ask
/// it (a clique count too large, no edge to average over).
pub(super) fn on_graph(
    id: &QueryId,
    number: usize,
    turns: u32,
    graph: Graph,
    colours: &[(String, String)],
) -> Result<Generated> {
    let invalid = |m: String| Error::Invalid(format!("{id}: {m}"));
    let text = texts()
        .get(number.wrapping_sub(1))
        .copied()
        .ok_or_else(|| invalid(format!("no question {number}")))?;
    let r = reading(number).ok_or_else(|| invalid(format!("no reading of question {number}")))?;
    if let Some(m) = r.missing {
        return Err(invalid(format!("question {number} is not in this version ({m})")));
    }
    // The view holds the float weights in fixed point (`family::FIXED_UNIT`).
    let view = view_of(&graph);
    let q = query_on(number, &view).ok_or_else(|| invalid(format!("question {number} has no query")))?;
    let loose = loose(number, &q, &view, &graph).map_err(invalid)?;
    let prop = spec(number, &q, &view, &graph).map_err(invalid)?;
    let truth = family::truth(&q, &view);
    unaskable(&q, &view, truth.as_ref()).map_err(invalid)?;
    let changed = match truth {
        Some(_) => None,
        None => {
            let mut expected = graph.clone();
            golden_step(number, &view, &mut expected, colours).map_err(invalid)?;
            Some(expected)
        }
    };
    Ok(Generated {
        id: id.clone(),
        family: r.family,
        wording: 0,
        query: q,
        question: text.to_string(),
        turns,
        graph: Arc::new(graph),
        flows: None,
        logs: None,
        truth,
        expected: std::sync::OnceLock::new(),
        changed,
        prop,
        state: None,
        nemo: Some(number),
        loose,
        chain: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_four_texts_in_nemoevals_order() {
        let t = texts();
        assert_eq!(t.len(), 24);
        // The first and last of each eight, as NeMoEval's test script lists them.
        assert_eq!(t[0], "How many nodes are in the graph? Return only the number.");
        assert_eq!(
            t[7],
            "Color the node with max degree red and min degree green. Return the networkx graph object."
        );
        assert!(t[8].starts_with(
            "How many nodes are there that have an edge to nodes with labels app:prod or app:test"
        ));
        assert!(
            t[15].starts_with("Calculate the total byte weight of edges incident on each node, use kmeans")
        );
        assert!(t[15].contains("Shape the data correctly using numpy"));
        assert_eq!(t[16], "How many maximal cliques are in the graph? Return only the number.");
        assert!(t[23].starts_with("What is the average byte weight and connection weight of edges incident"));
        // The texts as checked against NeMoEval's: any edit (a fixed typo, a trimmed space)
        // moves this digest. "with with header" and "double it's size" are NeMoEval's.
        let digest = crate::hash::sha256_hex((t.join("\n") + "\n").as_bytes());
        assert_eq!(digest, "19fbf797f60edfb5b512b9e0b887ef7e0bf52067800235a8658a02e7c0c1972c");
        assert!(t.iter().all(|q| q.trim() == *q && !q.is_empty()));
        assert_eq!(t.iter().collect::<std::collections::BTreeSet<_>>().len(), 24);
    }

    #[test]
    fn levels_pick_their_eight_by_index() {
        assert_eq!(at(1, 0).map(|x| x.0), Some(1));
        assert_eq!(at(1, 15).map(|x| x.0), Some(8));
        assert_eq!(at(2, 8).map(|x| x.0), Some(9));
        assert_eq!(at(3, 7), Some((24, texts()[23])));
        assert_eq!(at(4, 0), None);
        assert_eq!(at(0, 0), None);
    }

    #[test]
    fn every_question_has_a_reading_and_a_query() {
        assert!(reading(0).is_none() && reading(25).is_none());
        // Every question is checked in this version.
        for n in 1..=24 {
            assert_eq!(reading(n).unwrap().missing, None, "{n}");
            assert!(query(n).is_some(), "{n}");
        }
        // The families follow the level tables' semantics, not their levels: NeMoEval's easy
        // eight span our levels 1 and 2.
        assert_eq!(reading(8).unwrap().family, Family::ColorExtreme);
        assert_eq!(reading(14).unwrap().family, Family::CutBalanced);
    }

    #[test]
    fn readings_run_on_the_nemo_mock() {
        use super::super::nemo_mock::{NemoKnobs, nemo_mock};
        let g = nemo_mock("readings", NemoKnobs { n: 50, e: 50 }).unwrap().graph();
        let v = super::super::task::view_of(&g);
        let mut labelled = g.clone();
        super::super::task::apply(&query(3).unwrap(), &v, &mut labelled);
        for n in labelled.to_json()["nodes"].as_array().unwrap() {
            let ip = n["id"].as_str().unwrap();
            let labels: Vec<&str> =
                n["labels"].as_array().unwrap().iter().filter_map(|l| l.as_str()).collect();
            let want: &[&str] = if ip.starts_with("15.76.") {
                &["app:prod", "type=VM"]
            } else if ip.starts_with("149.196.") {
                &["app:test", "type=VM"]
            } else {
                &["type=VM"]
            };
            assert_eq!(labels, want, "{ip}");
        }
        let count = super::super::family::truth(&query(2).unwrap(), &v).unwrap();
        assert_eq!(count.data, serde_json::json!([50, g.number_of_edges()]));
    }
}
