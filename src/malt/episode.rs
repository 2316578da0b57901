//! The MALT episode: single-shot by default; with a turn limit up to 5,
//! a reply without usable code, an exception, a limit or an invalid return is an observation
//! and the agent may resubmit, while a valid answer ends the episode without revealing
//! whether it is correct. Every turn starts from a fresh working graph; the last is scored.

use std::sync::Arc;

use crate::app::{Episode, Finish, Score, ScoreDetails, StepOutcome};
use crate::view::{Panel, Tone};

use super::answer::{self, Answer};
use super::check::{self, Verdict};
use super::diff::DiffReport;
use super::extract;
use super::generate::Generated;
use super::graph::Working;
use super::sandbox::{self, Limits};

/// The most turns an episode allows.
pub const MAX_TURNS: u32 = 5;

/// The most bytes of a traceback an observation repeats (`raise ValueError('x' * 10**7)`
/// would otherwise flood the terminal and the record).
pub const MAX_ERROR_BYTES: usize = 8 * 1024;

/// `text` cut at `max` bytes (on a character boundary), with its full length said.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[cut at {max} bytes: {} bytes in all]", &text[..end], text.len())
}

/// One submission and what it left.
#[derive(Debug, Clone)]
struct Attempt {
    answer: Result<Answer, String>,
    graph: Working,
    stdout: String,
    host_calls: u64,
    elapsed_ms: f64,
}

/// A live MALT episode.
pub struct MaltEpisode {
    task: Arc<Generated>,
    limits: Limits,
    max_turns: u32,
    turns: u32,
    last: Option<Attempt>,
    finish: Option<Finish>,
}

impl MaltEpisode {
    pub fn new(task: Arc<Generated>, max_turns: u32, limits: Limits) -> MaltEpisode {
        MaltEpisode {
            task,
            limits,
            max_turns: max_turns.clamp(1, MAX_TURNS),
            turns: 0,
            last: None,
            finish: None,
        }
    }

    fn fresh(&self) -> Working {
        Working::new(self.task.topology.clone())
    }

    /// The verdict on the last attempt (or on no answer at all).
    pub fn verdict(&self) -> Verdict {
        match &self.last {
            Some(a) => check::judge(&self.task.expected, a.answer.as_ref().map_err(String::as_str), &a.graph),
            None => check::judge(&self.task.expected, Err("no answer was given"), &self.fresh()),
        }
    }

    fn attempt(&self, reply: &str) -> (Attempt, String, Vec<String>) {
        let source = match extract::extract(reply) {
            Ok(s) => s,
            Err(e) => {
                let a = Attempt {
                    answer: Err(e),
                    graph: self.fresh(),
                    stdout: String::new(),
                    host_calls: 0,
                    elapsed_ms: 0.0,
                };
                return (a, String::new(), Vec::new());
            }
        };
        let run = sandbox::run(&source.program(), self.fresh(), &self.limits);
        let mut stdout = run.stdout;
        if run.stdout_truncated {
            stdout.push_str("\n[output cut at 16 KiB]");
        }
        let answer = run
            .value
            .map_err(|e| cut(&e, MAX_ERROR_BYTES))
            .and_then(|v| answer::parse(v).map_err(|e| format!("Invalid return: {e}")));
        let a = Attempt {
            answer,
            graph: run.graph,
            stdout,
            host_calls: run.host_calls,
            elapsed_ms: run.elapsed_ms,
        };
        (a, source.code, source.notes)
    }

    /// What the agent sees: deterministic (no timings), so a replayed answer gets the same
    /// observation everywhere.
    fn observation(&self, a: &Attempt, notes: &[String]) -> String {
        let mut text = String::new();
        for n in notes {
            text.push_str(&format!("Note: {n}.\n"));
        }
        match &a.answer {
            Ok(answer) => text.push_str(&format!(
                "Answer received ({}; {} calls to G). The episode is over and will be scored.",
                answer.summary(),
                a.host_calls
            )),
            Err(e) => {
                text.push_str(e);
                let left = self.max_turns.saturating_sub(self.turns);
                if left > 0 {
                    text.push_str(&format!(
                        "\n\nFix it and reply with the whole process_graph function again ({left} turn{} left).",
                        if left == 1 { "" } else { "s" }
                    ));
                }
            }
        }
        if !a.stdout.is_empty() {
            text.push_str(&format!("\n\nYour code printed:\n{}", a.stdout));
        }
        text
    }
}

impl Episode for MaltEpisode {
    fn step(&mut self, reply: &str) -> StepOutcome {
        if self.finish.is_some() {
            return StepOutcome::over();
        }
        self.turns += 1;
        let (attempt, code, notes) = self.attempt(reply);
        let observation = self.observation(&attempt, &notes);
        let output = match &attempt.answer {
            Ok(a) => format!("{}{}", attempt.stdout, a.summary()),
            Err(e) => format!("{}{e}", attempt.stdout),
        };
        let exit_status = Some(i32::from(attempt.answer.is_err()));
        self.finish = Finish::constructive(attempt.answer.is_ok(), self.turns, self.max_turns);
        self.last = Some(attempt);
        StepOutcome { action: code, output, exit_status, observation, notes }
    }

    fn finished(&self) -> Option<Finish> {
        self.finish
    }

    fn turns(&self) -> u32 {
        self.turns
    }

    fn score(&self) -> Score {
        let v = self.verdict();
        let mut correctness = v.correctness.clone();
        if !sandbox::available() {
            correctness.push(sandbox::UNAVAILABLE.to_string());
        }
        let safety = if v.safe { vec!["S1–S6 hold".to_string()] } else { v.safety.clone() };
        let explanation = format!(
            "{} ({}). {} ({}). Progress {:.0}% ({}).",
            if v.correct { "Correct" } else { "Not correct" },
            v.correctness.join("; "),
            if v.safe { "Safe" } else { "Not safe" },
            if v.safe {
                "every safety rule holds".to_string()
            } else {
                format!("{} violations", v.violations.len())
            },
            v.progress * 100.0,
            v.progress_note
        );
        Score {
            correct: v.correct,
            safe: v.safe,
            progress: v.progress,
            turns: self.turns,
            latency_ms: None,
            tokens: None,
            explanation,
            details: ScoreDetails { correctness, safety, diff: v.diff, ..Default::default() },
        }
    }

    fn panels(&self) -> Vec<Panel> {
        let Some(a) = &self.last else {
            return vec![Panel::Lines {
                title: "Graph diff".into(),
                summary: "no answer yet".into(),
                lines: vec![],
            }];
        };
        vec![self.diff_panel(a), self.safety_panel(), answer_panel(a)]
    }

    fn stop(&mut self) {
        if self.finish.is_none() {
            self.finish = Some(Finish::TurnLimit);
        }
    }
}

impl MaltEpisode {
    /// The agent's net diff; once finished, compared with the expected one.
    fn diff_panel(&self, a: &Attempt) -> Panel {
        let diff = a.graph.net_diff();
        if self.finish.is_none() {
            let lines: Vec<(Tone, String)> =
                diff.iter().take(50).map(|i| (Tone::Neutral, i.to_string())).collect();
            return Panel::Lines {
                title: "Graph diff".into(),
                summary: format!("{} changes", diff.len()),
                lines,
            };
        }
        let r = DiffReport::compare(&self.task.expected.diff, &diff);
        let mut lines: Vec<(Tone, String)> = Vec::new();
        let unexpected: Vec<String> = r.unexpected.iter().map(ToString::to_string).collect();
        for item in &self.task.expected.diff {
            let wrong = r.wrong.iter().find(|(w, _)| w == item);
            let missing = r.missing.contains(item);
            lines.push(match (wrong, missing) {
                (Some((_, got)), _) => (Tone::Bad, format!("wrong value: {got} (expected {item})")),
                (None, true) => (Tone::Bad, format!("missing: {item}")),
                _ => (Tone::Good, item.to_string()),
            });
        }
        lines.extend(unexpected.into_iter().map(|u| (Tone::Broken, format!("unexpected: {u}"))));
        let total = lines.len();
        lines.truncate(50);
        if total > 50 {
            lines.push((Tone::Neutral, format!("… and {} more", total - 50)));
        }
        let summary = format!(
            "{} of {} expected changes, {} unexpected",
            r.matched,
            self.task.expected.diff.len(),
            r.unexpected.len()
        );
        Panel::Lines { title: "Graph diff".into(), summary, lines }
    }

    fn safety_panel(&self) -> Panel {
        let v = self.verdict();
        let lines = if v.safe {
            vec![(Tone::Good, "S1–S6 hold on the changed nodes and their neighbours".to_string())]
        } else {
            v.safety.iter().map(|l| (Tone::Broken, l.clone())).collect()
        };
        let summary = if v.safe { "safe".to_string() } else { format!("{} violations", v.violations.len()) };
        Panel::Lines { title: "Safety".into(), summary, lines }
    }
}

fn answer_panel(a: &Attempt) -> Panel {
    let mut lines = vec![match &a.answer {
        Ok(ans) => (Tone::Neutral, ans.summary()),
        Err(e) => (Tone::Bad, e.lines().last().unwrap_or("error").to_string()),
    }];
    lines.extend(a.stdout.lines().take(20).map(|l| (Tone::Neutral, format!("stdout: {l}"))));
    let summary = format!("{} calls to G, {:.0} ms", a.host_calls, a.elapsed_ms);
    Panel::Lines { title: "Answer".into(), summary, lines }
}
