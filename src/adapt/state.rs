//! The search's settings and its state file (schema `netpress.adapt.v1`).
//!
//! The state holds the settings and every observation; every point and seed of the search is
//! a function of them, so a state replays and resumes with no RNG state of its own.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::space::Reference;
use crate::app::Score;
use crate::conversation::AgentInfo;
use crate::error::{Error, Result};

/// v2: the settings hold the agent's turn limit (`max_turns`), so a resume or a link runs the
/// same agent; a v1 state did not say, so it is read for reports and exports but not resumed
/// ([`State::check_resumable`]).
pub const SCHEMA: &str = "netpress.adapt.v2";
/// The schema before the turn limit was stored.
pub const SCHEMA_V1: &str = "netpress.adapt.v1";
/// The longest state token a link carries (a URL fragment holds 16 KiB); a longer state is
/// offered as a file instead.
pub const MAX_TOKEN: usize = 12 * 1024;
/// The most a token may inflate to, so a crafted link cannot exhaust the page's memory.
const MAX_TOKEN_JSON: usize = 8 << 20;

/// Which number of an episode's score is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoreKind {
    /// 1 when correct, else 0.
    Correct,
    /// 0.5·correct + 0.5·safe.
    Leaderboard,
    /// The fraction of broken behaviours repaired.
    Progress,
}

impl ScoreKind {
    pub fn parse(s: &str) -> Result<ScoreKind> {
        match s {
            "correct" => Ok(ScoreKind::Correct),
            "leaderboard" => Ok(ScoreKind::Leaderboard),
            "progress" => Ok(ScoreKind::Progress),
            _ => Err(Error::Invalid(format!("unknown score {s:?} (correct, leaderboard, progress)"))),
        }
    }

    /// The score of an episode in [0, 1].
    pub fn of(self, score: &Score) -> f64 {
        let b = |x: bool| if x { 1.0 } else { 0.0 };
        match self {
            ScoreKind::Correct => b(score.correct),
            ScoreKind::Leaderboard => 0.5 * b(score.correct) + 0.5 * b(score.safe),
            ScoreKind::Progress => score.progress.clamp(0.0, 1.0),
        }
    }
}

/// Which evaluated cell a round promotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Select {
    /// The highest observed gap (Genet's `best`).
    Best,
    /// The highest posterior mean.
    Mean,
}

/// Whether the agent stays the same across rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// A fixed agent: the surrogate sees every round's evaluations.
    Evaluate,
    /// The agent is trained between rounds: the surrogate sees this round's only.
    Train,
}

/// A dimension held to some of its values (`--turns 10`, `--levels 1,2`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pin {
    pub dim: String,
    pub values: Vec<String>,
}

/// Everything that decides the search's points and seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub rounds: u32,
    pub budget: u32,
    pub random: u32,
    pub k: u32,
    pub score: ScoreKind,
    pub reference: Reference,
    pub kappa: f64,
    pub select: Select,
    pub min_gap: f64,
    pub weight: f64,
    pub decay: f64,
    pub mode: Mode,
    pub pins: Vec<Pin>,
    pub seed: u64,
    pub confirm: u32,
    pub confirm_top: u32,
    pub tolerance: f64,
    /// Confirm after every round that promotes, not only after the last (`--confirm-each`).
    /// Left out of the JSON when off, so states of searches without it keep their bytes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub confirm_each: bool,
    /// The turn limit the agent is held to (`--max-turns`; the reference keeps the task's);
    /// `null`: the task's own limit. Part of the settings so a resume or a link runs the same
    /// agent. Left out of the JSON when `None`, so a v1 state's hash still checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// Search a dimension's `xl` value too (MALT's extra-large shape, whose build alone takes
    /// about half a second); left out of the JSON when off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_xl: bool,
}

impl Settings {
    /// The defaults (Genet's `init_points = 10, n_iter = 5`, bayes_opt's κ) for a reference.
    pub fn new(reference: Reference) -> Settings {
        Settings {
            rounds: 5,
            budget: 15,
            random: 10,
            k: 10,
            score: ScoreKind::Correct,
            reference,
            kappa: 2.576,
            select: Select::Best,
            min_gap: 0.0,
            weight: 0.3,
            decay: 0.7,
            mode: Mode::Evaluate,
            pins: Vec::new(),
            seed: 0,
            confirm: 50,
            confirm_top: 3,
            tolerance: 0.1,
            confirm_each: false,
            max_turns: None,
            allow_xl: false,
        }
    }

    /// The default random share of a budget: ⌈2B/3⌉.
    pub fn random_of(budget: u32) -> u32 {
        (2 * budget).div_ceil(3)
    }

    /// Refuses settings the search cannot run, naming the setting.
    pub fn check(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::Invalid(m.to_string()));
        if self.budget == 0 || self.k == 0 || self.rounds == 0 {
            return bad("--rounds, --budget and --k must be at least 1");
        }
        if self.random > self.budget {
            return bad("--random must not exceed --budget");
        }
        if !(self.kappa.is_finite() && self.kappa >= 0.0) {
            return bad("--kappa must be a finite number ≥ 0");
        }
        if self.max_turns == Some(0) {
            return bad("--max-turns must be at least 1");
        }
        if !(self.min_gap.is_finite() && self.tolerance.is_finite() && (0.0..1.0).contains(&self.tolerance)) {
            return bad("--min-gap must be finite and --tolerance in [0, 1)");
        }
        Ok(())
    }
}

/// Which part of a round an evaluation belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Random,
    Guided,
}

/// One evaluation: a cell, its paired ids, the agent's and the reference's scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub round: u32,
    pub phase: Phase,
    pub cell: BTreeMap<String, String>,
    /// The cell's grid index.
    pub index: u64,
    pub ids: Vec<String>,
    pub agent: Vec<f64>,
    pub reference: Vec<f64>,
    pub gap: f64,
}

impl Evaluation {
    /// The GP's noise variance of this gap: `(s_d² + 1/k) / k`, the 1/k floor keeping
    /// all-equal outcomes from looking noise-free.
    pub fn noise(&self) -> f64 {
        let d: Vec<f64> = self.reference.iter().zip(&self.agent).map(|(r, a)| r - a).collect();
        let k = d.len().max(1) as f64;
        let mean = d.iter().sum::<f64>() / k;
        let var = if d.len() > 1 {
            d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (k - 1.0)
        } else {
            0.0
        };
        (var + 1.0 / k) / k
    }
}

/// What one round ended with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundNote {
    pub round: u32,
    /// The round's selected cell and its observed gap.
    pub best: BTreeMap<String, String>,
    pub best_index: u64,
    pub gap: f64,
    pub promoted: bool,
}

/// A promotion into the mixture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Promotion {
    pub round: u32,
    pub cell: BTreeMap<String, String>,
    pub index: u64,
    pub gap: f64,
    pub weight: f64,
}

/// A component of the task mixture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Component {
    /// The application's own generator over the searched levels, no knobs.
    Default { levels: Vec<u8>, weight: f64 },
    /// One promoted cell.
    Cell { cell: BTreeMap<String, String>, index: u64, weight: f64, round: u32, gap: f64 },
}

impl Component {
    pub fn weight(&self) -> f64 {
        match self {
            Component::Default { weight, .. } | Component::Cell { weight, .. } => *weight,
        }
    }

    fn weight_mut(&mut self) -> &mut f64 {
        match self {
            Component::Default { weight, .. } | Component::Cell { weight, .. } => weight,
        }
    }
}

/// Genet's mixture update: every weight × `decay`, then `weight` added to the promoted cell's
/// component (a new one if it has none).
pub fn promote(mixture: &mut Vec<Component>, p: &Promotion, decay: f64, weight: f64) {
    for c in mixture.iter_mut() {
        *c.weight_mut() *= decay;
    }
    let existing =
        mixture.iter_mut().find(|c| matches!(c, Component::Cell { index, .. } if *index == p.index));
    match existing {
        Some(c) => *c.weight_mut() += weight,
        None => mixture.push(Component::Cell {
            cell: p.cell.clone(),
            index: p.index,
            weight,
            round: p.round,
            gap: p.gap,
        }),
    }
}

/// A rate with its Wilson interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RateCi {
    pub rate: f64,
    pub lo: f64,
    pub hi: f64,
}

/// The verdict of a confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The agent trails the reference beyond both intervals: a weakness.
    Weak,
    /// The agent beats the reference beyond both intervals.
    Better,
    NotConfirmed,
}

/// A cell re-run on fresh seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Confirmation {
    pub cell: BTreeMap<String, String>,
    pub index: u64,
    /// Promoted (else one of the top cells by posterior mean).
    pub promoted: bool,
    pub ids: Vec<String>,
    pub agent_scores: Vec<f64>,
    pub reference_scores: Vec<f64>,
    pub agent: RateCi,
    pub reference: RateCi,
    /// The mean observed gap of the cell's search evaluations.
    pub search_gap: f64,
    pub gap: f64,
    pub shrinkage: f64,
    pub verdict: Verdict,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The whole state of a search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub schema: String,
    pub netpress_version: String,
    pub app: String,
    pub space: String,
    /// The agent (one per round in mode train).
    pub agent: Vec<AgentInfo>,
    pub settings: Settings,
    pub evaluations: Vec<Evaluation>,
    pub rounds: Vec<RoundNote>,
    pub promotions: Vec<Promotion>,
    pub mixture: Vec<Component>,
    pub confirmations: Vec<Confirmation>,
    /// With `confirm_each`: the rounds finished when the confirmations were made.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub confirmed_after: u32,
    #[serde(default)]
    pub state_hash: String,
}

impl State {
    /// The SHA-256 of the canonical JSON of the state without its hash.
    pub fn hash(&self) -> String {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.remove("state_hash");
        }
        crate::hash::sha256_hex(crate::hash::canonical_json(&v).as_bytes())
    }

    /// The state as pretty JSON with its hash filled in.
    pub fn to_json(&self) -> String {
        let mut s = self.clone();
        s.state_hash = s.hash();
        serde_json::to_string_pretty(&s).unwrap_or_default() + "\n"
    }

    /// The state for a link (`#/adapt/<token>`): its compact JSON, raw DEFLATE, unpadded
    /// base64url. The caller checks the length against [`MAX_TOKEN`].
    pub fn token(&self) -> String {
        use base64::Engine;
        let mut s = self.clone();
        s.state_hash = s.hash();
        let json = serde_json::to_string(&s).unwrap_or_default();
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9))
    }

    /// The state of a link's token ([`State::token`]), checked as [`State::parse`] checks a file.
    pub fn from_token(token: &str) -> Result<State> {
        use base64::Engine;
        let bad = |why: &str| Error::Invalid(format!("the adapt state in this link is damaged ({why})"));
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(token.as_bytes())
            .map_err(|_| bad("not base64url"))?;
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, MAX_TOKEN_JSON)
            .map_err(|_| bad("not deflate"))?;
        State::parse(&String::from_utf8(json).map_err(|_| bad("not UTF-8"))?)
    }

    /// Reads a state file, checking its schema and hash.
    pub fn parse(text: &str) -> Result<State> {
        let s: State =
            serde_json::from_str(text).map_err(|e| Error::Invalid(format!("not an adapt state: {e}")))?;
        if s.schema != SCHEMA && s.schema != SCHEMA_V1 {
            return Err(Error::Invalid(format!("state schema {:?} is not {SCHEMA}", s.schema)));
        }
        if !s.state_hash.is_empty() && s.state_hash != s.hash() {
            return Err(Error::Invalid("state_hash does not match the state (edited by hand?)".into()));
        }
        Ok(s)
    }

    /// Refuses to continue a state that does not record the agent's turn limit (schema
    /// `netpress.adapt.v1`): continuing it could run a different agent than its evaluations
    /// measured. Its report and curriculum still read.
    pub fn check_resumable(&self) -> Result<()> {
        if self.schema == SCHEMA_V1 {
            return Err(Error::Invalid(format!(
                "this state ({SCHEMA_V1}) does not record the agent's turn limit, so it cannot be \
                 continued (this build writes {SCHEMA}); its report and export still work, or start \
                 a new search"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_decays_and_adds() {
        let mut mix = vec![Component::Default { levels: vec![1, 2], weight: 1.0 }];
        let p = |index| Promotion { round: 1, cell: BTreeMap::new(), index, gap: 0.5, weight: 0.3 };
        promote(&mut mix, &p(4), 0.7, 0.3);
        promote(&mut mix, &p(4), 0.7, 0.3);
        promote(&mut mix, &p(9), 0.7, 0.3);
        let w: Vec<f64> = mix.iter().map(Component::weight).collect();
        assert!((w[0] - 0.343).abs() < 1e-12);
        assert!((w[1] - (0.3 * 0.7 * 0.7 + 0.3 * 0.7)).abs() < 1e-12);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(mix.len(), 3);
    }

    #[test]
    fn noise_has_a_floor() {
        let e = |agent: Vec<f64>| Evaluation {
            round: 1,
            phase: Phase::Random,
            cell: BTreeMap::new(),
            index: 0,
            ids: vec![],
            reference: vec![1.0; agent.len()],
            agent,
            gap: 0.0,
        };
        assert!((e(vec![1.0; 5]).noise() - 0.04).abs() < 1e-15);
        assert!(e(vec![1.0, 0.0, 1.0, 0.0, 1.0]).noise() > 0.04);
    }

    #[test]
    fn held_turns_and_xl_are_stored() {
        let mut s = Settings::new(Reference::Baseline);
        let plain = serde_json::to_string(&s).unwrap();
        assert!(!plain.contains("max_turns") && !plain.contains("allow_xl"), "{plain}");
        (s.max_turns, s.allow_xl) = (Some(3), true);
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"max_turns\":3") && json.contains("\"allow_xl\":true"), "{json}");
        assert_eq!(serde_json::from_str::<Settings>(&json).unwrap(), s);
        s.max_turns = Some(0);
        assert!(s.check().unwrap_err().to_string().contains("--max-turns"));
    }

    #[test]
    fn bad_states_are_refused_with_reasons() {
        assert!(State::parse("{").unwrap_err().to_string().contains("not an adapt state"));
        let s = State {
            schema: "x".into(),
            netpress_version: String::new(),
            app: "route".into(),
            space: "s".into(),
            agent: vec![],
            settings: Settings::new(Reference::Baseline),
            evaluations: vec![],
            rounds: vec![],
            promotions: vec![],
            mixture: vec![],
            confirmations: vec![],
            confirmed_after: 0,
            state_hash: String::new(),
        };
        assert!(State::parse(&s.to_json()).unwrap_err().to_string().contains("schema"));
        let good = State { schema: SCHEMA.into(), ..s };
        assert_eq!(State::parse(&good.to_json()).unwrap().app, "route");
        let edited = good.to_json().replace("\"route\"", "\"k8s\"");
        assert!(State::parse(&edited).unwrap_err().to_string().contains("state_hash"));
        // A v1 state (no turn limit recorded) reads, hash and all, but is not continued.
        let old = State { schema: SCHEMA_V1.into(), ..good.clone() };
        let old = State::parse(&old.to_json()).unwrap();
        let err = old.check_resumable().unwrap_err().to_string();
        assert!(err.contains("turn limit") && err.contains(SCHEMA_V1), "{err}");
        assert!(good.check_resumable().is_ok());
    }
}
