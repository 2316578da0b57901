//! `netpress bgp check`: the generator's promises, checked over a range of seeds.
//!
//! Generation draws a world, then incidents until one passes every validity rule (visible at
//! enough vantage points, evidence present, the distractor apart), restarting a bounded number
//! of times; a seed that never yields a valid task is a `GenerationExhausted` error, which the
//! design allows on no seed. And a task is only worth scoring if its own truth, read back
//! through the verdict parser the agent's answer goes through, scores correct, safe and with
//! full progress. Unit tests sample a few seeds of each; this command sweeps thousands, and
//! docs/bgp.md ("Generation over 10,000 seeds") records the runs.

use std::io::{Read, Write};

use super::level::Level;
use super::task::Task;
use super::{Generated, score, verdict};
use crate::app::{App, Task as _, Tool};
use crate::hash::{sha256_hex, short};
use crate::id::{Knob, QueryId};

pub const CHECK: Tool = Tool {
    name: "check",
    about: "generate every task of some levels and seeds and score each one's truth (no generation failure, truth correct and safe)",
    usage: "usage: netpress bgp check [--levels 1,2,3,4] [--seeds A..B|S] [--ases N]

For every level and seed (index 0, the current generator, default knobs; --ases sets the
number of ASes), generates the task and scores its truth verdict. Prints a line per level;
exits 1 naming each failing id (a generation error, or a truth that is not correct, safe and
fully credited), 2 on bad arguments. Seeds are inclusive, as in `netpress run` (0..9999 is
10,000 seeds; one seed alone is a range of one) and default to 0..99. Each level's line ends with a
digest of its tasks' ids and content hashes: two runs, on any machines, that print the same
digest generated the same prompts and truths.
",
    run,
};

struct Args {
    levels: Vec<u8>,
    seeds: (u64, u64),
    ases: Option<String>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args { levels: vec![1, 2, 3, 4], seeds: (0, 99), ases: None };
    let mut it = args.iter();
    while let Some(x) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        match x.as_str() {
            "--levels" => {
                a.levels = value("--levels")?
                    .split(',')
                    .map(|l| match l.trim().parse::<u8>() {
                        Ok(n) if Level::from_number(n).is_some() => Ok(n),
                        _ => Err(format!("--levels: {l:?} is not a level 1-4")),
                    })
                    .collect::<Result<_, _>>()?
            }
            // Inclusive, as `netpress run --seeds`: 0..9999 is 10,000 seeds.
            "--seeds" => a.seeds = crate::run::parse_seeds(&value("--seeds")?)?,
            "--ases" => a.ases = Some(value("--ases")?),
            other => return Err(format!("unexpected argument {other}")),
        }
    }
    Ok(a)
}

/// The content hash of the task of `id` (its prompt and truth, as its card carries it), or what
/// is wrong with it.
fn check(id: &QueryId) -> Result<String, String> {
    let task = Task::generate(id).map_err(|e| e.to_string())?;
    let truth = score::truth(&task);
    let parsed = truth.as_object().ok_or("not an object".to_string()).and_then(verdict::parse);
    let v = parsed.map_err(|e| format!("the truth does not parse as a verdict: {e}"))?;
    let s = score::score(&task, Some(&v), 1);
    if !(s.correct && s.safe && (s.progress - 1.0).abs() < 1e-9) {
        return Err(format!(
            "the truth scores correct {}, safe {}, progress {}: {}",
            s.correct, s.safe, s.progress, s.explanation
        ));
    }
    Ok(Generated::new(task).card().content_hash.clone())
}

fn run(args: &[String], _stdin: &mut dyn Read, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            let _ = writeln!(err, "netpress bgp check: {e}\n{}", CHECK.usage);
            return 2;
        }
    };
    let mut failed = 0;
    for &level in &a.levels {
        let (from, to) = a.seeds;
        let mut bad = 0;
        let mut hashes = String::new();
        for seed in from..=to {
            let mut id = super::BgpApp.default_id(level, seed, 0);
            id.knobs.extend(a.ases.iter().map(|n| Knob { key: 'n', value: n.clone() }));
            match check(&id) {
                Ok(hash) => hashes.push_str(&format!("{id} {hash}\n")),
                Err(why) => {
                    bad += 1;
                    let _ = writeln!(err, "{id}: {why}");
                }
            }
        }
        let n = to - from + 1;
        let digest = sha256_hex(hashes.as_bytes());
        let _ = writeln!(
            out,
            "L{level} seeds {from}..{to}: {n} tasks, {} generated with a full-credit truth, {bad} failed; digest {}",
            n - bad,
            short(&digest)
        );
        failed += bad;
    }
    i32::from(failed > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &[&str]) -> (i32, String, String) {
        CHECK.call(args)
    }

    #[test]
    fn a_small_sweep_passes_and_reports_each_level() {
        let (code, out, err) = call(&["--levels", "1,2", "--seeds", "0..3"]);
        assert_eq!((code, err.as_str()), (0, ""));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        for (line, level) in lines.iter().zip(1..) {
            let head = format!(
                "L{level} seeds 0..3: 4 tasks, 4 generated with a full-credit truth, 0 failed; digest "
            );
            assert!(line.starts_with(&head) && line.len() == head.len() + 12, "{line}");
        }
        assert_eq!(call(&["--levels", "1,2", "--seeds", "0..3"]).1, out, "the same tasks, the same digests");
    }

    #[test]
    fn failures_name_the_id_and_bad_arguments_are_refused() {
        let (code, out, err) = call(&["--levels", "1", "--seeds", "0..0", "--ases", "3"]);
        assert_eq!(code, 1);
        assert!(out.contains("1 failed"), "{out}");
        let id = format!("bgp-v{}-L1-s0-i0-n3: ", crate::bgp::task::VERSION);
        assert!(err.starts_with(&id), "{err}");
        for bad in [&["--levels", "5"][..], &["--seeds", "3..1"], &["--seeds"], &["--nope"]] {
            let (code, _, err) = call(bad);
            assert_eq!(code, 2, "{bad:?}");
            assert!(err.starts_with("netpress bgp check: "), "{err}");
        }
    }
}
