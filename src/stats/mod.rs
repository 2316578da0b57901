//! Statistics over result records, one concept per module:
//!
//! - `interval`: pass rates with 95% Wilson intervals and a seeded percentile bootstrap.
//! - `partition`: agreement between two partitions (ARI, AMI, pairwise F1), as scikit-learn
//!   computes it.
//! - `plan`: the sample-size planner, the verdict on two observed rates, intervals as
//!   queries accumulate, and seeded Bernoulli outcomes.
//! - `summary`: summaries of groups of episodes (by agent, app, level, label), the
//!   leaderboard and pairwise comparisons.
//!
//! Everything is re-exported here, so callers write `stats::wilson`, `stats::Summary`.

mod interval;
mod partition;
mod plan;
mod summary;

pub use interval::{Interval, Rate, Z95, bootstrap, wilson};
pub use partition::{LengthMismatch, PartitionScores, compare_partitions};
pub use plan::{
    Checkpoint, PLAN_LIMIT, Separation, bernoulli, checkpoints, group, queries_to_separate, running_rates,
    sample_grid, simulate_pair,
};
pub use summary::{
    Accumulation, Comparison, GroupKey, Grouping, Metric, Summary, accumulate, agent_names, breakdown,
    comparisons, leaderboard, outcomes_by_agent,
};
