//! Chat-format JSONL for supervised fine-tuning, schema `netpress.sft.v1`.
//!
//! A result record holds the exact first prompt and every reply and observation, so the
//! conversation is rebuilt without regenerating anything: optional system message, user =
//! the prompt, then assistant = reply and user = observation per turn. Failed calls (no reply)
//! are left out, as the runner left them out of the conversation; the observation after the
//! last reply is dropped, since nothing answers it. One line per episode, or one line per
//! assistant turn (the conversation up to and including that turn).
//!
//! Line: `{"messages": [{"role", "content"}…], "netpress": {…}}`; `netpress` holds the
//! provenance, the query, the agent (secrets removed) and the episode's scores, so a data set
//! can be filtered after the fact. Latency is left out, so re-running the same seeds with a
//! deterministic agent gives byte-identical files.

use std::io::Write;

use serde::Serialize;

use super::LineProvenance;
use crate::app::{Finish, PromptVariant};
use crate::conversation::AgentInfo;
use crate::provenance::{generator_of, scrub};
use crate::record::{ResultRecord, TurnRecord};

pub const SCHEMA: &str = "netpress.sft.v1";

/// The system message used unless the caller gives another or none. The benchmark itself
/// sends no system message (the task prompt carries every instruction); chat templates for
/// fine-tuning commonly expect one.
pub const DEFAULT_SYSTEM: &str = "You are an agent that operates computer networks. Solve the task in the first user message. \
Each of your replies is one action in the form the task asks for; the next user message tells you what that action did.";

/// One line per episode or one per assistant turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granularity {
    Episode,
    Turn,
}

/// What an assistant message holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssistantText {
    /// The agent's reply as sent (reasoning and action).
    Reply,
    /// The action the application parsed from it (the reply when nothing was parsed).
    Action,
}

#[derive(Debug, Clone)]
pub struct SftOptions {
    pub per: Granularity,
    /// Keep only episodes that are both correct and safe.
    pub successful_only: bool,
    pub system: Option<String>,
    pub assistant: AssistantText,
    /// The command or settings recorded as provenance.
    pub command: String,
}

impl Default for SftOptions {
    fn default() -> Self {
        SftOptions {
            per: Granularity::Episode,
            successful_only: false,
            system: Some(DEFAULT_SYSTEM.to_string()),
            assistant: AssistantText::Reply,
            command: String::new(),
        }
    }
}

#[derive(Serialize)]
struct ChatMessage<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Serialize)]
struct Meta<'a> {
    #[serde(flatten)]
    provenance: LineProvenance<'a>,
    task_id: &'a str,
    content_hash: &'a str,
    app: &'a str,
    level: u8,
    label: &'a str,
    agent: AgentInfo,
    prompt_variant: PromptVariant,
    max_turns: u32,
    /// The turn number of the last assistant message (per-turn lines only).
    #[serde(skip_serializing_if = "Option::is_none")]
    turn: Option<u32>,
    finish: Finish,
    correct: bool,
    safe: bool,
    progress: f64,
    turns: u32,
}

#[derive(Serialize)]
struct Line<'a> {
    messages: &'a [ChatMessage<'a>],
    netpress: &'a Meta<'a>,
}

/// Writes the SFT lines of `records`; returns the number of lines.
pub fn write<'a>(
    records: impl IntoIterator<Item = &'a ResultRecord>,
    opts: &SftOptions,
    out: &mut dyn Write,
) -> std::io::Result<usize> {
    let mut lines = 0;
    for r in records {
        if opts.successful_only && !(r.score.correct && r.score.safe) {
            continue;
        }
        lines += write_record(r, opts, out)?;
    }
    Ok(lines)
}

fn assistant_text(t: &TurnRecord, mode: AssistantText) -> &str {
    match mode {
        AssistantText::Action if !t.action.is_empty() => &t.action,
        _ => &t.reply,
    }
}

fn write_record(r: &ResultRecord, opts: &SftOptions, out: &mut dyn Write) -> std::io::Result<usize> {
    let answered: Vec<&TurnRecord> = r.turns.iter().filter(|t| t.error.is_none()).collect();
    if answered.is_empty() {
        return Ok(0);
    }
    let mut messages = Vec::with_capacity(2 + 2 * answered.len());
    if let Some(system) = &opts.system {
        messages.push(ChatMessage { role: "system", content: system });
    }
    messages.push(ChatMessage { role: "user", content: &r.prompt });
    let mut meta = Meta {
        provenance: LineProvenance {
            schema: SCHEMA,
            netpress_version: crate::VERSION,
            recorded_with: Some(&r.netpress_version),
            generator: generator_of(&r.id, &r.app),
            command: &opts.command,
        },
        task_id: &r.id,
        content_hash: &r.content_hash,
        app: &r.app,
        level: r.level,
        label: &r.label,
        agent: scrub(&r.agent),
        prompt_variant: r.prompt_variant,
        max_turns: r.max_turns,
        turn: None,
        finish: r.finish,
        correct: r.score.correct,
        safe: r.score.safe,
        progress: r.score.progress,
        turns: r.score.turns,
    };
    let mut lines = 0;
    for (i, t) in answered.iter().enumerate() {
        if i > 0 {
            messages.push(ChatMessage { role: "user", content: &answered[i - 1].observation });
        }
        messages.push(ChatMessage { role: "assistant", content: assistant_text(t, opts.assistant) });
        if opts.per == Granularity::Turn {
            meta.turn = Some(t.turn);
            write_line(&messages, &meta, out)?;
            lines += 1;
        }
    }
    if opts.per == Granularity::Episode {
        write_line(&messages, &meta, out)?;
        lines += 1;
    }
    Ok(lines)
}

fn write_line(messages: &[ChatMessage], meta: &Meta, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, &Line { messages, netpress: meta })?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::sample;

    fn record() -> ResultRecord {
        let mut r = sample("route-v1-L1-s0-i0", "a", "DI", true, true);
        r.turns = vec![
            TurnRecord {
                turn: 1,
                reply: "```\nip a\n```".into(),
                action: "ip a".into(),
                observation: "o1".into(),
                ..Default::default()
            },
            TurnRecord { turn: 2, error: Some("timeout".into()), ..Default::default() },
            TurnRecord {
                turn: 3,
                reply: "fix".into(),
                action: "".into(),
                observation: "o3".into(),
                ..Default::default()
            },
        ];
        r
    }

    fn lines(records: &[ResultRecord], opts: &SftOptions) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        let n = write(records, opts, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let values: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(values.len(), n);
        values
    }

    fn roles_and_contents(v: &serde_json::Value) -> Vec<(String, String)> {
        v["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["role"].as_str().unwrap().into(), m["content"].as_str().unwrap().into()))
            .collect()
    }

    #[test]
    fn episode_line_rebuilds_the_conversation() {
        let opts = SftOptions { system: None, ..Default::default() };
        let v = lines(&[record()], &opts);
        assert_eq!(
            roles_and_contents(&v[0]),
            [("user", "prompt"), ("assistant", "```\nip a\n```"), ("user", "o1"), ("assistant", "fix")]
                .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        assert_eq!(v[0]["netpress"]["schema"], SCHEMA);
        assert_eq!(v[0]["netpress"]["generator"], "route-v1");
        assert!(v[0]["netpress"].get("turn").is_none());
    }

    #[test]
    fn turn_lines_and_actions() {
        let opts =
            SftOptions { per: Granularity::Turn, assistant: AssistantText::Action, ..Default::default() };
        let v = lines(&[record()], &opts);
        assert_eq!(v.len(), 2);
        let first = roles_and_contents(&v[0]);
        assert_eq!(first[0].0, "system");
        assert_eq!(first.last().unwrap(), &("assistant".to_string(), "ip a".to_string()));
        assert_eq!(v[1]["netpress"]["turn"], 3);
        assert_eq!(roles_and_contents(&v[1]).last().unwrap().1, "fix", "no parsed action: the reply");
    }

    #[test]
    fn successful_filter_and_empty_episodes() {
        let mut failed = record();
        failed.score.safe = false;
        let mut silent = record();
        silent.turns.retain(|t| t.error.is_some());
        let opts = SftOptions { successful_only: true, ..Default::default() };
        assert_eq!(lines(&[failed.clone(), record()], &opts).len(), 1);
        assert_eq!(lines(&[silent, failed], &SftOptions::default()).len(), 1);
    }
}
