//! (prompt, task id, reward fields) JSONL for reinforcement learning, schema `netpress.rl.v1`.
//!
//! Two sources, one line shape:
//! - **generated tasks** ([`write_tasks`]): straight from the generators, no agent involved.
//!   The line holds the prompt, the task id (which regenerates the task and its emulator, the
//!   environment an RL loop steps), the content hash and the hidden expected outcome; `reward`
//!   is `null`. Reproducible from (app, levels, seeds, knobs) alone.
//! - **result records** ([`write_records`]): the prompt the agent saw and the rewards it earned:
//!   `reward.value` = 0.5·correct + 0.5·safe (the leaderboard's score of one episode), plus
//!   `correct`, `safe`, `progress` (fraction of broken behaviours repaired), `turns` and
//!   `finish`. Latency is left out so that lines are reproducible.

use std::io::Write;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::LineProvenance;
use crate::app::{Finish, PromptVariant, Task};
use crate::conversation::AgentInfo;
use crate::provenance::{generator_of, scrub};
use crate::record::ResultRecord;

pub const SCHEMA: &str = "netpress.rl.v1";

/// The reward fields of one episode.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Reward {
    /// 0.5·correct + 0.5·safe.
    pub value: f64,
    pub correct: bool,
    pub safe: bool,
    pub progress: f64,
    pub turns: u32,
    pub finish: Finish,
}

#[derive(Serialize)]
struct Line<'a> {
    task_id: &'a str,
    content_hash: &'a str,
    app: &'a str,
    level: u8,
    label: &'a str,
    prompt_variant: PromptVariant,
    prompt: &'a str,
    max_turns: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<AgentInfo>,
    reward: Option<Reward>,
    /// Adaptive mode's curriculum entry of the task (`netpress adapt export --format rl`).
    #[serde(skip_serializing_if = "Option::is_none")]
    curriculum: Option<Value>,
    netpress: LineProvenance<'a>,
}

fn write_line(line: &Line, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, line)?;
    out.write_all(b"\n")
}

/// One line per generated task, with the prompt in `variant`; a generation error stops the
/// export with that error. Returns the number of lines.
pub fn write_tasks(
    tasks: impl IntoIterator<Item = crate::Result<Arc<dyn Task>>>,
    variant: PromptVariant,
    command: &str,
    out: &mut dyn Write,
) -> std::io::Result<usize> {
    write_generated(tasks.into_iter().map(|t| (t, None)), variant, command, out)
}

/// [`write_tasks`] with each task's curriculum entry (`{component, weight, round}`) in the line:
/// adaptive mode's curriculum export, the same lines otherwise.
pub fn write_curriculum(
    tasks: impl IntoIterator<Item = (crate::Result<Arc<dyn Task>>, Value)>,
    variant: PromptVariant,
    command: &str,
    out: &mut dyn Write,
) -> std::io::Result<usize> {
    write_generated(tasks.into_iter().map(|(t, c)| (t, Some(c))), variant, command, out)
}

fn write_generated(
    tasks: impl IntoIterator<Item = (crate::Result<Arc<dyn Task>>, Option<Value>)>,
    variant: PromptVariant,
    command: &str,
    out: &mut dyn Write,
) -> std::io::Result<usize> {
    let mut lines = 0;
    for (task, curriculum) in tasks {
        let task = task.map_err(std::io::Error::other)?;
        let card = task.card();
        // The prompt exactly as the runner would send it in this variant.
        let prompt = task.prompt(variant);
        let line = Line {
            task_id: &card.id,
            content_hash: &card.content_hash,
            app: &card.app,
            level: card.level,
            label: &card.label,
            prompt_variant: variant,
            prompt: &prompt,
            max_turns: card.max_turns,
            expected: Some(&card.expected),
            agent: None,
            reward: None,
            curriculum,
            netpress: LineProvenance {
                schema: SCHEMA,
                netpress_version: crate::VERSION,
                recorded_with: None,
                generator: format!("{}-v{}", card.app, card.version),
                command,
            },
        };
        write_line(&line, out)?;
        lines += 1;
    }
    Ok(lines)
}

/// One line per episode with its rewards. Returns the number of lines.
pub fn write_records<'a>(
    records: impl IntoIterator<Item = &'a ResultRecord>,
    command: &str,
    out: &mut dyn Write,
) -> std::io::Result<usize> {
    let mut lines = 0;
    for r in records {
        let s = &r.score;
        let line = Line {
            task_id: &r.id,
            content_hash: &r.content_hash,
            app: &r.app,
            level: r.level,
            label: &r.label,
            prompt_variant: r.prompt_variant,
            prompt: &r.prompt,
            max_turns: r.max_turns,
            expected: None,
            agent: Some(scrub(&r.agent)),
            reward: Some(Reward {
                value: 0.5 * f64::from(u8::from(s.correct)) + 0.5 * f64::from(u8::from(s.safe)),
                correct: s.correct,
                safe: s.safe,
                progress: s.progress,
                turns: s.turns,
                finish: r.finish,
            }),
            curriculum: None,
            netpress: LineProvenance {
                schema: SCHEMA,
                netpress_version: crate::VERSION,
                recorded_with: Some(&r.netpress_version),
                generator: generator_of(&r.id, &r.app),
                command,
            },
        };
        write_line(&line, out)?;
        lines += 1;
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::sample;

    #[test]
    fn records_carry_rewards_and_provenance() {
        let records = [sample("route-v1-L1-s0-i0", "a", "DI", true, false)];
        let mut out = Vec::new();
        assert_eq!(write_records(&records, "netpress export --rl r.jsonl", &mut out).unwrap(), 1);
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["reward"]["value"], 0.5);
        assert_eq!(v["reward"]["finish"], "solved");
        assert_eq!(v["task_id"], "route-v1-L1-s0-i0");
        assert_eq!(v["netpress"]["command"], "netpress export --rl r.jsonl");
        assert!(v.get("expected").is_none());
        assert!(v["reward"].get("latency_ms").is_none());
    }

    #[test]
    fn a_generation_error_stops_the_export() {
        let tasks: Vec<crate::Result<Arc<dyn Task>>> =
            vec![Err(crate::Error::Invalid("no such task".into()))];
        let err = write_tasks(tasks, PromptVariant::ZeroshotBase, "", &mut Vec::new()).unwrap_err();
        assert_eq!(err.to_string(), "no such task");
    }
}
