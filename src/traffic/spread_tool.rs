//! `netpress traffic spread`: whether the generator asks varied questions. A benchmark whose
//! seeds repeat a handful of questions can be learnt by heart, so for each family it counts
//! the distinct (question, expected answer) pairs a selection of seeds yields, and how often
//! each of the three wordings was drawn. Over seeds 0..4999 every family must give at least
//! 1,000 distinct pairs and each wording a third of the tasks within five points (the run is
//! in docs/traffic.md, "Spread"). The tool holds any selection to the same proportions: pairs
//! at least a fifth of the tasks, and each wording's share within five points of a third, or
//! within three standard deviations of a fair draw's share where the sample is small enough
//! for chance alone to stray further (300 tasks: 8.2 points; 5,000: 2.0, so five binds).
//!
//! A question is its parameters (the query), not its text, so the three wordings of one query
//! count once; the expected answer is the truth of a read-only question, or else the graph an
//! exact answer leaves (for a property question, the native witness).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};

use serde_json::json;

use crate::app::Tool;
use crate::hash::sha256_hex;

use super::task::{Generated, generate};
use super::tool::standard_ids;

pub const SPREAD: Tool = Tool {
    name: "spread",
    about: "count each family's distinct questions and answers and its wordings' shares",
    usage: "usage: netpress traffic spread --seeds A..B [--level L] [--knobs -nN-gflows-fFORMAT]

Generates each task (the selection of netpress traffic export, the standard mode) and prints
per family the tasks, the distinct (question, expected answer) pairs among them (a question
is its parameters, whatever its wording) and the share of each of the three wordings. Exit 0
when every family has pairs for at least a fifth of its tasks and every wording's share is
within 5 points of a third (or, on fewer than 800 tasks, three standard deviations of a
fair draw), 1 when one does not (its line says which), 2 on bad arguments.
The acceptance run is seeds 0..4999 (docs/traffic.md, \"Spread\").
",
    run,
};

/// The least share of a family's tasks that must be distinct pairs: 1,000 of 5,000 seeds.
const MIN_PAIRS: f64 = 0.2;
/// How far a wording's share may stray from a third, in points, at the least.
const WORDING_SLACK: f64 = 5.0;

/// One family's tasks, its distinct pairs (their digests) and its tasks per wording.
#[derive(Default)]
struct Spread {
    tasks: usize,
    pairs: BTreeSet<String>,
    wordings: [usize; 3],
}

impl Spread {
    fn add(&mut self, g: &Generated) {
        let expected = match &g.truth {
            Some(t) => json!(t),
            None => g.expected_graph().clone(),
        };
        self.tasks += 1;
        self.pairs.insert(sha256_hex(json!([g.query, expected]).to_string().as_bytes()));
        if let Some(w) = self.wordings.get_mut(g.wording) {
            *w += 1;
        }
    }

    fn shares(&self) -> [f64; 3] {
        self.wordings.map(|w| 100.0 * w as f64 / self.tasks.max(1) as f64)
    }

    /// What falls short, empty when nothing does.
    fn shortfalls(&self) -> Vec<String> {
        let mut out = Vec::new();
        if (self.pairs.len() as f64) < MIN_PAIRS * self.tasks as f64 {
            out.push(format!("{} distinct pairs, under a fifth of {} tasks", self.pairs.len(), self.tasks));
        }
        // A fair draw's share has standard deviation sqrt(p (1 - p) / n), p = 1/3.
        let chance = 300.0 * (2.0 / 9.0 / self.tasks.max(1) as f64).sqrt();
        for (i, s) in self.shares().iter().enumerate() {
            if (s - 100.0 / 3.0).abs() > WORDING_SLACK.max(chance) {
                out.push(format!("wording {} drawn for {s:.1} % of tasks", i + 1));
            }
        }
        out
    }
}

fn run(argv: &[String], _stdin: &mut dyn Read, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    match tally(argv) {
        Ok(spread) => {
            let short = report(stdout, &spread).unwrap_or(true);
            i32::from(short)
        }
        Err(e) => {
            let _ = writeln!(stderr, "netpress traffic spread: {e}");
            2
        }
    }
}

fn tally(argv: &[String]) -> Result<BTreeMap<&'static str, Spread>, String> {
    let mut spread: BTreeMap<&'static str, Spread> = BTreeMap::new();
    for id in standard_ids(argv, "spread")? {
        let g = generate(&id).map_err(|e| format!("{id}: {e}"))?;
        spread.entry(g.family.id()).or_default().add(&g);
    }
    Ok(spread)
}

/// Prints the table; returns whether a family falls short.
fn report(out: &mut dyn Write, spread: &BTreeMap<&'static str, Spread>) -> std::io::Result<bool> {
    writeln!(
        out,
        "{:<14} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "family", "tasks", "pairs", "w1 %", "w2 %", "w3 %"
    )?;
    let mut short = false;
    for (family, s) in spread {
        let [a, b, c] = s.shares();
        let problems = s.shortfalls();
        let verdict =
            if problems.is_empty() { String::new() } else { format!("  SHORT: {}", problems.join("; ")) };
        writeln!(
            out,
            "{family:<14} {:>7} {:>7} {a:>7.1} {b:>7.1} {c:>7.1}{verdict}",
            s.tasks,
            s.pairs.len()
        )?;
        short |= !problems.is_empty();
    }
    if !short {
        writeln!(out, "every family is varied enough and its wordings evenly drawn")?;
    }
    Ok(short)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spread(args: &[&str]) -> (i32, String, String) {
        SPREAD.call(args)
    }

    #[test]
    fn level_one_is_varied_and_its_wordings_even_over_three_hundred_seeds() {
        let (code, out, err) = spread(&["--seeds", "0..300", "--level", "1"]);
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(out.lines().count(), 1 + 8 + 1, "{out}");
        let count = out.lines().find(|l| l.starts_with("count ")).unwrap();
        let cells: Vec<&str> = count.split_whitespace().collect();
        assert_eq!(cells[1], "300", "{out}");
        assert!(cells[2].parse::<usize>().unwrap() >= 60, "{out}");
    }

    #[test]
    fn a_wording_drawn_too_often_falls_short_and_chance_is_allowed_for() {
        let uneven = |wordings: [usize; 3]| {
            let tasks = wordings.iter().sum();
            Spread { tasks, pairs: (0..tasks).map(|i| i.to_string()).collect(), wordings }.shortfalls()
        };
        assert!(uneven([330, 290, 280]).is_empty(), "3.3 points off");
        assert_eq!(uneven([420, 290, 290]), ["wording 1 drawn for 42.0 % of tasks"]);
        // On 30 tasks a fair draw strays up to 25.8 points (three standard deviations).
        assert!(uneven([15, 8, 7]).is_empty());
        assert_eq!(uneven([20, 5, 5]).len(), 1);
    }

    #[test]
    fn one_query_in_three_wordings_is_one_pair() {
        let mut s = Spread::default();
        let g = generate(&"traffic-v1-L1-s0-i0".parse().unwrap()).unwrap();
        for wording in 0..3 {
            s.add(&Generated { wording, ..g.clone() });
        }
        assert_eq!((s.tasks, s.pairs.len(), s.wordings), (3, 1, [1, 1, 1]));
        assert!(s.shortfalls().is_empty(), "{:?}", s.shortfalls());
        for wording in 0..3 {
            s.add(&Generated { wording, ..g.clone() });
        }
        assert_eq!(s.shortfalls(), ["1 distinct pairs, under a fifth of 6 tasks"]);
    }

    #[test]
    fn other_modes_and_bad_arguments_are_refused() {
        let (code, _, err) = spread(&["--seeds", "0..1", "--knobs", "-mnemo"]);
        assert_eq!(code, 2);
        assert!(err.contains("standard mode"), "{err}");
        assert_eq!(spread(&["--level", "5", "--seeds", "0..1"]).0, 2);
    }
}
