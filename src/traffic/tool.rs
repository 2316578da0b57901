//! `netpress traffic export`: each task's graph, parameters and expected outcome as JSON lines,
//! for checking the truth with independent software (the networkx differential test,
//! docs/traffic.md).

use std::io::{Read, Write};

use serde_json::json;

use crate::app::Tool;
use crate::id::QueryId;
use crate::tool_args;

use super::family::{Family, code};
use super::task::generate;

pub const EXPORT: Tool = Tool {
    name: "export",
    about: "write tasks with their graphs and expected outcomes as JSON lines",
    usage: "usage: netpress traffic export --task ID
       netpress traffic export --seeds A..B [--level L] [--knobs -nN-pP-eE]

Writes one JSON line per task: id, family, query (the resolved parameters), truth (a question's
expected value, or null), graph (the base graph as node-link data), expected_graph (the graph
an exact answer leaves) and reference (the reference program, a correct answer); a flow question adds tenant (its name) and, on the first line of each
tenant, records (the log rows as CSV). --seeds takes every index of levels 1 to 4 (or of
--level L) for seeds A to B-1, each with the knob suffix --knobs when given: one index per
question family, or with -mnemo (or -mstraw) one per NeMoEval question of the level (eight).
",
    run,
};

/// One task's line; a flow task names its tenant and carries the log rows as CSV when the
/// tenant differs from the previous line's (`last`), so a run writes each tenant once.
fn line(id: &QueryId, last: &mut String) -> Result<String, String> {
    super::INFO.check_id(id).map_err(|e| e.to_string())?;
    let g = generate(id).map_err(|e| e.to_string())?;
    let mut v = json!({
        "id": id.to_string(), "family": g.family.id(), "query": g.query, "truth": g.truth,
        "graph": g.graph.to_json(), "expected_graph": g.expected_graph(), "reference": code(&g.query),
    });
    if let Some(l) = &g.logs {
        v["tenant"] = json!(l.material);
        if *last != l.material {
            v["records"] = json!(l.records_csv());
            last.clone_from(&l.material);
        }
    }
    Ok(v.to_string())
}

/// The ids `--task ID` or `--seeds A..B [--level L] [--knobs K]` name (the export's and the
/// oracle run's selection); `tool` names the command in messages.
pub(super) fn ids(argv: &[String], tool: &str) -> Result<Vec<QueryId>, String> {
    use lexopt::Arg::Long;
    let (mut task, mut seeds, mut level, mut knobs) = (None, None, None, None);
    let mut p = tool_args::parser(argv);
    while let Some(arg) = tool_args::next(&mut p)? {
        let flag = tool_args::shown(&arg);
        let slot = match arg {
            Long("task") => &mut task,
            Long("seeds") => &mut seeds,
            Long("level") => &mut level,
            Long("knobs") => &mut knobs,
            _ => return Err(format!("unknown argument {flag:?}; see netpress traffic {tool} --help")),
        };
        *slot = Some(tool_args::value(&mut p, &flag)?);
    }
    if let Some(t) = task {
        return Ok(vec![parse(&t)?]);
    }
    let seeds = seeds.ok_or("give --task ID or --seeds A..B")?;
    let (a, b) = seeds.split_once("..").ok_or("--seeds takes A..B")?;
    let num = |s: &str| s.parse::<u64>().map_err(|_| format!("--seeds takes A..B, got {seeds:?}"));
    let (a, b) = (num(a)?, num(b)?);
    let levels: Vec<u8> = match level.as_deref() {
        None => vec![1, 2, 3, 4],
        Some(l @ ("1" | "2" | "3" | "4")) => vec![l.parse().unwrap_or(1)],
        Some(other) => return Err(format!("--level takes 1, 2, 3 or 4, got {other:?}")),
    };
    let knobs = knobs.unwrap_or_default();
    let mut out = Vec::new();
    for seed in a..b {
        for &l in &levels {
            for index in 0..indexes(l, &knobs)? {
                out.push(parse(&format!(
                    "traffic-v{V}-L{l}-s{seed}-i{index}{knobs}",
                    V = super::INFO.version
                ))?);
            }
        }
    }
    Ok(out)
}

/// [`ids`], refusing NeMoEval's modes: the oracle and spread runs cover the standard mode
/// (those modes ask NeMoEval's fixed questions, with references of their own).
pub(super) fn standard_ids(argv: &[String], tool: &str) -> Result<Vec<QueryId>, String> {
    let ids = ids(argv, tool)?;
    match ids.iter().find_map(|id| id.knob('m').filter(|m| *m != "std")) {
        Some(m) => Err(format!("-m{m}: the {tool} run covers the standard mode only")),
        None => Ok(ids),
    }
}

fn parse(id: &str) -> Result<QueryId, String> {
    id.parse().map_err(|e: crate::Error| e.to_string())
}

/// The indexes a seed has at a level: one per family, or with `m=nemo`/`m=straw` one per
/// NeMoEval question of the level (a ninth index would ask question 1 again).
fn indexes(level: u8, knobs: &str) -> Result<u64, String> {
    let id = parse(&format!("traffic-v{V}-L{level}-s0-i0{knobs}", V = super::INFO.version))?;
    Ok(match id.knob('m') {
        Some("nemo" | "straw") => super::nemo::PER_LEVEL,
        _ => Family::of_level(level).len() as u64,
    })
}

fn run(argv: &[String], _stdin: &mut dyn Read, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    let result = ids(argv, "export").and_then(|ids| {
        let mut out = std::io::BufWriter::new(stdout);
        let mut last = String::new();
        for id in &ids {
            // A reader gone (`| head`) ends the export quietly, before the next task is built.
            if let Err(e) = writeln!(out, "{}", line(id, &mut last)?) {
                return crate::tool_args::written(Err(e));
            }
        }
        crate::tool_args::written(out.flush())
    });
    match result {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(stderr, "netpress traffic export: {e}");
            2
        }
    }
}
