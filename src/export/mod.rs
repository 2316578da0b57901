//! Exports of results and tasks for use elsewhere:
//!
//! - [`leaderboard`]: the NetArena leaderboard's results file (participants map, one dict per
//!   query, final averages), so NetPress results can be submitted where that format is used.
//! - [`sft`]: chat-format JSONL for supervised fine-tuning, rebuilt from result records.
//! - [`rl`]: (prompt, task id, reward fields) JSONL for reinforcement learning, from result
//!   records (with rewards) or straight from task generation (without).
//!
//! Every JSONL line carries a `netpress` object with its provenance (schema, NetPress version,
//! generator version, query id and content hash, and the command that wrote it); the leaderboard
//! file carries a top-level [`crate::provenance::Provenance`]. Nothing here reads a clock: the
//! same inputs and command give byte-identical files.

pub mod leaderboard;
pub mod rl;
pub mod sft;

use serde::Serialize;

/// The per-line provenance block of the JSONL exports.
#[derive(Debug, Clone, Serialize)]
pub struct LineProvenance<'a> {
    /// `netpress.sft.v1` or `netpress.rl.v1`.
    pub schema: &'static str,
    /// The NetPress build that wrote the line.
    pub netpress_version: &'static str,
    /// The NetPress build that ran the episode (absent for generated tasks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_with: Option<&'a str>,
    /// `app-vN` of the query.
    pub generator: String,
    /// The command or settings that wrote the file.
    pub command: &'a str,
}
