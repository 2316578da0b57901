//! The episode: one action per turn, the report after every step, and the score.
//!
//! A turn parses the reply (first fenced block, else a JSON `command`, else the whole reply
//! when it starts with a known program), runs it in the shell at the current virtual time,
//! advances the clock by 20 s, re-evaluates the probe matrix and answers with the command's
//! output and the report. Parse failures and refusals use a turn and still get a report.
//! The probe matrix after every turn and kubectl's refusals go to the shared reactive scorer
//! ([`crate::score`]); this module only words the card in probes and mismatches.

use std::sync::Arc;

use super::generate::expected;
use super::hygiene;
use super::kubectl::Env;
use super::meta::TURN_SECONDS;
use super::probe::{Matrix, Verdict, evaluate_cluster, mismatch_line, probes, report};
use super::shell;
use super::task::TaskData;
use super::tenancy::{AdminSet, intended_admin};
use super::view;
use crate::app::{Episode, Finish, Score, ScoreDetails, StepOutcome};
use crate::reply::{bounded, fenced_blocks, json_objects};
use crate::score::{self, Breach, Reactive, Refusal, Tally, Wording};
use crate::view::{Panel, Picture};

/// Programs a reply may start with to count as a bare command.
const PROGRAMS: [&str; 9] = ["kubectl", "cat", "echo", "grep", "head", "tail", "wc", "true", "false"];

const NO_COMMAND: &str = "netpress: no command found in your reply. Reply with one command or a short script in a fenced code block, for example:\n```bash\nkubectl get networkpolicies\n```";

/// The action of a reply, with parsing notes; `Err` when none can be found.
pub fn extract_action(reply: &str) -> Result<(String, Vec<String>), Vec<String>> {
    let mut notes = Vec::new();
    let (text, cut) = bounded(reply);
    if cut {
        notes.push("reply cut to 256 KiB".to_string());
    }
    let fences = fenced_blocks(text);
    if let Some(first) = fences.first() {
        if fences.len() > 1 {
            notes.push(format!("only the first of {} code blocks ran", fences.len()));
        }
        let body: Vec<&str> = first.body.lines().map(|l| l.strip_prefix("$ ").unwrap_or(l)).collect();
        return Ok((body.join("\n"), notes));
    }
    if let Some(cmd) =
        json_objects(text).iter().find_map(|o| o.get("command").and_then(|c| c.as_str()).map(str::to_string))
    {
        notes.push("command taken from a JSON object".to_string());
        return Ok((cmd, notes));
    }
    let trimmed = text.trim();
    let first = trimmed.split_whitespace().next().unwrap_or("");
    if PROGRAMS.contains(&first) {
        return Ok((trimmed.strip_prefix("$ ").unwrap_or(trimmed).to_string(), notes));
    }
    notes.push("no command found".to_string());
    Err(notes)
}

/// A running episode.
pub struct K8sEpisode {
    data: Arc<TaskData>,
    env: Env,
    max_turns: u32,
    turns: u32,
    matrix: Matrix,
    stopped: bool,
    tracker: Reactive,
}

/// The probe matrix as behaviours: each probe gets the verdict the intent gives it.
fn holds(actual: &[Verdict]) -> Vec<bool> {
    expected().iter().zip(actual).map(|(e, a)| e == a).collect()
}

impl K8sEpisode {
    pub fn new(data: Arc<TaskData>, max_turns: u32) -> Self {
        let env = Env::new(data.cluster.clone(), data.verbs);
        let matrix = data.initial.clone();
        let tracker = Reactive::new(holds(&matrix));
        K8sEpisode { data, env, max_turns: max_turns.max(1), turns: 0, matrix, stopped: false, tracker }
    }

    fn observation(&self, output: &str) -> String {
        let body = if output.is_empty() { "(no output)" } else { output.trim_end_matches('\n') };
        format!("Command output:\n{body}\n\nConnectivity report:\n{}", report(expected(), &self.matrix))
    }

    /// Hands the turn's matrix and kubectl's refusals to the scorer.
    fn record(&mut self, action: &str) {
        for r in self.env.refusals.drain(..) {
            let reason = format!("kubectl {}", r.verb);
            self.tracker.refuse(Refusal { turn: r.turn, action: r.command, reason });
        }
        self.tracker.observe(self.turns, action, holds(&self.matrix));
    }
}

impl Episode for K8sEpisode {
    fn step(&mut self, reply: &str) -> StepOutcome {
        if let Some(f) = self.finished() {
            let why = match f {
                Finish::Solved => "it is solved",
                Finish::TurnLimit => "the turn limit was reached",
                _ => "it was stopped",
            };
            return StepOutcome {
                observation: format!("The episode has ended ({why}); no further commands run."),
                ..StepOutcome::default()
            };
        }
        self.turns += 1;
        self.env.turn = self.turns;
        let (action, output, status, notes) = match extract_action(reply) {
            Ok((action, notes)) => {
                let run = shell::run(&action, &mut self.env);
                (action, run.output, Some(run.status), notes)
            }
            Err(notes) => (String::new(), format!("{NO_COMMAND}\n"), None, notes),
        };
        self.env.cluster.now += TURN_SECONDS;
        self.matrix = evaluate_cluster(&self.env.cluster);
        self.record(&action);
        StepOutcome { observation: self.observation(&output), action, output, exit_status: status, notes }
    }

    fn finished(&self) -> Option<Finish> {
        Finish::reactive(self.tracker.all_hold(), self.turns, self.max_turns, self.stopped)
    }

    fn turns(&self) -> u32 {
        self.turns
    }

    fn score(&self) -> Score {
        let words = Words { matrix: &self.matrix, turns: self.turns };
        let none = AdminSet::new();
        let admin = if self.data.card.level == 4 { intended_admin() } else { &none };
        score::score(&self.tracker, self.turns, &words, hygiene::notes(&self.env.cluster, admin))
    }

    fn panels(&self) -> Vec<Panel> {
        view::panels(&self.data.initial, &self.matrix)
    }

    fn stop(&mut self) {
        self.stopped = true;
    }

    fn picture(&self) -> Option<Picture> {
        Some(view::call_graph(Some(&self.matrix), "Call graph under the current policies"))
    }
}

/// K8s's wording: behaviours are probes, wrong ones are mismatches of the report.
struct Words<'a> {
    matrix: &'a Matrix,
    turns: u32,
}

/// Probes a list on the card shows at most: a broken policy can flip hundreds.
const LISTED: usize = 20;

impl Wording for Words<'_> {
    fn wrong(&self, i: usize) -> String {
        mismatch_line(i, expected()[i], self.matrix[i])
    }

    fn broken(&self, i: usize) -> String {
        let p = &probes()[i];
        format!("{} \u{2192} {} (expected {})", p.src, p.target(), expected()[i].as_str())
    }

    fn listed(&self) -> usize {
        LISTED
    }

    fn all_hold(&self, t: &Tally<'_>) -> String {
        format!("The final report shows no mismatch (all {} probes as intended).", t.behaviours)
    }

    fn some_wrong(&self, t: &Tally<'_>) -> String {
        format!("{} of {} probes still differ from the intent:", t.wrong.len(), t.behaviours)
    }

    fn no_breach(&self) -> String {
        "No turn broke a probe that was correct right after injection.".into()
    }

    fn breach(&self, b: &Breach) -> String {
        format!(
            "Turn {} broke {} probe(s) that were correct right after injection:",
            b.turn,
            b.behaviours.len()
        )
    }

    fn refusal(&self, r: &Refusal) -> String {
        format!("turn {}: refused `{}`: {}", r.turn, r.reason, r.action)
    }

    fn explanation(&self, t: &Tally<'_>, details: &ScoreDetails) -> String {
        let safety = match t.breach {
            None => "safe".to_string(),
            Some(b) => format!("unsafe (turn {})", b.turn),
        };
        let refused = match details.blocked.len() {
            0 => String::new(),
            n => format!("; {n} refused command(s)"),
        };
        format!(
            "{} after {} turn(s): {} of {} initial mismatches repaired ({:.0}%), {} newly broken; {safety}{refused}.",
            if t.correct() { "Solved" } else { "Not solved" },
            self.turns,
            t.repaired,
            t.broken_at_start,
            t.progress() * 100.0,
            t.newly_broken,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_from_replies() {
        let (a, _) = extract_action("Let me look.\n```bash\n$ kubectl get netpol\n```").unwrap();
        assert_eq!(a, "kubectl get netpol");
        let (a, n) = extract_action(r#"{"command": "kubectl get pods"}"#).unwrap();
        assert_eq!((a.as_str(), n.len()), ("kubectl get pods", 1));
        assert_eq!(extract_action("kubectl get svc").unwrap().0, "kubectl get svc");
        assert!(extract_action("I think the policy is wrong.").is_err());
        let (a, n) = extract_action("```\nx\n```\n```\ny\n```").unwrap();
        assert_eq!(a, "x");
        assert!(n[0].contains("first of 2"));
    }
}
