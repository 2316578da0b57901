//! A live Route episode: each reply is parsed into one command on one machine,
//! run through that machine's shell, and answered with the output and the new ping matrix.
//! The episode ends after the first step with no failed pair, or at the turn limit. Every
//! step's matrix and every refusal of the lab go to the shared reactive scorer.

use std::sync::Arc;

use crate::app::{Episode, Finish, Score, StepOutcome};
use crate::score::{Reactive, Refusal};
use crate::view::{Cell, Grid, Panel, Picture, Tone};

use super::action::{self, EXTRA_NOTE, Parsed};
use super::engine::matrix::{self, Matrix};
use super::net::Net;
use super::picture;
use super::prompt::{machines_summary, observation};
use super::score::{self, Record};
use super::shell;
use super::task::RouteTask;

pub struct RouteEpisode {
    task: Arc<RouteTask>,
    net: Net,
    matrix: Matrix,
    max_turns: u32,
    turns: u32,
    stopped: bool,
    tracker: Reactive,
}

impl RouteEpisode {
    pub fn new(task: Arc<RouteTask>, max_turns: u32) -> Self {
        let mut net = task.injected().clone();
        let matrix = matrix::compute(&mut net, &task.machines);
        debug_assert_eq!(matrix, task.initial, "the prompt's matrix is the network's");
        RouteEpisode {
            tracker: Reactive::new(score::holds(&matrix)),
            net,
            matrix,
            task,
            max_turns: max_turns.max(1),
            turns: 0,
            stopped: false,
        }
    }

    fn names(&self) -> Vec<String> {
        self.task.machines.iter().map(|m| m.name.clone()).collect()
    }

    fn matrix_text(&self) -> String {
        self.matrix.render(&self.task.machines)
    }
}

impl Episode for RouteEpisode {
    fn step(&mut self, reply: &str) -> StepOutcome {
        if self.finished().is_some() {
            return StepOutcome {
                observation: "The episode is over; no command was run.".into(),
                ..StepOutcome::default()
            };
        }
        self.turns += 1;
        let summary = machines_summary(&self.task.machines);
        let a = match action::parse(reply, &self.names(), &summary) {
            Parsed::Action(a) => a,
            Parsed::Error(e) => {
                return StepOutcome {
                    observation: format!("{e}\nPingall result:\n{}", self.matrix_text()),
                    notes: vec![e],
                    ..StepOutcome::default()
                };
            }
        };
        let node = self.net.node(&a.machine).expect("parsed machines exist");
        let out = shell::run(&mut self.net, node, &a.command);
        self.matrix = matrix::compute(&mut self.net, &self.task.machines);
        let shown = format!("{}: {}", a.machine, a.command);
        for reason in out.refused {
            self.tracker.refuse(Refusal { turn: self.turns, action: shown.clone(), reason });
        }
        self.tracker.observe(self.turns, &shown, score::holds(&self.matrix));
        let mut text = observation(&a.machine, &a.command, &out.output, &self.matrix_text());
        let mut notes = Vec::new();
        if a.extra {
            text = format!("{EXTRA_NOTE}\n{text}");
            notes.push(EXTRA_NOTE.to_string());
        }
        StepOutcome {
            action: serde_json::json!({ "machine": a.machine, "command": a.command }).to_string(),
            output: out.output,
            exit_status: Some(out.status),
            observation: text,
            notes,
        }
    }

    fn finished(&self) -> Option<Finish> {
        Finish::reactive(self.tracker.all_hold(), self.turns, self.max_turns, self.stopped)
    }

    fn turns(&self) -> u32 {
        self.turns
    }

    fn score(&self) -> Score {
        score::score(&Record {
            machines: &self.task.machines,
            matrix: &self.matrix,
            tracker: &self.tracker,
            turns: self.turns,
            healthy: self.task.healthy(),
            net: &self.net,
        })
    }

    fn panels(&self) -> Vec<Panel> {
        let machines = &self.task.machines;
        let initial = &self.task.initial;
        let tone = |s: usize, d: usize| match (initial.get(s, d), self.matrix.get(s, d)) {
            _ if s == d => Tone::None,
            (true, true) => Tone::Good,
            (false, false) => Tone::Bad,
            (true, false) => Tone::Broken,
            (false, true) => Tone::Fixed,
        };
        let names: Vec<String> = machines.iter().map(|m| m.name.clone()).collect();
        let cells = (0..names.len())
            .map(|s| {
                (0..names.len())
                    .map(|d| {
                        let state = if s == d {
                            "—"
                        } else if self.matrix.get(s, d) {
                            "answers"
                        } else {
                            "lost"
                        };
                        Cell { tone: tone(s, d), title: format!("{} → {}: {state}", names[s], names[d]) }
                    })
                    .collect()
            })
            .collect();
        let summary = self.matrix_text().lines().last().unwrap_or_default().to_string();
        let failing: Vec<(Tone, String)> = self
            .matrix
            .failing()
            .into_iter()
            .map(|(s, d)| (tone(s, d), format!("{} -> {} ({})", names[s], names[d], machines[d].target)))
            .collect();
        let fail_summary = format!("{} failing pair(s)", failing.len());
        vec![
            Panel::Grid {
                title: "Ping matrix".into(),
                summary,
                grid: Grid { rows: names.clone(), cols: names, cells },
            },
            Panel::Lines { title: "Failing pairs".into(), summary: fail_summary, lines: failing },
        ]
    }

    fn compose(&self, target: Option<&str>, line: &str) -> String {
        let machine = target.unwrap_or("r0");
        serde_json::json!({ "machine": machine, "command": line }).to_string()
    }

    fn targets(&self) -> Vec<String> {
        self.names()
    }

    fn stop(&mut self) {
        self.stopped = true;
    }

    /// The live network, so the picture shows the addresses `ip addr` shows and no ✗ once
    /// every ping answers.
    fn picture(&self) -> Option<Picture> {
        Some(picture::live(&self.task.topo, self.task.healthy(), &self.net, &self.matrix))
    }
}
