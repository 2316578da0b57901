//! A tiny multi-turn task for the agent tests (no application is needed): the agent must
//! reply `fix <secret>`; any other command is run and reported as "no effect". Its prompt
//! holds characters that JSON escapes (quotes, backslashes, tabs, control and non-ASCII
//! characters), drawn from the seeded stream, so the byte-identity checks of request bodies
//! mean something. Shared by the native tests and the browser test (`#[path]`).

use std::sync::Arc;

use netpress::app::{Episode, Finish, PromptVariant, Score, StepOutcome, Task, TaskCard};
use netpress::seed::{Stream, Width};
use netpress::view::{Panel, Picture};

const NOISE: [&str; 8] = ["\"quoted\"", "back\\slash", "tab\there", "ctrl\u{1}", "é", "→", "🛰", "</script>"];

pub struct Toy {
    card: TaskCard,
    secret: String,
}

/// The toy task of one seed and index (`toy-v1-L1-sS-iI`).
pub fn task(seed: u64, index: u64) -> Arc<dyn Task> {
    let id = format!("toy-v1-L1-s{seed}-i{index}");
    let mut stream = Stream::new(&id, Width::W64);
    let secret = format!("r{}-eth{}", stream.below(8), stream.below(4));
    let noise: Vec<&str> = (0..4).map(|_| *stream.choose(&NOISE)).collect();
    let prompt = format!(
        "You operate toy network {id}. Noise: {}.\nReply with one command per turn; `fix <name>` repairs \
         the broken link. The broken link is {secret}.",
        noise.join(" ")
    );
    let card = TaskCard {
        id: id.clone(),
        app: "toy".into(),
        version: 1,
        level: 1,
        label: "T".into(),
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
    fn panels(&self) -> Vec<Panel> {
        Vec::new()
    }
    fn compose(&self, _: Option<&str>, line: &str) -> String {
        line.to_string()
    }
    fn targets(&self) -> Vec<String> {
        Vec::new()
    }
    fn stop(&mut self) {
        self.stopped = true;
    }
}
