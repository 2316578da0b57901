//! The search end to end with fake agents (docs/adapt.md, "Tests"): a hidden weak region is
//! found and confirmed, an agent equal to the baseline gets no weakness, and a randomly
//! failing agent's search gap shrinks on fresh seeds.

use netpress::adapt::{Pin, Reference, Settings, State, Verdict};
use netpress::registry::Registry;

use super::fake::{knob, random_fail, run};

/// Route at levels 1–2 with 10 turns, R = 3, k = 5 (the table's settings).
fn route_settings(seed: u64) -> Settings {
    let mut s = Settings::new(Reference::Baseline);
    s.rounds = 3;
    s.k = 5;
    s.seed = seed;
    // CI-sized confirmation (50 by default); the intervals stay separated at this size.
    s.confirm = std::env::var("NETPRESS_ADAPT_CONFIRM").ok().and_then(|v| v.parse().ok()).unwrap_or(30);
    s.pins = vec![
        Pin { dim: "level".into(), values: vec!["1".into(), "2".into()] },
        Pin { dim: "turns".into(), values: vec!["10".into()] },
    ];
    s
}

fn route() -> &'static dyn netpress::App {
    Registry::standard().app("route").unwrap()
}

fn subnets(state: &State, i: usize) -> u32 {
    state.promotions.get(i).map_or(0, |p| p.cell["subnets"].parse().unwrap())
}

/// Run seeds per row: 20 for the acceptance figures (`NETPRESS_ADAPT_RUNS=20`, see
/// docs/adapt.md), a CI-sized 2 by default (an unoptimised Route episode takes tens of ms).
fn runs() -> u64 {
    std::env::var("NETPRESS_ADAPT_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(2)
}

/// At least `num/den` of `n` runs, rounded up (19/20 of 20 is 19; of 2, both).
fn share(num: u64, den: u64, n: u64) -> u64 {
    (num * n).div_ceil(den)
}

#[test]
fn a_hidden_region_is_found_and_confirmed() {
    let mut first_round = 0;
    for seed in 0..runs() {
        let state = run(route(), route_settings(seed), |id| knob(id, 'n') >= 6, 2);
        let p1 = state.promotions.first().filter(|p| p.round == 1);
        if p1.is_some_and(|_| subnets(&state, 0) >= 6) {
            first_round += 1;
        }
        assert!(
            (0..state.promotions.len()).any(|i| subnets(&state, i) >= 6),
            "run {seed}: {:?}",
            state.promotions
        );
        let weak: Vec<_> = state.confirmations.iter().filter(|c| c.verdict == Verdict::Weak).collect();
        assert!(!weak.is_empty(), "run {seed}: nothing confirmed");
        assert!(
            weak.iter().all(|c| c.cell["subnets"].parse::<u32>().unwrap() >= 6),
            "run {seed}: false weakness"
        );
    }
    let n = runs();
    eprintln!("round-1 promotion in the region in {first_round}/{n} runs");
    assert!(first_round >= share(19, 20, n), "round-1 promotion in the region in {first_round}/{n} runs");
}

#[test]
fn an_agent_equal_to_the_baseline_has_no_weakness() {
    for seed in 0..runs() {
        let state = run(route(), route_settings(seed), |_| false, 2);
        assert!(state.promotions.is_empty(), "run {seed}: {:?}", state.promotions);
        assert!(state.confirmations.iter().all(|c| c.verdict != Verdict::Weak), "run {seed}");
    }
}

#[test]
fn a_random_failure_gap_shrinks_on_fresh_seeds() {
    let (mut covered, mut gaps, mut n) = (0, 0.0, 0);
    for seed in 0..runs() {
        let state = run(route(), route_settings(seed), |id| random_fail(id, 0.3), 2);
        for p in &state.promotions {
            gaps += p.gap;
            n += 1;
        }
        let promoted: Vec<_> = state.confirmations.iter().filter(|c| c.promoted).collect();
        if promoted.iter().all(|c| c.agent.lo <= 0.7 && 0.7 <= c.agent.hi) {
            covered += 1;
        }
        assert!(promoted.iter().all(|c| c.shrinkage > 0.0), "run {seed}: {promoted:?}");
    }
    let mean = gaps / n.max(1) as f64;
    eprintln!("mean search gap of promotions {mean:.3}; confirmation covers 0.7 in {covered}/{}", runs());
    assert!(mean >= 0.4, "mean search gap {mean}");
    assert!(covered >= share(18, 20, runs()), "{covered}/{}", runs());
}

#[test]
fn the_same_settings_give_the_same_state_whatever_the_jobs() {
    let a = run(route(), route_settings(7), |id| knob(id, 'n') >= 6, 1);
    let b = run(route(), route_settings(7), |id| knob(id, 'n') >= 6, 4);
    assert_eq!(a.to_json(), b.to_json());
}
