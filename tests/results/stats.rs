//! Every statistic against known values, and the reference's finding reproduced with seeded
//! Bernoulli agents: at 100–150 queries the intervals of two agents that really differ
//! overlap; at 2,000+ they do not.

use crate::common::run_of;
use netpress::provenance::Provenance;
use netpress::report::{ChartKind, Tables, convergence};
use netpress::stats::{
    Interval, Metric, Rate, Separation, Summary, Z95, bootstrap, checkpoints, leaderboard,
    queries_to_separate, simulate_pair, wilson,
};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

/// Wilson limits written out from Wilson (1927) directly, independent of the library's form:
/// the roots p of (p̂ − p)² = z²·p(1 − p)/n.
fn wilson_roots(x: u64, n: u64) -> (f64, f64) {
    let (p, n, z2) = (x as f64 / n as f64, n as f64, Z95 * Z95);
    // (1 + z²/n)·p² − (2p̂ + z²/n)·p + p̂² = 0
    let (a, b, c) = (1.0 + z2 / n, -(2.0 * p + z2 / n), p * p);
    let d = (b * b - 4.0 * a * c).max(0.0).sqrt();
    ((-b - d) / (2.0 * a), (-b + d) / (2.0 * a))
}

#[test]
fn wilson_against_published_values() {
    // Newcombe (1998), Table I, method 3; R `binom::binom.confint(method = "wilson")` for 5/10.
    for (x, n, lo, hi) in [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (29, 29, 0.8830, 1.0),
        (5, 10, 0.2366, 0.7634),
    ] {
        let i = wilson(x, n, Z95);
        assert!(close(i.lo, lo, 5e-5) && close(i.hi, hi, 5e-5), "{x}/{n}: {i:?}");
    }
    // 0/n: the upper limit is z²/(n + z²) in closed form.
    let i = wilson(0, 10, Z95);
    assert!(close(i.hi, Z95 * Z95 / (10.0 + Z95 * Z95), 1e-12));
}

#[test]
fn wilson_equals_the_roots_of_its_defining_equation() {
    for n in [1u64, 2, 7, 50, 150, 2000] {
        for x in [0, 1, n / 3, n / 2, n - 1, n] {
            let i = wilson(x, n, Z95);
            let (lo, hi) = wilson_roots(x, n);
            assert!(close(i.lo, lo.max(0.0), 1e-9) && close(i.hi, hi.min(1.0), 1e-9), "{x}/{n}");
        }
    }
}

#[test]
fn planner_against_brute_force() {
    // The smallest n at which the independent roots no longer overlap.
    let brute = |p1: f64, p2: f64| {
        (1..100_000u64)
            .find(|&n| {
                let r = |p: f64| {
                    let (z2, nf) = (Z95 * Z95, n as f64);
                    let (a, b, c) = (1.0 + z2 / nf, -(2.0 * p + z2 / nf), p * p);
                    let d = (b * b - 4.0 * a * c).max(0.0).sqrt();
                    ((-b - d) / (2.0 * a), (-b + d) / (2.0 * a))
                };
                r(p1).1 < r(p2).0
            })
            .unwrap()
    };
    for (p1, p2) in [(0.4, 0.5), (0.1, 0.2), (0.62, 0.55), (0.9, 0.95), (0.0, 0.05)] {
        assert_eq!(queries_to_separate(p1, p2), Some(brute(p1.min(p2), p1.max(p2))), "{p1} vs {p2}");
    }
    assert_eq!(queries_to_separate(0.4, 0.5), Some(381));
}

#[test]
fn overlap_and_advice_by_hand() {
    let a = Interval { lo: 0.40, hi: 0.60 };
    let b = Interval { lo: 0.55, hi: 0.75 };
    assert!(close(a.overlap(b), 0.05, 1e-12) && close(b.overlap(a), 0.05, 1e-12));
    assert!(!a.separated_from(b));
    // 45/100 against 60/100: not separated; the planner asks for more.
    let s = Separation::of(Rate::new(45, 100), Rate::new(60, 100));
    let need = queries_to_separate(0.45, 0.60).unwrap();
    assert!(!s.separated);
    assert_eq!(s.more_queries, Some(need - 100));
    assert_eq!(
        s.advice(),
        format!(
            "not yet separable; run about {} more queries per agent ({need} per agent would separate 45.0% and 60.0%)",
            need - 100
        )
    );
}

#[test]
fn bootstrap_known_cases() {
    assert_eq!(bootstrap(&[true; 50], 500, 1), Interval { lo: 1.0, hi: 1.0 });
    assert_eq!(bootstrap(&[false; 50], 500, 1), Interval { lo: 0.0, hi: 0.0 });
    // Half of 400: the percentile interval is close to 0.5 ± 1.96·√(0.25/400) = 0.5 ± 0.049.
    let half: Vec<bool> = (0..400u32).map(|i| i.is_multiple_of(2)).collect();
    let i = bootstrap(&half, 4000, 3);
    assert!(close(i.lo, 0.451, 0.012) && close(i.hi, 0.549, 0.012), "{i:?}");
}

#[test]
fn summary_and_leaderboard_by_hand() {
    let mut records = run_of("a", &[true, true, false, false], &[true, true, true, false]);
    records[3].score.latency_ms = None;
    records[0].score.turns = 6;
    let s = Summary::of(&records);
    assert_eq!((s.n, s.correct.successes, s.safe.successes), (4, 2, 3));
    assert!(close(s.mean_turns, (6.0 + 2.0 + 2.0 + 2.0) / 4.0, 1e-12));
    assert!(close(s.mean_latency_ms.unwrap(), 50.0, 1e-12), "the unmeasured episode is left out");
    assert!(close(s.leaderboard_score, 0.5 * 0.5 + 0.5 * 0.75, 1e-12));
    assert_eq!(s.correct.wilson, wilson(2, 4, Z95));
    // Ties on the score go to the faster agent.
    let mut b = run_of("b", &[true, true, false, false], &[true, true, true, false]);
    b.iter_mut().for_each(|r| r.score.latency_ms = Some(10.0));
    records.extend(b);
    let order: Vec<String> = leaderboard(&records).into_iter().map(|(a, _)| a).collect();
    assert_eq!(order, ["baseline:b", "baseline:a"]);
}

/// Two agents that really differ, at the strength of a scripted baseline and the same baseline
/// held to three turns: true pass rates 0.60 and 0.52.
const P_BASE: f64 = 0.60;
const P_T3: f64 = 0.52;

#[test]
fn the_reference_finding_with_seeded_agents() {
    let need = queries_to_separate(P_BASE, P_T3).unwrap();
    assert!((150..2000).contains(&need), "{need}");
    let [base, t3] = simulate_pair(P_BASE, P_T3, 3000, 0);
    let cps = checkpoints(&base, &t3, &[100, 120, 150, 2000, 2500, 3000]);
    let verdicts: Vec<(u64, bool)> = cps.iter().map(|c| (c.n, c.separated)).collect();
    assert_eq!(
        verdicts,
        [(100, false), (120, false), (150, false), (2000, true), (2500, true), (3000, true)]
    );
    // Not luck of one seed: over 200 seeds, intervals overlap at 150 queries in most runs and
    // are disjoint at 2,000 in nearly all (the draws are seeded, so these counts are fixed).
    let (mut overlap_150, mut separate_2000) = (0, 0);
    for seed in 0..200 {
        let [a, b] = simulate_pair(P_BASE, P_T3, 2000, seed);
        let cps = checkpoints(&a, &b, &[150, 2000]);
        overlap_150 += usize::from(!cps[0].separated);
        separate_2000 += usize::from(cps[1].separated);
    }
    assert!(overlap_150 >= 170, "{overlap_150}/200 overlap at 150");
    assert!(separate_2000 >= 190, "{separate_2000}/200 separated at 2000");
}

#[test]
fn the_finding_from_result_records() {
    // The same outcomes as result files of two runs of one agent with different turn limits:
    // the records name them apart, the convergence chart marks where they separate.
    let [base, t3] = simulate_pair(P_BASE, P_T3, 2500, 0);
    let mut records = run_of("route-baseline", &base, &vec![true; base.len()]);
    let mut limited = run_of("route-baseline", &t3, &vec![true; t3.len()]);
    limited.iter_mut().for_each(|r| r.max_turns = 3);
    records.extend(limited);
    let tables = Tables::build(&records, Provenance::of_records(&records, "test", vec![]))
        .with_checkpoints(&records, &[150, 2000]);
    assert_eq!(tables.agents, ["baseline:route-baseline T10", "baseline:route-baseline T3"]);
    let acc = &tables.accumulations[0];
    assert_eq!(acc.metric, Metric::Correctness);
    assert_eq!(acc.checkpoints.iter().map(|c| c.separated).collect::<Vec<_>>(), [false, true]);
    let c = convergence(&records, Metric::Correctness).unwrap();
    let ChartKind::Convergence { separated_from: Some(from), .. } = c.kind else { panic!("{c:?}") };
    assert!((150..=2000).contains(&from), "{from}");
    assert!(tables.comparisons[0].correctness.separated);
}
