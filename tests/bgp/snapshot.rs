//! The baseline's committed per-task snapshot (`tests/data/bgp/baseline-s0-999.tsv`, written by
//! `scripts/bgp-baseline-snapshot.sh`): its first lines of each level, played again through the
//! shared runner with the current code (`tests/support/snapshot.rs`), must come out the same,
//! so the file stays the truth of what the baseline scores and a change to generation, the
//! tools or the baseline shows here.
//! The whole file takes minutes to replay (level 4's tasks are large); the script does that.
//! The file holds the ids of the generator version that was the default when it was written
//! (v2); an older version generates as it always did, so the file stays valid after the
//! default moved on (to v3).

use crate::baseline::{replay, rows};

const SNAPSHOT: &str = include_str!("../data/bgp/baseline-s0-999.tsv");

/// Lines replayed per level: levels 1–3 are milliseconds a task, level 4 about a second.
const SAMPLE: [usize; 4] = [30, 30, 20, 2];

#[test]
fn baseline_snapshot_replays() {
    let rows = rows(SNAPSHOT);
    let version = rows.first().and_then(|l| l.split('-').nth(1)).expect("a first row with a version");
    let mut sample = Vec::new();
    for (level, n) in (1..=4).zip(SAMPLE) {
        let of_level: Vec<&str> =
            rows.iter().copied().filter(|l| l.starts_with(&format!("bgp-{version}-L{level}-"))).collect();
        assert_eq!(of_level.len(), 1000, "level {level}: seeds 0..999");
        sample.extend(of_level.into_iter().take(n));
    }
    replay("bgp", &sample);
    println!("bgp-snapshot: {} of {} lines replayed equal", sample.len(), rows.len());
}
