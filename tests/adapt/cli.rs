//! `netpress adapt` end to end: `--confirm-each` confirms after every promoting round, and
//! `adapt report --format csv` writes the table for spreadsheets.

use netpress::adapt::{Observer, Pin, Reference, Search, Settings, State};
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
