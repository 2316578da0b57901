//! A baseline's committed per-task snapshot (`tests/data/<app>/baseline-*.tsv`, written by
//! `scripts/<app>-baseline-snapshot.sh` through `scripts/baseline_snapshot.py`): one line per
//! episode, which a test plays again through the shared runner with the current code. A line
//! that comes out differently means generation, the tools, the checks or the baseline changed,
//! and the file (the truth of what the baseline scores, and of its rates) must be re-recorded.
//! Shared by `#[path]` between the applications' test binaries.
#![allow(dead_code)] // not every binary uses every helper

use netpress::registry;
use netpress::run::{RunSettings, run_episode};

/// The columns' line, which follows the file's comment lines.
const COLUMNS: &str = "id\tcontent_hash\tlabel\tfinish\tcorrect\tsafe\tprogress\tturns";

/// The snapshot's episode lines (after its comments and columns' line, which must be there).
pub fn rows(text: &str) -> Vec<&str> {
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(lines.next(), Some(COLUMNS), "a snapshot starts with its columns");
    lines.collect()
}

/// A task's baseline episode as a snapshot line, played now.
pub fn row(app: &str, id: &str) -> String {
    let task = registry::generate(id).unwrap_or_else(|e| panic!("{id}: {e}"));
    let app = registry::app(app).unwrap();
    let r = run_episode(task, app.baseline().as_mut(), RunSettings::default());
    let finish = serde_json::to_value(r.finish).unwrap();
    let s = &r.score;
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{:.3}\t{}",
        r.id,
        r.content_hash,
        r.label,
        finish.as_str().unwrap_or_default(),
        s.correct,
        s.safe,
        s.progress,
        s.turns
    )
}

/// Plays each line's task again and requires the same line.
pub fn replay(app: &str, lines: &[&str]) {
    for line in lines {
        let id = line.split('\t').next().unwrap_or_default();
        assert_eq!(row(app, id), *line, "{id}: the baseline's episode differs from the snapshot");
    }
}
