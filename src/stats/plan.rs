//! Can two agents be told apart? The sample-size planner, the verdict on two observed rates
//! ("not yet separable; run about N more queries"), intervals as queries accumulate, and seeded
//! Bernoulli outcomes for showing all of this without running an agent.

use serde::{Deserialize, Serialize};

use super::interval::{Rate, Z95, wilson_p};
use crate::seed::{Stream, Width};

/// Planner answers above this are reported as "not separable".
pub const PLAN_LIMIT: u64 = 10_000_000;

/// The smallest number of queries per agent at which the 95% Wilson intervals of two agents
/// whose true pass rates are `p1` and `p2` no longer overlap (observed rates equal to the
/// true ones). `None` when the rates are equal, out of `0..=1`, or the answer exceeds
/// [`PLAN_LIMIT`].
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
    let mut hi = 1;
    while !separated(hi) {
        hi *= 2;
        if hi > PLAN_LIMIT {
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

/// The verdict on two observed rates of one metric.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Separation {
    pub a: Rate,
    pub b: Rate,
    /// Width of the common part of the two Wilson intervals.
    pub overlap: f64,
    pub separated: bool,
    /// Queries per agent at which the planner expects the observed rates to separate
    /// (`None`: equal rates, or more than [`PLAN_LIMIT`]).
    pub queries_needed: Option<u64>,
    /// Queries per agent still to run: `queries_needed` minus the smaller of the two `n`
    /// (0 once separated).
    pub more_queries: Option<u64>,
}

impl Separation {
    pub fn of(a: Rate, b: Rate) -> Self {
        let separated = a.wilson.separated_from(b.wilson);
        let queries_needed = queries_to_separate(a.rate, b.rate);
        let more_queries =
            if separated { Some(0) } else { queries_needed.map(|need| need.saturating_sub(a.n.min(b.n))) };
        Separation { a, b, overlap: a.wilson.overlap(b.wilson), separated, queries_needed, more_queries }
    }

    /// One sentence for a person, e.g. "not yet separable; run about 850 more queries per agent".
    pub fn advice(&self) -> String {
        if self.separated {
            return "separated: the 95% intervals do not overlap".into();
        }
        match (self.queries_needed, self.more_queries) {
            _ if (self.a.rate - self.b.rate).abs() < 1e-12 => {
                "not separable: the observed rates are equal".into()
            }
            (Some(need), Some(0)) => format!(
                "not yet separable at these unequal sample sizes; run both on at least {} queries",
                group(need)
            ),
            (Some(need), Some(more)) => format!(
                "not yet separable; run about {} more queries per agent ({} per agent would separate {:.1}% and {:.1}%)",
                group(more),
                group(need),
                100.0 * self.a.rate,
                100.0 * self.b.rate
            ),
            _ => format!("not separable within {} queries per agent", group(PLAN_LIMIT)),
        }
    }
}

/// Thousands separated by commas: `12,345`.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Two agents' intervals after their first `n` episodes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub n: u64,
    pub a: Rate,
    pub b: Rate,
    pub overlap: f64,
    pub separated: bool,
}

/// The checkpoints of two outcome sequences at each `n` of `at` that both sequences reach.
pub fn checkpoints(a: &[bool], b: &[bool], at: &[u64]) -> Vec<Checkpoint> {
    let reach = a.len().min(b.len()) as u64;
    at.iter()
        .filter(|&&n| n > 0 && n <= reach)
        .map(|&n| {
            let (ra, rb) = (Rate::of(&a[..n as usize]), Rate::of(&b[..n as usize]));
            Checkpoint {
                n,
                a: ra,
                b: rb,
                overlap: ra.wilson.overlap(rb.wilson),
                separated: ra.wilson.separated_from(rb.wilson),
            }
        })
        .collect()
}

/// The Wilson rate of the first `n` outcomes for every `n` of `at` that the outcomes reach.
pub fn running_rates(outcomes: &[bool], at: &[u64]) -> Vec<Rate> {
    at.iter()
        .filter(|&&n| n > 0 && n as usize <= outcomes.len())
        .map(|&n| Rate::of(&outcomes[..n as usize]))
        .collect()
}

/// Sample sizes worth looking at up to `max`: 1-2-5 steps with 150 (the reference's
/// per-label budget) and 1,500 added, then `max` itself.
pub fn sample_grid(max: u64) -> Vec<u64> {
    let mut grid: Vec<u64> = Vec::new();
    let mut decade: u64 = 1;
    'outer: loop {
        for step in [10, 15, 20, 50] {
            let n = step * decade;
            if n >= max {
                break 'outer;
            }
            grid.push(n);
        }
        decade *= 10;
    }
    if max > 0 {
        grid.push(max);
    }
    grid
}

/// `n` Bernoulli(`p`) outcomes drawn from the seeded stream named by `material`: outcome `i`
/// is `below(10⁹) < round(p·10⁹)`, so the same material gives the same outcomes everywhere.
pub fn bernoulli(p: f64, n: usize, material: &str) -> Vec<bool> {
    const DEN: u64 = 1_000_000_000;
    let num = (p.clamp(0.0, 1.0) * DEN as f64).round() as u64;
    let mut stream = Stream::new(material, Width::W32);
    (0..n).map(|_| stream.chance(num, DEN)).collect()
}

/// Two agents at true pass rates `p1` and `p2`, simulated for `n` queries each: Bernoulli
/// outcomes from the streams `netpress|simulate|{seed}|1` and `…|2`. The streams do not depend
/// on the rates, so changing a rate changes only the outcomes it must.
pub fn simulate_pair(p1: f64, p2: f64, n: usize, seed: u64) -> [Vec<bool>; 2] {
    [
        bernoulli(p1, n, &format!("netpress|simulate|{seed}|1")),
        bernoulli(p2, n, &format!("netpress|simulate|{seed}|2")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(queries_to_separate(0.5, 0.5 + 1e-6), None, "beyond the limit");
        assert_eq!(queries_to_separate(-0.1, 0.5), None);
    }

    #[test]
    fn separation_advice() {
        let s = Separation::of(Rate::new(60, 100), Rate::new(50, 100));
        assert!(!s.separated);
        let need = queries_to_separate(0.6, 0.5).unwrap();
        assert_eq!(s.more_queries, Some(need - 100));
        assert!(s.advice().starts_with("not yet separable; run about"), "{}", s.advice());
        let s = Separation::of(Rate::new(900, 1000), Rate::new(100, 1000));
        assert!(s.separated && s.more_queries == Some(0));
        assert!(s.advice().starts_with("separated"));
        let s = Separation::of(Rate::new(5, 10), Rate::new(50, 100));
        assert_eq!(s.advice(), "not separable: the observed rates are equal");
    }

    #[test]
    fn grouping_digits() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1234567), "1,234,567");
    }

    #[test]
    fn grid_and_running_rates() {
        assert_eq!(sample_grid(2500), [10, 15, 20, 50, 100, 150, 200, 500, 1000, 1500, 2000, 2500]);
        assert_eq!(sample_grid(100), [10, 15, 20, 50, 100]);
        let outcomes = [true, false, true, true];
        let rates = running_rates(&outcomes, &[1, 2, 4, 5]);
        assert_eq!(rates.iter().map(|r| r.successes).collect::<Vec<_>>(), [1, 1, 3]);
    }

    #[test]
    fn bernoulli_is_seeded_and_has_its_rate() {
        let a = bernoulli(0.3, 20_000, "t");
        assert_eq!(a, bernoulli(0.3, 20_000, "t"));
        assert_ne!(a, bernoulli(0.3, 20_000, "u"));
        let rate = Rate::of(&a);
        assert!(rate.wilson.lo < 0.3 && 0.3 < rate.wilson.hi, "{rate:?}");
        assert!(bernoulli(1.0, 100, "t").iter().all(|&o| o));
        assert!(bernoulli(0.0, 100, "t").iter().all(|&o| !o));
    }

    #[test]
    fn checkpoints_stop_where_either_sequence_ends() {
        let a = vec![true; 10];
        let b = vec![false; 6];
        let cps = checkpoints(&a, &b, &[0, 2, 6, 8]);
        assert_eq!(cps.iter().map(|c| c.n).collect::<Vec<_>>(), [2, 6]);
        assert!(!cps[0].separated && cps[1].separated);
    }
}
