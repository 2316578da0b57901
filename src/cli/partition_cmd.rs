//! `partition-scores` (hidden): the partition-agreement scores of `crate::stats` for label
//! vectors read as JSON lines, so scikit-learn can be checked against them
//! (`scripts/microseg_sklearn_diff.py`). Reads `{"truth": [int…], "pred": [int…]}` per line
//! on standard input and writes `{"ari", "ami", "precision", "recall", "f1"}` per line.

use std::io::BufRead;

use super::{CliResult, Context, Fail};
use crate::stats::compare_partitions;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Pair {
    truth: Vec<i64>,
    pred: Vec<i64>,
}

pub(super) fn partition_scores(cx: &mut Context) -> CliResult {
    let mut text = String::new();
    cx.console.input().read_to_string(&mut text)?;
    for (i, line) in text.as_bytes().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |e: &dyn std::fmt::Display| Fail::from(format!("line {}: {e}", i + 1));
        let pair: Pair = serde_json::from_str(&line).map_err(|e| bad(&e))?;
        let scores = compare_partitions(&pair.truth, &pair.pred).map_err(|e| bad(&e))?;
        writeln!(cx.console.out(), "{}", serde_json::to_string(&scores)?)?;
    }
    Ok(())
}
