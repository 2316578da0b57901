//! Saved runs as data: a run's summary ([`RunMeta`]) and the JSONL file runs are exported to
//! and imported from.
//!
//! A *run* is a set of result records made together: one episode from the web app's task
//! view, one batch, or the records of one run in an imported file. The web app keeps runs in
//! the browser (IndexedDB); what a run is and how a file becomes runs is plain data handling,
//! so it lives here, where `cargo test` checks it natively.
//!
//! An exported line is a library [`ResultRecord`] with one extra key, `"run"`, naming the run
//! it belongs to (`id`, `name`, `created`, `source`). Readers of the result schema ignore the
//! extra key, so the file is also a plain results file for `netpress stats`; on import the key
//! regroups the records into their runs. Lines without it (files from the CLI) are grouped by
//! agent into new runs named after the file.
//!
//! Import is checked as a whole before anything is written: every bad line is reported with
//! its number and the caller decides whether to import the good ones. Runs already in the
//! history (same run id) are skipped, so importing an export twice loses and duplicates
//! nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::record::{LineError, ResultRecord, parse_results};

/// Where a run came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Task,
    Batch,
    Import,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Task => "task",
            Source::Batch => "batch",
            Source::Import => "import",
        }
    }
}

/// The summary of a run that lists show without loading its records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    pub id: String,
    pub name: String,
    /// Epoch milliseconds.
    pub created: f64,
    pub source: Source,
    /// The agent label(s) of the records, `kind:name`, comma-separated when mixed.
    pub agent: String,
    /// Applications, comma-separated.
    pub apps: String,
    pub n: u64,
    pub correct: u64,
    pub safe: u64,
}

impl RunMeta {
    /// The meta of a run holding `records`.
    pub fn describe(id: &str, name: &str, created: f64, source: Source, records: &[ResultRecord]) -> Self {
        let distinct = |f: &dyn Fn(&ResultRecord) -> String| {
            let mut v: Vec<String> = records.iter().map(f).collect();
            v.sort();
            v.dedup();
            v.join(", ")
        };
        RunMeta {
            id: id.to_string(),
            name: name.to_string(),
            created,
            source,
            agent: distinct(&|r| r.agent.label()),
            apps: distinct(&|r| r.app.clone()),
            n: records.len() as u64,
            correct: records.iter().filter(|r| r.score.correct).count() as u64,
            safe: records.iter().filter(|r| r.score.safe).count() as u64,
        }
    }
}

/// Records as stored: one JSONL line each.
pub fn to_jsonl(records: &[ResultRecord]) -> String {
    records.iter().map(ResultRecord::to_line).collect::<Vec<_>>().join("\n")
}

/// The `"run"` key of an exported line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct RunTag {
    id: String,
    name: String,
    created: f64,
    source: Source,
}

/// One JSONL text of the given runs, oldest first, records in run order.
pub fn export(runs: &[(RunMeta, Vec<ResultRecord>)]) -> String {
    let mut out = String::new();
    for (meta, records) in runs {
        let tag = RunTag {
            id: meta.id.clone(),
            name: meta.name.clone(),
            created: meta.created,
            source: meta.source,
        };
        for record in records {
            let mut value = serde_json::to_value(record).unwrap_or_default();
            if let Some(object) = value.as_object_mut() {
                object.insert("run".into(), serde_json::to_value(&tag).unwrap_or_default());
            }
            out.push_str(&value.to_string());
            out.push('\n');
        }
    }
    out
}

/// What an import would do.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImportPlan {
    /// New runs to save, in file order.
    pub runs: Vec<(RunMeta, Vec<ResultRecord>)>,
    /// Lines that cannot be imported.
    pub errors: Vec<LineError>,
    /// Runs of the file already in the history, left as they are.
    pub already_present: Vec<String>,
}

impl ImportPlan {
    pub fn record_count(&self) -> usize {
        self.runs.iter().map(|(_, r)| r.len()).sum()
    }
}

/// Reads an import file. `existing` are the run ids already saved; `new_id` names the runs
/// made for lines without a run tag; `now` stamps them.
pub fn plan_import(
    text: &str,
    file_name: &str,
    existing: &[String],
    now: f64,
    mut new_id: impl FnMut() -> String,
) -> ImportPlan {
    let mut plan = ImportPlan::default();
    // Run key -> (tag, records); untagged lines are keyed by agent label.
    let mut groups: BTreeMap<String, (Option<RunTag>, Vec<ResultRecord>)> = BTreeMap::new();
    let mut order = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (record, tag) = match read_line(line) {
            Ok(pair) => pair,
            Err(message) => {
                plan.errors.push(LineError { line: i + 1, message });
                continue;
            }
        };
        let key = match &tag {
            Some(tag) => format!("run:{}", tag.id),
            None => format!("agent:{}", record.agent.label()),
        };
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_insert_with(|| (tag, Vec::new())).1.push(record);
    }
    for key in order {
        let Some((tag, records)) = groups.remove(&key) else { continue };
        let meta = match tag {
            Some(tag) if existing.contains(&tag.id) => {
                plan.already_present.push(tag.name);
                continue;
            }
            Some(tag) => RunMeta::describe(&tag.id, &tag.name, tag.created, tag.source, &records),
            None => {
                let name = format!("{file_name} · {}", records[0].agent.label());
                RunMeta::describe(&new_id(), &name, now, Source::Import, &records)
            }
        };
        plan.runs.push((meta, records));
    }
    plan
}

/// One line: the record (checked by the library) and its run tag, if any.
fn read_line(line: &str) -> Result<(ResultRecord, Option<RunTag>), String> {
    let (mut records, errors) = parse_results(line);
    if let Some(error) = errors.into_iter().next() {
        return Err(error.message);
    }
    let record = records.pop().ok_or("empty line")?;
    let value: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let tag = match value.get("run") {
        None | Some(serde_json::Value::Null) => None,
        Some(tag) => {
            Some(serde_json::from_value(tag.clone()).map_err(|e| format!("bad \"run\" field: {e}"))?)
        }
    };
    Ok((record, tag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::AgentInfo;
    use crate::app::{Finish, PromptVariant, Score};
    use crate::record::SCHEMA;

    fn record(id: &str, agent: &str, correct: bool) -> ResultRecord {
        ResultRecord {
            schema: SCHEMA.into(),
            netpress_version: crate::VERSION.into(),
            id: id.into(),
            content_hash: "ab".repeat(32),
            app: "route".into(),
            level: 1,
            label: "DI".into(),
            agent: AgentInfo::new("baseline", agent),
            prompt_variant: PromptVariant::ZeroshotBase,
            max_turns: 10,
            prompt: "p".into(),
            turns: Vec::new(),
            finish: Finish::Solved,
            score: Score { correct, safe: true, progress: 1.0, ..Default::default() },
        }
    }

    fn run(id: &str, records: Vec<ResultRecord>) -> (RunMeta, Vec<ResultRecord>) {
        (RunMeta::describe(id, &format!("name {id}"), 1000.0, Source::Batch, &records), records)
    }

    fn ids() -> impl FnMut() -> String {
        let mut n = 0;
        move || {
            n += 1;
            format!("new-{n}")
        }
    }

    #[test]
    fn export_then_import_round_trips() {
        let runs = vec![
            run("a", vec![record("route-v1-L1-s0-i0", "x", true), record("route-v1-L1-s1-i0", "x", false)]),
            run("b", vec![record("route-v1-L1-s0-i0", "y", true)]),
        ];
        let text = export(&runs);
        assert_eq!(text.lines().count(), 3);
        let plan = plan_import(&text, "f.jsonl", &[], 5.0, ids());
        assert_eq!(plan.errors, vec![]);
        assert_eq!(plan.runs, runs);
        assert_eq!(plan.runs[0].0.correct, 1);
    }

    #[test]
    fn exported_lines_are_plain_result_records() {
        let text = export(&[run("a", vec![record("route-v1-L1-s0-i0", "x", true)])]);
        let (records, errors) = parse_results(&text);
        assert!(errors.is_empty());
        assert_eq!(records[0].id, "route-v1-L1-s0-i0");
    }

    #[test]
    fn runs_already_present_are_skipped() {
        let runs = vec![run("a", vec![record("route-v1-L1-s0-i0", "x", true)])];
        let plan = plan_import(&export(&runs), "f", &["a".to_string()], 5.0, ids());
        assert!(plan.runs.is_empty());
        assert_eq!(plan.already_present, vec!["name a".to_string()]);
    }

    #[test]
    fn untagged_lines_group_by_agent_into_new_runs() {
        let text = [record("route-v1-L1-s0-i0", "x", true), record("route-v1-L1-s0-i0", "y", false)]
            .iter()
            .chain([record("route-v1-L1-s1-i0", "x", true)].iter())
            .map(ResultRecord::to_line)
            .collect::<Vec<_>>()
            .join("\n");
        let plan = plan_import(&text, "cli.jsonl", &[], 7.0, ids());
        let names: Vec<(&str, &str, u64)> =
            plan.runs.iter().map(|(m, _)| (m.id.as_str(), m.name.as_str(), m.n)).collect();
        assert_eq!(
            names,
            vec![("new-1", "cli.jsonl · baseline:x", 2), ("new-2", "cli.jsonl · baseline:y", 1)]
        );
        assert_eq!(plan.runs[0].0.source, Source::Import);
        assert_eq!(plan.record_count(), 3);
    }

    #[test]
    fn bad_lines_are_reported_by_number_and_good_ones_kept() {
        let good = export(&[run("a", vec![record("route-v1-L1-s0-i0", "x", true)])]);
        let mut bad_tag: serde_json::Value = serde_json::from_str(good.trim()).unwrap();
        bad_tag["run"] = serde_json::json!({"id": 3});
        let text = format!("{good}\nnot json\n{{\"schema\":\"other\"}}\n{bad_tag}\n");
        let plan = plan_import(&text, "f", &[], 0.0, ids());
        assert_eq!(plan.record_count(), 1);
        let lines: Vec<usize> = plan.errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![3, 4, 5]);
        assert!(plan.errors[0].message.starts_with("not JSON"));
        assert!(plan.errors[1].message.contains("unsupported schema"));
        assert!(plan.errors[2].message.starts_with("bad \"run\" field"));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn import_never_panics(text in "(.|\n){0,400}") {
            let plan = plan_import(&text, "f", &[], 0.0, || "x".to_string());
            prop_assert!(plan.errors.len() <= text.lines().count());
        }
    }
}
