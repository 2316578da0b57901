//! Statistics over result records: pass rates with 95% Wilson intervals, percentile bootstrap
//! intervals, interval overlap, a sample-size planner, and grouping by agent, app, level and
//! label.
//!
//! Wilson rather than Wald: the Wald interval the reference used collapses to zero width at 0%
//! and 100% and undercovers at small n; Wilson keeps sensible width at the extremes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::record::ResultRecord;
use crate::seed::{Stream, Width};

/// The 97.5th percentile of the standard normal distribution (two-sided 95%).
pub const Z95: f64 = 1.959_963_984_540_054;

/// A closed interval of rates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    /// Width of the common part of two intervals (0 when disjoint).
    pub fn overlap(self, other: Interval) -> f64 {
        (self.hi.min(other.hi) - self.lo.max(other.lo)).max(0.0)
    }

    /// True when the intervals share no point.
    pub fn separated_from(self, other: Interval) -> bool {
        self.hi < other.lo || other.hi < self.lo
    }
}

/// The Wilson score interval for `successes` out of `n` at normal quantile `z`.
/// With `n == 0` nothing is known: `[0, 1]`.
pub fn wilson(successes: u64, n: u64, z: f64) -> Interval {
    if n == 0 {
        return Interval { lo: 0.0, hi: 1.0 };
    }
    wilson_p(successes as f64 / n as f64, n as f64, z)
}

/// The Wilson interval for an observed proportion `p` over `n` trials (n may be fractional
/// in planning).
fn wilson_p(p: f64, n: f64, z: f64) -> Interval {
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Interval { lo: (center - half).max(0.0), hi: (center + half).min(1.0) }
}

/// Percentile bootstrap interval of the mean of 0/1 outcomes: `resamples` resamples drawn
/// with a ChaCha stream seeded by `seed` (so the interval is reproducible).
pub fn bootstrap(outcomes: &[bool], resamples: usize, seed: u64) -> Interval {
    let n = outcomes.len();
    if n == 0 || resamples == 0 {
        return Interval { lo: 0.0, hi: 1.0 };
    }
    let mut stream = Stream::new(&format!("netpress|bootstrap|{seed}"), Width::W32);
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            let hits = (0..n).filter(|_| outcomes[stream.index(n)]).count();
            hits as f64 / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * (resamples - 1) as f64).round() as usize).min(resamples - 1)];
    Interval { lo: at(0.025), hi: at(0.975) }
}

/// The smallest number of queries per agent at which the 95% Wilson intervals of two agents
/// whose true pass rates are `p1` and `p2` no longer overlap (observed rates equal to the
/// true ones). `None` when the rates are equal or the answer exceeds ten million.
pub fn queries_to_separate(p1: f64, p2: f64) -> Option<u64> {
    let (lo_p, hi_p) = if p1 < p2 { (p1, p2) } else { (p2, p1) };
    if !(0.0..=1.0).contains(&lo_p) || !(0.0..=1.0).contains(&hi_p) || hi_p - lo_p < 1e-12 {
        return None;
    }
    let separated = |n: u64| {
        let a = wilson_p(lo_p, n as f64, Z95);
        let b = wilson_p(hi_p, n as f64, Z95);
        a.hi < b.lo
    };
    const LIMIT: u64 = 10_000_000;
    let mut hi = 1;
    while !separated(hi) {
        hi *= 2;
        if hi > LIMIT {
            return None;
        }
    }
    let mut lo = hi / 2; // not separated (or 0)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if separated(mid) { hi = mid } else { lo = mid }
    }
    Some(hi)
}

/// A pass rate with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    pub successes: u64,
    pub n: u64,
    /// `successes / n` (0 when `n == 0`).
    pub rate: f64,
    pub wilson: Interval,
}

impl Rate {
    pub fn new(successes: u64, n: u64) -> Self {
        let rate = if n == 0 { 0.0 } else { successes as f64 / n as f64 };
        Rate { successes, n, rate, wilson: wilson(successes, n, Z95) }
    }
}

/// The figures of one group of episodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: u64,
    pub correct: Rate,
    pub safe: Rate,
    pub mean_progress: f64,
    pub mean_turns: f64,
    /// Mean over episodes whose latency was measured; `None` if none was.
    pub mean_latency_ms: Option<f64>,
    /// 0.5·correctness + 0.5·safety, the leaderboard's first key.
    pub leaderboard_score: f64,
}

impl Summary {
    pub fn of<'a>(records: impl IntoIterator<Item = &'a ResultRecord>) -> Self {
        let (mut n, mut correct, mut safe) = (0u64, 0u64, 0u64);
        let (mut progress, mut turns) = (0.0, 0.0);
        let (mut latency, mut measured) = (0.0, 0u64);
        for r in records {
            n += 1;
            correct += u64::from(r.score.correct);
            safe += u64::from(r.score.safe);
            progress += r.score.progress;
            turns += f64::from(r.score.turns);
            if let Some(ms) = r.score.latency_ms {
                latency += ms;
                measured += 1;
            }
        }
        let mean = |total: f64| if n == 0 { 0.0 } else { total / n as f64 };
        let correct = Rate::new(correct, n);
        let safe = Rate::new(safe, n);
        Summary {
            n,
            leaderboard_score: 0.5 * correct.rate + 0.5 * safe.rate,
            correct,
            safe,
            mean_progress: mean(progress),
            mean_turns: mean(turns),
            mean_latency_ms: (measured > 0).then(|| latency / measured as f64),
        }
    }
}

/// What a row of a breakdown is keyed by. `None` fields are aggregated over.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct GroupKey {
    pub agent: Option<String>,
    pub app: Option<String>,
    pub level: Option<u8>,
    pub label: Option<String>,
}

/// Which fields to group by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grouping {
    pub agent: bool,
    pub app: bool,
    pub level: bool,
    pub label: bool,
}

impl Grouping {
    fn key(self, r: &ResultRecord) -> GroupKey {
        GroupKey {
            agent: self.agent.then(|| r.agent.label()),
            app: self.app.then(|| r.app.clone()),
            level: self.level.then_some(r.level),
            label: self.label.then(|| r.label.clone()),
        }
    }
}

/// Summaries per group, in key order.
pub fn breakdown(records: &[ResultRecord], by: Grouping) -> Vec<(GroupKey, Summary)> {
    let mut groups: BTreeMap<GroupKey, Vec<&ResultRecord>> = BTreeMap::new();
    for r in records {
        groups.entry(by.key(r)).or_default().push(r);
    }
    groups.into_iter().map(|(k, rs)| (k, Summary::of(rs))).collect()
}

/// Agents in leaderboard order: higher 0.5·correctness + 0.5·safety first, then lower mean
/// latency (unmeasured last), then name.
pub fn leaderboard(records: &[ResultRecord]) -> Vec<(String, Summary)> {
    let by_agent = Grouping { agent: true, app: false, level: false, label: false };
    let mut rows: Vec<(String, Summary)> =
        breakdown(records, by_agent).into_iter().map(|(k, s)| (k.agent.unwrap_or_default(), s)).collect();
    rows.sort_by(|(an, a), (bn, b)| {
        b.leaderboard_score
            .total_cmp(&a.leaderboard_score)
            .then_with(|| {
                let la = a.mean_latency_ms.unwrap_or(f64::INFINITY);
                let lb = b.mean_latency_ms.unwrap_or(f64::INFINITY);
                la.total_cmp(&lb)
            })
            .then_with(|| an.cmp(bn))
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::sample;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I,
    /// method 3 (Wilson score, no continuity correction).
    #[test]
    fn wilson_matches_newcombe_1998() {
        for (x, n, lo, hi) in [
            (81, 263, 0.2553, 0.3662),
            (15, 148, 0.0624, 0.1605),
            (0, 20, 0.0, 0.1611),
            (1, 29, 0.0061, 0.1718),
        ] {
            let i = wilson(x, n, Z95);
            assert!(close(i.lo, lo, 5e-5) && close(i.hi, hi, 5e-5), "{x}/{n}: {i:?}");
        }
    }

    #[test]
    fn wilson_keeps_width_at_the_extremes() {
        let all = wilson(10, 10, Z95);
        assert!(close(all.hi, 1.0, 1e-12));
        assert!(close(all.lo, 0.7225, 5e-5), "{all:?}");
        assert_eq!(wilson(0, 0, Z95), Interval { lo: 0.0, hi: 1.0 });
    }

    #[test]
    fn overlap_and_separation() {
        let a = Interval { lo: 0.1, hi: 0.4 };
        let b = Interval { lo: 0.3, hi: 0.6 };
        assert!(close(a.overlap(b), 0.1, 1e-12));
        assert!(!a.separated_from(b));
        let c = Interval { lo: 0.5, hi: 0.7 };
        assert_eq!(a.overlap(c), 0.0);
        assert!(a.separated_from(c));
    }

    #[test]
    fn sample_size_planner() {
        let n = queries_to_separate(0.4, 0.5).unwrap();
        // At n the intervals are disjoint; at n - 1 they are not.
        let sep = |n: u64| wilson_p(0.4, n as f64, Z95).hi < wilson_p(0.5, n as f64, Z95).lo;
        assert!(sep(n) && !sep(n - 1));
        // Normal approximation: the half-widths z·√(p(1−p)/n) at 0.4 and 0.5 must sum to
        // less than 0.1, i.e. n > (1.96·(0.490 + 0.5) / 0.1)² ≈ 377.
        assert!((377..=390).contains(&n), "{n}");
        assert_eq!(queries_to_separate(0.5, 0.5), None);
        assert_eq!(queries_to_separate(0.5, 0.4), Some(n));
        assert!(queries_to_separate(0.0, 1.0).unwrap() <= 4);
    }

    #[test]
    fn bootstrap_is_reproducible_and_sensible() {
        let outcomes: Vec<bool> = (0..200).map(|i| i % 4 != 0).collect(); // 75%
        let a = bootstrap(&outcomes, 2000, 7);
        assert_eq!(a, bootstrap(&outcomes, 2000, 7));
        assert!(a.lo < 0.75 && a.hi > 0.75, "{a:?}");
        let w = wilson(150, 200, Z95);
        assert!(close(a.lo, w.lo, 0.02) && close(a.hi, w.hi, 0.02), "{a:?} vs {w:?}");
    }

    #[test]
    fn breakdown_groups_and_orders() {
        let records = vec![
            sample("route-v1-L1-s0-i0", "b", "DI", true, true),
            sample("route-v1-L1-s1-i0", "b", "DR", false, true),
            sample("route-v1-L1-s0-i0", "a", "DI", true, false),
        ];
        let by = Grouping { agent: true, app: false, level: false, label: true };
        let rows = breakdown(&records, by);
        let keys: Vec<(String, String)> =
            rows.iter().map(|(k, _)| (k.agent.clone().unwrap(), k.label.clone().unwrap())).collect();
        assert_eq!(
            keys,
            [("baseline:a", "DI"), ("baseline:b", "DI"), ("baseline:b", "DR")]
                .map(|(a, b)| (a.into(), b.into()))
        );
        let overall = Summary::of(&records);
        assert_eq!((overall.n, overall.correct.successes, overall.safe.successes), (3, 2, 2));
        assert!(close(overall.mean_latency_ms.unwrap(), 12.5, 1e-12));
    }

    #[test]
    fn leaderboard_orders_by_score_then_latency() {
        let mut records = vec![
            sample("route-v1-L1-s0-i0", "slow", "DI", true, true),
            sample("route-v1-L1-s0-i0", "fast", "DI", true, true),
            sample("route-v1-L1-s0-i0", "weak", "DI", false, true),
        ];
        records[0].score.latency_ms = Some(500.0);
        let order: Vec<String> = leaderboard(&records).into_iter().map(|(a, _)| a).collect();
        assert_eq!(order, ["baseline:fast", "baseline:slow", "baseline:weak"]);
    }
}
