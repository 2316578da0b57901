//! Reset parameters: which task an episode runs and how it is rewarded, checked field by field
//! so that every refusal names its reason (docs/env.md lists them).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::error::{EnvError, Reason};
use super::reward::RewardSpec;
use crate::QueryId;
use crate::app::{PromptVariant, Task};
use crate::registry::Registry;
use crate::run::RunSettings;

/// The largest turn limit a reset may ask for.
pub const MAX_TURNS: u32 = 50;
/// The longest `episode_id` a client may choose.
pub const MAX_EPISODE_ID: usize = 64;

/// The parameters of a reset, as sent (`task_id` or `app` with its parts, not both).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResetParams {
    pub task_id: Option<String>,
    pub app: Option<String>,
    pub level: Option<u64>,
    pub seed: Option<u64>,
    pub index: Option<u64>,
    #[serde(default)]
    pub knobs: BTreeMap<String, Value>,
    pub variant: Option<PromptVariant>,
    pub max_turns: Option<u32>,
    #[serde(default)]
    pub reward: RewardSpec,
    #[serde(default)]
    pub record: bool,
    pub episode_id: Option<String>,
}

/// What a transport's command line sets for resets that leave it out (`--app`, `--level`), so
/// that an OpenEnv client's bare `{"seed": 42}` names a task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Defaults {
    pub app: Option<String>,
    pub level: Option<u8>,
}

/// A reset that passed every check: the task, how to run it, and the session's settings.
#[derive(Clone)]
pub struct Resolved {
    pub task: Arc<dyn Task>,
    pub settings: RunSettings,
    pub reward: RewardSpec,
    pub record: bool,
    /// The client's `episode_id`, when it chose one.
    pub episode_id: Option<String>,
}

impl ResetParams {
    /// Parses reset parameters from a message's `data` (absent or `null`: all defaults).
    pub fn from_value(data: Option<Value>) -> Result<Self, EnvError> {
        match data {
            None | Some(Value::Null) => Ok(ResetParams::default()),
            Some(v) => serde_json::from_value(v).map_err(|e| EnvError::from_serde("reset", &e)),
        }
    }

    /// Checks the parameters and builds the task they name; sandboxed applications are
    /// refused (this caller has no sandbox processes to run their steps in).
    pub fn resolve(&self, registry: &Registry, defaults: &Defaults) -> Result<Resolved, EnvError> {
        self.resolve_with(registry, defaults, false)
    }

    /// [`ResetParams::resolve`] for a caller that may run sandboxed steps in worker processes
    /// (`sandbox_pool`: the server's, which replay a session's turns at each step).
    pub fn resolve_with(
        &self,
        registry: &Registry,
        defaults: &Defaults,
        sandbox_pool: bool,
    ) -> Result<Resolved, EnvError> {
        let id = self.query_id(registry, defaults)?;
        let app = registry.app(&id.app).map_err(|e| EnvError::from_library(&e))?;
        if app.info().sandboxed && !sandbox_pool {
            return Err(EnvError::new(
                Reason::SandboxedApp,
                format!(
                    "{} runs agent code in a sandbox, which only `netpress serve` hosts (in sandbox \
                     processes); use it, `netpress run` or the web app for {} tasks",
                    app.info().name,
                    app.info().name
                ),
            ));
        }
        if let Some(t) = self.max_turns
            && !(1..=MAX_TURNS).contains(&t)
        {
            return Err(EnvError::new(Reason::BadValue, format!("max_turns {t} is not in 1..{MAX_TURNS}")));
        }
        if let Some(e) = &self.episode_id {
            check_episode_id(e)?;
        }
        let task = app.generate(&id).map_err(|e| EnvError::from_library(&e))?;
        Ok(Resolved {
            task,
            settings: RunSettings { variant: self.variant.unwrap_or_default(), max_turns: self.max_turns },
            reward: self.reward,
            record: self.record,
            episode_id: self.episode_id.clone(),
        })
    }

    /// The id the parameters name: `task_id` as given, or built from `app` and its parts.
    fn query_id(&self, registry: &Registry, defaults: &Defaults) -> Result<QueryId, EnvError> {
        let parts = self.app.is_some()
            || self.level.is_some()
            || self.seed.is_some()
            || self.index.is_some()
            || !self.knobs.is_empty();
        if let Some(task_id) = &self.task_id {
            if parts {
                return Err(EnvError::new(
                    Reason::TaskAndApp,
                    "give either task_id or app (with level, seed, index, knobs), not both",
                ));
            }
            return task_id.parse().map_err(|e| EnvError::from_library(&e));
        }
        let name = self.app.as_ref().or(defaults.app.as_ref()).ok_or_else(|| {
            EnvError::new(Reason::MissingField, "reset needs task_id or app (the server has no default app)")
        })?;
        let app = registry.app(name).map_err(|e| EnvError::from_library(&e))?;
        let default_level = defaults.level.filter(|_| defaults.app.as_deref() == Some(name.as_str()));
        let level = match self.level.or(default_level.map(u64::from)) {
            Some(l) => u8::try_from(l).map_err(|_| {
                EnvError::new(Reason::BadLevel, format!("level {l} is not a level of {name}"))
            })?,
            None => {
                return Err(EnvError::new(Reason::MissingField, format!("reset of {name} needs a level")));
            }
        };
        let mut id = app.default_id(level, self.seed.unwrap_or(0), self.index.unwrap_or(0));
        let info = app.info();
        let order = info.knob_order();
        for (knob_name, value) in &self.knobs {
            let knob = info.knobs.iter().find(|k| k.name == knob_name).ok_or_else(|| {
                let known: Vec<&str> = info.knobs.iter().map(|k| k.name).collect();
                EnvError::new(
                    Reason::BadKnob,
                    format!("{name} has no knob {knob_name:?} (knobs: {})", known.join(", ")),
                )
            })?;
            let value = match value {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                other => {
                    return Err(EnvError::new(
                        Reason::BadKnob,
                        format!("knob {knob_name:?}: {other} is not a string or number"),
                    ));
                }
            };
            id = id.with_knob(knob.key, value, &order);
        }
        info.check_id(&id).map_err(|e| EnvError::from_library(&e))?;
        Ok(id)
    }
}

/// An `episode_id` a client chose: 1 to 64 of `[A-Za-z0-9._-]`.
pub fn check_episode_id(id: &str) -> Result<(), EnvError> {
    let ok = !id.is_empty()
        && id.len() <= MAX_EPISODE_ID
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(EnvError::new(
            Reason::BadValue,
            format!("episode_id must be 1 to {MAX_EPISODE_ID} of A-Z, a-z, 0-9, '.', '_', '-'"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reason(data: Value) -> Reason {
        let defaults = Defaults::default();
        match ResetParams::from_value(Some(data)).and_then(|p| p.resolve(Registry::standard(), &defaults)) {
            Ok(_) => panic!("accepted"),
            Err(e) => e.reason,
        }
    }

    #[test]
    fn every_refusal_has_its_reason() {
        let cases = [
            (json!({"task_id": "nonsense"}), Reason::BadId),
            (json!({"task_id": "route-v9-L1-s0-i0"}), Reason::BadId),
            (json!({"task_id": "nope-v1-L1-s0-i0"}), Reason::UnknownApp),
            (json!({"app": "nope", "level": 1}), Reason::UnknownApp),
            (json!({"app": "route", "level": 9}), Reason::BadLevel),
            (json!({"app": "route", "level": 300}), Reason::BadLevel),
            (json!({"app": "route", "level": 1, "knobs": {"colour": 3}}), Reason::BadKnob),
            (json!({"app": "route", "level": 1, "knobs": {"subnets": true}}), Reason::BadKnob),
            (json!({"app": "route", "level": 1, "knobs": {"subnets": 999}}), Reason::BadKnob),
            (json!({"task_id": "route-v1-L1-s0-i0", "colour": 1}), Reason::UnknownField),
            (json!({"seed": 3}), Reason::MissingField),
            (json!({"app": "route"}), Reason::MissingField),
            (json!({"task_id": "route-v1-L1-s0-i0", "app": "route"}), Reason::TaskAndApp),
            (json!({"task_id": "route-v1-L1-s0-i0", "max_turns": 0}), Reason::BadValue),
            (json!({"task_id": "route-v1-L1-s0-i0", "max_turns": 51}), Reason::BadValue),
            (json!({"task_id": "route-v1-L1-s0-i0", "variant": "loud"}), Reason::BadValue),
            (json!({"task_id": "route-v1-L1-s0-i0", "reward": "gold"}), Reason::BadValue),
            (json!({"task_id": "route-v1-L1-s0-i0", "episode_id": "a b"}), Reason::BadValue),
            (json!({"task_id": "route-v1-L1-s0-i0", "episode_id": "x".repeat(65)}), Reason::BadValue),
            (json!({"task_id": "malt-v1-L1-s0-i0"}), Reason::SandboxedApp),
        ];
        for (data, want) in cases {
            assert_eq!(reason(data.clone()), want, "{data}");
        }
    }

    /// Sandboxed applications take any turn limit where a sandbox pool runs their steps (it
    /// replays the turns), and nothing where none does.
    #[test]
    fn sandboxed_turn_limits_need_a_pool_only() {
        let p: ResetParams =
            serde_json::from_value(json!({"task_id": "malt-v1-L1-s0-i0", "max_turns": 3})).unwrap();
        let with = p.resolve_with(Registry::standard(), &Defaults::default(), true).unwrap();
        assert_eq!(with.settings.max_turns, Some(3));
        let without = p.resolve_with(Registry::standard(), &Defaults::default(), false);
        assert_eq!(without.err().map(|e| e.reason), Some(Reason::SandboxedApp));
    }

    #[test]
    fn parts_and_defaults_name_the_same_task_as_the_id() {
        let by_parts: ResetParams = serde_json::from_value(
            json!({"app": "route", "level": 2, "seed": 42, "index": 7, "knobs": {"subnets": 6}}),
        )
        .unwrap();
        let r = by_parts.resolve(Registry::standard(), &Defaults::default()).unwrap();
        assert_eq!(r.task.card().id, "route-v1-L2-s42-i7-n6");
        let bare: ResetParams = serde_json::from_value(json!({"seed": 42, "index": 7})).unwrap();
        let defaults = Defaults { app: Some("route".into()), level: Some(2) };
        assert_eq!(
            bare.resolve(Registry::standard(), &defaults).unwrap().task.card().id,
            "route-v1-L2-s42-i7"
        );
        let none = ResetParams::from_value(None).unwrap();
        assert_eq!(
            none.resolve(Registry::standard(), &defaults).unwrap().task.card().id,
            "route-v1-L2-s0-i0"
        );
    }
}
