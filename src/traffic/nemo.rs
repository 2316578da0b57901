//! NeMoEval's 24 traffic questions and how each reads in our families' terms (docs/traffic.md,
//! "NeMoEval-compatible modes"). The texts are NeMoEval's, byte for byte, in its order (the
//! easy, medium and hard eight), kept in `nemo_questions.txt`; the reading of each says which
//! family's semantics it has, what defect of NeMoEval's golden answer the reading fixes, and
//! whether the family's own check already decides it or a looser check is still missing.
//! The `nemo` task of an id (levels 1 and 2) is built here too: the question on the golden
//! chain's state, with the looser checks of `nemo_check` where NeMoEval's wording needs them.

use super::check::colour;
use super::family::{self, COLORS, Family, Query, View, prefix_of};
use super::nemo_check::{Loose, TopK};
use super::nemo_mock::{DEFAULT_DENSITY, DEFAULT_NODES, NemoKnobs, PREFIXES, nemo_mock};
use super::prop::Spec;
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

/// The question an id of level 1..=3 asks: its level's eight (easy, medium, hard) at
/// `index mod 8`, with its number 1..=24; `None` at other levels.
pub fn at(level: u8, index: u64) -> Option<(usize, &'static str)> {
    if !(1..=3).contains(&level) {
        return None;
    }
    let number = (usize::from(level) - 1) * 8 + (index % 8) as usize + 1;
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
const FLOATS: &str =
    "truths on float weights (the nemo mock's weights are floats; the families' view holds integers)";

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
            Some("k = 5, cost within 1.05 of the optimum (the optimum is not asked), one colour per cluster"),
            Some(FLOATS),
        ),
        17 => read(F::Cliques, None, None),
        18 => read(
            F::Heatmap,
            Some("any palette: at least two distinct colours, monotone in the total byte weight"),
            Some("a check with no fixed palette; and truths on float weights"),
        ),
        19 => read(F::Bisect, None, Some("a bisection check with any two colours (the question names none)")),
        20 => read(
            F::Kmeans,
            Some(
                "k = 5, cost within 1.05 of the optimum; labels of any common prefix, or colours, as the partition",
            ),
            Some(FLOATS),
        ),
        22 => read(
            F::PrefixCount,
            Some("rows per /8 or per /16, written `a`, `a.b` or as a CIDR (the golden counts /8 as `a`)"),
            Some("a table check accepting the /8 and /16 readings and three spellings"),
        ),
        23 => read(
            F::EdgeFilter,
            Some(
                "byte weight below the median: the lower, upper or mean median passes (the golden takes the upper)",
            ),
            Some("a check accepting three medians; and truths on float weights"),
        ),
        24 => read(F::EdgeStat, None, Some(FLOATS)),
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
        1 => Query::Count { case: 'a', label: None, k: None },
        2 => Query::Count { case: 'c', label: None, k: None },
        3 => Query::LabelPrefix {
            pairs: vec![(s("15.76.0.0/16"), s("app:prod")), (s("149.196.0.0/16"), s("app:test"))],
        },
        4 => Query::LabelTable,
        5 => Query::LabelRemove { label: s("type=VM") },
        6 => Query::DegreeStat { weight: None },
        7 => Query::ColorLabel { label: s("app:prod"), color: s("purple") },
        8 => Query::ColorExtreme { case: 'a', c1: s("red"), c2: Some(s("green")) },
        9 => Query::NbrCount { labels: vec![s("app:prod"), s("app:test")] },
        10 => Query::ColorPrefix,
        11 => Query::ColorExtreme { case: 'b', c1: s("green"), c2: None },
        12 => Query::TopDegree { k: 10 },
        13 => Query::NbrColor { label: s("app:prod"), color: s("green") },
        14 => Query::CutBalanced { c1: s("red"), c2: s("blue"), d: 0 },
        15 => Query::LabelGraph,
        17 => Query::Cliques,
        21 => Query::NbrCount { labels: vec![s("app:prod")] },
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

/// The questions whose expected change the golden chain can make so far: those before
/// question 16 (the easy eight and the medium eight's first seven). Where several answers
/// pass, the chain takes the golden's own choice on our canonical node order (question 8's
/// and 11's ties to the lowest address, as the golden keeps the first node of the extreme
/// degree; question 14 as a bisection, which is what the golden computes), or a seeded
/// stand-in for its random choice (question 10's colours, [`golden_colours`]).
const CHAINED: usize = 15;

/// The colour of each of NeMoEval's three /16s (written `a.b.0.0/16`) in the golden chain's
/// answer to question 10. The golden draws random hex colours; these are drawn from the
/// graph's own stream instead (`material`, so every question of one graph sees the same
/// chain), redrawn until distinct and unlike the named colours the questions ask for (so a
/// later green or red node is never a prefix colour by chance).
fn golden_colours(material: &str) -> Vec<(String, String)> {
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
/// change, or the golden's own choice where several pass (see [`CHAINED`]).
fn golden_step(
    number: usize,
    v: &View,
    g: &mut Graph,
    colours: &[(String, String)],
) -> std::result::Result<(), String> {
    let q = match query_on(number, v) {
        Some(q) if number <= CHAINED => q,
        _ => return Err(format!("the golden chain's state after question {number} is not built yet")),
    };
    match q {
        Query::ColorPrefix => {
            for ip in &v.ips {
                let p = prefix_of(ip, 16);
                if let Some((_, c)) = colours.iter().find(|(x, _)| *x == p) {
                    let s = |x: &str| Py::Str(x.to_string());
                    let _ = fgraph::call(g, "set", vec![s(ip), s("color"), s(c)], vec![], &unlimited);
                }
            }
        }
        Query::CutBalanced { c1, c2, .. } => Spec::new(&Query::Bisect { c1, c2 }, v)?.witness(g),
        q => apply(&q, v, g),
    }
    Ok(())
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

/// The looser check a question needs, if any (or why the graph cannot ask it).
fn loose(number: usize, q: &Query, v: &View) -> std::result::Result<Option<Loose>, String> {
    Ok(match (number, q) {
        (8 | 11, Query::ColorExtreme { case, .. }) => Some(Loose::Ties(ties(v, *case == 'a')?)),
        (12, Query::TopDegree { k }) => Some(Loose::TopK(TopK::new(*k as usize, v))),
        (15, _) => Some(Loose::NewGraph),
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
/// prefix, question 14's balanced cut or bisection in red and blue.
fn spec(q: &Query, v: &View) -> std::result::Result<Option<Spec>, String> {
    Ok(match q {
        Query::ColorPrefix => Some(Spec::new(q, v)?),
        Query::CutBalanced { c1, c2, .. } => {
            let bisect = Query::Bisect { c1: c1.clone(), c2: c2.clone() };
            Some(Spec::new(q, v)?.or(Spec::new(&bisect, v)?))
        }
        _ => None,
    })
}

/// Generates a `nemo` task: NeMoEval's question of the id's level and index, verbatim, on the
/// golden chain's state of the nemo mock of `material` (the graph's seed material).
pub fn generate(id: &QueryId, turns: u32, material: &str) -> Result<Generated> {
    let invalid = |m: String| Error::Invalid(format!("{id}: {m}"));
    let (number, text) =
        at(id.level, id.index).ok_or_else(|| invalid("m=nemo asks at levels 1 to 3".into()))?;
    let r = reading(number).ok_or_else(|| invalid(format!("no reading of question {number}")))?;
    if let Some(m) = r.missing {
        return Err(invalid(format!("question {number} is not in this version ({m})")));
    }
    let mock = nemo_mock(material, knobs(id)?)?.graph();
    let colours = golden_colours(material);
    let graph = chain_state(&mock, number, &colours).map_err(invalid)?;
    // The families' view holds integer weights; the questions asked here read none (the
    // float-weight questions are refused above, see `reading`).
    let view = view_of(&graph);
    let q = query_on(number, &view).ok_or_else(|| invalid(format!("question {number} has no query")))?;
    let loose = loose(number, &q, &view).map_err(invalid)?;
    let prop = spec(&q, &view).map_err(invalid)?;
    let truth = family::truth(&q, &view);
    let expected_graph = match truth {
        Some(_) => graph.to_json(),
        None => {
            let mut expected = graph.clone();
            golden_step(number, &view, &mut expected, &colours).map_err(invalid)?;
            expected.to_json()
        }
    };
    Ok(Generated {
        id: id.clone(),
        family: r.family,
        wording: 0,
        query: q,
        question: text.to_string(),
        turns,
        graph,
        flows: None,
        logs: None,
        truth,
        expected_graph,
        prop,
        state: None,
        nemo: Some(number),
        loose,
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
    fn every_question_has_a_reading_and_the_unchecked_ones_are_listed() {
        assert!(reading(0).is_none() && reading(25).is_none());
        let missing: Vec<usize> = (1..=24).filter(|&n| reading(n).unwrap().missing.is_some()).collect();
        assert_eq!(missing, [16, 18, 19, 20, 22, 23, 24]);
        for n in 1..=24 {
            assert_eq!(query(n).is_some(), !missing.contains(&n), "{n}");
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
