//! `netpress bench --serve` and `--env stdio` as processes, at tiny counts: idle sessions beside
//! the active ones, Route, MALT and traffic loads (any registered application steps), the stdio
//! round trip against the native step, and one-line usage errors (exit 2) for bad arguments.

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

/// Traffic, sandboxed like MALT, steps through the sandbox pool too; BGP over stdio.
#[test]
fn applications_beyond_the_first_three_step() {
    let report = bench_json(&[
        "--serve",
        "http",
        "--app",
        "traffic",
        "--sessions",
        "1",
        "--steps",
        "3",
        "--seconds",
        "60",
    ]);
    let r = &report[0];
    assert_eq!((r["app"].as_str(), r["steps"].as_u64()), (Some("traffic"), Some(3)), "{report}");
    assert_eq!(r["native"]["steps"], 3, "{report}");
    let report = bench_json(&["--env", "stdio", "--app", "bgp", "--steps", "5", "--seconds", "30"]);
    assert_eq!(
        (report["app"].as_str(), report["stdio"]["steps"].as_u64()),
        (Some("bgp"), Some(5)),
        "{report}"
    );
}

/// An unknown application is refused in one line that names the registered ones.
#[test]
fn an_unknown_application_names_the_registered_ones() {
    let out = netpress(&["bench", "--serve", "ws", "--app", "nonsense"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("malt, route, k8s, bgp, traffic, microseg"), "{err}");
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
        &["bench", "--serve", "ws", "--app", "nonsense"][..],
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
