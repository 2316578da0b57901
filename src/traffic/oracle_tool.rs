//! `netpress traffic oracle`: each task's reference program (the oracle) run through the
//! sandbox exactly as an agent's answer is, which must score correct and safe; and each
//! property question's native witness (the expected graph of its card) held to the question's
//! own rules. Over thousands of seeds this is the acceptance run `scripts/traffic-oracle.sh`;
//! the tests run it on a few ids.

use std::collections::BTreeMap;
use std::io::{Read, Write};

use crate::app::{App, Task, Tool};

use super::TRAFFIC;
use super::family::code;
use super::task::{TrafficTask, generate};
use super::tool::standard_ids;

pub const ORACLE: Tool = Tool {
    name: "oracle",
    about: "run each task's reference program through the sandbox: it must score correct and safe",
    usage: "usage: netpress traffic oracle --task ID
       netpress traffic oracle --seeds A..B [--level L] [--knobs -nN-gflows-fFORMAT]

Generates each task (the selection of netpress traffic export), runs its reference program as
an agent's answer is run (the sandbox with the application's limits, the graph diff, the
checks), and counts per family the tasks whose answer scores correct, safe, and, for a
property question, whose native witness passes the question's own rules. Prints one line per
family, then every failure with its reason. Exit 0 when every task passes, 1 when one does
not, 2 on bad arguments. Only the standard mode: NeMoEval's modes (-mnemo, -mstraw, -mchain)
have their own references, checked by the networkx run (docs/traffic.md).
",
    run,
};

/// Per family: tasks, correct, safe, witness held (every task of a family that has none).
type Tally = BTreeMap<&'static str, [usize; 4]>;

fn run(argv: &[String], _stdin: &mut dyn Read, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    match check_all(argv) {
        Ok((tally, failures)) => {
            let _ = report(stdout, &tally, &failures);
            i32::from(!failures.is_empty())
        }
        Err(e) => {
            let _ = writeln!(stderr, "netpress traffic oracle: {e}");
            2
        }
    }
}

fn check_all(argv: &[String]) -> Result<(Tally, Vec<String>), String> {
    let ids = standard_ids(argv, "oracle")?;
    let (mut tally, mut failures) = (Tally::new(), Vec::new());
    for id in &ids {
        let name = id.to_string();
        super::INFO.check_id(id).map_err(|e| format!("{name}: {e}"))?;
        let g = generate(id).map_err(|e| format!("{name}: {e}"))?;
        let (reply, family) = (code(&g.query), g.family.id());
        let witness = g.prop.as_ref().map(|p| p.check(g.expected_graph()));
        // The task the registry would give, built from this generation rather than a second.
        let task = TrafficTask::new(g, TRAFFIC.limits());
        let mut episode = task.start(None);
        episode.step(&reply);
        let score = episode.score();
        let row = tally.entry(family).or_default();
        let held = witness.as_ref().is_none_or(|v| v.ok);
        for (cell, ok) in row.iter_mut().zip([true, score.correct, score.safe, held]) {
            *cell += usize::from(ok);
        }
        if !(score.correct && score.safe) {
            failures.push(format!(
                "{name}: correct {} safe {}: {}",
                score.correct, score.safe, score.explanation
            ));
        }
        if let Some(v) = witness.filter(|v| !v.ok) {
            failures.push(format!("{name}: the native witness fails its rules: {}", v.problems.join("; ")));
        }
    }
    Ok((tally, failures))
}

fn report(out: &mut dyn Write, tally: &Tally, failures: &[String]) -> std::io::Result<()> {
    writeln!(out, "{:<14} {:>7} {:>7} {:>7} {:>7}", "family", "tasks", "correct", "safe", "witness")?;
    let mut total = [0usize; 4];
    for (family, row) in tally {
        writeln!(out, "{family:<14} {:>7} {:>7} {:>7} {:>7}", row[0], row[1], row[2], row[3])?;
        for (t, r) in total.iter_mut().zip(row) {
            *t += r;
        }
    }
    writeln!(out, "{:<14} {:>7} {:>7} {:>7} {:>7}", "all", total[0], total[1], total[2], total[3])?;
    if failures.is_empty() {
        writeln!(out, "every task's reference program scored correct and safe")
    } else {
        writeln!(out, "{} failures:", failures.len())?;
        failures.iter().try_for_each(|f| writeln!(out, "  {f}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oracle(args: &[&str]) -> (i32, String, String) {
        ORACLE.call(args)
    }

    #[test]
    fn the_reference_passes_on_a_seed_of_level_three() {
        let (code, out, err) = oracle(&["--seeds", "0..1", "--level", "3", "--knobs", "-d10"]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("kmeans") && out.contains("every task"), "{out}");
        let all = out.lines().find(|l| l.starts_with("all")).unwrap();
        assert_eq!(all.split_whitespace().skip(1).collect::<Vec<_>>(), ["9"; 4], "{out}");
    }

    #[test]
    fn other_modes_and_bad_arguments_are_refused() {
        let (code, _, err) = oracle(&["--task", "traffic-v1-L1-s0-i0-mnemo"]);
        assert_eq!(code, 2);
        assert!(err.contains("standard mode"), "{err}");
        assert_eq!(oracle(&["--frobnicate"]).0, 2);
        assert_eq!(oracle(&["--seeds", "x"]).0, 2);
    }
}
