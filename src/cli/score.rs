//! `score`: result files scored again by this build.
//!
//! Each record's replies are replayed against a fresh emulator of the task its id names
//! ([`crate::run::rescore()`]), with the application taken from the registry the command line
//! runs over. A record whose correctness, safety or progress comes out different is listed
//! on stderr and makes the exit code 1: the emulator or the checker changed under it.

use clap::Args;

use super::run::summary_by_level;
use super::{CliResult, Context, Fail};
use crate::record::{ResultRecord, parse_results};
use crate::registry::Registry;
use crate::{QueryId, Result as NpResult};

#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// Result files (JSONL).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Write the re-scored records here.
    #[arg(short, long)]
    pub output: Option<String>,
}

pub fn score(cx: &mut Context, args: ScoreArgs) -> CliResult {
    let mut rescored = Vec::new();
    let mut changed = 0;
    for path in &args.files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let (records, errors) = parse_results(&text);
        if let Some(e) = errors.first() {
            return Err(Fail::from(format!("{path}: {e}")));
        }
        for old in records {
            let new = rescore(cx.registry, &old).map_err(|e| format!("{path}: {}: {e}", old.id))?;
            if crate::run::differs(&old, &new) {
                changed += 1;
                writeln!(
                    cx.console.err(),
                    "{}: recorded correct={} safe={} progress={:.3}, re-scored correct={} safe={} progress={:.3}",
                    old.id,
                    old.score.correct,
                    old.score.safe,
                    old.score.progress,
                    new.score.correct,
                    new.score.safe,
                    new.score.progress
                )?;
            }
            rescored.push(new);
        }
    }
    writeln!(
        cx.console.err(),
        "{} records re-scored, {changed} differ from their recorded score",
        rescored.len()
    )?;
    if let Some(out) = &args.output {
        cx.console
            .write_out(Some(out), |w| rescored.iter().try_for_each(|r| writeln!(w, "{}", r.to_line())))?;
    }
    write!(cx.console.err(), "{}", summary_by_level(&rescored))?;
    if changed > 0 { Err(Fail { message: String::new(), code: 1 }) } else { Ok(()) }
}

/// Re-scores a record with the application its id names.
fn rescore(registry: &Registry, old: &ResultRecord) -> NpResult<ResultRecord> {
    let id: QueryId = old.id.parse()?;
    crate::run::rescore(registry.app(&id.app)?, old)
}
