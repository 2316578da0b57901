//! BGPy's own system tests through our routing model: the engine-test configurations bgpy-pkg
//! 13.0.x ships (`bgpy.tests.engine_tests`: `as_graph_info_000` and the graphs written inline in
//! the configurations, each paired with a scenario and a policy per AS).
//!
//! `tests/bgpy/systest.py` enumerates them from the installed package at test time, runs each
//! one the way BGPy's engine tester does and prints, for those inside the shared model, the case
//! (our JSON format) and BGPy's local RIBs. A configuration refused only for its policies (ASPA,
//! path-end, OTC, BGPsec, peer-ROV, ROV++, RoST) also comes back as a *plain variant*: the same
//! graph, scenario, victims and attackers with those policies replaced by BGP; variants that
//! repeat a case already printed are dropped. Each case is then compared, every AS and prefix,
//! absence included, with (1) BGPy's own run of the configuration and (2) the same case through
//! the oracle (`tests/bgpy/oracle.py`), so the translation into our terms is checked as well.
//! Every mismatch is listed with the configuration, AS, prefix and both paths (the graphs have
//! at most a dozen ASes, so nothing is shrunk). The refused configurations are printed with
//! their reasons and counted.
//!
//! BGPy's stored expected RIBs (its `engine_test_outputs`) are not in the wheel or the sdist, so
//! the conformance here is with BGPy's live run of its own configurations.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

use crate::bgpy::{Mismatch, mismatches};
use crate::case::{Case, Ribs};
use crate::oracle;

const SYSTEST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bgpy/systest.py");

/// One line of `systest.py`.
struct Config {
    name: String,
    variant_of: Option<String>,
    graph: String,
    scenario: String,
    reason: Option<String>,
    /// Why outside, in one word: `policy`, `rounds` or `announcement`.
    kind: Option<String>,
    same_as: Option<String>,
    /// The case and BGPy's RIBs, when in the model and not a repeat.
    run: Option<(Case, Ribs)>,
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

fn configs(python: &PathBuf) -> Vec<Config> {
    let out = Command::new(python)
        .arg(SYSTEST)
        .output()
        .unwrap_or_else(|e| panic!("start {}: {e}", python.display()));
    assert!(out.status.success(), "systest.py failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).expect("systest.py prints UTF-8");
    stdout
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("systest.py prints JSON lines");
            let run =
                (!v["case"].is_null()).then(|| (Case::from_json(&v["case"]), oracle::parse_ribs(&v["ribs"])));
            Config {
                name: text(&v["name"]).expect("name"),
                variant_of: text(&v["variant_of"]),
                graph: text(&v["graph"]).expect("graph"),
                scenario: text(&v["scenario"]).expect("scenario"),
                reason: text(&v["reason"]),
                kind: text(&v["kind"]),
                same_as: text(&v["same_as"]),
                run,
            }
        })
        .collect()
}

fn report(m: &Mismatch, config: &Config, against: &str) -> String {
    format!(
        "  {} ({}, {}): AS{} {}\n    ours: {:?}\n    {against}: {:?}",
        config.name, config.graph, config.scenario, m.asn, m.prefix, m.ours, m.bgpy
    )
}

#[test]
fn bgpy_system_tests_agree() {
    let Some((python, version)) = oracle::or_skip("bgp-bgpy-systest") else { return };
    let clock = Instant::now();
    let all = configs(&python);
    let (originals, variants): (Vec<&Config>, Vec<&Config>) =
        all.iter().partition(|c| c.variant_of.is_none());
    let run: Vec<&Config> = all.iter().filter(|c| c.run.is_some()).collect();
    let cases: Vec<Case> = run.iter().map(|c| c.run.as_ref().expect("run").0.clone()).collect();
    let through_oracle = oracle::run(&python, &cases);

    let mut failures = Vec::new();
    let mut routes = 0;
    for ((config, case), via_oracle) in run.iter().zip(&cases).zip(&through_oracle) {
        let native = &config.run.as_ref().expect("run").1;
        let ours = case.ours();
        routes += native.len();
        for m in mismatches(&ours, native) {
            failures.push(report(&m, config, "BGPy's run"));
        }
        for m in mismatches(&ours, via_oracle) {
            failures.push(report(&m, config, "BGPy via oracle.py"));
        }
    }

    let refused: Vec<&&Config> = originals.iter().filter(|c| c.reason.is_some()).collect();
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    for c in &refused {
        *kinds.entry(c.kind.as_deref().unwrap_or("?")).or_default() += 1;
    }
    for c in &refused {
        println!(
            "bgp-bgpy-systest: outside the model: {} ({}, {}): {}",
            c.name,
            c.graph,
            c.scenario,
            c.reason.as_deref().unwrap_or("")
        );
    }
    for c in variants.iter().filter(|c| c.run.is_none()) {
        let why = c
            .reason
            .clone()
            .unwrap_or_else(|| format!("same case as {}", c.same_as.as_deref().unwrap_or("?")));
        println!("bgp-bgpy-systest: plain variant not run: {}: {why}", c.name);
    }
    let graphs = |cs: &[&Config]| {
        let mut g: Vec<&str> = cs.iter().map(|c| c.graph.as_str()).collect();
        g.sort_unstable();
        g.dedup();
        g.len()
    };
    let inside: Vec<&Config> = originals.iter().copied().filter(|c| c.reason.is_none()).collect();
    let run_variants: Vec<&Config> = variants.iter().copied().filter(|c| c.run.is_some()).collect();
    assert!(
        failures.is_empty(),
        "bgp-bgpy-systest: {} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!(
        "bgp-bgpy-systest: bgpy-pkg {version}: {} configurations on {} graphs; {} inside the model ({} graphs), \
         {} outside {kinds:?}; {} plain variants of the refused, {} new cases ({} graphs); {} cases on {} graphs, {routes} routes agree \
         with BGPy's runs and with oracle.py; {:.1} s",
        originals.len(),
        graphs(&originals),
        inside.len(),
        graphs(&inside),
        refused.len(),
        variants.len(),
        run_variants.len(),
        graphs(&run_variants),
        cases.len(),
        graphs(&run),
        clock.elapsed().as_secs_f64()
    );
    assert!(!inside.is_empty(), "no configuration of the installed BGPy falls inside the model");
}

#[test]
fn cases_read_back_from_json() {
    for c in (0..4).flat_map(|k| crate::bgpy::cases(k, k == 3)) {
        assert_eq!(Case::from_json(&c.to_json()), c, "{}", c.id);
    }
}
