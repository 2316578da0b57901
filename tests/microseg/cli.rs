//! The application's own command-line surface, in-process: `netpress microseg exec` driving a
//! repair task command by command and a policy task with one program, and `netpress microseg
//! logs` writing the visible flow logs in each provider's format.

use netpress::cli::Console;
use netpress::flows::Format;
use netpress::flows::format::{Inventory, parse};
use netpress::microseg::fault::fix;
use netpress::microseg::generate;
use netpress::microseg::score::star_policy;
use netpress::registry::Registry;

/// Runs the CLI with `stdin`; its exit code, standard output and standard error.
fn cli(args: &[&str], stdin: &str) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let argv = std::iter::once("netpress").chain(args.iter().copied());
    let code =
        netpress::cli::main(Registry::standard(), argv, Console::new(stdin.as_bytes(), &mut out, &mut err));
    (code, String::from_utf8_lossy(&out).into_owned(), String::from_utf8_lossy(&err).into_owned())
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("netpress-microseg-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

const REPAIR: &str = "microseg-v1-L2-s0-i4";

#[test]
fn exec_runs_typed_repair_commands_one_turn_each() {
    let (code, out, err) = cli(&["microseg", "exec", "--task", REPAIR], "show groups\n# a comment\ncheck\n");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(&format!("# {REPAIR}  content hash ")), "{out}");
    assert!(out.contains("## turn 1: show groups\n> show groups\ngroup "), "{out}");
    assert!(out.contains("## turn 2: check\n> check\n"), "{out}");
    assert!(!out.contains("## turn 3"), "{out}");
    assert!(out.contains("## score\n"), "{out}");
    assert!(!out.contains("no command block"), "{out}");
}

#[test]
fn exec_runs_a_fenced_block_as_one_turn_and_the_known_fix_solves() {
    let g = generate(&REPAIR.parse().unwrap()).unwrap();
    let block = fix(&star_policy(&g.world), &g.faults);
    assert!(block.starts_with("```\n") && block.lines().count() > 2, "{block}");
    let (code, out, err) = cli(&["microseg", "exec", "--task", REPAIR, "--prompt"], &block);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Commands (one or more per turn"), "the prompt first: {out}");
    assert!(out.contains("## turn 1: "), "{out}");
    assert!(!out.contains("## turn 2"), "one block is one turn: {out}");
    assert!(out.contains("Report:\nNo findings."), "{out}");
    let score = out.split("## score\n").nth(1).unwrap();
    assert!(score.starts_with("correct, safe"), "{score}");
}

#[test]
fn exec_runs_a_policy_program_as_one_answer() {
    let program = "def process_flows(F, G):\n    return {'type': 'policy', 'data': {'groups': {}, 'rules': [], 'default': 'deny'}}\n";
    let (code, out, err) = cli(&["microseg", "exec", "--task", "microseg-v1-L1-s0-i2"], program);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("## turn 1: python\nReturned an answer of type policy."), "{out}");
    let score = out.split("## score\n").nth(1).unwrap();
    assert!(score.starts_with("incorrect, unsafe"), "a deny-all policy denies every benign key: {score}");
}

#[test]
fn exec_refuses_bad_ids_in_one_line() {
    let (code, _, err) = cli(&["microseg", "exec", "--task", "microseg-v9-L2-s0-i4"], "check\n");
    assert_ne!(code, 0);
    assert!(err.contains("unknown generator version v9"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn logs_print_the_tasks_own_format_as_f_raw_shows_it() {
    let id = "microseg-v1-L1-s3-i2-d15";
    let (code, out, err) = cli(&["microseg", "logs", "--task", id], "");
    assert_eq!(code, 0, "{err}");
    // Level 1 renders Azure virtual network flow logs.
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(v["records"][0]["flowLogVersion"], 4, "{out:.300}");
    let g = generate(&id.parse().unwrap()).unwrap();
    assert_eq!(out, g.world.logs(Format::Vnet4));
    let (again, out2, _) = cli(&["microseg", "logs", "--task", id, "--format", "vnet4"], "");
    assert_eq!((again, out2), (0, out), "the same bytes twice");
}

#[test]
fn logs_write_every_provider_format_and_each_parses_back_without_the_hidden_window() {
    let id = "microseg-v1-L2-s1-i0-d16";
    let dir = tmp("all");
    let (code, out, err) =
        cli(&["microseg", "logs", "--task", id, "--format", "all", "-o", dir.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 5, "{out}");
    let g = generate(&id.parse().unwrap()).unwrap();
    let inv = Inventory::new(&g.world.trace.vms);
    let vis_end_s = netpress::flows::T0 + g.world.vis_end / 1000;
    for (f, name) in [
        (Format::Aws2, "flows.aws2.log"),
        (Format::Aws5, "flows.aws5.log"),
        (Format::Nsg2, "flows.nsg2.json"),
        (Format::Vnet4, "flows.vnet4.json"),
        (Format::Gcp, "flows.gcp.jsonl"),
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(text, g.world.logs(f), "{name}");
        let (records, _, _) = parse(f, &text, &inv).unwrap_or_else(|e| panic!("{name}: {e}")).into_parts();
        assert!(!records.is_empty(), "{name}");
        assert!(records.iter().all(|r| r.t < vis_end_s), "{name}: a record of the hidden window");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn logs_arguments_fail_with_one_line_and_exit_2() {
    for (args, want) in [
        (&["microseg", "logs"][..], "--task ID is required"),
        (
            &["microseg", "logs", "--task", REPAIR, "--format", "csv"],
            "--format takes aws2, aws5, nsg2, vnet4, gcp or all",
        ),
        (&["microseg", "logs", "--task", REPAIR, "--format", "all"], "give -o DIR"),
        (&["microseg", "logs", "--task", "route-v1-L1-s0-i0"], "not a microseg id"),
        (&["microseg", "logs", "--task", REPAIR, "--bogus"], "unknown argument \"--bogus\""),
    ] {
        let (code, out, err) = cli(args, "");
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.starts_with("netpress microseg logs: ") && err.contains(want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let (code, out, _) = cli(&["microseg", "logs", "--help"], "");
    assert_eq!(code, 0);
    assert!(out.starts_with("usage: netpress microseg logs --task ID"), "{out}");
}
