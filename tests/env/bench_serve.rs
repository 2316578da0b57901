//! `netpress bench --serve` and `--env stdio` as processes, at tiny counts: idle sessions beside
//! the active ones, the Route and MALT families, the stdio round trip against the native step,
//! and one-line usage errors (exit 2) for bad arguments.

use serde_json::Value;

use crate::support::netpress;

/// Runs `netpress bench ARGS --json`; its document, after checking it succeeded.
fn bench_json(args: &[&str]) -> Value {
    let out = netpress(&[&["bench"], args, &["--json"]].concat());
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn idle_sessions_stay_open_beside_the_active_ones() {
    for transport in ["ws", "http"] {
        let report = bench_json(&[
            "--serve",
            transport,
            "--sessions",
            "1",
            "--idle",
            "5",
            "--steps",
            "10",
            "--seconds",
            "30",
        ]);
        let r = &report[0];
        assert_eq!(
            (r["sessions"].as_u64(), r["idle"].as_u64(), r["app"].as_str()),
            (Some(1), Some(5), Some("k8s"))
        );
        assert_eq!(r["steps"], 10, "{report}");
        assert!(r["p99_ms"].as_f64() >= r["p95_ms"].as_f64() && r["p95_ms"].as_f64() >= r["p50_ms"].as_f64());
    }
}

#[test]
fn route_steps_under_active_as_the_sessions_flag() {
    let report =
        bench_json(&["--serve", "ws", "--app", "route", "--active", "2", "--steps", "40", "--seconds", "30"]);
    let r = &report[0];
    assert_eq!(
        (r["app"].as_str(), r["sessions"].as_u64(), r["idle"].as_u64()),
        (Some("route"), Some(2), Some(0))
    );
    assert_eq!(r["steps"], 40, "{report}");
}

#[test]
fn malt_steps_through_the_sandbox_pool_with_the_native_figures() {
    let report =
        bench_json(&["--serve", "ws", "--app", "malt", "--sessions", "1", "--steps", "3", "--seconds", "60"]);
    let r = &report[0];
    assert_eq!((r["app"].as_str(), r["steps"].as_u64()), (Some("malt"), Some(3)), "{report}");
    assert_eq!(r["native"]["steps"], 3, "{report}");
}

#[test]
fn the_stdio_round_trip_is_timed_against_the_native_step() {
    let report = bench_json(&["--env", "stdio", "--steps", "60", "--seconds", "30"]);
    assert_eq!(report["app"], "k8s");
    assert_eq!((report["native"]["steps"].as_u64(), report["stdio"]["steps"].as_u64()), (Some(60), Some(60)));
    let above = report["stdio"]["p99_ms"].as_f64().unwrap() - report["native"]["p99_ms"].as_f64().unwrap();
    assert!((report["p99_above_native_ms"].as_f64().unwrap() - above).abs() < 1e-9, "{report}");
}

#[test]
fn bad_arguments_are_one_line_usage_errors() {
    for args in [
        &["bench", "--serve", "ws", "--app", "bgp"][..],
        &["bench", "--env", "stdio", "--app", "nonsense"],
        &["bench", "--serve", "ws", "--sessions", "0"],
        &["bench", "--serve", "ws", "--idle", "-1"],
        &["bench", "--idle", "3"],
        &["bench", "--env", "tcp"],
        &["bench", "--env", "stdio", "--serve", "ws"],
    ] {
        let out = netpress(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            err.trim().lines().next().is_some_and(|l| l.contains("error") || l.starts_with("netpress")),
            "{err}"
        );
    }
}
