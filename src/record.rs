//! The result record: one JSON object per episode, written as one line of a JSONL file.
//!
//! Schema `netpress.result.v1` (the `schema` field of every record):
//!
//! | field | type | meaning |
//! |---|---|---|
//! | `schema` | string | always `netpress.result.v1` |
//! | `netpress_version` | string | the NetPress build that ran the episode |
//! | `id` | string | query id, e.g. `route-v1-L2-s42-i7` |
//! | `content_hash` | string | the task's content hash (hex SHA-256) |
//! | `app`, `level`, `label` | string, int, string | from the task |
//! | `agent` | object | `kind`, `name`, optional `model`, `endpoint`, `settings`; never a secret |
//! | `prompt_variant` | string | `zeroshot_base`, `zeroshot_cot`, `fewshot_base`, `fewshot_cot` |
//! | `max_turns` | int | the turn limit used |
//! | `prompt` | string | the exact first message sent |
//! | `turns` | array | per turn: `turn`, `reply`, `action`, `output`, `exit_status`?, `observation`, `notes`?, `error`?, `latency_ms` (number or null), `tokens`? (`prompt`, `completion`) |
//! | `finish` | string | `solved`, `turn_limit`, `answered`, `stopped` |
//! | `score` | object | `correct`, `safe`, `progress`, `turns`, `latency_ms` (number or null), `tokens`?, `explanation`, `details` |
//!
//! Readers accept any record whose `schema` is `netpress.result.v1`; a new incompatible shape
//! gets a new schema name.

use serde::{Deserialize, Serialize};

use crate::app::{Finish, PromptVariant, Score};
use crate::conversation::{AgentInfo, Tokens};

/// The schema name of this version of the record.
pub const SCHEMA: &str = "netpress.result.v1";

/// Longest results line accepted on import.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// One turn of an episode.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnRecord {
    pub turn: u32,
    /// The agent's raw reply.
    #[serde(default)]
    pub reply: String,
    /// The action the application parsed from it.
    #[serde(default)]
    pub action: String,
    #[serde(default)]
    pub output: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    /// The observation sent back to the agent.
    #[serde(default)]
    pub observation: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Set when the call to the agent failed (no reply, no step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub latency_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
}

/// One episode's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    pub schema: String,
    pub netpress_version: String,
    pub id: String,
    pub content_hash: String,
    pub app: String,
    pub level: u8,
    pub label: String,
    pub agent: AgentInfo,
    pub prompt_variant: PromptVariant,
    pub max_turns: u32,
    pub prompt: String,
    pub turns: Vec<TurnRecord>,
    pub finish: Finish,
    pub score: Score,
}

impl ResultRecord {
    /// One JSONL line (no trailing newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("records serialise")
    }
}

/// A line of a results file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// 1-based line number.
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Parses a JSONL results file: the records that are valid and an error per bad line.
/// Blank lines are skipped. Never panics.
pub fn parse_results(text: &str) -> (Vec<ResultRecord>, Vec<LineError>) {
    let mut records = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match parse_line(line) {
            Ok(r) => records.push(r),
            Err(message) => errors.push(LineError { line: line_no, message }),
        }
    }
    (records, errors)
}

fn parse_line(line: &str) -> Result<ResultRecord, String> {
    if line.len() > MAX_LINE_BYTES {
        return Err(format!("longer than {MAX_LINE_BYTES} bytes"));
    }
    let value: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    match value.get("schema").and_then(|s| s.as_str()) {
        Some(SCHEMA) => {}
        Some(other) => return Err(format!("unsupported schema {other:?} (expected {SCHEMA})")),
        None => return Err(format!("not a NetPress result (no \"schema\": \"{SCHEMA}\")")),
    }
    serde_json::from_value(value).map_err(|e| format!("bad result record: {e}"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn sample(id: &str, agent: &str, label: &str, correct: bool, safe: bool) -> ResultRecord {
        ResultRecord {
            schema: SCHEMA.into(),
            netpress_version: crate::VERSION.into(),
            id: id.into(),
            content_hash: "ab".repeat(32),
            app: id.split('-').next().unwrap().into(),
            level: 1,
            label: label.into(),
            agent: AgentInfo::new("baseline", agent),
            prompt_variant: PromptVariant::ZeroshotBase,
            max_turns: 10,
            prompt: "prompt".into(),
            turns: vec![TurnRecord {
                turn: 1,
                reply: "r".into(),
                latency_ms: Some(12.5),
                ..Default::default()
            }],
            finish: if correct { Finish::Solved } else { Finish::TurnLimit },
            score: Score {
                correct,
                safe,
                progress: if correct { 1.0 } else { 0.0 },
                turns: 1,
                latency_ms: Some(12.5),
                ..Default::default()
            },
        }
    }

    #[test]
    fn round_trips_through_a_line() {
        let r = sample("route-v1-L1-s0-i0", "a", "DI", true, true);
        let (back, errors) = parse_results(&format!("{}\n\n", r.to_line()));
        assert!(errors.is_empty());
        assert_eq!(back, vec![r]);
    }

    #[test]
    fn bad_lines_are_reported_and_good_ones_kept() {
        let good = sample("k8s-v1-L1-s0-i0", "a", "RI", false, true).to_line();
        let text = format!(
            "{good}\nnot json\n{{\"schema\":\"other\"}}\n{{\"a\":1}}\n{{\"schema\":\"{SCHEMA}\"}}\n{good}"
        );
        let (records, errors) = parse_results(&text);
        assert_eq!(records.len(), 2);
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![2, 3, 4, 5]);
        assert!(errors[0].message.starts_with("not JSON"));
        assert!(errors[1].message.contains("unsupported schema"));
        assert!(errors[2].message.contains("not a NetPress result"));
        assert!(errors[3].message.starts_with("bad result record: missing field"));
    }
}
