//! The numbers of a set of results as plain data: sections of summaries (overall, per agent,
//! per application, per level, per task label), the leaderboard, pairwise comparisons with the
//! planner's advice, and the per-query table. `netpress stats`, the HTML report and the web
//! app's Compare view all render this one model.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::app::Finish;
use crate::provenance::Provenance;
use crate::record::ResultRecord;
use crate::stats::{
    Accumulation, Comparison, GroupKey, Grouping, Summary, accumulate, agent_names, breakdown, comparisons,
    leaderboard,
};

/// One table of summaries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// A short machine name: `overall`, `agent`, `app`, `level`, `label`.
    pub id: String,
    pub title: String,
    pub by: Grouping,
    pub rows: Vec<(GroupKey, Summary)>,
}

/// One row of the leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    pub rank: usize,
    pub agent: String,
    pub summary: Summary,
}

/// One agent's result on one query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub correct: bool,
    pub safe: bool,
    pub progress: f64,
    pub turns: u32,
    pub latency_ms: Option<f64>,
    pub finish: Finish,
}

/// One query with every agent's results on it (agents in leaderboard order; an agent may have
/// run a query more than once, or not at all).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryRow {
    pub id: String,
    pub content_hash: String,
    pub app: String,
    pub level: u8,
    pub label: String,
    pub results: Vec<Vec<Outcome>>,
}

/// Everything `netpress stats` prints and the report shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tables {
    pub provenance: Provenance,
    /// Agents in leaderboard order.
    pub agents: Vec<String>,
    pub sections: Vec<Section>,
    pub leaderboard: Vec<Standing>,
    pub comparisons: Vec<Comparison>,
    pub queries: Vec<QueryRow>,
    /// Pairwise intervals after each agent's first n episodes, when asked for
    /// ([`Tables::with_checkpoints`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accumulations: Vec<Accumulation>,
}

/// The sections, in the order they are shown.
const SECTIONS: [(&str, &str, Grouping); 5] = [
    ("overall", "Overall", Grouping::OVERALL),
    ("agent", "Per agent", Grouping::AGENT),
    ("app", "Per agent and application", Grouping::AGENT_APP),
    ("level", "Per agent, application and level", Grouping::AGENT_LEVEL),
    ("label", "Per agent, application and task label", Grouping::AGENT_LABEL),
];

impl Tables {
    pub fn build(records: &[ResultRecord], provenance: Provenance) -> Self {
        let board = leaderboard(records);
        let agents: Vec<String> = board.iter().map(|(a, _)| a.clone()).collect();
        let sections = SECTIONS
            .iter()
            .map(|&(id, title, by)| Section {
                id: id.into(),
                title: title.into(),
                by,
                rows: breakdown(records, by),
            })
            .collect();
        Tables {
            provenance,
            comparisons: comparisons(&board),
            leaderboard: board
                .into_iter()
                .enumerate()
                .map(|(i, (agent, summary))| Standing { rank: i + 1, agent, summary })
                .collect(),
            queries: query_rows(records, &agents),
            agents,
            sections,
            accumulations: Vec::new(),
        }
    }

    /// Adds every pair's intervals after the first `n` episodes, for each `n` of `at`.
    pub fn with_checkpoints(mut self, records: &[ResultRecord], at: &[u64]) -> Self {
        self.accumulations = accumulate(records, at);
        self
    }

    pub fn section(&self, id: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.id == id)
    }
}

/// Rows sorted by parsed query id (app, version, level, seed, index), unparsable ids last.
fn query_rows(records: &[ResultRecord], agents: &[String]) -> Vec<QueryRow> {
    let names = agent_names(records);
    let mut rows: BTreeMap<(Option<crate::QueryId>, String), QueryRow> = BTreeMap::new();
    for (r, name) in records.iter().zip(&names) {
        let key = (r.id.parse().ok(), r.id.clone());
        let row = rows.entry(key).or_insert_with(|| QueryRow {
            id: r.id.clone(),
            content_hash: r.content_hash.clone(),
            app: r.app.clone(),
            level: r.level,
            label: r.label.clone(),
            results: vec![Vec::new(); agents.len()],
        });
        let column = agents.iter().position(|a| a == name).expect("every agent is on the leaderboard");
        row.results[column].push(Outcome {
            correct: r.score.correct,
            safe: r.score.safe,
            progress: r.score.progress,
            turns: r.score.turns,
            latency_ms: r.score.latency_ms,
            finish: r.finish,
        });
    }
    let (mut parsed, unparsed): (Vec<_>, Vec<_>) = rows.into_iter().partition(|((id, _), _)| id.is_some());
    parsed.extend(unparsed);
    parsed.into_iter().map(|(_, row)| row).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::sample;

    #[test]
    fn sections_leaderboard_and_query_rows() {
        let records = vec![
            sample("route-v1-L1-s10-i0", "a", "DI", false, true),
            sample("route-v1-L1-s2-i0", "a", "DR", true, true),
            sample("route-v1-L1-s2-i0", "b", "DR", true, true),
            sample("route-v1-L1-s2-i0", "b", "DR", false, false),
        ];
        let p = Provenance::of_records(&records, "test", vec![]);
        let t = Tables::build(&records, p);
        assert_eq!(
            t.sections.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            ["overall", "agent", "app", "level", "label"]
        );
        assert_eq!(t.section("label").unwrap().rows.len(), 3);
        assert_eq!(t.section("overall").unwrap().rows[0].1.n, 4);
        assert_eq!(t.agents, ["baseline:a", "baseline:b"]);
        assert_eq!(t.leaderboard[1].rank, 2);
        assert_eq!(t.comparisons.len(), 1);
        // Sorted by seed as a number, not as text; b ran s2 twice.
        assert_eq!(
            t.queries.iter().map(|q| q.id.as_str()).collect::<Vec<_>>(),
            ["route-v1-L1-s2-i0", "route-v1-L1-s10-i0"]
        );
        assert_eq!(t.queries[0].results[1].len(), 2);
        assert!(t.queries[1].results[1].is_empty());
    }
}
