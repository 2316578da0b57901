//! The repair family's episode (docs/microseg-repair.md): the agent edits P\* with injected
//! faults over several turns in the command language; after every turn the report is shown,
//! and the episode ends on `No findings.`, on `done`, or at the turn limit. Also the
//! native runner of the `scripted` baseline (`super::scripted`) and of the known-good fix.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::app::{Episode, Finish, Score, StepOutcome};

use super::allow::Compiled;
use super::fault::Fault;
use super::judge::Verdict;
use super::mend::{State, report};
use super::repair::{Command, parse_reply};
use super::score::{Key, evaluate};
use super::scripted::scripted;
use super::task::{Generated, score_of};
use super::world::World;

/// The commands, for the prompt.
pub const COMMANDS: &str =
    "Commands (one or more per turn, in one fenced ``` block of at most 32 lines; a failing \
line stops the rest of the turn):
show [rules|groups|group NAME]           rules numbered from 1
check                                    the report (also shown after every turn)
flows [src=IP|dst=IP|src~CIDR|dst~CIDR|proto=P|dport=N ...] [top=N]   visible connections per key
group new NAME | group del NAME
member add GROUP IP... | member del GROUP IP...
rule add SRC DST PROTO PORTS [at N] | rule del N | rule set N src|dst|proto|ports VALUE
default deny|allow
done";

/// Whether the policy admits each key of B ∪ A ∪ K on the hidden window, and whether it should.
fn verdicts(w: &World, s: &State) -> Vec<bool> {
    let c = Compiled::new(&s.policy, w);
    let mut memo = c.memo();
    let sets = w.sets();
    let mut admit = |k: &Key| s.default_allow || memo.admits(k.s, k.d, k.proto, k.port).is_some();
    let mut v: Vec<bool> = sets.b.iter().map(|(k, _)| admit(k)).collect();
    v.extend(sets.k.iter().map(&mut admit));
    v.extend(sets.a.iter().map(|k| !admit(k)));
    v
}

/// A repair episode.
pub struct RepairEpisode {
    task: Arc<Generated>,
    state: State,
    max: u32,
    turns: u32,
    finish: Option<Finish>,
    /// Keys right just after injection (S0), and those wrong then.
    right0: BTreeSet<usize>,
    wrong0: BTreeSet<usize>,
    /// A key of S0 went wrong after some turn.
    broke: bool,
}

impl RepairEpisode {
    pub fn new(task: Arc<Generated>, state: State, max: u32) -> RepairEpisode {
        let v = verdicts(&task.world, &state);
        let (right0, wrong0) = (0..v.len()).partition(|&i| v[i]);
        RepairEpisode { task, state, max, turns: 0, finish: None, right0, wrong0, broke: false }
    }

    /// The edited policy now.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The verdict on the policy now (what the score reports).
    pub fn verdict(&self) -> Verdict {
        let w = &self.task.world;
        let v = verdicts(w, &self.state);
        let progress = if self.wrong0.is_empty() {
            1.0
        } else {
            self.wrong0.iter().filter(|&&i| v[i]).count() as f64 / self.wrong0.len() as f64
        };
        if self.state.default_allow {
            let why = "the final policy's default is allow (it must be deny)".to_string();
            return Verdict { correct: false, safe: false, progress, why, lines: Vec::new() };
        }
        let m = evaluate(w, w.sets(), &self.state.policy);
        let mut lines = m.lines.clone();
        if self.broke {
            lines.insert(0, "a turn broke a key that was right after the faults were injected".into());
        }
        let why = format!(
            "{}; {}",
            if m.correct() { "FDR ≤ 1% and GDR ≤ 2%" } else { "FDR must be ≤ 1% and GDR ≤ 2%" },
            if m.safe() && !self.broke {
                "no key right after injection broke, FAR = 0, OP ≤ 1%, CDR = 0"
            } else {
                "safety needs no key right after injection to break, FAR = 0, OP ≤ 1% and CDR = 0"
            }
        );
        Verdict { correct: m.correct(), safe: m.safe() && !self.broke, progress, why, lines }
    }
}

impl Episode for RepairEpisode {
    fn step(&mut self, reply: &str) -> StepOutcome {
        if self.finish.is_some() {
            return StepOutcome::over();
        }
        self.turns += 1;
        let w = self.task.world.clone();
        let batch = parse_reply(reply);
        let mut out = Vec::new();
        let mut done = false;
        for c in &batch.commands {
            out.push(format!("> {c}"));
            match self.state.apply(c, &w) {
                Ok(text) if text.is_empty() => {}
                Ok(text) => out.push(text),
                Err(e) => {
                    out.push(e.to_string());
                    break;
                }
            }
            done |= *c == Command::Done;
        }
        if let (Some(e), true) = (&batch.error, out.iter().all(|l| !l.starts_with("error:"))) {
            out.push(e.to_string());
        }
        let v = verdicts(&w, &self.state);
        self.broke |= self.right0.iter().any(|&i| !v[i]);
        let findings = report(&self.state, &w);
        let clean = findings == ["No findings."];
        out.push(format!("Report:\n{}", findings.join("\n")));
        self.finish =
            if done { Some(Finish::Answered) } else { Finish::reactive(clean, self.turns, self.max, false) };
        let action = batch.commands.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
        StepOutcome { action, observation: out.join("\n"), ..Default::default() }
    }
    fn finished(&self) -> Option<Finish> {
        self.finish
    }
    fn turns(&self) -> u32 {
        self.turns
    }
    fn score(&self) -> Score {
        score_of(&self.verdict(), self.turns)
    }
    fn stop(&mut self) {
        self.finish.get_or_insert(Finish::Stopped);
    }
    /// A typed command becomes a one-line block, since a turn's commands travel in one fence.
    fn compose(&self, _target: Option<&str>, line: &str) -> String {
        format!("```\n{line}\n```")
    }
}

/// The faults' codes, `DR+MV`.
pub fn codes(faults: &[Fault]) -> String {
    faults.iter().map(Fault::code).collect::<Vec<_>>().join("+")
}

/// Runs a repair task natively with `scripted` or `oracle` (the known-good fix, then `done`)
/// and returns the final verdict; `None` for another agent.
pub fn solve(g: Arc<Generated>, agent: &str) -> Option<Verdict> {
    let fix = match agent {
        "oracle" => Some(super::fault::fix(&super::score::star_policy(&g.world), &g.faults)),
        "scripted" => None,
        _ => return None,
    };
    let mut text = g.given.clone();
    let mut e = RepairEpisode::new(g.clone(), g.start.clone(), g.setup.turns);
    while e.finished().is_none() {
        let reply = match &fix {
            Some(f) if e.turns() == 0 => f.clone(),
            Some(_) => "```\ndone\n```".into(),
            None => scripted(&text),
        };
        text = e.step(&reply).observation;
    }
    Some(e.verdict())
}
