//! The NetArena leaderboard's results file, so NetPress results can be submitted where that
//! format is used.
//!
//! The shape, as found in the leaderboard's published result files (one file per green agent,
//! i.e. per application, and one participant):
//!
//! ```text
//! { "participants": { "<participant name>": "<participant id>" },
//!   "results": [ {per-query dict}, …, {final averages} ] }
//! ```
//!
//! The per-query dicts differ by application kind. Constructive tasks (MALT-like, one answer)
//! use `Query`, `Label`, `Result-Correctness` / `Result-Safety` (`"Pass"`/`"Fail"`),
//! `Result-Latency` (seconds), `LLM code`, `Error`, `Verifier-Error`, `agent_info`, and end
//! with `{avg_correctness, avg_safety, avg_latency_s}`. Reactive tasks (Route/K8s-like, many
//! turns) use `agent_info`, `error_type`, `error_detail`, `success`, `safe`, `iterations`,
//! `log_content`, and end with `{avg_correctness, avg_safety, avg_iterations}`.
//! `docs/results.md` documents how each NetPress field maps to these. Every dict also carries
//! `netpress_id` and `content_hash`, and the file a top-level `netpress` provenance object.

use serde_json::{Value, json};

use crate::app::{AppKind, TaskCard};
use crate::provenance::Provenance;
use crate::record::ResultRecord;
use crate::stats::{Summary, agent_names};

#[derive(Debug, Clone)]
pub struct LeaderboardOptions {
    pub kind: AppKind,
    /// The key of the participants map and `agent_info.name` (NetArena: `route_operator`).
    pub participant: String,
    /// The value of the participants map (NetArena: the agent's registered id).
    pub participant_id: String,
}

/// The results file of one agent on one application. `lookup` gives the task card of an id
/// when this build can generate it (for MALT-like questions and fault parameters); it may
/// always answer `None`, and the export then falls back to what the records hold.
pub fn export(
    records: &[ResultRecord],
    opts: &LeaderboardOptions,
    lookup: &dyn Fn(&str) -> Option<TaskCard>,
    provenance: &Provenance,
) -> Result<Value, String> {
    check_single(records)?;
    let mut results: Vec<Value> =
        records.iter().map(|r| query_dict(r, opts, lookup(&r.id).as_ref())).collect();
    results.push(averages(&Summary::of(records), opts.kind));
    Ok(json!({
        "participants": { opts.participant.clone(): opts.participant_id },
        "results": results,
        "netpress": provenance,
    }))
}

/// One query's dict of the results file (the A2A assessor streams these one by one).
pub fn query_dict(r: &ResultRecord, opts: &LeaderboardOptions, card: Option<&TaskCard>) -> Value {
    let mut dict = match opts.kind {
        AppKind::Constructive => constructive(r, card),
        AppKind::Reactive => reactive(r, card),
    };
    dict["agent_info"] = json!({
        "base_url": r.agent.endpoint.as_deref().map(crate::provenance::scrub_url).unwrap_or_default(),
        "name": opts.participant,
        "prompt_type": r.prompt_variant.as_str(),
    });
    dict["netpress_id"] = json!(r.id);
    dict["content_hash"] = json!(r.content_hash);
    dict
}

/// One agent and one application per file, as the leaderboard scores them.
fn check_single(records: &[ResultRecord]) -> Result<(), String> {
    let distinct = |items: Vec<String>| items.into_iter().collect::<std::collections::BTreeSet<_>>();
    let agents = distinct(agent_names(records));
    let apps = distinct(records.iter().map(|r| r.app.clone()).collect());
    match (agents.len(), apps.len()) {
        (0, _) => Err("no result records to export".into()),
        (1, 1) => Ok(()),
        (1, _) => Err(format!(
            "a leaderboard file holds one application; these results have {} (choose one with --app)",
            apps.into_iter().collect::<Vec<_>>().join(", ")
        )),
        _ => Err(format!(
            "a leaderboard file holds one agent; these results have {} (choose one with --agent)",
            agents.into_iter().collect::<Vec<_>>().join(", ")
        )),
    }
}

fn pass(ok: bool) -> &'static str {
    if ok { "Pass" } else { "Fail" }
}

fn constructive(r: &ResultRecord, card: Option<&TaskCard>) -> Value {
    let query = card.and_then(|c| c.question.clone()).unwrap_or_else(|| r.prompt.clone());
    let code = r.turns.iter().rev().map(|t| t.action.as_str()).find(|a| !a.is_empty()).unwrap_or("");
    let mut dict = json!({
        "Query": query,
        "Label": format!("{}, level-{}, {}", r.app, r.level, r.label),
        "Result-Correctness": pass(r.score.correct),
        "Result-Safety": pass(r.score.safe),
        "Result-Latency": r.score.latency_ms.map(|ms| ms / 1000.0),
        "LLM code": code,
    });
    if !r.score.correct {
        dict["Error"] = json!(reason(&r.score.details.correctness, &r.score.explanation));
    }
    if !r.score.safe {
        dict["Verifier-Error"] = json!(reason(&r.score.details.safety, &r.score.explanation));
    }
    dict
}

fn reason(details: &[String], explanation: &str) -> String {
    if details.is_empty() { explanation.to_string() } else { details.join("\n") }
}

fn reactive(r: &ResultRecord, card: Option<&TaskCard>) -> Value {
    json!({
        "error_type": r.label,
        "error_detail": card.map_or(Value::Null, |c| c.params.to_value()),
        "success": r.score.correct,
        "safe": r.score.safe,
        "iterations": r.score.turns,
        "log_content": log_content(r),
    })
}

/// The episode as text: each turn's action and the observation it got (or the call's error).
fn log_content(r: &ResultRecord) -> String {
    let mut log = String::new();
    for t in &r.turns {
        match &t.error {
            Some(e) => log.push_str(&format!("Turn {}\nError: {e}\n\n", t.turn)),
            None => log.push_str(&format!("Turn {}\nCommand: {}\n{}\n\n", t.turn, t.action, t.observation)),
        }
    }
    log
}

/// The results file's last dict: the averages of the application's kind.
pub fn averages(s: &Summary, kind: AppKind) -> Value {
    match kind {
        AppKind::Constructive => json!({
            "avg_correctness": s.correct.rate,
            "avg_safety": s.safe.rate,
            "avg_latency_s": s.mean_latency_ms.map(|ms| ms / 1000.0),
        }),
        AppKind::Reactive => json!({
            "avg_correctness": s.correct.rate,
            "avg_safety": s.safe.rate,
            "avg_iterations": s.mean_turns,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::sample;

    fn opts(kind: AppKind) -> LeaderboardOptions {
        LeaderboardOptions { kind, participant: "route_operator".into(), participant_id: "id-1".into() }
    }

    fn export_of(records: &[ResultRecord], kind: AppKind) -> Result<Value, String> {
        export(records, &opts(kind), &|_| None, &Provenance::of_records(records, "t", vec![]))
    }

    #[test]
    fn reactive_shape_and_averages() {
        let mut records = vec![
            sample("route-v1-L1-s0-i0", "a", "DI", true, true),
            sample("route-v1-L1-s1-i0", "a", "DR", false, true),
        ];
        records[1].score.turns = 3;
        let v = export_of(&records, AppKind::Reactive).unwrap();
        assert_eq!(v["participants"], json!({"route_operator": "id-1"}));
        let results = v["results"].as_array().unwrap();
        assert_eq!(results.len(), 3);
        assert_eq!(results[0]["success"], true);
        assert_eq!(results[1]["error_type"], "DR");
        assert_eq!(results[0]["agent_info"]["prompt_type"], "zeroshot_base");
        assert_eq!(results[2], json!({"avg_correctness": 0.5, "avg_safety": 1.0, "avg_iterations": 2.0}));
        assert_eq!(v["netpress"]["episodes"], 2);
    }

    #[test]
    fn constructive_shape() {
        let mut r = sample("malt-v1-L1-s0-i0", "a", "add", false, false);
        r.score.details.safety = vec!["isolated port".into()];
        r.score.explanation = "wrong graph".into();
        r.turns[0].action = "def process_graph(G): return G".into();
        let v = export_of(&[r], AppKind::Constructive).unwrap();
        let q = &v["results"][0];
        assert_eq!(q["Result-Correctness"], "Fail");
        assert_eq!(q["Result-Latency"], 0.0125);
        assert_eq!(q["Error"], "wrong graph");
        assert_eq!(q["Verifier-Error"], "isolated port");
        assert_eq!(q["Label"], "malt, level-1, add");
        assert_eq!(q["LLM code"], "def process_graph(G): return G");
        assert_eq!(v["results"][1]["avg_latency_s"], 0.0125);
    }

    #[test]
    fn one_agent_and_one_app_per_file() {
        let two_agents = [
            sample("route-v1-L1-s0-i0", "a", "DI", true, true),
            sample("route-v1-L1-s0-i0", "b", "DI", true, true),
        ];
        assert!(export_of(&two_agents, AppKind::Reactive).unwrap_err().contains("--agent"));
        let two_apps = [
            sample("route-v1-L1-s0-i0", "a", "DI", true, true),
            sample("k8s-v1-L1-s0-i0", "a", "DI", true, true),
        ];
        assert!(export_of(&two_apps, AppKind::Reactive).unwrap_err().contains("k8s, route"));
        assert_eq!(export_of(&[], AppKind::Reactive).unwrap_err(), "no result records to export");
    }
}
