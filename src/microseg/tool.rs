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
        "usage: netpress microseg baselines [--agent observed|portsig|scripted|oracle] [--family ID] [--levels 1,2,3] [--seeds A..B]

Scores the baseline's answer to every family of each level for seeds A to B-1 (default 0..300)
without the sandbox and prints, per level and family, correct and safe rates with 95% Wilson
intervals. Every agent by default.
",
    run,
};

struct Args {
    agents: Vec<String>,
    levels: Vec<u8>,
    seeds: (u64, u64),
    /// Only this family, if given.
    family: Option<String>,
}

fn args(argv: &[String]) -> Result<Args, String> {
    use lexopt::Arg::Long;
    let mut a = Args {
        agents: NAMES.map(String::from).to_vec(),
        levels: vec![1, 2, 3],
        seeds: (0, 300),
        family: None,
    };
    let mut p = tool_args::parser(argv);
    while let Some(arg) = tool_args::next(&mut p)? {
        let flag = tool_args::shown(&arg);
        let name = match arg {
            Long(n) => n.to_string(),
            _ => return Err(format!("unknown argument {flag:?}; see netpress microseg baselines --help")),
        };
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
                let id = format!("microseg-v1-L{l}-s{seed}-i{fi}")
                    .parse()
                    .map_err(|e: crate::Error| e.to_string())?;
                let g = generate(&id).map_err(|e| format!("{id}: {e}"))?;
                let g = std::sync::Arc::new(g);
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

fn rate(k: u64, n: u64) -> String {
    let i = wilson(k, n, Z95);
    format!("{:.3} [{:.3}, {:.3}]", k as f64 / n.max(1) as f64, i.lo, i.hi)
}

fn run(argv: &[String], _stdin: &mut dyn Read, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    let result = args(argv).and_then(|a| {
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
