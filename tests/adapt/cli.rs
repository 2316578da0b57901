//! `netpress adapt` end to end: `--confirm-each` confirms after every promoting round,
//! `adapt report --format csv` writes the table for spreadsheets, the agent's turn hold is kept
//! in the state so a resume runs the same agent, and `adapt export` writes what the Adapt view
//! downloads.

use netpress::adapt::{
    ExportFormat, Linked, Observer, Pin, Reference, Remote, SCHEMA_V1, ScoreKind, Search, Settings,
    SpaceSpec, State, export_linked,
};
use netpress::cli::Console;
use netpress::conversation::AgentInfo;
use netpress::registry::Registry;
use netpress::run::Cancel;

use super::fake::drive;

/// Runs the CLI; its exit code, standard output and standard error.
fn cli(args: &[&str]) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let argv = std::iter::once("netpress").chain(args.iter().copied());
    let code = netpress::cli::main(Registry::standard(), argv, Console::new(&b""[..], &mut out, &mut err));
    (code, String::from_utf8_lossy(&out).into_owned(), String::from_utf8_lossy(&err).into_owned())
}

/// The rounds after which each saved state's confirmations were made.
struct Confirmed(Vec<u32>);
impl Observer for Confirmed {
    fn save(&mut self, state: &State) -> std::io::Result<()> {
        if !state.confirmations.is_empty() && self.0.last() != Some(&state.confirmed_after) {
            self.0.push(state.confirmed_after);
        }
        Ok(())
    }
}

#[test]
fn confirm_each_confirms_after_every_promoting_round() {
    let app = Registry::standard().app("route").unwrap();
    let mut s = Settings::new(Reference::Baseline);
    (s.rounds, s.budget, s.random, s.k, s.confirm, s.seed) = (3, 6, 4, 3, 6, 2);
    s.pins = vec![
        Pin { dim: "level".into(), values: vec!["1".into(), "2".into()] },
        Pin { dim: "turns".into(), values: vec!["10".into()] },
    ];
    s.confirm_each = true;
    let mut search = Search::new(app, s, AgentInfo::new("fake", "subnets>=6")).unwrap();
    let mut seen = Confirmed(Vec::new());
    assert!(drive(app, &mut search, "subnets>=6", 2, &Cancel::new(), &mut seen));
    let promoting: Vec<u32> = search.state().rounds.iter().filter(|r| r.promoted).map(|r| r.round).collect();
    let mut expected = promoting.clone();
    if expected.last() != Some(&3) {
        expected.push(3);
    }
    assert!(!promoting.is_empty());
    assert_eq!(seen.0, expected, "confirmed after these rounds");
}

#[test]
fn the_cli_takes_confirm_each_and_writes_csv() {
    let dir = std::env::temp_dir().join(format!("netpress-adapt-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let state = dir.join("state.json");
    let state = state.to_str().unwrap();
    let args = [
        "adapt",
        "--app",
        "route",
        "--agent",
        "fake:subnets>=6",
        "--levels",
        "1",
        "--turns",
        "10",
        "--rounds",
        "2",
        "--budget",
        "4",
        "--k",
        "3",
        "--confirm",
        "6",
        "--confirm-each",
        "--state",
        state,
    ];
    let (code, _, err) = cli(&args);
    assert_eq!(code, 0, "{err}");
    let saved = State::parse(&std::fs::read_to_string(state).unwrap()).unwrap();
    assert!(saved.settings.confirm_each);
    assert_eq!(saved.confirmed_after, 2);
    let (code, csv, err) = cli(&["adapt", "report", state, "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    let mut lines = csv.lines();
    assert!(
        lines.next().unwrap().starts_with("rank,cell,round,weight,search_gap,k,agent,agent_lo,agent_hi,")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), saved.confirmations.len());
    assert!(rows.iter().all(|r| r.split(',').count() == 15), "{csv}");
    let (code, _, err) = cli(&["adapt", "report", state, "--format", "tsv"]);
    assert_eq!(code, 2);
    assert!(err.contains("markdown, csv, json"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("netpress-adapt-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `netpress adapt` on Route level 1 with the baseline held to `held` turns.
fn held_search(state: &str, rounds: &str, held: Option<&str>, resume: bool) -> (u8, String) {
    let mut args = vec!["adapt", "--app", "route", "--agent", "baseline", "--levels", "1", "--turns", "10"];
    args.extend(["--rounds", rounds, "--budget", "4", "--k", "3", "--confirm", "6", "--state", state]);
    if let Some(t) = held {
        args.extend(["--max-turns", t]);
    }
    if resume {
        args.push("--resume");
    }
    let (code, _, err) = cli(&args);
    (code, err)
}

#[test]
fn the_turn_hold_is_kept_in_the_state_and_a_resume_runs_the_same_agent() {
    let dir = scratch("held");
    let (whole, part) = (dir.join("whole.json"), dir.join("part.json"));
    let (whole, part) = (whole.to_str().unwrap(), part.to_str().unwrap());
    let (code, err) = held_search(whole, "2", Some("1"), false);
    assert_eq!(code, 0, "{err}");
    let saved = State::parse(&std::fs::read_to_string(whole).unwrap()).unwrap();
    assert_eq!(saved.settings.max_turns, Some(1));
    assert!(saved.promotions.iter().any(|p| p.gap > 0.0), "one turn is too few for some tasks");
    // One round, then a resume that does not repeat --max-turns and asks for one round more
    // (mode train's `--rounds +1`): the same bytes.
    assert_eq!(held_search(part, "1", Some("1"), false).0, 0);
    let (code, err) = held_search(part, "+1", None, true);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(part).unwrap(), std::fs::read_to_string(whole).unwrap());
    // A different hold is refused, naming the setting.
    let (code, err) = held_search(part, "2", Some("2"), true);
    assert_ne!(code, 0);
    assert!(err.contains("max_turns"), "{err}");
    let (code, err) = held_search(part, "+x", None, true);
    assert_eq!(code, 2);
    assert!(err.contains("a number or +N"), "{err}");
    // A state from before the hold was stored reads but does not continue.
    let old = State { schema: SCHEMA_V1.into(), ..saved };
    std::fs::write(part, old.to_json()).unwrap();
    let (code, err) = held_search(part, "3", Some("1"), true);
    assert_ne!(code, 0);
    assert!(err.contains("does not record the agent's turn limit"), "{err}");
    let (code, _, err) = cli(&["adapt", "report", part, "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_cli_export_is_the_page_export() {
    let dir = scratch("export");
    let state = dir.join("state.json");
    let state = state.to_str().unwrap();
    assert_eq!(held_search(state, "1", Some("1"), false).0, 0);
    let app = Registry::standard().app("route").unwrap();
    let saved = State::parse(&std::fs::read_to_string(state).unwrap()).unwrap();
    // The page's path: the space and ids come from the engine through a spec, as from a worker.
    let spec: SpaceSpec = serde_json::from_str(&serde_json::to_string(&SpaceSpec::of(app)).unwrap()).unwrap();
    let remote = Remote::new(app.info(), &spec).unwrap();
    let search = Search::from_state(&remote, saved).unwrap();
    let agent =
        |_: &str| -> Box<dyn netpress::conversation::Agent> { unreachable!("an export runs nothing") };
    let mut host = Linked { app, agent: &agent, settings: Default::default(), score: ScoreKind::Correct };
    for (format, name) in [(ExportFormat::Mixture, "mixture"), (ExportFormat::Ids, "ids")] {
        let (code, cli_bytes, err) = cli(&["adapt", "export", state, "--format", name, "--count", "200"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(export_linked(&search, &remote, &mut host, format, 200).unwrap(), cli_bytes, "{name}");
    }
    // rl lines hold generated tasks, which the page's worker writes: the same lines but for the
    // command the provenance names.
    let (code, ids, _) = cli(&["adapt", "export", state, "--format", "ids", "--count", "30"]);
    assert_eq!(code, 0);
    let (code, rl, err) =
        cli(&["adapt", "export", state, "--format", "rl", "--count", "30", "--prompt", "fewshot_cot"]);
    assert_eq!(code, 0, "{err}");
    let mut worker = netpress::sandbox::worker::Worker::new(Registry::standard());
    let text = std::fs::read_to_string(state).unwrap();
    let request =
        serde_json::json!({"op": "curriculum", "state": text, "count": 30, "variant": "fewshot_cot"});
    let answer: serde_json::Value = serde_json::from_str(&worker.handle(&request.to_string())[0]).unwrap();
    let page = answer["text"].as_str().unwrap_or_else(|| panic!("{answer}"));
    let lines = |text: &str| -> Vec<serde_json::Value> {
        text.lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["netpress"]["command"] = serde_json::Value::Null;
                v
            })
            .collect()
    };
    let (cli_lines, page_lines) = (lines(&rl), lines(page));
    assert_eq!(cli_lines, page_lines);
    assert_eq!(cli_lines.len(), 30);
    for (line, id) in cli_lines.iter().zip(ids.lines()) {
        // The task as `netpress export --rl` writes it, and its place in the curriculum.
        let generated = netpress::registry::generate(id).unwrap();
        assert_eq!(line["task_id"], id);
        assert_eq!(line["prompt"], generated.prompt(netpress::app::PromptVariant::FewshotCot));
        assert_eq!(line["expected"], generated.card().expected);
        assert_eq!(line["prompt_variant"], "fewshot_cot");
        assert!(line["curriculum"]["component"].is_u64() && line["curriculum"]["weight"].is_f64(), "{line}");
        assert_eq!(line["netpress"]["schema"], "netpress.rl.v1");
    }
    let (code, _, err) = cli(&["adapt", "export", state, "--format", "csv"]);
    assert_eq!(code, 2);
    assert!(err.contains("ids, rl, mixture"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
