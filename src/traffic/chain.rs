//! The `chain` mode (docs/traffic.md, "`m=chain`"): NeMoEval's 24 questions as one episode
//! on one graph that keeps what each answer did to it.
//!
//! NeMoEval ran its questions one after another on a shared graph, so each answer was scored
//! on whatever the answers before it had left, and nobody said so. The `nemo` mode takes that
//! away (each question on the golden chain's state S(k−1)); this mode gives it back, made
//! explicit: question k is asked at turn k, the agent's code runs on the graph its own answers
//! 1..k−1 left (question 15, which builds a new graph, leaves it as it was), and the answer is
//! checked as NeMoEval checked it, against question k's expectation on that graph. Beside it
//! the episode records the drift, how far that graph is from S(k−1), and where there is drift
//! whether the same code passes on S(k−1), so a failure can be told apart from an inherited one.
//! The episode is correct when all 24 pass; its progress is the share that pass.

use std::sync::Arc;

use serde_json::{Value, json};

use super::check;
use super::nemo;
use super::nemo_check::Loose;
use super::panels;
use super::picture::{self, Marks};
use super::prompt;
use super::task::{self, Attempt, Generated};
use crate::app::{Episode, Finish, Score, ScoreDetails, StepOutcome};
use crate::error::Result;
use crate::flows::graph::Graph;
use crate::id::QueryId;
use crate::malt::sandbox::Limits;
use crate::view::{Panel, Picture, Tone};

/// The questions of a chain, one a turn.
pub const QUESTIONS: usize = 24;
/// Lines the score's diff keeps.
const DIFF_LINES: usize = 50;

/// Whether an id asks the chain.
pub fn is_chain(id: &QueryId) -> bool {
    id.knob('m') == Some("chain")
}

/// The golden chain behind a `chain` task: question k's task on S(k−1) (index k − 1), and
/// question 10's golden colours, which asking a question of another graph needs again.
#[derive(Debug)]
pub struct Chain {
    pub golden: Vec<Generated>,
    colours: nemo::Colours,
}

/// Generates a `chain` task: question 1 on the nemo mock, carrying the golden chain. The
/// index is part of the graph's seed material, so each index of a seed is its own chain.
pub fn generate(id: &QueryId, turns: u32, material: &str) -> Result<Generated> {
    let material = format!("{material}|i{}", id.index);
    let (golden, colours) = nemo::golden_chain(id, turns, &material)?;
    // Question 1 is asked of the mock itself, so the chain's first task is this task.
    let mut first = golden[0].clone();
    first.chain = Some(Arc::new(Chain { golden, colours }));
    Ok(first)
}

/// The question block that follows an answer: question `number`'s text as the prompt ends
/// (so `Question: ` marks the latest question for whoever reads the conversation).
fn next_question(number: usize) -> String {
    let text = nemo::texts()[number - 1];
    prompt::chain_question(number, text)
}

/// The card's expectation: each question's, on the golden chain's state before it.
pub fn expected(chain: &Chain) -> Value {
    let questions: Vec<Value> = chain
        .golden
        .iter()
        .enumerate()
        .map(|(i, g)| json!({"question": i + 1, "on_golden_state": task::expected_json(g)}))
        .collect();
    json!({
        "chain": questions,
        "scored_on": "each answer on the graph the earlier answers left (question 15 leaves it); \
                      the expectations here are on the golden chain's states",
        "correct_when": format!("all {QUESTIONS} pass"),
    })
}

/// How one question went.
struct Answered {
    number: usize,
    /// The returned type, or why there is no valid return.
    returned: std::result::Result<String, String>,
    score: Score,
    /// Differences between the graph the question was asked of and S(k−1).
    drift: usize,
    /// Whether the same code passes on S(k−1), when there is drift.
    on_golden: Option<bool>,
}

impl Answered {
    fn line(&self) -> String {
        let k = self.number;
        let verdict = if self.score.correct { "pass" } else { "fail" };
        let why = self.score.details.correctness.first().cloned().unwrap_or_default();
        let drift = match (self.drift, self.on_golden) {
            (0, _) => String::new(),
            (n, Some(ok)) => format!(
                "; asked of a graph {n} changes from the golden state, where the same code would {}",
                if ok { "pass" } else { "fail" }
            ),
            (n, None) => format!("; asked of a graph {n} changes from the golden state"),
        };
        format!("Q{k} {verdict}: {why}{drift}")
    }
}

/// One chain episode: the agent's graph and each question's outcome.
pub struct ChainEpisode {
    task: Arc<Generated>,
    chain: Arc<Chain>,
    limits: Limits,
    graph: Graph,
    answered: Vec<Answered>,
    /// The last answer's return, for the answer panel.
    last: Option<std::result::Result<(String, Value), String>>,
    finish: Option<Finish>,
}

impl ChainEpisode {
    /// An episode of `task`, a chain task, and the [`Chain`] it carries.
    pub fn new(task: Arc<Generated>, chain: Arc<Chain>, limits: Limits) -> ChainEpisode {
        let graph = Graph::clone(&task.graph);
        ChainEpisode { task, chain, limits, graph, answered: Vec::new(), last: None, finish: None }
    }

    /// Runs `reply` as the answer to question `number` on the current graph and checks it.
    fn answer(&mut self, number: usize, reply: &str) -> Answered {
        let before = self.graph.clone();
        let (answer, after) = task::run(reply, &before, None, self.limits);
        let chain = self.chain.clone();
        let golden = &chain.golden[number - 1];
        let before_json = before.to_json();
        let drift = check::diff(&golden.graph.to_json(), &before_json).len();
        // Asked of the agent's graph, as NeMoEval asked it; a graph the earlier answers left
        // may not be able to ask it (no edge to average over), which fails the question.
        let score = match nemo::on_graph(&self.task.id, number, self.task.turns, before, &chain.colours) {
            Ok(asked) => task::score(&asked, Some(&attempt(&answer, &after)), 1),
            Err(e) => unaskable(e.to_string(), &task::Unsafe::of(golden, &before_json, &after.to_json())),
        };
        let on_golden = (drift > 0).then(|| {
            let (a, g) = task::run(reply, &golden.graph, None, self.limits);
            task::score(golden, Some(&attempt(&a, &g)), 1).correct
        });
        // A question that builds a new graph (15) leaves the chain's graph as it was.
        if golden.loose != Some(Loose::NewGraph) {
            self.graph = after;
        }
        let returned = answer.as_ref().map(|(ty, _)| ty.clone()).map_err(Clone::clone);
        self.last = Some(answer);
        Answered { number, returned, score, drift, on_golden }
    }

    fn passes(&self) -> usize {
        self.answered.iter().filter(|a| a.score.correct).count()
    }
}

/// A question's lines, each tagged with its number.
fn tagged(number: usize, lines: &[String]) -> impl Iterator<Item = String> + '_ {
    lines.iter().map(move |l| format!("Q{number}: {l}"))
}

fn attempt(answer: &std::result::Result<(String, Value), String>, graph: &Graph) -> Attempt {
    Attempt { answer: answer.clone(), graph: graph.to_json() }
}

/// The score of a question its graph cannot ask (its safety by the question's scope, which
/// does not depend on the graph).
fn unaskable(why: String, hazards: &task::Unsafe) -> Score {
    let why = format!("the graph the earlier answers left cannot ask it: {why}");
    Score {
        safe: hazards.is_safe(),
        explanation: format!("incorrect: {why}."),
        details: ScoreDetails { correctness: vec![why], safety: hazards.lines(), ..Default::default() },
        ..Default::default()
    }
}

impl Episode for ChainEpisode {
    fn step(&mut self, reply: &str) -> StepOutcome {
        if self.finish.is_some() {
            return StepOutcome::over();
        }
        let number = self.answered.len() + 1;
        let a = self.answer(number, reply);
        let mut observation = match &a.returned {
            Ok(ty) => format!("Question {number}: returned an answer of type {ty}."),
            Err(e) => format!("Question {number}: error: {e}"),
        };
        self.answered.push(a);
        if number == QUESTIONS {
            observation.push_str(&format!(" The chain is over: {QUESTIONS} answers given."));
            self.finish = Some(Finish::Answered);
        } else {
            observation.push_str("\n\n");
            observation.push_str(&next_question(number + 1));
        }
        StepOutcome { action: "python".into(), observation, ..Default::default() }
    }
    fn finished(&self) -> Option<Finish> {
        self.finish
    }
    fn turns(&self) -> u32 {
        self.answered.len() as u32
    }
    fn score(&self) -> Score {
        let passes = self.passes();
        let correct = passes == QUESTIONS;
        let failed: Vec<String> =
            self.answered.iter().filter(|a| !a.score.correct).map(|a| a.number.to_string()).collect();
        let unsafe_: Vec<String> =
            self.answered.iter().filter(|a| !a.score.safe).map(|a| a.number.to_string()).collect();
        let drifted = self.answered.iter().filter(|a| a.drift > 0).count();
        let mut correctness: Vec<String> = self.answered.iter().map(Answered::line).collect();
        correctness.extend((self.answered.len() + 1..=QUESTIONS).map(|k| format!("Q{k} fail: not answered")));
        let safety = if unsafe_.is_empty() {
            vec!["no answer changed what its question did not ask".to_string()]
        } else {
            self.answered
                .iter()
                .filter(|a| !a.score.safe)
                .flat_map(|a| tagged(a.number, &a.score.details.safety))
                .collect()
        };
        let diff = self
            .answered
            .iter()
            .filter(|a| !a.score.correct)
            .flat_map(|a| tagged(a.number, &a.score.details.diff))
            .take(DIFF_LINES)
            .collect();
        let unanswered = QUESTIONS - self.answered.len();
        let mut explanation = format!(
            "{}: {passes} of {QUESTIONS} questions pass",
            if correct { "correct" } else { "incorrect" }
        );
        if !failed.is_empty() {
            explanation.push_str(&format!(" (failed: {})", failed.join(", ")));
        }
        if unanswered > 0 {
            explanation.push_str(&format!("; {unanswered} not answered"));
        }
        explanation.push_str(&format!("; {drifted} asked of a graph that drifted from the golden chain; "));
        explanation.push_str(&if unsafe_.is_empty() {
            "safe.".to_string()
        } else {
            format!("unsafe: questions {} changed what they did not ask.", unsafe_.join(", "))
        });
        Score {
            correct,
            safe: unsafe_.is_empty(),
            progress: passes as f64 / QUESTIONS as f64,
            turns: self.turns(),
            explanation,
            details: ScoreDetails { correctness, safety, diff, ..Default::default() },
            ..Default::default()
        }
    }
    fn stop(&mut self) {
        self.finish.get_or_insert(Finish::Stopped);
    }
    /// The questions so far (toned once the episode is over, so nothing is given away
    /// before), the last answer, and the chain's changes to G.
    fn panels(&self) -> Vec<Panel> {
        let Some(last) = &self.last else { return Vec::new() };
        let over = self.finish.is_some();
        let lines = self
            .answered
            .iter()
            .map(|a| match (over, &a.returned) {
                (true, _) => (if a.score.correct { Tone::Fixed } else { Tone::Bad }, a.line()),
                (false, Ok(ty)) => (Tone::Neutral, format!("Q{}: returned {ty}", a.number)),
                (false, Err(e)) => (Tone::Neutral, format!("Q{}: {e}", a.number)),
            })
            .collect();
        let summary = if over {
            format!("{} of {QUESTIONS} pass", self.passes())
        } else {
            format!("{} of {QUESTIONS} answered", self.answered.len())
        };
        let questions = Panel::Lines { title: "Questions".into(), summary, lines };
        let changes = panels::changes(&self.task.graph.to_json(), &self.graph.to_json(), None);
        vec![questions, panels::answer(last), changes]
    }
    /// Once over, the graph the chain left (untoned: each question has its own expectation).
    fn picture(&self) -> Option<Picture> {
        self.finish?;
        let caption = format!("G after the chain of {}", self.task.id);
        Some(picture::picture(&self.task.graph.to_json(), &self.graph.to_json(), &Marks::default(), &caption))
    }
}
