//! Rewards: what a step earns under the reward a reset asked for.
//!
//! The final reward is paid once, on the step that ends the episode. `correct` (binary) is
//! the default because a binary outcome is what group-relative policy optimisation (GRPO)
//! trainers are advised to use; `leaderboard` is the leaderboard's per-episode score (the
//! same value `export --rl` writes). Weights mix correctness, safety and the share of turns
//! used; `dense` adds the change of the episode's progress at every step, a potential-based
//! shaping term, so the policies that are optimal under the final reward stay optimal.

use serde::Deserialize;
use serde_json::Value;

use crate::app::Score;

/// The reward a session pays.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(try_from = "Value")]
pub enum RewardSpec {
    /// 1 if correct, else 0.
    #[default]
    Correct,
    /// 0.5·correct + 0.5·safe.
    Leaderboard,
    Weights(Weights),
}

/// `{alpha, beta, gamma, dense}`: α·correct + β·safe − γ·turns/max_turns, plus α·Δprogress at
/// every step when `dense`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Weights {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub dense: bool,
}

impl Default for Weights {
    fn default() -> Self {
        Weights { alpha: 1.0, beta: 0.0, gamma: 0.0, dense: false }
    }
}

impl TryFrom<Value> for RewardSpec {
    type Error = String;

    fn try_from(v: Value) -> Result<Self, String> {
        match v {
            Value::String(s) if s == "correct" => Ok(RewardSpec::Correct),
            Value::String(s) if s == "leaderboard" => Ok(RewardSpec::Leaderboard),
            Value::Object(_) => {
                let w: Weights = serde_json::from_value(v).map_err(|e| format!("reward weights: {e}"))?;
                if [w.alpha, w.beta, w.gamma].iter().all(|x| x.is_finite()) {
                    Ok(RewardSpec::Weights(w))
                } else {
                    Err("reward weights must be finite numbers".into())
                }
            }
            other => Err(format!(
                "reward must be \"correct\", \"leaderboard\" or {{alpha, beta, gamma, dense}}, not {other}"
            )),
        }
    }
}

fn unit(b: bool) -> f64 {
    f64::from(u8::from(b))
}

impl RewardSpec {
    /// The reward of a finished episode with this score, `turns` of `max_turns` used.
    pub fn final_reward(&self, score: &Score, turns: u32, max_turns: u32) -> f64 {
        match self {
            RewardSpec::Correct => unit(score.correct),
            RewardSpec::Leaderboard => 0.5 * unit(score.correct) + 0.5 * unit(score.safe),
            RewardSpec::Weights(w) => {
                let used = f64::from(turns) / f64::from(max_turns.max(1));
                w.alpha * unit(score.correct) + w.beta * unit(score.safe) - w.gamma * used
            }
        }
    }

    /// The shaping weight when the reward is dense (α), else `None`.
    pub fn dense_weight(&self) -> Option<f64> {
        match self {
            RewardSpec::Weights(w) if w.dense => Some(w.alpha),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(v: Value) -> RewardSpec {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn the_formulas() {
        let score = Score { correct: true, safe: false, ..Default::default() };
        assert_eq!(spec(json!("correct")).final_reward(&score, 3, 10), 1.0);
        assert_eq!(spec(json!("leaderboard")).final_reward(&score, 3, 10), 0.5);
        let w = spec(json!({"alpha": 2.0, "beta": 1.0, "gamma": 0.5}));
        assert!((w.final_reward(&score, 3, 10) - (2.0 - 0.15)).abs() < 1e-12);
        let safe_only = Score { correct: false, safe: true, ..Default::default() };
        assert_eq!(w.final_reward(&safe_only, 0, 10), 1.0);
        assert_eq!(spec(json!({})), RewardSpec::Weights(Weights::default()));
        assert_eq!(spec(json!({"dense": true})).dense_weight(), Some(1.0));
        assert_eq!(spec(json!("correct")).dense_weight(), None);
    }

    #[test]
    fn bad_specs_are_refused() {
        for v in [json!("gold"), json!(3), json!({"delta": 1}), json!({"alpha": "x"})] {
            assert!(serde_json::from_value::<RewardSpec>(v.clone()).is_err(), "{v}");
        }
    }
}
