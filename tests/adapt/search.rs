//! The search end to end with fake agents (docs/adapt.md, "Tests"): a hidden weak region is
//! found and confirmed, an agent equal to the baseline gets no weakness, and a randomly
//! failing agent's search gap shrinks on fresh seeds.

use netpress::adapt::{Pin, Reference, Settings, State, Verdict};
use std::collections::BTreeMap;

use netpress::registry::Registry;

use super::fake::run;

/// `rounds` rounds with k = 5 against `reference`, the levels and turn limit pinned.
fn settings(seed: u64, rounds: u32, reference: Reference, levels: &[&str], turns: Option<&str>) -> Settings {
    let mut s = Settings::new(reference);
    s.rounds = rounds;
    s.k = 5;
    s.seed = seed;
    // CI-sized confirmation (50 by default); the intervals stay separated at this size.
    s.confirm = std::env::var("NETPRESS_ADAPT_CONFIRM").ok().and_then(|v| v.parse().ok()).unwrap_or(30);
    s.pins = vec![Pin { dim: "level".into(), values: levels.iter().map(|l| l.to_string()).collect() }];
    if let Some(t) = turns {
        s.pins.push(Pin { dim: "turns".into(), values: vec![t.into()] });
    }
    s
}

/// Route at levels 1–2 with 10 turns, R = 3, k = 5 (the table's settings).
pub fn route_settings(seed: u64) -> Settings {
    settings(seed, 3, Reference::Baseline, &["1", "2"], Some("10"))
}

fn app(name: &str) -> &'static dyn netpress::App {
    Registry::standard().app(name).unwrap()
}

fn route() -> &'static dyn netpress::App {
    app("route")
}

/// The round of the first promotion whose cell satisfies `inside`, if any.
fn found_in(state: &State, inside: impl Fn(&BTreeMap<String, String>) -> bool) -> Option<u32> {
    state.promotions.iter().filter(|p| inside(&p.cell)).map(|p| p.round).min()
}

/// Whether a `+`-joined value holds every token.
fn has_all(value: &str, tokens: &[&str]) -> bool {
    tokens.iter().all(|t| value.split('+').any(|v| v == *t))
}

/// The median of rounds-to-find, a run that never found counting as one round past the end.
fn median(mut rounds: Vec<u32>) -> f64 {
    rounds.sort_unstable();
    let n = rounds.len();
    if n == 0 {
        return 0.0;
    }
    f64::from(rounds[(n - 1) / 2] + rounds[n / 2]) / 2.0
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
        let state = run(route(), route_settings(seed), "subnets>=6", 2);
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
        let state = run(route(), route_settings(seed), "never", 2);
        assert!(state.promotions.is_empty(), "run {seed}: {:?}", state.promotions);
        assert!(state.confirmations.iter().all(|c| c.verdict != Verdict::Weak), "run {seed}");
    }
}

#[test]
fn a_random_failure_gap_shrinks_on_fresh_seeds() {
    let (mut covered, mut gaps, mut n) = (0, 0.0, 0);
    let mut shrinkage = Vec::new();
    for seed in 0..runs() {
        let state = run(route(), route_settings(seed), "random=0.3", 2);
        for p in &state.promotions {
            gaps += p.gap;
            n += 1;
        }
        let promoted: Vec<_> = state.confirmations.iter().filter(|c| c.promoted).collect();
        if promoted.iter().all(|c| c.agent.lo <= 0.7 && 0.7 <= c.agent.hi) {
            covered += 1;
        }
        shrinkage.extend(promoted.iter().map(|c| c.shrinkage));
    }
    let mean = gaps / n.max(1) as f64;
    // The gap shrinks on average; a single cell whose 50 fresh seeds happen to fail as often as
    // its 5 search seeds did (seen once in 20 runs: 0.4 and 0.4) is chance, not a curse undone.
    let shrunk = shrinkage.iter().filter(|s| **s > 0.0).count();
    let mean_shrinkage = shrinkage.iter().sum::<f64>() / shrinkage.len().max(1) as f64;
    eprintln!(
        "mean search gap of promotions {mean:.3}; confirmation covers 0.7 in {covered}/{}; \
         {shrunk}/{} promoted cells shrank, by {mean_shrinkage:.3} on average",
        runs(),
        shrinkage.len()
    );
    assert!(mean >= 0.4, "mean search gap {mean}");
    assert!(mean_shrinkage > 0.0, "mean shrinkage {mean_shrinkage}");
    assert!(covered >= share(18, 20, runs()), "{covered}/{}", runs());
}

#[test]
fn the_same_settings_give_the_same_state_whatever_the_jobs() {
    let a = run(route(), route_settings(7), "subnets>=6", 1);
    let b = run(route(), route_settings(7), "subnets>=6", 4);
    assert_eq!(a.to_json(), b.to_json());
}

#[test]
fn a_small_region_is_found_sooner_than_by_random_search() {
    let inside = |c: &BTreeMap<String, String>| c["hosts"] == "4" && has_all(&c["families"], &["WR"]);
    let (mut found, mut guided, mut random) = (0, vec![], vec![]);
    for seed in 0..runs() {
        let state = run(route(), route_settings(seed), "hosts=4,families~WR", 2);
        let round = found_in(&state, inside);
        found += u64::from(round.is_some());
        guided.push(round.unwrap_or(4));
        let mut only_random = route_settings(seed);
        only_random.random = only_random.budget;
        let state = run(route(), only_random, "hosts=4,families~WR", 2);
        random.push(found_in(&state, inside).unwrap_or(4));
    }
    let (g, r) = (median(guided), median(random));
    eprintln!("found within 3 rounds in {found}/{}; median rounds to find: guided {g}, random {r}", runs());
    assert!(found >= share(19, 20, runs()), "{found}/{}", runs());
    // A median of two runs is noise (random search's round 1 has 15 random points, the guided
    // one 10); the comparison is asserted on the acceptance run's 20 (docs/adapt.md, "Tests").
    if runs() >= 10 {
        assert!(g <= r, "guided {g} > random {r}");
    }
}

#[test]
fn k8s_fault_pair_is_found() {
    let mut found = 0;
    for seed in 0..runs() {
        let s = settings(seed, 5, Reference::Baseline, &["3"], Some("10"));
        let state = run(app("k8s"), s, "label~NP,label~EDNS", 2);
        found += u64::from(found_in(&state, |c| has_all(&c["faults"], &["NP", "EDNS"])).is_some());
    }
    eprintln!("k8s NP+EDNS found within 5 rounds in {found}/{}", runs());
    assert!(found >= share(18, 20, runs()), "{found}/{}", runs());
}

#[test]
fn malt_large_level_four_is_found() {
    let mut found = 0;
    for seed in 0..runs() {
        let s = settings(seed, 3, Reference::Oracle, &["1", "2", "3", "4"], None);
        // MALT writes a shape's dimensions into the id (`large` is `k8x8x32x32`).
        let state = run(app("malt"), s, "level=4,shape=8x8x32x32", 2);
        found += u64::from(found_in(&state, |c| c["level"] == "4" && c["shape"] == "large").is_some());
    }
    eprintln!("malt L4 large found within 3 rounds in {found}/{}", runs());
    assert!(found >= share(19, 20, runs()), "{found}/{}", runs());
}
