//! The template compiler's committed per-task snapshot (`tests/data/traffic/baseline-s0-299.tsv`,
//! written by `scripts/traffic-baseline-snapshot.sh`: 300 tasks of every family, the run behind
//! docs/traffic.md's "Measured rates"). Its first lines of each family, played again through
//! the shared runner with the current code, must come out the same, so the file stays the
//! truth of what the baseline scores; the script replays every line and holds each family's
//! rate within 0.08 of the committed one.

use std::collections::BTreeMap;

use crate::baseline::{replay, rows};

const SNAPSHOT: &str = include_str!("../data/traffic/baseline-s0-299.tsv");

/// Lines replayed per family (280 in all, about 7 s in a test build: a graph family's episode
/// takes milliseconds, a flow family's, which draws a tenant's hour of logs, a tenth of a second).
const SAMPLE: usize = 10;

#[test]
fn baseline_snapshot_replays() {
    let rows = rows(SNAPSHOT);
    let mut per_family: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for line in &rows {
        let label = line.split('\t').nth(2).expect("a label column");
        per_family.entry(label).or_default().push(line);
    }
    assert_eq!(per_family.len(), 28, "every family of levels 1–4");
    assert!(per_family.values().all(|l| l.len() == 300), "300 tasks of each family");
    let sample: Vec<&str> = per_family.values().flat_map(|l| l.iter().take(SAMPLE).copied()).collect();
    replay("traffic", &sample);
    println!("traffic-snapshot: {} of {} lines replayed equal", sample.len(), rows.len());
}
