//! A generated micro-segmentation task and its episode: the id's world and request, the sandbox
//! run of each reply over `F` and `G` (the traffic application's host), and its score.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::app::{
    AnswerKind, Episode, Finish, PromptVariant, Score, ScoreDetails, StepOutcome, Task, TaskCard,
};
use crate::error::Result;
use crate::id::QueryId;
use crate::malt::extract::{self, FLOWS};
use crate::malt::sandbox::{self, Limits};
use crate::seed::{Stream, Width};
use crate::traffic::TrafficHost;
use crate::traffic::check::py_json;
use crate::view::Picture;

use super::family::{self, Family};
use super::fault::{self, Fault};
use super::forms::Form;
use super::judge::{self, Verdict};
use super::mend::{State, report};
use super::prompt;
use super::repair::Show;
use super::repairing::{RepairEpisode, codes};
use super::score::{star_policy, star_policy_at};
use super::world::{self, Setup, World};

/// The sandbox limits of microseg answers: 10 s and 512 MiB (the logs are large).
pub fn limits() -> Limits {
    Limits { time: std::time::Duration::from_secs(10), memory: 512 << 20, ..Limits::default() }
}

/// Everything generation resolved.
#[derive(Debug)]
pub struct Generated {
    pub id: QueryId,
    pub setup: Setup,
    pub family: Family,
    pub wording: usize,
    /// The form a policy answer takes (np unless the family renders).
    pub form: Form,
    pub question: String,
    pub world: Arc<World>,
    /// The incremental family's w1 policy (JSON), else empty.
    pub given: String,
    /// The repair family's faults (else none) and the policy they left.
    pub faults: Vec<Fault>,
    pub start: State,
}

/// Generates the task of an id (already checked against the app's description).
pub fn generate(id: &QueryId) -> Result<Generated> {
    let setup = world::setup(id)?;
    let family = Family::of_index(id.level, id.index);
    let mut s = Stream::new(&id.seed_material(true), Width::W64);
    let wording = s.index(3);
    let form = match setup.form {
        Some(f) if family.rendered() => f,
        None if family.rendered() => *s.choose(&Form::RENDERED),
        _ => Form::Np,
    };
    let world = world::world(&setup, family.shape())?;
    let (given, faults, start) = match family {
        Family::Incremental => {
            let h1 = u64::from(world.windows[1].start_min) * 60_000;
            (star_policy_at(&world, h1).to_json().to_string(), Vec::new(), State::default())
        }
        Family::Repair => {
            let star = star_policy(&world);
            let faults = fault::faults(&mut s, id.level, &world, &star)?;
            let start = fault::inject(&star, &faults);
            let shown = start.show(&Show::All).unwrap_or_default();
            (format!("{shown}\nReport:\n{}", report(&start, &world).join("\n")), faults, start)
        }
        _ => (String::new(), Vec::new(), State::default()),
    };
    let question = family::question(family, &world, wording, &given, form);
    Ok(Generated { id: id.clone(), setup, family, wording, form, question, world, given, faults, start })
}

/// One microseg task.
pub struct MicrosegTask {
    generated: Arc<Generated>,
    card: TaskCard,
    limits: Limits,
}

impl MicrosegTask {
    pub fn new(g: Generated, limits: Limits) -> MicrosegTask {
        let repair = g.family == Family::Repair;
        let prompt = prompt::render(&g.world, &g.question, &limits, PromptVariant::ZeroshotBase, repair);
        let expected = json!({
            "type": g.family.answer_type(g.form),
            "star_rules": g.world.star.len(),
            "visible_vms": g.world.visible.len(),
            "test_vms": g.world.test_vms.len(),
        });
        let k = &g.setup.knobs;
        let card = TaskCard {
            id: g.id.to_string(),
            app: "microseg".into(),
            version: g.id.version,
            level: g.id.level,
            label: g.family.id().to_string(),
            content_hash: crate::hash::content_hash(&prompt, &expected),
            prompt,
            params: json!({
                "wording": g.wording + 1, "family": g.family.id(), "a": k.a, "n": k.n, "d": k.d, "c": k.c,
                "k": k.k, "u": k.u, "l": k.layout.name(), "f": k.format.name(), "r": g.form.name(), "t": g.setup.turns,
                "churn_stream": g.world.churn_stream, "faults": codes(&g.faults),
            })
            .into(),
            expected,
            question: Some(g.question.clone()),
            max_turns: if repair { g.setup.turns } else { max_turns(g.setup.turns) },
        };
        MicrosegTask { generated: Arc::new(g), card, limits }
    }

    pub fn generated(&self) -> &Generated {
        &self.generated
    }
}

/// Single-shot, unless the turn limit is at most 5: then an invalid answer is an observation and
/// the agent may resubmit.
fn max_turns(t: u32) -> u32 {
    if t <= 5 { t } else { 1 }
}

impl Task for MicrosegTask {
    fn card(&self) -> &TaskCard {
        &self.card
    }
    fn prompt(&self, variant: PromptVariant) -> String {
        let repair = self.generated.family == Family::Repair;
        prompt::render(&self.generated.world, &self.generated.question, &self.limits, variant, repair)
    }
    fn start(&self, max: Option<u32>) -> Box<dyn Episode> {
        let g = &self.generated;
        if g.family == Family::Repair {
            let max = max.unwrap_or(self.card.max_turns).max(1);
            return Box::new(RepairEpisode::new(g.clone(), g.start.clone(), max));
        }
        let max = max.unwrap_or(self.card.max_turns).clamp(1, 5);
        Box::new(MicrosegEpisode {
            task: self.generated.clone(),
            limits: self.limits,
            max,
            turns: 0,
            last: None,
            finish: None,
        })
    }
    fn picture(&self) -> Picture {
        Picture::default()
    }
    /// Repair is answered command by command (docs/microseg-repair.md), the other families by
    /// one program, so a terminal and a paste box split repair's input per turn.
    fn answer_kind(&self) -> Option<AnswerKind> {
        (self.generated.family == Family::Repair).then_some(AnswerKind::Commands)
    }
}

pub struct MicrosegEpisode {
    task: Arc<Generated>,
    limits: Limits,
    max: u32,
    turns: u32,
    last: Option<Result<Value, String>>,
    finish: Option<Finish>,
}

/// Runs a reply's `process_flows(F, G)` and returns its value as JSON.
pub fn run(world: &World, reply: &str, limits: &Limits) -> Result<Value, String> {
    let source = extract::extract_entry(reply, FLOWS)?;
    let table = world.table()?;
    let host = TrafficHost { flows: Some(table), graph: world.graph().clone() };
    let out = sandbox::run(&source.program(), host, limits);
    out.value.map(|v| py_json(&v))
}

impl Episode for MicrosegEpisode {
    fn step(&mut self, reply: &str) -> StepOutcome {
        if self.finish.is_some() {
            return StepOutcome::over();
        }
        self.turns += 1;
        let t = &self.task;
        let value = run(&t.world, reply, &self.limits);
        let want = t.family.answer_type(t.form);
        let checked = value.clone().and_then(|v| judge::envelope(&v, want).map(|_| ()));
        let observation = match &checked {
            Ok(()) => format!("Returned an answer of type {want}."),
            Err(e) => format!("Error: {e}"),
        };
        self.finish = Finish::constructive(checked.is_ok(), self.turns, self.max);
        self.last = Some(value);
        StepOutcome { action: "python".into(), observation, ..Default::default() }
    }
    fn finished(&self) -> Option<Finish> {
        self.finish
    }
    fn turns(&self) -> u32 {
        self.turns
    }
    fn score(&self) -> Score {
        let t = &self.task;
        let answer = self.last.clone().unwrap_or_else(|| Err("no answer was given".into()));
        let v = judge::judge(&t.world, t.family, t.form, answer);
        score_of(&v, self.turns)
    }
    fn stop(&mut self) {
        self.finish.get_or_insert(Finish::Stopped);
    }
}

/// A verdict as the common score.
pub fn score_of(v: &Verdict, turns: u32) -> Score {
    Score {
        correct: v.correct,
        safe: v.safe,
        progress: v.progress,
        turns,
        explanation: format!(
            "{}, {}: {}.",
            if v.correct { "correct" } else { "incorrect" },
            if v.safe { "safe" } else { "unsafe" },
            v.why
        ),
        details: ScoreDetails {
            correctness: vec![v.why.clone()],
            diff: v.lines.clone(),
            ..Default::default()
        },
        ..Default::default()
    }
}
