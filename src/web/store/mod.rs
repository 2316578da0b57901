//! The history of runs, kept in IndexedDB so it survives reloads.
//!
//! Each run ([`crate::history`] says what one is) is two entries: its [`RunMeta`] (what lists
//! and pickers need) under `runs/<id>`, and its records as JSONL under `records/<id>`, written
//! in one transaction. Records are the library's [`ResultRecord`]s, unchanged, so exported
//! files are read by the CLI's `stats` as they are.

pub mod idb;

use crate::history::to_jsonl;
pub use crate::history::{RunMeta, Source};
use crate::record::{ResultRecord, parse_results};

/// A fresh run id: time-ordered and unlikely to collide across machines.
pub fn new_run_id() -> String {
    format!("run-{:011x}-{:06x}", super::util::epoch_ms() as u64, super::util::random_below(1 << 24))
}

/// Every saved run, newest first.
pub async fn list() -> Result<Vec<RunMeta>, String> {
    let db = idb::open().await?;
    let mut runs: Vec<RunMeta> =
        idb::get_all(&db, "runs").await?.iter().filter_map(|s| serde_json::from_str(s).ok()).collect();
    runs.sort_by(|a, b| b.created.total_cmp(&a.created).then_with(|| b.id.cmp(&a.id)));
    Ok(runs)
}

/// The records of one run.
pub async fn records(id: &str) -> Result<Vec<ResultRecord>, String> {
    let db = idb::open().await?;
    let text =
        idb::get(&db, "records", id).await?.ok_or_else(|| format!("run {id} is not in the history"))?;
    Ok(parse_results(&text).0)
}

/// Saves runs (meta and records together, all or nothing).
pub async fn save_all(runs: &[(RunMeta, Vec<ResultRecord>)]) -> Result<(), String> {
    let db = idb::open().await?;
    let texts: Vec<(String, String, &str)> = runs
        .iter()
        .map(|(meta, records)| {
            (serde_json::to_string(meta).unwrap_or_default(), to_jsonl(records), meta.id.as_str())
        })
        .collect();
    let mut writes = Vec::new();
    for (meta, records, id) in &texts {
        writes.push(idb::Write { store: "runs", key: id, value: Some(meta) });
        writes.push(idb::Write { store: "records", key: id, value: Some(records) });
    }
    idb::write_all(&db, &writes).await
}

/// Saves one new run and returns its meta.
pub async fn save(name: &str, source: Source, records: &[ResultRecord]) -> Result<RunMeta, String> {
    let meta = RunMeta::describe(&new_run_id(), name, super::util::epoch_ms(), source, records);
    save_all(&[(meta.clone(), records.to_vec())]).await?;
    Ok(meta)
}

/// Deletes runs by id.
pub async fn delete(ids: &[String]) -> Result<(), String> {
    let db = idb::open().await?;
    let writes: Vec<idb::Write> = ids
        .iter()
        .flat_map(|id| idb::STORES.map(|store| idb::Write { store, key: id, value: None }))
        .collect();
    idb::write_all(&db, &writes).await
}
