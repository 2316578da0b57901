//! Figures of groups of episodes: summaries, breakdowns by agent / app / level / label, the
//! leaderboard and pairwise comparisons of agents.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::interval::Rate;
use super::plan::{Checkpoint, Separation, checkpoints};
use crate::record::ResultRecord;

/// The two pass/fail metrics every application scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Correctness,
    Safety,
}

impl Metric {
    pub const ALL: [Metric; 2] = [Metric::Correctness, Metric::Safety];

    pub fn name(self) -> &'static str {
        match self {
            Metric::Correctness => "correctness",
            Metric::Safety => "safety",
        }
    }

    /// This metric's outcome in one episode.
    pub fn of(self, r: &ResultRecord) -> bool {
        match self {
            Metric::Correctness => r.score.correct,
            Metric::Safety => r.score.safe,
        }
    }

    /// This metric's rate in a summary.
    pub fn rate(self, s: &Summary) -> Rate {
        match self {
            Metric::Correctness => s.correct,
            Metric::Safety => s.safe,
        }
    }
}

/// The figures of one group of episodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: u64,
    pub correct: Rate,
    pub safe: Rate,
    pub mean_progress: f64,
    pub mean_turns: f64,
    /// Mean over episodes whose latency was measured; `None` if none was.
    pub mean_latency_ms: Option<f64>,
    /// 0.5·correctness + 0.5·safety, the leaderboard's first key.
    pub leaderboard_score: f64,
}

impl Summary {
    pub fn of<'a>(records: impl IntoIterator<Item = &'a ResultRecord>) -> Self {
        let (mut n, mut correct, mut safe) = (0u64, 0u64, 0u64);
        let (mut progress, mut turns) = (0.0, 0.0);
        let (mut latency, mut measured) = (0.0, 0u64);
        for r in records {
            n += 1;
            correct += u64::from(r.score.correct);
            safe += u64::from(r.score.safe);
            progress += r.score.progress;
            turns += f64::from(r.score.turns);
            if let Some(ms) = r.score.latency_ms {
                latency += ms;
                measured += 1;
            }
        }
        let mean = |total: f64| if n == 0 { 0.0 } else { total / n as f64 };
        let correct = Rate::new(correct, n);
        let safe = Rate::new(safe, n);
        Summary {
            n,
            leaderboard_score: 0.5 * correct.rate + 0.5 * safe.rate,
            correct,
            safe,
            mean_progress: mean(progress),
            mean_turns: mean(turns),
            mean_latency_ms: (measured > 0).then(|| latency / measured as f64),
        }
    }
}

/// The name each record's agent goes by in statistics, in record order.
///
/// Usually `kind:name` ([`crate::conversation::AgentInfo::label`]). Runs of one agent with different
/// settings are different contestants (the baseline against the baseline with a turn limit of
/// 3), so when records sharing a label differ in prompt variant, in turn limit within one
/// application, or in agent settings, the name gains those settings: `baseline:route-baseline
/// T3`, `openai:gpt-4o fewshot_cot`.
pub fn agent_names(records: &[ResultRecord]) -> Vec<String> {
    let mut variants: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    let mut limits: BTreeMap<(String, &str), BTreeSet<u32>> = BTreeMap::new();
    let mut settings: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in records {
        let label = r.agent.label();
        variants.entry(label.clone()).or_default().insert(r.prompt_variant.as_str());
        limits.entry((label.clone(), r.app.as_str())).or_default().insert(r.max_turns);
        settings.entry(label).or_default().insert(public_settings(r));
    }
    let split_limits: BTreeSet<&String> =
        limits.iter().filter(|(_, set)| set.len() > 1).map(|((label, _), _)| label).collect();
    records
        .iter()
        .map(|r| {
            let label = r.agent.label();
            let mut name = label.clone();
            if variants[&label].len() > 1 {
                name.push_str(&format!(" {}", r.prompt_variant.as_str()));
            }
            if split_limits.contains(&label) {
                name.push_str(&format!(" T{}", r.max_turns));
            }
            if settings[&label].len() > 1 {
                name.push_str(&format!(" {}", public_settings(r)));
            }
            name
        })
        .collect()
}

/// An agent's settings as published: secrets removed ([`crate::provenance::scrub`]).
fn public_settings(r: &ResultRecord) -> String {
    crate::hash::canonical_json(&crate::provenance::scrub(&r.agent).settings)
}

/// What a row of a breakdown is keyed by. `None` fields are aggregated over.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct GroupKey {
    pub agent: Option<String>,
    pub app: Option<String>,
    pub level: Option<u8>,
    pub label: Option<String>,
}

/// Which fields to group by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grouping {
    pub agent: bool,
    pub app: bool,
    pub level: bool,
    pub label: bool,
}

impl Grouping {
    pub const OVERALL: Grouping = Grouping { agent: false, app: false, level: false, label: false };
    pub const AGENT: Grouping = Grouping { agent: true, ..Grouping::OVERALL };
    pub const AGENT_APP: Grouping = Grouping { app: true, ..Grouping::AGENT };
    pub const AGENT_LEVEL: Grouping = Grouping { level: true, ..Grouping::AGENT_APP };
    pub const AGENT_LABEL: Grouping = Grouping { label: true, ..Grouping::AGENT_APP };

    fn key(self, agent: &str, r: &ResultRecord) -> GroupKey {
        GroupKey {
            agent: self.agent.then(|| agent.to_string()),
            app: self.app.then(|| r.app.clone()),
            level: self.level.then_some(r.level),
            label: self.label.then(|| r.label.clone()),
        }
    }
}

/// Summaries per group, in key order. Agents are named by [`agent_names`].
pub fn breakdown(records: &[ResultRecord], by: Grouping) -> Vec<(GroupKey, Summary)> {
    let names = agent_names(records);
    let mut groups: BTreeMap<GroupKey, Vec<&ResultRecord>> = BTreeMap::new();
    for (r, name) in records.iter().zip(&names) {
        groups.entry(by.key(name, r)).or_default().push(r);
    }
    groups.into_iter().map(|(k, rs)| (k, Summary::of(rs))).collect()
}

/// Agents in leaderboard order: higher 0.5·correctness + 0.5·safety first, then lower mean
/// latency (unmeasured last), then name.
pub fn leaderboard(records: &[ResultRecord]) -> Vec<(String, Summary)> {
    let mut rows: Vec<(String, Summary)> = breakdown(records, Grouping::AGENT)
        .into_iter()
        .map(|(k, s)| (k.agent.unwrap_or_default(), s))
        .collect();
    rows.sort_by(|(an, a), (bn, b)| {
        b.leaderboard_score
            .total_cmp(&a.leaderboard_score)
            .then_with(|| {
                let la = a.mean_latency_ms.unwrap_or(f64::INFINITY);
                let lb = b.mean_latency_ms.unwrap_or(f64::INFINITY);
                la.total_cmp(&lb)
            })
            .then_with(|| an.cmp(bn))
    });
    rows
}

/// Two agents side by side: can their correctness and their safety be told apart?
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub a: String,
    pub b: String,
    pub correctness: Separation,
    pub safety: Separation,
}

impl Comparison {
    pub fn of(a: (&str, &Summary), b: (&str, &Summary)) -> Self {
        Comparison {
            a: a.0.to_string(),
            b: b.0.to_string(),
            correctness: Separation::of(a.1.correct, b.1.correct),
            safety: Separation::of(a.1.safe, b.1.safe),
        }
    }

    pub fn metric(&self, metric: Metric) -> &Separation {
        match metric {
            Metric::Correctness => &self.correctness,
            Metric::Safety => &self.safety,
        }
    }
}

/// Every pair of rows of a leaderboard, the better-ranked agent first.
pub fn comparisons(board: &[(String, Summary)]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for (i, (a, sa)) in board.iter().enumerate() {
        for (b, sb) in &board[i + 1..] {
            out.push(Comparison::of((a, sa), (b, sb)));
        }
    }
    out
}

/// Each agent's outcomes of one metric in record order (the order episodes were written),
/// agents in first-appearance order.
pub fn outcomes_by_agent(records: &[ResultRecord], metric: Metric) -> Vec<(String, Vec<bool>)> {
    let mut out: Vec<(String, Vec<bool>)> = Vec::new();
    for (r, name) in records.iter().zip(agent_names(records)) {
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(metric.of(r)),
            None => out.push((name, vec![metric.of(r)])),
        }
    }
    out
}

/// Two agents' intervals of one metric as their episodes accumulate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Accumulation {
    pub a: String,
    pub b: String,
    pub metric: Metric,
    pub checkpoints: Vec<Checkpoint>,
}

/// For every pair of agents (leaderboard order) and both metrics, the checkpoints after each
/// agent's first `n` episodes in the order the results were written, for each `n` of `at`.
pub fn accumulate(records: &[ResultRecord], at: &[u64]) -> Vec<Accumulation> {
    let board = leaderboard(records);
    let mut out = Vec::new();
    for metric in Metric::ALL {
        let outcomes = outcomes_by_agent(records, metric);
        let of =
            |name: &str| outcomes.iter().find(|(n, _)| n == name).map(|(_, o)| o.as_slice()).unwrap_or(&[]);
        for (i, (a, _)) in board.iter().enumerate() {
            for (b, _) in &board[i + 1..] {
                out.push(Accumulation {
                    a: a.clone(),
                    b: b.clone(),
                    metric,
                    checkpoints: checkpoints(of(a), of(b), at),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::sample;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn breakdown_groups_and_orders() {
        let records = vec![
            sample("route-v1-L1-s0-i0", "b", "DI", true, true),
            sample("route-v1-L1-s1-i0", "b", "DR", false, true),
            sample("route-v1-L1-s0-i0", "a", "DI", true, false),
        ];
        let by = Grouping { agent: true, app: false, level: false, label: true };
        let rows = breakdown(&records, by);
        let keys: Vec<(String, String)> =
            rows.iter().map(|(k, _)| (k.agent.clone().unwrap(), k.label.clone().unwrap())).collect();
        assert_eq!(
            keys,
            [("baseline:a", "DI"), ("baseline:b", "DI"), ("baseline:b", "DR")]
                .map(|(a, b)| (a.into(), b.into()))
        );
        let overall = Summary::of(&records);
        assert_eq!((overall.n, overall.correct.successes, overall.safe.successes), (3, 2, 2));
        assert!(close(overall.mean_latency_ms.unwrap(), 12.5, 1e-12));
    }

    #[test]
    fn summary_means_by_hand() {
        let mut records = vec![
            sample("route-v1-L1-s0-i0", "a", "DI", true, true),
            sample("route-v1-L1-s1-i0", "a", "DI", false, true),
            sample("route-v1-L1-s2-i0", "a", "DI", false, false),
            sample("route-v1-L1-s3-i0", "a", "DI", true, true),
        ];
        for (r, (turns, ms, progress)) in records.iter_mut().zip([
            (1, Some(10.0), 1.0),
            (3, None, 0.5),
            (5, Some(30.0), 0.0),
            (7, Some(50.0), 1.0),
        ]) {
            r.score.turns = turns;
            r.score.latency_ms = ms;
            r.score.progress = progress;
        }
        let s = Summary::of(&records);
        assert!(close(s.mean_turns, 4.0, 1e-12));
        assert!(close(s.mean_latency_ms.unwrap(), 30.0, 1e-12), "unmeasured episodes are left out");
        assert!(close(s.mean_progress, 0.625, 1e-12));
        assert!(close(s.leaderboard_score, 0.5 * 0.5 + 0.5 * 0.75, 1e-12));
        assert_eq!(Summary::of(&[]).mean_latency_ms, None);
    }

    #[test]
    fn leaderboard_orders_by_score_then_latency() {
        let mut records = vec![
            sample("route-v1-L1-s0-i0", "slow", "DI", true, true),
            sample("route-v1-L1-s0-i0", "fast", "DI", true, true),
            sample("route-v1-L1-s0-i0", "weak", "DI", false, true),
        ];
        records[0].score.latency_ms = Some(500.0);
        let order: Vec<String> = leaderboard(&records).into_iter().map(|(a, _)| a).collect();
        assert_eq!(order, ["baseline:fast", "baseline:slow", "baseline:weak"]);
    }

    #[test]
    fn runs_with_other_settings_are_other_agents() {
        let mut records = vec![
            sample("route-v1-L1-s0-i0", "b", "DI", true, true),
            sample("route-v1-L1-s0-i0", "b", "DI", false, true),
            sample("malt-v1-L1-s0-i0", "b", "add", true, true),
            sample("route-v1-L1-s0-i0", "c", "DI", true, true),
        ];
        records[1].max_turns = 3;
        records[2].max_turns = 1;
        let names = agent_names(&records);
        assert_eq!(names, ["baseline:b T10", "baseline:b T3", "baseline:b T1", "baseline:c"]);
        records[1].max_turns = 10;
        records[3].prompt_variant = crate::app::PromptVariant::FewshotCot;
        records.push(sample("route-v1-L1-s0-i0", "c", "DI", true, true));
        records[4].agent.settings = serde_json::json!({"temperature": 0});
        records[4].agent.settings["api_key"] = serde_json::json!("sk-secret");
        let names = agent_names(&records);
        assert_eq!(names[0], "baseline:b");
        assert_eq!(names[3], "baseline:c fewshot_cot null");
        assert_eq!(names[4], "baseline:c zeroshot_base {\"temperature\":0}");
    }

    #[test]
    fn comparisons_pair_every_agent_once() {
        let records = vec![
            sample("route-v1-L1-s0-i0", "a", "DI", true, true),
            sample("route-v1-L1-s0-i0", "b", "DI", false, true),
            sample("route-v1-L1-s0-i0", "c", "DI", false, false),
        ];
        let pairs: Vec<(String, String)> =
            comparisons(&leaderboard(&records)).into_iter().map(|c| (c.a, c.b)).collect();
        assert_eq!(pairs.len(), 3);
        assert_eq!(pairs[0], ("baseline:a".into(), "baseline:b".into()));
        let by_agent = outcomes_by_agent(&records, Metric::Safety);
        assert_eq!(by_agent[2], ("baseline:c".to_string(), vec![false]));
        let acc = accumulate(&records, &[1, 2]);
        assert_eq!(acc.len(), 6);
        assert_eq!((acc[0].metric, acc[0].checkpoints.len()), (Metric::Correctness, 1));
    }
}
