//! Shared pieces of the `results_*` tests: synthetic result records (no application is needed
//! to test statistics, reports and exports) and a toy application for exports from generation.

#![allow(dead_code)] // Each test crate uses a different part.

use std::sync::Arc;

use netpress::agent::{Agent, AgentInfo};
use netpress::app::{
    AnswerKind, App, AppInfo, AppKind, Episode, Finish, LevelInfo, PromptVariant, Score, StepOutcome, Task,
    TaskCard,
};
use netpress::record::{ResultRecord, SCHEMA, TurnRecord};
use netpress::view::Picture;
use netpress::{QueryId, Result};

/// A result record of agent `baseline:<agent>` on `route-v1-L1-s<seed>-i0`.
pub fn record(seed: u64, agent: &str, label: &str, correct: bool, safe: bool) -> ResultRecord {
    ResultRecord {
        schema: SCHEMA.into(),
        netpress_version: netpress::VERSION.into(),
        id: format!("route-v1-L1-s{seed}-i0"),
        content_hash: format!("{seed:064x}"),
        app: "route".into(),
        level: 1,
        label: label.into(),
        agent: AgentInfo::new("baseline", agent),
        prompt_variant: PromptVariant::ZeroshotBase,
        max_turns: 10,
        prompt: format!("Task {seed}: fix the network."),
        turns: vec![
            TurnRecord {
                turn: 1,
                reply: "```\nr0: ip route\n```".into(),
                action: "r0: ip route".into(),
                observation: "default via 10.0.0.1".into(),
                latency_ms: Some(20.0),
                ..Default::default()
            },
            TurnRecord {
                turn: 2,
                reply: "```\nr0: sysctl -w net.ipv4.ip_forward=1\n```".into(),
                action: "r0: sysctl -w net.ipv4.ip_forward=1".into(),
                observation: "net.ipv4.ip_forward = 1".into(),
                latency_ms: Some(30.0),
                ..Default::default()
            },
        ],
        finish: if correct { Finish::Solved } else { Finish::TurnLimit },
        score: Score {
            correct,
            safe,
            progress: if correct { 1.0 } else { 0.5 },
            turns: 2,
            latency_ms: Some(50.0),
            explanation: "explained".into(),
            ..Default::default()
        },
    }
}

/// `n` records of one agent whose outcomes are the given sequences.
pub fn run_of(agent: &str, correct: &[bool], safe: &[bool]) -> Vec<ResultRecord> {
    let labels = ["DR", "DI", "RI"];
    correct
        .iter()
        .zip(safe)
        .enumerate()
        .map(|(i, (&c, &s))| record(i as u64, agent, labels[i % labels.len()], c, s))
        .collect()
}

/// A toy application: task `toy-v1-L{level}-s{seed}-i{index}` asks to say the seed back.
pub struct Toy;

static TOY_INFO: AppInfo = AppInfo {
    name: "toy",
    title: "Toy",
    summary: "Say the seed back.",
    version: 1,
    older_versions: &[],
    kind: AppKind::Reactive,
    answer: AnswerKind::Commands,
    levels: &[LevelInfo { level: 1, summary: "one" }, LevelInfo { level: 2, summary: "two" }],
    knobs: &[],
    default_max_turns: 3,
    sandboxed: false,
    glossary: &[],
};

struct ToyTask(TaskCard);

impl App for Toy {
    fn info(&self) -> &'static AppInfo {
        &TOY_INFO
    }

    fn generate(&self, id: &QueryId) -> Result<Arc<dyn Task>> {
        self.info().check_id(id)?;
        let prompt = format!("Say {}.", id.seed);
        let expected = serde_json::json!({ "answer": id.seed });
        Ok(Arc::new(ToyTask(TaskCard {
            id: id.to_string(),
            app: "toy".into(),
            version: 1,
            level: id.level,
            label: if id.seed.is_multiple_of(2) { "even".into() } else { "odd".into() },
            content_hash: netpress::hash::content_hash(&prompt, &expected),
            prompt,
            params: serde_json::json!({ "seed": id.seed }).into(),
            expected,
            question: None,
            max_turns: 3,
        })))
    }

    fn baseline(&self) -> Box<dyn Agent> {
        unreachable!("the exports never run an agent")
    }
}

impl Task for ToyTask {
    fn card(&self) -> &TaskCard {
        &self.0
    }
    fn prompt(&self, variant: PromptVariant) -> String {
        match variant {
            PromptVariant::ZeroshotBase => self.0.prompt.clone(),
            other => format!("{} ({})", self.0.prompt, other.as_str()),
        }
    }
    fn start(&self, _: Option<u32>) -> Box<dyn Episode> {
        Box::new(ToyEpisode)
    }
    fn picture(&self) -> Picture {
        Picture::default()
    }
}

struct ToyEpisode;

impl Episode for ToyEpisode {
    fn step(&mut self, _: &str) -> StepOutcome {
        StepOutcome::default()
    }
    fn finished(&self) -> Option<Finish> {
        Some(Finish::Stopped)
    }
    fn turns(&self) -> u32 {
        0
    }
    fn score(&self) -> Score {
        Score::default()
    }
    fn stop(&mut self) {}
}
