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

#[cfg(test)]
mod tests {
    use crate::cli::{Console, main};
    use crate::registry::Registry;

    fn run(input: &str) -> (u8, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let console = Console::new(input.as_bytes(), &mut out, &mut err);
        let code = main(Registry::standard(), ["netpress", "partition-scores"], console);
        (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    }

    #[test]
    fn scores_each_line_and_names_a_bad_one() {
        let (code, out, _) =
            run("{\"truth\": [0, 0, 1], \"pred\": [5, 5, 6]}\n\n{\"truth\": [], \"pred\": []}\n");
        assert_eq!(code, 0);
        assert_eq!(out.lines().count(), 2);
        assert!(
            out.starts_with("{\"ari\":1.0,\"ami\":1.0,\"precision\":1.0,\"recall\":1.0,\"f1\":1.0}"),
            "{out}"
        );
        let (code, _, err) = run("{\"truth\": [0], \"pred\": []}\n");
        assert_eq!(code, 1);
        assert_eq!(err, "netpress: line 1: label vectors differ in length (1 true labels, 0 predicted)\n");
        let (code, _, err) = run("{\"truth\": [0]}\n");
        assert_eq!(code, 1);
        assert!(err.starts_with("netpress: line 1: missing field `pred`"), "{err}");
    }
}
