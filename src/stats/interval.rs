//! Pass rates and their 95% intervals: Wilson score intervals and a seeded percentile bootstrap.
//!
//! Wilson rather than Wald: the Wald interval the reference used collapses to zero width at 0%
//! and 100% and undercovers at small n; Wilson keeps sensible width at the extremes.

use serde::{Deserialize, Serialize};

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
pub(crate) fn wilson_p(p: f64, n: f64, z: f64) -> Interval {
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

    /// The rate of some 0/1 outcomes.
    pub fn of(outcomes: &[bool]) -> Self {
        Rate::new(outcomes.iter().filter(|&&o| o).count() as u64, outcomes.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn close(a: f64, b: f64, tol: f64) -> bool {
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
    fn bootstrap_is_reproducible_and_sensible() {
        let outcomes: Vec<bool> = (0..200).map(|i| i % 4 != 0).collect(); // 75%
        let a = bootstrap(&outcomes, 2000, 7);
        assert_eq!(a, bootstrap(&outcomes, 2000, 7));
        assert!(a.lo < 0.75 && a.hi > 0.75, "{a:?}");
        let w = wilson(150, 200, Z95);
        assert!(close(a.lo, w.lo, 0.02) && close(a.hi, w.hi, 0.02), "{a:?} vs {w:?}");
    }

    #[test]
    fn rate_of_outcomes() {
        let r = Rate::of(&[true, false, true, true]);
        assert_eq!((r.successes, r.n), (3, 4));
        assert!(close(r.rate, 0.75, 1e-12));
        assert_eq!(Rate::of(&[]).wilson, Interval { lo: 0.0, hi: 1.0 });
    }
}
