//! The Route app through the command-line tool, end to end: `generate`, `run` with the
//! baseline and with a replay file, and `netpress route exec` driving a task by hand.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_netpress");

fn netpress(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("netpress runs");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("stdin written");
    child.wait_with_output().expect("netpress finishes")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("netpress-route-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

#[test]
fn route_generate_writes_task_lines_and_is_deterministic() {
    let args = ["generate", "--app", "route", "--level", "2", "--seed", "5", "--count", "20"];
    let a = netpress(&args, "");
    assert!(a.status.success(), "{}", text(&a.stderr));
    let b = netpress(&args, "");
    assert_eq!(a.stdout, b.stdout);
    let lines: Vec<serde_json::Value> =
        text(&a.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    assert_eq!(lines.len(), 20);
    for (i, t) in lines.iter().enumerate() {
        assert_eq!(t["id"], format!("route-v1-L2-s5-i{i}"));
        for key in ["app", "level", "label", "prompt", "content_hash", "params", "expected"] {
            assert!(!t[key].is_null(), "{key} missing");
        }
        assert!(t["prompt"].as_str().unwrap().contains("Pingall result:"));
        assert!(t["expected"]["fix"].as_array().is_some_and(|f| !f.is_empty()));
    }
    let one = netpress(&["generate", "--id", "route-v1-L2-s5-i3"], "");
    assert!(one.status.success(), "{}", text(&one.stderr));
    let one: serde_json::Value = serde_json::from_slice(&one.stdout).expect("pretty JSON");
    assert_eq!(one["content_hash"], lines[3]["content_hash"]);
}

#[test]
fn route_run_baseline_and_replay_write_records() {
    let out = tmp("baseline.jsonl");
    let run = netpress(
        &["run", "--app", "route", "--agent", "baseline", "--levels", "1,2", "--seeds", "0..4", "-o"]
            .iter()
            .copied()
            .chain([out.to_str().unwrap()])
            .collect::<Vec<_>>(),
        "",
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let summary = text(&run.stdout) + &text(&run.stderr);
    assert!(summary.contains('['), "a Wilson interval is printed: {summary}");
    let records: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .expect("results written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .collect();
    assert_eq!(records.len(), 10);
    for r in &records {
        assert_eq!(r["app"], "route");
        assert!(r["score"]["correct"].is_boolean() && r["score"]["safe"].is_boolean());
        assert!(r["turns"].as_array().is_some_and(|t| !t.is_empty()));
    }
    assert!(records.iter().any(|r| r["score"]["correct"] == true));

    // Replaying the baseline's own results reproduces its scores.
    let again = tmp("replayed.jsonl");
    let agent = format!("replay:{}", out.display());
    let replay = netpress(
        &["run", "--app", "route", "--agent", &agent, "--levels", "1,2", "--seeds", "0..4", "-q", "-o"]
            .iter()
            .copied()
            .chain([again.to_str().unwrap()])
            .collect::<Vec<_>>(),
        "",
    );
    assert!(replay.status.success(), "{}", text(&replay.stderr));
    let replayed: Vec<serde_json::Value> = std::fs::read_to_string(&again)
        .expect("results written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .collect();
    assert_eq!(replayed.len(), records.len());
    for (a, b) in records.iter().zip(&replayed) {
        assert_eq!(a["id"], b["id"]);
        assert_eq!(a["score"]["correct"], b["score"]["correct"], "{}", a["id"]);
        assert_eq!(a["score"]["safe"], b["score"]["safe"], "{}", a["id"]);
        assert_eq!(a["score"]["progress"], b["score"]["progress"], "{}", a["id"]);
    }

    // A plain-text replay of `machine: command` lines.
    let lines = tmp("fix.txt");
    std::fs::write(&lines, "# DR1 on r0\nr0: sysctl -w net.ipv4.ip_forward=1\n").expect("written");
    let agent = format!("replay:{}", lines.display());
    let plain_out = tmp("plain.jsonl");
    let plain = netpress(
        &[
            "run", "--app", "route", "--agent", &agent, "--levels", "1", "--seeds", "0..20", "--label", "DR",
            "-q", "-o",
        ]
        .iter()
        .copied()
        .chain([plain_out.to_str().unwrap()])
        .collect::<Vec<_>>(),
        "",
    );
    assert!(plain.status.success(), "{}", text(&plain.stderr));
    let plain: Vec<serde_json::Value> = std::fs::read_to_string(&plain_out)
        .expect("results written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .collect();
    assert!(!plain.is_empty());
    for r in &plain {
        assert_eq!(r["label"], "DR");
        let first = r["turns"][0]["observation"].as_str().unwrap();
        assert!(first.starts_with("Machine: r0\nCommand: sysctl -w net.ipv4.ip_forward=1\n"), "{first}");
    }
    // DR1 tasks are solved by that line; the other DR variants are not.
    assert!(plain.iter().any(|r| r["score"]["correct"] == true));
}

/// `run` takes tasks level by level; `--interleave` takes every level of a seed together, so a
/// prefix (`--queries`) mixes the levels.
#[test]
fn run_orders_levels_or_interleaves_them() {
    let ids = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["run", "--app", "route", "--seeds", "0..1", "--queries", "4", "-q"];
        args.extend_from_slice(extra);
        let o = netpress(&args, "");
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).expect("record")["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    assert_eq!(
        ids(&[]),
        ["route-v1-L1-s0-i0", "route-v1-L1-s1-i0", "route-v1-L2-s0-i0", "route-v1-L2-s1-i0"]
    );
    assert_eq!(
        ids(&["--interleave"]),
        ["route-v1-L1-s0-i0", "route-v1-L2-s0-i0", "route-v1-L3-s0-i0", "route-v1-L1-s1-i0"]
    );
}

#[test]
fn route_exec_prints_output_and_matrix_after_each_command() {
    // route-v1-L1-s0-i0-fDR-n2-m1: one fault of family DR on r0 with two hosts.
    let id = "route-v1-L1-s0-i0-n2-m1-fDR";
    let task = netpress(&["generate", "--id", id], "");
    assert!(task.status.success(), "{}", text(&task.stderr));
    let task: serde_json::Value = serde_json::from_slice(&task.stdout).expect("task JSON");
    let fix: Vec<String> = task["expected"]["fix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{}: {}", s["machine"].as_str().unwrap(), s["command"].as_str().unwrap()))
        .collect();
    let input =
        format!("h1: ip route\n{{\"machine\": \"r0\", \"command\": \"ip -br addr\"}}\n{}\n", fix.join("\n"));
    let out = netpress(&["route", "exec", "--task", id], &input);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(
        stdout.contains(
            "Machine: h1\nCommand: ip route\nCommand output:\ndefault via 192.168.1.1 dev h1-eth0 \n"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("Machine: r0\nCommand: ip -br addr\nCommand output:\nlo "), "{stdout}");
    assert!(stdout.matches("Pingall result:\n").count() >= 3, "{stdout}");
    assert!(stdout.contains("*** Results: 0% dropped (6/6 received)"), "{stdout}");
    assert!(stdout.contains("## score"), "{stdout}");

    // The same from a file, with the prompt first.
    let file = tmp("exec.txt");
    std::fs::write(&file, &input).expect("written");
    let out = netpress(&["route", "exec", "--task", id, "--file", file.to_str().unwrap(), "--prompt"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Pingall result:"));

    // Errors are one line and a non-zero exit, never a panic.
    let bad = netpress(&["route", "exec", "--task", "route-v9-L1-s0-i0"], "");
    assert!(!bad.status.success());
    assert!(!text(&bad.stderr).contains("panicked"), "{}", text(&bad.stderr));
}
