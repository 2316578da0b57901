//! NeMoEval's 24 traffic questions and how each reads in our families' terms (docs/traffic.md,
//! "NeMoEval-compatible modes"). The texts are NeMoEval's, byte for byte, in its order (the
//! easy, medium and hard eight), kept in `nemo_questions.txt`; the reading of each says which
//! family's semantics it has, what defect of NeMoEval's golden answer the reading fixes, and
//! whether the family's own check already decides it or a looser check is still missing.

use super::family::{Family, Query};

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
    /// Why the family's own check cannot decide the question yet, if it cannot.
    pub missing: Option<&'static str>,
}

const fn read(family: Family, fix: Option<&'static str>, missing: Option<&'static str>) -> Reading {
    Reading { family, fix, missing }
}

const ANY_EXTREME: &str =
    "any node of the extreme degree passes (the golden takes the first in its node order)";
const NEEDS_ANY_EXTREME: &str =
    "a check that accepts any node of the extreme degree (color-extreme breaks ties by address)";
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
        8 => read(F::ColorExtreme, Some(ANY_EXTREME), Some(NEEDS_ANY_EXTREME)),
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
            Some(NEEDS_ANY_EXTREME),
        ),
        12 => read(
            F::TopDegree,
            Some("any ten nodes of the highest degrees, in non-increasing degree (no tie rule is asked)"),
            Some("a check that accepts any valid top ten (top-degree breaks ties by address)"),
        ),
        13 => read(F::NbrColor, None, None),
        14 => read(
            F::CutBalanced,
            Some(
                "the golden balances node counts, the wording edges: a balanced cut (D = ⌊Δ/2⌋) or a bisection passes",
            ),
            Some("a check that passes either reading and records which held"),
        ),
        15 => read(
            F::LabelGraph,
            Some("self-loops optional"),
            Some("a new graph returned as type graph, compared with self-loops optional"),
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

/// Our query for question `number` when the family's own check decides it as read (the
/// family's parameters fixed to NeMoEval's); `None` when a check is missing ([`Reading::missing`]).
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
        9 => Query::NbrCount { labels: vec![s("app:prod"), s("app:test")] },
        10 => Query::ColorPrefix,
        13 => Query::NbrColor { label: s("app:prod"), color: s("green") },
        17 => Query::Cliques,
        21 => Query::NbrCount { labels: vec![s("app:prod")] },
        _ => return None,
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
        assert_eq!(missing, [8, 11, 12, 14, 15, 16, 18, 19, 20, 22, 23, 24]);
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
