//! The roles every application implements:
//!
//! - [`App`] is the generator: it describes the application (levels, knobs) and turns a
//!   [`QueryId`] into a [`Task`], purely and deterministically.
//! - [`Task`] is one generated query: the public [`TaskCard`] (prompt, label, resolved
//!   parameters, hidden expected outcome, content hash), the prompt in each variant, a picture,
//!   and a way to start an [`Episode`].
//! - [`Episode`] is the live emulator state: `step(reply)` parses an agent's reply leniently,
//!   runs the action and returns what the agent sees next; it knows when it is finished and
//!   scores itself as a [`Score`].
//!
//! The UI, the CLI, the agent runner and the statistics code see only these types, so adding
//! an application means implementing them and listing it in [`crate::registry`].

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::id::QueryId;
use crate::params::Params;
use crate::view::{Panel, Picture};

/// Reactive tasks inject faults into a healthy state; constructive tasks ask for a new state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AppKind {
    Reactive,
    Constructive,
}

pub use crate::answer::AnswerKind;

/// One difficulty level.
#[derive(Debug, Clone, Copy)]
pub struct LevelInfo {
    pub level: u8,
    pub summary: &'static str,
}

/// One knob of an application's ids (`-n8`): its key letter, what it means and its values.
#[derive(Debug, Clone, Copy)]
pub struct KnobInfo {
    pub key: char,
    pub name: &'static str,
    pub help: &'static str,
    /// A hint of the accepted values, e.g. `2..8` or `DR+DI+RI`.
    pub values: &'static str,
}

/// The static description of an application.
#[derive(Debug, Clone, Copy)]
pub struct AppInfo {
    /// Id prefix and CLI name: `route`, `k8s`, `malt`.
    pub name: &'static str,
    pub title: &'static str,
    /// One paragraph for the home page and `netpress list`.
    pub summary: &'static str,
    /// The current generator version (`v1`): what new ids get.
    pub version: u32,
    /// Earlier generator versions this build still generates, each exactly as it always did (an
    /// id names its bytes for good), so their ids are accepted wherever a current one is.
    pub older_versions: &'static [u32],
    pub kind: AppKind,
    /// How the application's tasks are answered unless a task says otherwise
    /// ([`Task::answer_kind`]); surfaces ask [`AppInfo::answer_of`].
    pub answer: AnswerKind,
    pub levels: &'static [LevelInfo],
    /// Knobs in the order they must appear in an id.
    pub knobs: &'static [KnobInfo],
    /// Turn limit of an episode unless the id or the run says otherwise.
    pub default_max_turns: u32,
    /// Episodes run untrusted code and need the sandbox (feature `sandbox`). The browser runs
    /// such episodes in the sandbox worker, which rebuilds the task from its id.
    pub sandboxed: bool,
    /// The abbreviations this application's labels, levels and reports use (fault families,
    /// safety rules), so every surface can spell them out where they appear. Data, not a
    /// method of [`App`], so the page shows it without linking the application's engine
    /// ([`crate::registry::catalog`]).
    pub glossary: &'static [Term],
}

impl AppInfo {
    /// How `task` is answered: its own kind, else the application's.
    pub fn answer_of(&self, task: &dyn Task) -> AnswerKind {
        task.answer_kind().unwrap_or(self.answer)
    }

    /// The id of `(level, seed, index)` with the app's default knobs.
    pub fn default_id(&self, level: u8, seed: u64, index: u64) -> QueryId {
        QueryId::new(self.name, self.version, level, seed, index)
    }

    /// The knob keys in id order, e.g. `"nmrft"`.
    pub fn knob_order(&self) -> String {
        self.knobs.iter().map(|k| k.key).collect()
    }

    /// Whether this build generates tasks of generator `version`: the current one or an older one
    /// it keeps.
    pub fn generates(&self, version: u32) -> bool {
        version == self.version || self.older_versions.contains(&version)
    }

    /// Checks what every application's ids share: app name, version, level and knob
    /// keys (known, each at most once, in declared order). Knob values are the app's to check.
    pub fn check_id(&self, id: &QueryId) -> Result<()> {
        if id.app != self.name {
            return Err(Error::bad_id(&id.to_string(), format!("not a {} id", self.name)));
        }
        if !self.generates(id.version) {
            return Err(Error::UnknownVersion {
                app: self.name.to_string(),
                version: id.version,
                current: self.version,
            });
        }
        if !self.levels.iter().any(|l| l.level == id.level) {
            let levels: Vec<String> = self.levels.iter().map(|l| l.level.to_string()).collect();
            return Err(Error::BadLevel {
                app: self.name.to_string(),
                level: id.level,
                levels: levels.join(", "),
            });
        }
        let order = self.knob_order();
        let mut last = None;
        for knob in &id.knobs {
            let pos = order.find(knob.key).ok_or_else(|| Error::BadKnob {
                app: self.name.to_string(),
                knob: format!("-{}{}", knob.key, knob.value),
                reason: format!("unknown knob; {} knobs are: {}", self.name, knob_list(self)),
            })?;
            if last.is_some_and(|l| pos <= l) {
                return Err(Error::BadKnob {
                    app: self.name.to_string(),
                    knob: format!("-{}{}", knob.key, knob.value),
                    reason: format!("knobs must appear once each, in the order {order}"),
                });
            }
            last = Some(pos);
        }
        Ok(())
    }
}

fn knob_list(info: &AppInfo) -> String {
    let names: Vec<String> = info.knobs.iter().map(|k| format!("-{} ({})", k.key, k.name)).collect();
    if names.is_empty() { "none".to_string() } else { names.join(", ") }
}

/// An application: the generator role plus its description and its baseline agent.
pub trait App: Sync {
    fn info(&self) -> &'static AppInfo;

    /// Generates the task an id names. Pure: the same id gives byte-identical tasks on
    /// every machine. Implementations start with `self.info().check_id(id)?`.
    fn generate(&self, id: &QueryId) -> Result<Arc<dyn Task>>;

    /// The sandbox limits an answer runs under when nobody overrides them. The prompt states
    /// them, so they are part of the task's content: the sandbox worker applies a request's
    /// overrides on top of these, not on top of [`crate::sandbox::Limits::default`], or the page
    /// would show another task than the CLI for the same id.
    fn limits(&self) -> crate::sandbox::Limits {
        crate::sandbox::Limits::default()
    }

    /// [`App::generate`], for episodes whose sandboxed runs stay within `limits` (the sandbox
    /// worker's per-request overrides). Applications without a sandbox ignore the limits.
    fn generate_limited(&self, id: &QueryId, limits: &crate::sandbox::Limits) -> Result<Arc<dyn Task>> {
        let _ = limits;
        self.generate(id)
    }

    /// The deterministic built-in agent (no language model).
    fn baseline(&self) -> Box<dyn crate::conversation::Agent>;

    /// An agent answering `id` with its reference solution, where the application has one (MALT:
    /// its adaptive reference is the oracle, so a fake agent that should match the reference
    /// plays it); `None` by default.
    fn oracle(&self, _id: &QueryId) -> Option<Box<dyn crate::conversation::Agent>> {
        None
    }

    /// The id of `(level, seed, index)` with the app's default knobs.
    fn default_id(&self, level: u8, seed: u64, index: u64) -> QueryId {
        self.info().default_id(level, seed, index)
    }

    /// Every task label a level can produce, in display order, when the app can list them
    /// (needed by `run --per-label`); empty otherwise.
    fn labels(&self, _level: u8) -> Vec<String> {
        Vec::new()
    }

    /// The abbreviations of [`AppInfo::glossary`].
    fn glossary(&self) -> &'static [Term] {
        self.info().glossary
    }

    /// App-specific commands of the CLI, run as `netpress <app> <tool> ARGS…`.
    fn tools(&self) -> &'static [Tool] {
        &[]
    }

    /// The task space of the application's own (docs/adapt.md), if it declares one; without
    /// one adaptive mode searches the levels alone.
    fn space_of(&self) -> Option<crate::adapt::SpaceOf> {
        None
    }

    /// The task space adaptive mode searches: [`App::space_of`]'s, or the levels.
    fn space(&self) -> crate::adapt::Space {
        self.space_of().map_or_else(|| crate::adapt::Space::levels(self.info()), |s| (s.space)())
    }

    /// Whether a cell of [`App::space`] names tasks the generator makes (constraints between
    /// dimensions); every cell of the levels space.
    fn feasible(&self, cell: &crate::adapt::Cell) -> bool {
        self.space_of().is_none_or(|s| (s.feasible)(cell))
    }

    /// The id of a cell for `seed`: an ordinary, replayable id. Without a declared space, the
    /// level and the knob dimensions as written, index 0 ([`crate::adapt::realise_knobs`]).
    fn realise(&self, space: &crate::adapt::Space, cell: &crate::adapt::Cell, seed: u64) -> Result<QueryId> {
        match self.space_of() {
            Some(s) => (s.realise)(self.info(), space, cell, seed),
            None => crate::adapt::realise_knobs(self.info(), space, cell, seed),
        }
    }
}

/// An app-specific command-line tool, e.g. `netpress k8s connectivity -f FILE…`.
///
/// Tools parse their own arguments (they are few) so that the CLI needs no change when an
/// application adds one. `run` gets the arguments after the tool name, standard input, output
/// and error, and returns the process exit code; errors are one clear line on `stderr`.
#[derive(Clone, Copy)]
pub struct Tool {
    pub name: &'static str,
    /// One line for `netpress <app> --help`.
    pub about: &'static str,
    /// Full usage text for `netpress <app> <tool> --help`.
    pub usage: &'static str,
    pub run: fn(&[String], &mut dyn std::io::Read, &mut dyn std::io::Write, &mut dyn std::io::Write) -> i32,
}

#[cfg(test)]
impl Tool {
    /// Runs the tool on `args` with no standard input: its exit code, standard output and
    /// standard error (the tools' unit tests).
    pub(crate) fn call(&self, args: &[&str]) -> (i32, String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = (self.run)(&args, &mut std::io::empty(), &mut out, &mut err);
        (code, String::from_utf8_lossy(&out).into_owned(), String::from_utf8_lossy(&err).into_owned())
    }
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool").field("name", &self.name).finish()
    }
}

/// The four prompt variants of the reference benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptVariant {
    #[default]
    ZeroshotBase,
    ZeroshotCot,
    FewshotBase,
    FewshotCot,
}

impl PromptVariant {
    pub const ALL: [PromptVariant; 4] = [
        PromptVariant::ZeroshotBase,
        PromptVariant::ZeroshotCot,
        PromptVariant::FewshotBase,
        PromptVariant::FewshotCot,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PromptVariant::ZeroshotBase => "zeroshot_base",
            PromptVariant::ZeroshotCot => "zeroshot_cot",
            PromptVariant::FewshotBase => "fewshot_base",
            PromptVariant::FewshotCot => "fewshot_cot",
        }
    }

    /// The name people read (`zero-shot`), where [`Self::as_str`] is the id files and flags use.
    pub fn title(self) -> &'static str {
        match self {
            PromptVariant::ZeroshotBase => "zero-shot",
            PromptVariant::ZeroshotCot => "zero-shot, chain of thought",
            PromptVariant::FewshotBase => "few-shot",
            PromptVariant::FewshotCot => "few-shot, chain of thought",
        }
    }

    pub fn parse(s: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s).ok_or_else(|| {
            Error::Invalid(format!(
                "unknown prompt variant {s:?} (zeroshot_base, zeroshot_cot, fewshot_base, fewshot_cot)"
            ))
        })
    }

    pub fn few_shot(self) -> bool {
        matches!(self, PromptVariant::FewshotBase | PromptVariant::FewshotCot)
    }

    pub fn chain_of_thought(self) -> bool {
        matches!(self, PromptVariant::ZeroshotCot | PromptVariant::FewshotCot)
    }
}

/// The public description of a task, one JSONL line of `netpress generate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskCard {
    pub id: String,
    pub app: String,
    pub version: u32,
    pub level: u8,
    /// The task label statistics group by (fault families, template family).
    pub label: String,
    /// The zero-shot base prompt; the one the content hash covers.
    pub prompt: String,
    pub content_hash: String,
    /// Every random choice the generator made, resolved.
    pub params: Params,
    /// The hidden expected outcome (for data sets and checking; never shown to agents).
    pub expected: Value,
    /// The task's question in one short text, when the app has one apart from its
    /// instructions (MALT's request); `netpress generate --questions` prints it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The episode's turn limit.
    pub max_turns: u32,
}

/// One generated query.
pub trait Task: Send + Sync {
    fn card(&self) -> &TaskCard;

    /// The full prompt an agent receives, in one of the four variants.
    fn prompt(&self, variant: PromptVariant) -> String;

    /// Starts a fresh episode on this task. `max_turns` overrides the card's limit.
    fn start(&self, max_turns: Option<u32>) -> Box<dyn Episode>;

    /// A picture of the task's topology for the UI.
    fn picture(&self) -> Picture;

    /// How this task is answered when it differs from its application's usual kind (an
    /// application with Python families and a command family); `None` for the app's kind.
    /// Surfaces read the resolved kind from [`AppInfo::answer_of`].
    fn answer_kind(&self) -> Option<AnswerKind> {
        None
    }

    /// Answers a person can start from when writing one by hand: a runnable template first,
    /// then worked examples (MALT's program skeleton, say). Empty where the application's
    /// answers are short commands. Never a solution of this task.
    fn starters(&self) -> Vec<Starter> {
        Vec::new()
    }
}

/// One abbreviation and what it stands for (see [`App::glossary`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Term {
    pub abbr: &'static str,
    pub meaning: &'static str,
}

/// The glossary terms that `text` uses, in the order they first appear, each once.
///
/// A term is used where its abbreviation stands as a word of its own, optionally followed by
/// digits (a fault family `DI` in the variant `DI3`, in the label `L2:DI+WR`); where several
/// terms start at one place the longest wins, so `S1–S6` is one term and not `S1` as well.
pub fn terms_in(glossary: &'static [Term], text: &str) -> Vec<&'static Term> {
    let mut found: Vec<&'static Term> = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let starts_word = text[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        let term = glossary
            .iter()
            .filter(|t| starts_word && rest.starts_with(t.abbr))
            .filter(|t| rest[t.abbr.len()..].chars().next().is_none_or(|c| !c.is_alphabetic()))
            .max_by_key(|t| t.abbr.len());
        let step = match term {
            Some(t) => {
                if !found.iter().any(|f| f.abbr == t.abbr) {
                    found.push(t);
                }
                t.abbr.len()
            }
            None => rest.chars().next().map_or(1, char::len_utf8),
        };
        at += step;
    }
    found
}

/// A text the answer editor can be filled with (see [`Task::starters`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Starter {
    /// A short name for the menu ("Template", "Example: count a kind").
    pub title: String,
    /// The answer text, as the user would paste it.
    pub text: String,
}

/// Why an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Finish {
    /// The goal state was reached (reactive apps stop as soon as it is).
    Solved,
    /// The turn limit was reached first.
    TurnLimit,
    /// A single-shot answer was given (constructive apps).
    Answered,
    /// The runner stopped the episode (agent unavailable, user cancel).
    Stopped,
}

impl Finish {
    /// The finish rule every reactive application shares: solved as soon as the goal holds
    /// after a turn (never before the first, so an agent always acts), then the turn limit,
    /// then an early stop by the runner.
    pub fn reactive(goal_holds: bool, turns: u32, max_turns: u32, stopped: bool) -> Option<Finish> {
        if turns > 0 && goal_holds {
            Some(Finish::Solved)
        } else if turns >= max_turns {
            Some(Finish::TurnLimit)
        } else if stopped {
            Some(Finish::Stopped)
        } else {
            None
        }
    }

    /// The finish rule every constructive application shares: a valid answer ends the
    /// episode; an invalid one may be resubmitted until the turn limit.
    pub fn constructive(valid: bool, turns: u32, max_turns: u32) -> Option<Finish> {
        if valid {
            Some(Finish::Answered)
        } else if turns >= max_turns {
            Some(Finish::TurnLimit)
        } else {
            None
        }
    }
}

/// What one step did: the action as parsed, what it printed, and the text the agent sees next.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepOutcome {
    /// The action that ran, as the application understood it (empty if none could be parsed).
    pub action: String,
    /// The command's own output (stdout and stderr interleaved), or the sandbox's result.
    pub output: String,
    /// Exit status of the action when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    /// Exactly the observation text the agent receives next.
    pub observation: String,
    /// Remarks about parsing (fences stripped, extra actions ignored, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl StepOutcome {
    /// What `step` returns on a finished episode, which it leaves unchanged.
    pub fn over() -> StepOutcome {
        StepOutcome {
            observation: "The episode is over; no more answers are accepted.".into(),
            ..Default::default()
        }
    }
}

/// A live emulator episode.
pub trait Episode: Send {
    /// Parses one agent reply, runs it, and returns the observation. A reply that cannot be
    /// parsed still uses a turn and yields an observation explaining the expected form.
    /// Calling `step` on a finished episode returns an observation saying so and changes
    /// nothing.
    fn step(&mut self, reply: &str) -> StepOutcome;

    /// `None` while the agent may act.
    fn finished(&self) -> Option<Finish>;

    /// Turns used so far.
    fn turns(&self) -> u32;

    /// Scores the episode as it stands (correctness, safety, progress, explanations). The
    /// runner fills in latency and tokens, which the episode cannot know.
    fn score(&self) -> Score;

    /// The current emulator state as panels for the UI (ping matrix, mismatch table, diff);
    /// none by default.
    fn panels(&self) -> Vec<Panel> {
        Vec::new()
    }

    /// Turns a command typed in a terminal into a reply in this app's format; `target` is the
    /// machine chosen beside the prompt when the app has machines. By default the line is
    /// the reply, for applications whose commands have no target.
    fn compose(&self, _target: Option<&str>, line: &str) -> String {
        line.to_string()
    }

    /// Machines a terminal can address (empty, the default, when commands have no target).
    fn targets(&self) -> Vec<String> {
        Vec::new()
    }

    /// Ends the episode early (the runner gave up on the agent or the user cancelled).
    fn stop(&mut self);

    /// A picture of the current state when it differs from the task's picture (K8s: the call
    /// graph under the current policies).
    fn picture(&self) -> Option<Picture> {
        None
    }
}

/// The score of one episode, in the same fields for every application (docs/scoring.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// The final state meets the goal exactly.
    pub correct: bool,
    /// The agent never broke what was working (and stayed within scope).
    pub safe: bool,
    /// Fraction of broken behaviours repaired, 0..1 (1 for read-only answers that are right).
    pub progress: f64,
    /// Turns used.
    pub turns: u32,
    /// Summed wall-clock milliseconds spent waiting for the agent; `None` when not measured.
    pub latency_ms: Option<f64>,
    /// Tokens reported by the endpoint, summed; `None` when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// A human-readable explanation of every figure, one paragraph.
    pub explanation: String,
    /// Structured explanations for the score card.
    #[serde(default)]
    pub details: ScoreDetails,
}

impl Score {
    /// The verdict block the command-line checkers print: correct, safe, progress, then the
    /// explanation.
    pub fn verdict_text(&self) -> String {
        let yes = |b: bool| if b { "yes" } else { "no" };
        format!(
            "correct: {}\nsafe: {}\nprogress: {:.3}\n\n{}\n",
            yes(self.correct),
            yes(self.safe),
            self.progress,
            self.explanation
        )
    }
}

/// The parts of an explanation the score card lays out separately.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScoreDetails {
    /// Why correct or not, e.g. the pairs that still fail.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub correctness: Vec<String>,
    /// Why safe or not, e.g. the first step that broke a working pair.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub safety: Vec<String>,
    /// Differences from the intended state that do not affect the score.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hygiene: Vec<String>,
    /// Refused or forbidden actions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<String>,
    /// A state diff (MALT's graph diff).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diff: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const INFO: AppInfo = AppInfo {
        name: "demo",
        title: "Demo",
        summary: "",
        version: 1,
        older_versions: &[],
        kind: AppKind::Reactive,
        answer: AnswerKind::Commands,
        levels: &[LevelInfo { level: 1, summary: "" }, LevelInfo { level: 2, summary: "" }],
        knobs: &[
            KnobInfo { key: 'n', name: "subnets", help: "", values: "2..8" },
            KnobInfo { key: 't', name: "turns", help: "", values: "1..50" },
        ],
        default_max_turns: 10,
        sandboxed: false,
        glossary: &[],
    };

    fn check(id: &str) -> Result<()> {
        INFO.check_id(&id.parse().unwrap())
    }

    #[test]
    fn accepts_known_knobs_in_order() {
        check("demo-v1-L2-s0-i0").unwrap();
        check("demo-v1-L1-s0-i0-n3-t4").unwrap();
    }

    #[test]
    fn rejects_with_clear_reasons() {
        let msg = |id| check(id).unwrap_err().to_string();
        assert!(msg("other-v1-L1-s0-i0").contains("not a demo id"));
        assert_eq!(msg("demo-v2-L1-s0-i0"), "unknown generator version v2 for demo (this build has v1)");
        assert_eq!(msg("demo-v1-L3-s0-i0"), "demo has no level 3 (levels: 1, 2)");
        assert!(msg("demo-v1-L1-s0-i0-x1").contains("unknown knob"));
        assert!(msg("demo-v1-L1-s0-i0-t1-n2").contains("in the order nt"));
        assert!(msg("demo-v1-L1-s0-i0-n1-n2").contains("once each"));
    }

    #[test]
    fn older_versions_kept_are_accepted_with_their_knobs() {
        let info = AppInfo { version: 3, older_versions: &[1], ..INFO };
        let check = |id: &str| info.check_id(&id.parse().unwrap());
        check("demo-v3-L1-s0-i0-n3").unwrap();
        check("demo-v1-L1-s0-i0-n3-t4").unwrap();
        let msg = check("demo-v2-L1-s0-i0").unwrap_err().to_string();
        assert_eq!(msg, "unknown generator version v2 for demo (this build has v3)");
        assert!(check("demo-v1-L1-s0-i0-x1").unwrap_err().to_string().contains("unknown knob"));
    }

    const TERMS: &[Term] = &[
        Term { abbr: "DI", meaning: "disabled interface" },
        Term { abbr: "WR", meaning: "wrong route" },
        Term { abbr: "S1", meaning: "valid kind" },
        Term { abbr: "S1–S6", meaning: "every safety rule" },
    ];

    fn abbrs(text: &str) -> Vec<&'static str> {
        terms_in(TERMS, text).into_iter().map(|t| t.abbr).collect()
    }

    #[test]
    fn terms_are_found_as_words_with_variant_digits() {
        assert_eq!(abbrs("L2:WR+DI3, DI1"), ["WR", "DI"]);
        assert_eq!(abbrs("S1–S6 hold"), ["S1–S6"]);
        assert_eq!(abbrs("S1 valid kind"), ["S1"]);
        assert!(abbrs("WRONG DIx aDI WRx").is_empty());
        assert!(abbrs("").is_empty());
        assert!(abbrs("é…ü").is_empty());
    }

    /// A task of the demo app, answered as `kind` says.
    struct DemoTask {
        card: TaskCard,
        kind: Option<AnswerKind>,
    }

    impl Task for DemoTask {
        fn card(&self) -> &TaskCard {
            &self.card
        }
        fn prompt(&self, _: PromptVariant) -> String {
            String::new()
        }
        fn start(&self, _: Option<u32>) -> Box<dyn Episode> {
            unreachable!("these tests never start an episode")
        }
        fn picture(&self) -> Picture {
            Picture::default()
        }
        fn answer_kind(&self) -> Option<AnswerKind> {
            self.kind
        }
    }

    fn demo_task(kind: Option<AnswerKind>) -> DemoTask {
        let card = TaskCard {
            id: "demo-v1-L1-s0-i0".into(),
            app: "demo".into(),
            version: 1,
            level: 1,
            label: "x".into(),
            prompt: String::new(),
            content_hash: String::new(),
            params: Params::default(),
            expected: Value::Null,
            question: None,
            max_turns: 1,
        };
        DemoTask { card, kind }
    }

    #[test]
    fn a_task_kind_overrides_the_apps() {
        assert_eq!(INFO.answer_of(&demo_task(None)), AnswerKind::Commands);
        assert_eq!(INFO.answer_of(&demo_task(Some(AnswerKind::Python))), AnswerKind::Python);
    }

    #[test]
    fn prompt_variants_round_trip() {
        for v in PromptVariant::ALL {
            assert_eq!(PromptVariant::parse(v.as_str()).unwrap(), v);
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(json, format!("\"{}\"", v.as_str()));
        }
        assert!(PromptVariant::parse("fewshot").is_err());
    }
}
