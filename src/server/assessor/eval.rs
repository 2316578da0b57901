//! One assessment: an `EvalRequest` read into task ids and settings ([`plan`]), then played
//! against the participant over A2A with the crate's own client and runner ([`assess`]).
//!
//! The request's `config` keys are NetArena's scenario keys: `prompt_type`, `num_queries`,
//! `max_iterations`, `complexity_level`; `seed` and `task_ids` are NetPress's own. Other keys
//! of NetArena's scenario files (`benchmark_path`, `output_dir`, `regenerate_*`, …) describe its
//! own generator's files and are ignored, by name, in the first status update.

use std::str::FromStr;

use serde_json::{Map, Value, json};

use crate::agent::a2a::A2aConfig;
use crate::agent::client::EndpointConfig;
use crate::agent::native::{EndpointAgent, Transport, connect};
use crate::app::{App, PromptVariant};
use crate::conversation::Agent;
use crate::env::{SandboxPool, pooled};
use crate::export::leaderboard::{LeaderboardOptions, averages, query_dict};
use crate::id::QueryId;
use crate::record::ResultRecord;
use crate::registry::Registry;
use crate::run::{Cancel, RunSettings, Runner, drive};
use crate::stats::Summary;

/// Most queries one assessment plays.
pub const MAX_QUERIES: usize = 10_000;

/// What an `EvalRequest` asks for.
pub struct Plan {
    pub app: &'static dyn App,
    /// The participant's role (`route_operator`) and A2A URL.
    pub role: String,
    pub url: String,
    pub ids: Vec<String>,
    pub settings: RunSettings,
    /// Config keys read as NetArena's but without meaning here.
    pub ignored: Vec<String>,
}

/// One thing to tell the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    Status(String),
    Artifact { name: String, data: Value },
    Completed(String),
    Failed(String),
}

const KNOWN: &[&str] =
    &["prompt_type", "num_queries", "max_iterations", "complexity_level", "seed", "task_ids"];

/// Reads an `EvalRequest` (`{participants: {role: url}, config}`). `app` is the server's
/// `--app`; without it the application is the role's prefix (`k8s_operator` → `k8s`). A
/// sandboxed application (MALT) needs the server's sandbox processes (`sandbox_pool`).
pub fn plan(
    registry: &Registry,
    request: &Value,
    app: Option<&str>,
    sandbox_pool: bool,
) -> Result<Plan, String> {
    let participants =
        request["participants"].as_object().ok_or("the EvalRequest has no participants object")?;
    let (role, url) = match participants.iter().collect::<Vec<_>>()[..] {
        [(role, url)] => {
            (role.clone(), url.as_str().ok_or("the participant's URL is not a string")?.to_string())
        }
        _ => return Err(format!("one participant expected, got {}", participants.len())),
    };
    let name = app.map_or_else(|| app_of_role(&role), str::to_string);
    let app = registry.app(&name).map_err(|e| format!("{e} (from the participant role {role:?})"))?;
    if app.info().sandboxed && !sandbox_pool {
        return Err(format!(
            "{name} runs answers in a sandbox, and this server has no sandbox processes (it was built \
             without the sandbox feature)"
        ));
    }
    let empty = Map::new();
    let config = match &request["config"] {
        Value::Null => &empty,
        Value::Object(c) => c,
        _ => return Err("config is not an object".into()),
    };
    let settings = settings(config)?;
    let ids = match config.get("task_ids") {
        Some(ids) => listed_ids(ids, app)?,
        None => generated_ids(config, app)?,
    };
    let ignored = config.keys().filter(|k| !KNOWN.contains(&k.as_str())).cloned().collect();
    Ok(Plan { app, role, url, ids, settings, ignored })
}

/// `route_operator` → `route`; NetArena's route scenario says `routing_operator`.
fn app_of_role(role: &str) -> String {
    let name = role.strip_suffix("_operator").unwrap_or(role);
    if name == "routing" { "route".into() } else { name.to_string() }
}

fn settings(config: &Map<String, Value>) -> Result<RunSettings, String> {
    let variant = match config.get("prompt_type") {
        None => PromptVariant::default(),
        Some(v) => PromptVariant::parse(v.as_str().ok_or("prompt_type is not a string")?)
            .map_err(|e| e.to_string())?,
    };
    let max_turns = match config.get("max_iterations") {
        None => None,
        Some(v) => {
            Some(v.as_u64().filter(|n| (1..=50).contains(n)).ok_or("max_iterations must be 1..50")? as u32)
        }
    };
    Ok(RunSettings { variant, max_turns })
}

fn listed_ids(ids: &Value, app: &dyn App) -> Result<Vec<String>, String> {
    let ids = ids.as_array().ok_or("task_ids is not a list")?;
    if ids.is_empty() || ids.len() > MAX_QUERIES {
        return Err(format!("task_ids must hold 1..{MAX_QUERIES} ids"));
    }
    ids.iter()
        .map(|id| {
            let id = id.as_str().ok_or("a task id is not a string")?;
            let parsed = QueryId::from_str(id).map_err(|e| e.to_string())?;
            if parsed.app != app.info().name {
                return Err(format!("{id} is not a {} task", app.info().name));
            }
            Ok(id.to_string())
        })
        .collect()
}

/// `num_queries` seeds from `seed` on, at each level of `complexity_level` (all by default).
fn generated_ids(config: &Map<String, Value>, app: &dyn App) -> Result<Vec<String>, String> {
    let info = app.info();
    let count =
        config.get("num_queries").map_or(Some(1), Value::as_u64).ok_or("num_queries is not a number")?;
    let seed = config.get("seed").map_or(Some(0), Value::as_u64).ok_or("seed is not a number")?;
    let levels: Vec<u8> = match config.get("complexity_level") {
        None => info.levels.iter().map(|l| l.level).collect(),
        Some(Value::Array(levels)) => levels
            .iter()
            .map(level_of)
            .collect::<Option<_>>()
            .ok_or("complexity_level holds levels as \"level1\" or 1")?,
        Some(_) => return Err("complexity_level is not a list".into()),
    };
    if let Some(l) = levels.iter().find(|l| !info.levels.iter().any(|i| i.level == **l)) {
        return Err(format!("{} has no level {l}", info.name));
    }
    if count == 0 || count as usize * levels.len() > MAX_QUERIES || levels.is_empty() {
        return Err(format!("num_queries times the levels must be 1..{MAX_QUERIES}"));
    }
    let id = |level: u8, s: u64| {
        QueryId::new(info.name, info.version, level, seed.saturating_add(s), 0).to_string()
    };
    Ok(levels.iter().flat_map(|&l| (0..count).map(move |s| id(l, s))).collect())
}

fn level_of(v: &Value) -> Option<u8> {
    let n = match v {
        Value::String(s) => s.strip_prefix("level").unwrap_or(s).parse().ok(),
        other => other.as_u64(),
    };
    n.and_then(|n| u8::try_from(n).ok())
}

/// Plays the plan's queries one by one against the participant, reporting each; a sandboxed
/// application's turns run in `pool`'s processes, as the server's sessions' do.
pub fn assess(registry: &Registry, pool: Option<&SandboxPool>, plan: &Plan, emit: &mut dyn FnMut(Update)) {
    let pool = pool.filter(|_| plan.app.info().sandboxed);
    let transport = Transport::new(Cancel::new());
    let mut opening =
        format!("Assessing {} on {} {} queries", plan.role, plan.ids.len(), plan.app.info().name);
    if !plan.ignored.is_empty() {
        opening
            .push_str(&format!(" (config keys without meaning here, ignored: {})", plan.ignored.join(", ")));
    }
    emit(Update::Status(opening));
    let client = match connect(&EndpointConfig::A2a(A2aConfig::new(&plan.url)), &transport) {
        Ok(client) => std::sync::Arc::new(client),
        Err(e) => {
            return emit(Update::Failed(format!(
                "cannot reach the participant {}: {}",
                plan.role, e.message
            )));
        }
    };
    let opts = LeaderboardOptions {
        kind: plan.app.info().kind,
        participant: plan.role.clone(),
        participant_id: plan.url.clone(),
    };
    let mut records = Vec::with_capacity(plan.ids.len());
    for (n, id) in plan.ids.iter().enumerate() {
        let task = match registry.generate(id) {
            Ok(task) => task,
            Err(e) => return emit(Update::Failed(format!("cannot generate {id}: {e}"))),
        };
        let mut agent = EndpointAgent::new(client.clone(), transport.clone());
        let record = match pool {
            Some(pool) => match pooled::drive(registry, pool, task.clone(), plan.settings, &mut agent) {
                Ok(record) => record,
                Err(e) => return emit(Update::Failed(format!("query {} ({id}): {}", n + 1, e.message))),
            },
            None => {
                let mut runner = Runner::new(task.clone(), plan.settings);
                drive(&mut runner, &mut agent, transport.cancel());
                runner.record(&agent.info())
            }
        };
        emit(Update::Artifact {
            name: format!("Query {}", n + 1),
            data: query_dict(&record, &opts, Some(task.card())),
        });
        emit(Update::Status(format!("Query {} processed", n + 1)));
        records.push(record);
    }
    let last = averages(&Summary::of(&records), opts.kind);
    emit(Update::Artifact { name: "Result".into(), data: result(&records, &opts, &last) });
    emit(Update::Completed(format!("Assessment complete: {last}")));
}

/// The final artifact: the averages, beside the participants map as the leaderboard's files
/// name it and the records' ids.
fn result(records: &[ResultRecord], opts: &LeaderboardOptions, averages: &Value) -> Value {
    let mut out = averages.clone();
    out["participants"] = json!({ opts.participant.clone(): opts.participant_id });
    out["netpress_ids"] = json!(records.iter().map(|r| r.id.as_str()).collect::<Vec<_>>());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(request: Value, app: Option<&str>) -> Result<Plan, String> {
        plan(Registry::standard(), &request, app, false)
    }

    #[test]
    fn netarena_scenarios_become_ids() {
        let request = json!({"participants": {"routing_operator": "http://p:9"}, "config": {
            "prompt_type": "zeroshot_cot", "num_queries": 2, "max_iterations": 10, "benchmark_path": "x.json",
            "num_switches": 2}});
        let p = plan_of(request, None).unwrap();
        assert_eq!(
            (p.app.info().name, p.role.as_str(), p.url.as_str()),
            ("route", "routing_operator", "http://p:9")
        );
        assert_eq!(p.settings.max_turns, Some(10));
        assert_eq!(p.settings.variant, PromptVariant::parse("zeroshot_cot").unwrap());
        assert_eq!(p.ignored, ["benchmark_path", "num_switches"]);
        assert_eq!(p.ids.len(), 2 * p.app.info().levels.len());
        assert_eq!(&p.ids[..2], ["route-v1-L1-s0-i0", "route-v1-L1-s1-i0"]);
        let k8s =
            json!({"participants": {"x": "u"}, "config": {"complexity_level": ["level2", 3], "seed": 7}});
        assert_eq!(plan_of(k8s, Some("k8s")).unwrap().ids, ["k8s-v1-L2-s7-i0", "k8s-v1-L3-s7-i0"]);
        let listed =
            json!({"participants": {"k8s_operator": "u"}, "config": {"task_ids": ["k8s-v1-L1-s3-i0"]}});
        assert_eq!(plan_of(listed, None).unwrap().ids, ["k8s-v1-L1-s3-i0"]);
    }

    #[test]
    fn malt_needs_sandbox_processes() {
        let request = json!({"participants": {"malt_operator": "u"}, "config": {"num_queries": 1}});
        let p = plan(Registry::standard(), &request, None, true).unwrap();
        assert_eq!(p.ids.len(), p.app.info().levels.len());
        assert!(p.ids[0].starts_with("malt-"));
    }

    #[test]
    fn bad_requests_are_refused_with_a_reason() {
        let cases = [
            (json!({}), "no participants"),
            (json!({"participants": {}}), "one participant"),
            (json!({"participants": {"a": "u", "b": "v"}}), "one participant"),
            (json!({"participants": {"nosuch_operator": "u"}}), "nosuch"),
            (json!({"participants": {"malt_operator": "u"}}), "sandbox"),
            (json!({"participants": {"k8s_operator": 3}}), "not a string"),
            (json!({"participants": {"k8s_operator": "u"}, "config": {"max_iterations": 0}}), "1..50"),
            (
                json!({"participants": {"k8s_operator": "u"}, "config": {"complexity_level": ["level9"]}}),
                "no level 9",
            ),
            (json!({"participants": {"k8s_operator": "u"}, "config": {"num_queries": 0}}), "1..10000"),
            (
                json!({"participants": {"k8s_operator": "u"}, "config": {"task_ids": ["route-v1-L1-s0-i0"]}}),
                "not a k8s",
            ),
            (json!({"participants": {"k8s_operator": "u"}, "config": {"prompt_type": "odd"}}), "odd"),
        ];
        for (request, want) in cases {
            let err = plan_of(request.clone(), None).err().unwrap_or_default();
            assert!(err.contains(want), "{request}: {err}");
        }
    }
}
