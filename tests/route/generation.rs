//! Route generation sweeps (docs/route.md, "Tests").
//!
//! - Seeds 0..999 per level (index 0): the healthy network has no lost ping; the task's
//!   known-good fix (its `expected.fix` commands, run through the shell on the full network)
//!   succeeds command by command and leaves 0% loss; the injected network is broken.
//! - Seeds 0..9999 per level: every id generates (no `GenerationExhausted`), the injected
//!   matrix loses pings, and every fault is visible alone and unmasked by the others, checked
//!   on the full network. It takes minutes in a debug build, so it is ignored by default:
//!   `cargo test --release --test route generation:: -- --ignored`.

use netpress::app::Task;
use netpress::id::QueryId;
use netpress::route::fault::Fault;
use netpress::route::generate::{self, inject};
use netpress::route::matrix;
use netpress::route::shell;
use netpress::route::task::RouteTask;

fn task(level: u8, seed: u64) -> std::sync::Arc<RouteTask> {
    let q = QueryId::new("route", 1, level, seed, 0);
    let drawn = generate::draw(&q).unwrap_or_else(|e| panic!("{q}: {e}"));
    RouteTask::new(&q, drawn, generate::DEFAULT_TURNS)
}

#[test]
fn route_known_good_fixes_heal_seeds_0_999() {
    for level in 1..=3u8 {
        for seed in 0..1000 {
            let t = task(level, seed);
            let id = &t.card().id;
            let mut healthy = t.healthy().clone();
            assert_eq!(
                matrix::compute(&mut healthy, &t.machines).lost(),
                0,
                "{id}: healthy network loses pings"
            );
            let mut net = t.injected().clone();
            assert!(matrix::compute(&mut net, &t.machines).lost() > 0, "{id}: not broken");
            let fix = t.card().expected["fix"].as_array().expect("expected.fix").clone();
            assert!(!fix.is_empty(), "{id}: empty fix");
            for step in &fix {
                let (machine, command) =
                    (step["machine"].as_str().unwrap(), step["command"].as_str().unwrap());
                let node = net.node(machine).unwrap_or_else(|| panic!("{id}: no machine {machine}"));
                let out = shell::run(&mut net, node, command);
                assert_eq!(out.status, 0, "{id}: fix `{machine}: {command}` failed: {}", out.output);
            }
            let m = matrix::compute(&mut net, &t.machines);
            assert_eq!(m.lost(), 0, "{id}: fix leaves loss\n{}", m.render(&t.machines));
        }
    }
}

/// Each fault alone breaks a pair, and removing any one fault changes the matrix.
fn check_visible_unmasked(t: &RouteTask) {
    let id = &t.card().id;
    let healthy = t.topo.build();
    let all: Vec<&Fault> = t.faults.iter().collect();
    let full = matrix::compute(&mut inject(&healthy, &all), &t.machines);
    assert!(full.lost() > 0, "{id}: not broken");
    assert_eq!(full, t.initial, "{id}: stored initial matrix differs from the full network's");
    for (i, f) in all.iter().enumerate() {
        let alone = matrix::compute(&mut inject(&healthy, &[*f]), &t.machines);
        assert!(alone.lost() > 0, "{id}: fault {} breaks nothing alone", f.id);
        if all.len() > 1 {
            let rest: Vec<&Fault> =
                all.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, f)| *f).collect();
            let without = matrix::compute(&mut inject(&healthy, &rest), &t.machines);
            assert_ne!(without, full, "{id}: fault {} is masked", f.id);
        }
    }
}

#[test]
fn route_faults_visible_and_unmasked_seeds_0_199() {
    for level in 1..=3u8 {
        for seed in 0..200 {
            check_visible_unmasked(&task(level, seed));
        }
    }
}

#[test]
#[ignore = "minutes in a debug build; run with --release -- --ignored"]
fn route_faults_visible_and_unmasked_seeds_0_9999() {
    for level in 1..=3u8 {
        for seed in 0..10_000 {
            check_visible_unmasked(&task(level, seed));
        }
    }
}
