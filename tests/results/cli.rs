//! The `stats`, `plan`, `report` and `export` commands end to end: formats, files written,
//! provenance, and one clear stderr line with a non-zero exit on bad input.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::common::run_of;
use netpress::record::ResultRecord;

/// A fresh directory for one test.
fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("netpress-results-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_jsonl(path: &PathBuf, records: &[ResultRecord]) {
    let text: String = records.iter().map(|r| r.to_line() + "\n").collect();
    std::fs::write(path, text).unwrap();
}

/// Two result files: the baseline and the same agent held to three turns.
fn two_runs(dir: &std::path::Path) -> (PathBuf, PathBuf) {
    let base = run_of("route-baseline", &[true, true, false, true, true, false], &[true; 6]);
    let mut t3 = run_of(
        "route-baseline",
        &[true, false, false, true, false, false],
        &[true, true, false, true, true, true],
    );
    t3.iter_mut().for_each(|r| r.max_turns = 3);
    let (a, b) = (dir.join("base.jsonl"), dir.join("b3.jsonl"));
    write_jsonl(&a, &base);
    write_jsonl(&b, &t3);
    (a, b)
}

fn netpress(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netpress")).args(args).output().unwrap()
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "exit {:?}, stderr: {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// A failure: the exit code and the one stderr line.
fn fails(out: &Output) -> (i32, String) {
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(!out.status.success(), "expected a failure, got: {}", String::from_utf8_lossy(&out.stdout));
    (out.status.code().unwrap(), err.trim_end().to_string())
}

#[test]
fn stats_in_every_format() {
    let dir = workdir("stats");
    let (a, b) = two_runs(&dir);
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let table = ok(&netpress(&["stats", a, b]));
    for needle in [
        "Per agent, application and task label:",
        "baseline:route-baseline T10",
        "baseline:route-baseline T3",
        "Leaderboard (0.5·correctness + 0.5·safety, then mean latency):",
        "not yet separable; run about",
    ] {
        assert!(table.contains(needle), "{needle}\n{table}");
    }
    assert!(table.starts_with("# NetPress "));
    let json: serde_json::Value =
        serde_json::from_str(&ok(&netpress(&["stats", a, b, "--format", "json"]))).unwrap();
    assert_eq!(json["agents"].as_array().unwrap().len(), 2);
    assert_eq!(json["provenance"]["inputs"].as_array().unwrap().len(), 2);
    let md = ok(&netpress(&["stats", a, b, "--format", "markdown", "--at", "2,6"]));
    assert!(md.contains("### Per agent\n\n| agent | n |"), "{md}");
    assert!(md.contains("| 6 | 66.7 |"), "{md}");
    let out = dir.join("stats.csv");
    ok(&netpress(&["stats", a, b, "--format", "csv", "-o", out.to_str().unwrap()]));
    let csv = std::fs::read_to_string(&out).unwrap();
    assert!(csv.lines().next().unwrap().starts_with("# NetPress"));
    assert!(csv.contains("\nsection,agent,app,level,label,n,correct,"));
}

#[test]
fn stats_reads_standard_input() {
    let dir = workdir("stdin");
    let (a, _) = two_runs(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_netpress"))
        .args(["stats", "-", "--format", "json"])
        .stdin(std::fs::File::open(a).unwrap())
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(json["provenance"]["episodes"], 6);
}

#[test]
fn bad_input_is_one_clear_line() {
    let dir = workdir("bad");
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, format!("{}\nnot json\n", run_of("a", &[true], &[true])[0].to_line())).unwrap();
    let (code, err) = fails(&netpress(&["stats", bad.to_str().unwrap()]));
    assert_eq!(code, 1);
    assert!(err.starts_with("netpress: ") && err.contains("bad.jsonl: line 2: not JSON"), "{err}");
    assert_eq!(err.lines().count(), 1);
    let (code, err) = fails(&netpress(&["report", dir.join("missing.jsonl").to_str().unwrap()]));
    assert_eq!((code, err.lines().count()), (1, 1));
    assert!(err.contains("cannot read"), "{err}");
    let (code, _) = fails(&netpress(&["plan", "--p1", "1.5", "--p2", "0.5"]));
    assert_eq!(code, 2);
    let (code, err) = fails(&netpress(&["export", "--rl"]));
    assert_eq!(code, 2);
    assert!(err.contains("--rl needs result files, or --app"), "{err}");
}

#[test]
fn plan_and_its_simulation() {
    let dir = workdir("plan");
    let out = ok(&netpress(&["plan", "--p1", "0.4", "--p2", "0.5"]));
    assert!(out.starts_with("381 queries per agent separate pass rates 0.4 and 0.5"), "{out}");
    let svg = dir.join("sim.svg");
    let out = ok(&netpress(&[
        "plan",
        "--p1",
        "0.60",
        "--p2",
        "0.52",
        "--simulate",
        "--queries",
        "2500",
        "--svg",
        svg.to_str().unwrap(),
    ]));
    let row =
        |n: &str| out.lines().find(|l| l.trim_start().starts_with(&format!("{n} "))).unwrap().to_string();
    assert!(row("150").ends_with("overlap"), "{out}");
    assert!(row("2,000").ends_with("separated"), "{out}");
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let meta = doc.descendants().find(|n| n.has_tag_name("metadata")).unwrap().text().unwrap();
    let meta: serde_json::Value = serde_json::from_str(meta).unwrap();
    assert_eq!(meta["simulation"]["streams"][0], "netpress|simulate|0|1");
    assert!(meta["command"].as_str().unwrap().starts_with("netpress plan --p1 0.60"));
}

#[test]
fn report_writes_html_and_svgs_with_provenance() {
    let dir = workdir("report");
    let (a, b) = two_runs(&dir);
    let html = dir.join("report.html");
    let svgs = dir.join("figures");
    let out = netpress(&[
        "report",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
        "--svg-dir",
        svgs.to_str().unwrap(),
    ]);
    ok(&out);
    let page = scraper::Html::parse_document(&std::fs::read_to_string(&html).unwrap());
    assert!(page.errors.is_empty(), "{:?}", page.errors);
    let mut names: Vec<String> =
        std::fs::read_dir(&svgs).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "convergence-correctness.svg",
            "convergence-safety.svg",
            "correctness-route.svg",
            "radar-baseline-route-baseline-t10.svg",
            "radar-baseline-route-baseline-t3.svg",
            "safety-route.svg",
            "safety-vs-correctness.svg"
        ]
    );
    for name in names {
        let text = std::fs::read_to_string(svgs.join(&name)).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let meta = doc.descendants().find(|n| n.has_tag_name("metadata")).expect("provenance");
        let meta: serde_json::Value = serde_json::from_str(meta.text().unwrap()).unwrap();
        assert_eq!(meta["episodes"], 12, "{name}");
    }
}

#[test]
fn exports_from_files() {
    let dir = workdir("export");
    let (a, b) = two_runs(&dir);
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let (code, err) = fails(&netpress(&["export", "--leaderboard", "--kind", "reactive", a, b]));
    assert_eq!(code, 1);
    assert!(err.contains("holds one agent") && err.contains("--agent"), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&ok(&netpress(&[
        "export",
        "--leaderboard",
        "--kind",
        "reactive",
        "--participant-id",
        "my-agent",
        "--agent",
        "baseline:route-baseline T3",
        a,
        b,
    ])))
    .unwrap();
    assert_eq!(doc["participants"], serde_json::json!({"route_operator": "my-agent"}));
    assert_eq!(doc["results"].as_array().unwrap().len(), 7);
    // The shape comes from the registry when the app is known, else from --kind.
    let inferred: serde_json::Value =
        serde_json::from_str(&ok(&netpress(&["export", "--leaderboard", a]))).unwrap();
    assert_eq!(inferred["participants"], serde_json::json!({"route_operator": "baseline:route-baseline"}));
    let mut unknown = run_of("someone", &[true], &[true]);
    unknown[0].app = "no-such-app".into();
    let unknown_path = dir.join("unknown.jsonl");
    write_jsonl(&unknown_path, &unknown);
    let (code, err) = fails(&netpress(&["export", "--leaderboard", unknown_path.to_str().unwrap()]));
    assert_eq!(code, 2);
    assert!(err.contains("--kind"), "{err}");
    let sft = ok(&netpress(&["export", "--sft", "--successful", "--per", "turn", a]));
    assert_eq!(sft.lines().count(), 4 * 2, "four successful episodes of two turns");
    let rl = ok(&netpress(&["export", "--rl", a, b]));
    let first: serde_json::Value = serde_json::from_str(rl.lines().next().unwrap()).unwrap();
    assert_eq!(first["netpress"]["command"], format!("netpress export --rl {a} {b}"));
    let (code, err) = fails(&netpress(&["export", "--sft", "--agent", "nobody", a]));
    assert_eq!(code, 2);
    assert!(err.contains("no agent \"nobody\""), "{err}");
}
