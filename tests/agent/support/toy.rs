//! A tiny multi-turn task for the agent tests, and the toy application around it.
//!
//! The agent must reply `fix <secret>`; `show` names the secret, and any other command is
//! run and reported as "no effect". At level 1 the prompt names the secret too; at level 2
//! the agent has to ask. Its prompt holds characters that JSON escapes (quotes,
//! backslashes, tabs, control and non-ASCII characters), drawn from the seeded stream, so
//! the byte-identity checks of request bodies mean something. Shared by the native tests
//! and the browser test (`#[path]`).
//!
//! [`ToyApp`] is the whole of a fourth application: its description, the generator (the
//! task of an id), the episode below and a deterministic baseline. `tests/agent/toy_app.rs`
//! adds it to the standard registry with one line and drives it through every surface, so
//! nothing in those surfaces may assume the shipped three.

use std::sync::Arc;

use netpress::QueryId;
use netpress::app::{
    AnswerKind, App, AppInfo, AppKind, Episode, Finish, LevelInfo, PromptVariant, Score, StepOutcome, Task,
    TaskCard,
};
use netpress::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message};
use netpress::seed::{Stream, Width};
use netpress::view::Picture;

const NOISE: [&str; 8] = ["\"quoted\"", "back\\slash", "tab\there", "ctrl\u{1}", "é", "→", "🛰", "</script>"];

pub struct Toy {
    card: TaskCard,
    secret: String,
}

/// What tells the agent the secret, in the level 1 prompt and in the answer to `show`.
const NAMED: &str = "The broken link is ";

/// The toy task of one seed and index at level 1 (`toy-v1-L1-sS-iI`).
pub fn task(seed: u64, index: u64) -> Arc<dyn Task> {
    task_of(&QueryId::new("toy", 1, 1, seed, index))
}

/// The toy task an id names (any level: 2 hides the secret behind `show`).
pub fn task_of(query: &QueryId) -> Arc<dyn Task> {
    let id = query.to_string();
    let mut stream = Stream::new(&id, Width::W64);
    let secret = format!("r{}-eth{}", stream.below(8), stream.below(4));
    let noise: Vec<&str> = (0..4).map(|_| *stream.choose(&NOISE)).collect();
    let hint = if query.level == 1 { format!("{NAMED}{secret}.") } else { "`show` names it.".into() };
    let prompt = format!(
        "You operate toy network {id}. Noise: {}.\nReply with one command per turn; `fix <name>` repairs \
         the broken link. {hint}",
        noise.join(" ")
    );
    let card = TaskCard {
        id: id.clone(),
        app: "toy".into(),
        version: 1,
        level: query.level,
        label: label(query.level).into(),
        prompt: prompt.clone(),
        content_hash: netpress::hash::content_hash(&prompt, &serde_json::Value::Null),
        params: serde_json::json!({"secret": secret}).into(),
        expected: serde_json::Value::Null,
        question: None,
        max_turns: 4,
    };
    Arc::new(Toy { card, secret })
}

impl Toy {
    /// The reply that solves the task.
    pub fn solution(task: &Arc<dyn Task>) -> String {
        format!("fix {}", task.card().params["secret"].as_str().unwrap_or_default())
    }
}

impl Task for Toy {
    fn card(&self) -> &TaskCard {
        &self.card
    }
    fn prompt(&self, variant: PromptVariant) -> String {
        let mut p = self.card.prompt.clone();
        if variant.few_shot() {
            p.push_str("\nExample:\n```\nfix r9-eth9\n```");
        }
        if variant.chain_of_thought() {
            p.push_str("\nThink step by step, then give the command last.");
        }
        p
    }
    fn start(&self, max_turns: Option<u32>) -> Box<dyn Episode> {
        let max = max_turns.unwrap_or(self.card.max_turns);
        Box::new(ToyEpisode { secret: self.secret.clone(), max, turns: 0, solved: false, stopped: false })
    }
    fn picture(&self) -> Picture {
        Picture::default()
    }
}

struct ToyEpisode {
    secret: String,
    max: u32,
    turns: u32,
    solved: bool,
    stopped: bool,
}

/// The first fenced block's body, else the trimmed reply.
fn action(reply: &str) -> String {
    netpress::reply::fenced_blocks(reply)
        .into_iter()
        .next()
        .map(|f| f.body)
        .unwrap_or_else(|| reply.to_string())
        .trim()
        .to_string()
}

impl Episode for ToyEpisode {
    fn step(&mut self, reply: &str) -> StepOutcome {
        self.turns += 1;
        let action = action(reply);
        let observation = if action.is_empty() {
            "Error: could not parse an action; reply with one command.".to_string()
        } else if action == "show" {
            format!("Command: show\n{NAMED}{}.", self.secret)
        } else if action == format!("fix {}", self.secret) {
            self.solved = true;
            format!("Command: {action}\nState: repaired")
        } else {
            format!("Command: {action}\nState: broken (no effect)")
        };
        StepOutcome { action, observation, ..Default::default() }
    }
    fn finished(&self) -> Option<Finish> {
        if self.solved {
            Some(Finish::Solved)
        } else if self.stopped || self.turns >= self.max {
            Some(Finish::TurnLimit)
        } else {
            None
        }
    }
    fn turns(&self) -> u32 {
        self.turns
    }
    fn score(&self) -> Score {
        Score {
            correct: self.solved,
            safe: true,
            progress: f64::from(u8::from(self.solved)),
            turns: self.turns,
            explanation: if self.solved { "repaired".into() } else { "still broken".into() },
            ..Default::default()
        }
    }
    fn stop(&mut self) {
        self.stopped = true;
    }
}

/// A level's one label: `T` where the prompt tells, `S` where `show` must be asked.
fn label(level: u8) -> &'static str {
    if level == 1 { "T" } else { "S" }
}

/// The toy application (see the module doc).
pub struct ToyApp;

/// The toy application, for `Registry::with`.
pub static TOY: ToyApp = ToyApp;

static INFO: AppInfo = AppInfo {
    name: "toy",
    title: "Toy network",
    summary: "Repair the one broken link of a toy network with `fix <name>`.",
    version: 1,
    older_versions: &[],
    kind: AppKind::Reactive,
    answer: AnswerKind::Commands,
    levels: &[
        LevelInfo { level: 1, summary: "the prompt names the broken link" },
        LevelInfo { level: 2, summary: "`show` names the broken link" },
    ],
    knobs: &[],
    default_max_turns: 4,
    // As MALT's: the surfaces that run sandboxed episodes elsewhere must take any application.
    sandboxed: true,
    glossary: &[],
};

impl App for ToyApp {
    fn info(&self) -> &'static AppInfo {
        &INFO
    }
    fn generate(&self, id: &QueryId) -> netpress::Result<Arc<dyn Task>> {
        self.info().check_id(id)?;
        Ok(task_of(id))
    }
    fn baseline(&self) -> Box<dyn Agent> {
        Box::new(Baseline)
    }
    fn labels(&self, level: u8) -> Vec<String> {
        vec![label(level).to_string()]
    }
}

/// Fixes the link the conversation last named, else asks `show`.
struct Baseline;

impl Agent for Baseline {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("baseline", "toy-baseline")
    }
    fn reply(&mut self, messages: &[Message]) -> Result<AgentReply, AgentError> {
        let named = messages.iter().rev().find_map(|m| m.content.split_once(NAMED).map(|(_, rest)| rest));
        let text = match named.and_then(|rest| rest.split('.').next()) {
            Some(link) => format!("fix {link}"),
            None => "show".to_string(),
        };
        Ok(AgentReply { text, ..Default::default() })
    }
}
