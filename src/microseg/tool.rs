//! `netpress microseg baselines`: the no-LLM baselines' rates per level and family, scored
//! natively (no sandbox), with Wilson intervals — the figures docs/microseg.md records.

use std::collections::BTreeMap;
use std::io::{Read, Write};

use crate::app::Tool;
use crate::stats::{Z95, wilson};
use crate::tool_args;

use super::baseline::{NAMES, answer};
use super::family::Family;
use super::judge::judge;
use super::repairing::solve;
use super::task::generate;

pub const BASELINES: Tool = Tool {
    name: "baselines",
    about: "score the observed, portsig, scripted and oracle baselines natively over many seeds",
    usage:
        "usage: netpress microseg baselines [--agent observed|portsig|scripted|oracle] [--family ID] [--levels 1,2,3] [--seeds A..B] [--partitions]

Scores the baseline's answer to every family of each level for seeds A to B-1 (default 0..300)
without the sandbox and prints, per level and family, correct and safe rates with 95% Wilson
intervals. Every agent by default.

--partitions prints instead, for each role-cluster task and agent (observed, portsig), one JSON
line {\"id\", \"agent\", \"truth\", \"pred\"}: the true roles and the agent's clusters as label
vectors over the visible VMs, the input of `netpress partition-scores`.
",
    run,
};

struct Args {
    agents: Vec<String>,
    levels: Vec<u8>,
    seeds: (u64, u64),
    /// Only this family, if given.
    family: Option<String>,
    /// Print the role-cluster partitions instead of the rates.
    partitions: bool,
}

fn args(argv: &[String]) -> Result<Args, String> {
    use lexopt::Arg::Long;
    let mut a = Args {
        agents: NAMES.map(String::from).to_vec(),
        levels: vec![1, 2, 3],
        seeds: (0, 300),
        family: None,
        partitions: false,
    };
    let mut p = tool_args::parser(argv);
    while let Some(arg) = tool_args::next(&mut p)? {
        let flag = tool_args::shown(&arg);
        let name = match arg {
            Long(n) => n.to_string(),
            _ => return Err(format!("unknown argument {flag:?}; see netpress microseg baselines --help")),
        };
        if name == "partitions" {
            a.partitions = true;
            continue;
        }
        let v = tool_args::value(&mut p, &flag)?;
        match name.as_str() {
            "agent" if NAMES.contains(&v.as_str()) => a.agents = vec![v],
            "agent" => return Err(format!("--agent takes observed, portsig, scripted or oracle, got {v:?}")),
            "levels" => {
                a.levels = v
                    .split(',')
                    .map(|l| l.parse().ok().filter(|l| (1..=4).contains(l)))
                    .collect::<Option<_>>()
                    .ok_or(format!("--levels takes levels 1..4 separated by commas, got {v:?}"))?;
            }
            "family" => a.family = Some(v),
            "seeds" => {
                let bad = || format!("--seeds takes A..B, got {v:?}");
                let (x, y) = v.split_once("..").ok_or_else(bad)?;
                a.seeds = (x.parse().map_err(|_| bad())?, y.parse().map_err(|_| bad())?);
            }
            _ => return Err(format!("unknown argument {flag:?}; see netpress microseg baselines --help")),
        }
    }
    Ok(a)
}

/// The default task of a level, seed and family index (an error names its id).
fn task(level: u8, seed: u64, family: usize) -> Result<super::task::Generated, String> {
    let id = format!("microseg-v1-L{level}-s{seed}-i{family}");
    let parsed = id.parse().map_err(|e: crate::Error| e.to_string())?;
    generate(&parsed).map_err(|e| format!("{id}: {e}"))
}

/// (correct, safe, n) per (agent, level, family).
type Tally = BTreeMap<(usize, u8, usize), (u64, u64, u64)>;

fn tally(a: &Args) -> Result<Tally, String> {
    let mut t = Tally::new();
    for seed in a.seeds.0..a.seeds.1 {
        for &l in &a.levels {
            for (fi, f) in Family::of_level(l).iter().enumerate() {
                if a.family.as_ref().is_some_and(|x| x != f.id()) {
                    continue;
                }
                let g = std::sync::Arc::new(task(l, seed, fi)?);
                for (ai, name) in a.agents.iter().enumerate() {
                    let v = if *f == Family::Repair {
                        match solve(g.clone(), name) {
                            Some(v) => v,
                            None => continue,
                        }
                    } else if name == "scripted" {
                        continue;
                    } else {
                        judge(&g.world, *f, g.form, Ok(answer(name, &g).ok_or("unknown agent")?))
                    };
                    let e = t.entry((ai, l, fi)).or_default();
                    *e = (e.0 + u64::from(v.correct), e.1 + u64::from(v.safe), e.2 + 1);
                }
            }
        }
    }
    Ok(t)
}

/// The role-cluster answers as label vectors, one JSON line per task and agent, so that
/// scikit-learn checks the partition scores on the partitions the baselines really give
/// (`scripts/microseg_sklearn_diff.py --baselines`), not only on random ones.
fn partitions(a: &Args) -> Result<String, String> {
    let mut out = String::new();
    for seed in a.seeds.0..a.seeds.1 {
        for &l in &a.levels {
            let Some(fi) = Family::of_level(l).iter().position(|f| *f == Family::RoleCluster) else {
                continue;
            };
            let g = task(l, seed, fi)?;
            let id = g.id.to_string();
            let truth = labels(&g, "oracle");
            for name in a.agents.iter().filter(|n| ["observed", "portsig"].contains(&n.as_str())) {
                let line =
                    serde_json::json!({"id": id, "agent": name, "truth": truth, "pred": labels(&g, name)});
                out.push_str(&format!("{line}\n"));
            }
        }
    }
    Ok(out)
}

/// A roles answer (address → role) as labels over the visible VMs, numbered by first appearance.
fn labels(g: &super::task::Generated, agent: &str) -> Vec<usize> {
    let answer = answer(agent, g).unwrap_or_default();
    let mut seen: Vec<String> = Vec::new();
    g.world
        .visible
        .iter()
        .map(|&v| {
            let role =
                answer["data"][crate::flows::tenant::dotted(g.world.trace.vms[v as usize].ip)].to_string();
            seen.iter().position(|r| *r == role).unwrap_or_else(|| {
                seen.push(role);
                seen.len() - 1
            })
        })
        .collect()
}

fn rate(k: u64, n: u64) -> String {
    let i = wilson(k, n, Z95);
    format!("{:.3} [{:.3}, {:.3}]", k as f64 / n.max(1) as f64, i.lo, i.hi)
}

fn run(argv: &[String], _stdin: &mut dyn Read, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    let result = args(argv).and_then(|a| {
        if a.partitions {
            return stdout.write_all(partitions(&a)?.as_bytes()).map_err(|e| format!("cannot write: {e}"));
        }
        let t = tally(&a)?;
        let mut out = String::from("agent\tlevel\tfamily\tn\tcorrect [95% Wilson]\tsafe [95% Wilson]\n");
        for ((ai, l, fi), (c, s, n)) in t {
            let f = Family::of_level(l)[fi].id();
            out.push_str(&format!("{}\tL{l}\t{f}\t{n}\t{}\t{}\n", a.agents[ai], rate(c, n), rate(s, n)));
        }
        stdout.write_all(out.as_bytes()).map_err(|e| format!("cannot write: {e}"))
    });
    match result {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(stderr, "netpress microseg baselines: {e}");
            2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_label_vectors_over_the_visible_vms() {
        let (code, out, err) = BASELINES.call(&["--partitions", "--levels", "1", "--seeds", "0..1"]);
        assert_eq!(code, 0, "{err}");
        let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let agents: Vec<&str> = lines.iter().map(|l| l["agent"].as_str().unwrap()).collect();
        assert_eq!(agents, ["observed", "portsig"]);
        let g = generate(&"microseg-v1-L1-s0-i0".parse().unwrap()).unwrap();
        let n = g.world.visible.len();
        for l in &lines {
            assert_eq!(l["id"], "microseg-v1-L1-s0-i0");
            assert_eq!((l["truth"].as_array().unwrap().len(), l["pred"].as_array().unwrap().len()), (n, n));
        }
        // observed puts every VM in a cluster of its own; the truth has fewer roles than VMs.
        assert_eq!(lines[0]["pred"], serde_json::json!((0..n).collect::<Vec<_>>()));
        assert!(lines[0]["truth"].as_array().unwrap().iter().any(|x| x.as_u64() != Some(0)));
        assert!(lines[0]["truth"].as_array().unwrap().iter().filter(|x| x.as_u64() == Some(0)).count() > 1);
    }
}
