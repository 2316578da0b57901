//! The baseline's committed per-task snapshot (`tests/data/bgp/baseline-s0-999.tsv`, written by
//! `scripts/bgp-baseline-snapshot.sh`): its first lines of each level, played again through the
//! shared runner with the current code, must come out the same, so the file stays the truth of
//! what the baseline scores and a change to generation, the tools or the baseline shows here.
//! The whole file takes minutes to replay (level 4's tasks are large); the script does that.
//! The file holds the ids of the generator version that was the default when it was written
//! (v2); an older version generates as it always did, so the file stays valid after the
//! default moved on (to v3).

use netpress::registry;
use netpress::run::{RunSettings, run_episode};

const SNAPSHOT: &str = include_str!("../data/bgp/baseline-s0-999.tsv");

/// Lines replayed per level: levels 1–3 are milliseconds a task, level 4 about a second.
const SAMPLE: [usize; 4] = [30, 30, 20, 2];

/// A record's line in the snapshot's columns.
fn row(id: &str) -> String {
    let task = registry::generate(id).unwrap_or_else(|e| panic!("{id}: {e}"));
    let app = registry::app("bgp").unwrap();
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

#[test]
fn baseline_snapshot_replays() {
    let mut lines = SNAPSHOT.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(lines.next(), Some("id\tcontent_hash\tlabel\tfinish\tcorrect\tsafe\tprogress\tturns"));
    let rows: Vec<&str> = lines.collect();
    let version = rows.first().and_then(|l| l.split('-').nth(1)).expect("a first row with a version");
    for level in 1..=4 {
        assert_eq!(
            rows.iter().filter(|l| l.starts_with(&format!("bgp-{version}-L{level}-"))).count(),
            1000,
            "level {level}: seeds 0..999"
        );
    }
    let mut replayed = 0;
    for (level, n) in (1..=4).zip(SAMPLE) {
        for line in rows.iter().filter(|l| l.starts_with(&format!("bgp-{version}-L{level}-"))).take(n) {
            let id = line.split('\t').next().unwrap_or_default();
            assert_eq!(row(id), *line, "{id}: the baseline's episode differs from the snapshot");
            replayed += 1;
        }
    }
    println!("bgp-snapshot: {replayed} of {} lines replayed equal", rows.len());
}
