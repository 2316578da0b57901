//! The application's roles: the description, the task of an id, and the episode the agent
//! investigates in (docs/bgp.md).

use std::sync::Arc;

use serde_json::json;

use super::family::{self, Family};
use super::level::Level;
use super::task::Task as BgpTask;
use super::verdict::{self, Verdict};
use super::{baseline, panels, picture, prompt, score, tools};
use crate::answer::{Field, FieldKind};
use crate::app::{
    AnswerKind, App, AppInfo, AppKind, Episode, Finish, KnobInfo, LevelInfo, PromptVariant, Score,
    StepOutcome, Task, TaskCard, Term,
};
use crate::conversation::Agent;
use crate::error::Result;
use crate::hash::content_hash;
use crate::id::QueryId;
use crate::params::Params;
use crate::reply::fenced_blocks;
use crate::view::Picture;

/// The verdict's fields, for the surfaces' hints.
const FIELDS: &[Field] = &[
    Field { name: "incident_type", kind: FieldKind::Text, about: "the incident type, or none" },
    Field {
        name: "offender_asn",
        kind: FieldKind::Integer,
        about: "the hijacker, leaker or withdrawing origin",
    },
    Field { name: "link", kind: FieldKind::TextList, about: "a failed link [A, B]" },
    Field { name: "victim_prefix", kind: FieldKind::Text, about: "the victim prefix" },
    Field { name: "victim_asn", kind: FieldKind::Integer, about: "the victim origin" },
    Field { name: "start_ts", kind: FieldKind::Integer, about: "start, Unix seconds or ISO 8601" },
    Field { name: "end_ts", kind: FieldKind::Integer, about: "end, or null if ongoing" },
    Field { name: "affected", kind: FieldKind::TextList, about: "vantage point AS numbers that saw it" },
];

/// The application's description.
pub const INFO: AppInfo = AppInfo {
    name: "bgp",
    title: "BGP incident investigation",
    summary: "An incident (hijack, leak, outage, link failure, ROA mistake) or a harmless change is injected into a seeded, emulated AS-level Internet; the agent investigates it like a researcher, with bgpdump over collector files, RIPEstat-shaped queries, AS relationships and VRPs, and submits one verdict naming the type and the culprit.",
    version: super::task::VERSION,
    // v2's prompt lists every command `help` lists (v1's predates `visibility`, `routing-status`
    // and `atlas traceroute`) and its churn also announces new prefixes with fresh ROAs; a v1 id
    // generates exactly the task it always did. v3 holds every collector to 20 vantage-point
    // sessions (so a RIB dump stays under 8 MiB) and moves the few-shot example out of task
    // space; v2 ids generate exactly as before too.
    older_versions: &[1, 2],
    kind: AppKind::Reactive,
    answer: AnswerKind::Investigation { final_answer: FIELDS },
    levels: &[
        LevelInfo {
            level: 1,
            summary: "20-50 ASes, one collector; the report names the prefix, origin and time (EH, SH, RL1, OW, BM)",
        },
        LevelInfo {
            level: 2,
            summary: "50-150 ASes, two collectors; the report names the prefix (adds FO, RL2-RL4, LF, RM, BA, BP)",
        },
        LevelInfo {
            level: 3,
            summary: "150-600 ASes; the report names the operator and a service address (adds MS and RO)",
        },
        LevelInfo { level: 4, summary: "600-3000 ASes; the report names only the organisation" },
    ],
    knobs: &[
        KnobInfo { key: 'n', name: "ases", help: "number of ASes", values: "10..5000" },
        KnobInfo { key: 'f', name: "families", help: "families to draw from", values: "EH+SH+RL1…" },
        KnobInfo { key: 'c', name: "collectors", help: "route collectors", values: "1..8" },
        KnobInfo {
            key: 'v',
            name: "vantage-points",
            help: "vantage points (from generator v3 at most 20 per collector, 160 in all; fewer above 3,635 ASes)",
            values: "2..200",
        },
        KnobInfo { key: 'w', name: "window", help: "window length in hours", values: "1..48" },
        KnobInfo { key: 't', name: "turns", help: "turn limit", values: "1..200" },
    ],
    default_max_turns: 20,
    sandboxed: false,
    glossary: GLOSSARY,
};

const GLOSSARY: &[Term] = &[
    Term { abbr: "EH", meaning: "exact-prefix hijack" },
    Term { abbr: "SH", meaning: "sub-prefix hijack" },
    Term { abbr: "FO", meaning: "forged-origin hijack" },
    Term { abbr: "RL", meaning: "route leak of RFC 7908 type 1-4" },
    Term { abbr: "RO", meaning: "re-origination" },
    Term { abbr: "MS", meaning: "more-specific leak" },
    Term { abbr: "OW", meaning: "outage (origin withdraws)" },
    Term { abbr: "LF", meaning: "link failure" },
    Term { abbr: "RM", meaning: "ROA misconfiguration" },
    Term { abbr: "BM", meaning: "benign: origin migration" },
    Term { abbr: "BA", meaning: "benign: anycast from a sibling" },
    Term { abbr: "BP", meaning: "benign: traffic-engineering prepends" },
    Term { abbr: "ROA", meaning: "route origin authorisation (RPKI)" },
];

/// The BGP application.
pub struct BgpApp;

impl App for BgpApp {
    fn info(&self) -> &'static AppInfo {
        &INFO
    }

    fn generate(&self, id: &QueryId) -> Result<Arc<dyn Task>> {
        INFO.check_id(id)?;
        Ok(Arc::new(Generated::new(BgpTask::generate(id)?)))
    }

    fn baseline(&self) -> Box<dyn Agent> {
        Box::new(baseline::Investigator)
    }

    fn tools(&self) -> &'static [crate::app::Tool] {
        &[super::cli::MRT, super::cli::TOPO, super::check::CHECK]
    }

    fn space_of(&self) -> Option<crate::adapt::SpaceOf> {
        Some(super::space::SPACE)
    }

    fn labels(&self, level: u8) -> Vec<String> {
        let Some(l) = Level::from_number(level) else { return Vec::new() };
        family::offered(l).into_iter().map(|f: Family| format!("L{level}:{}", f.code())).collect()
    }
}

/// A generated task with its card.
pub struct Generated {
    card: TaskCard,
    task: Arc<BgpTask>,
}

impl Generated {
    pub fn new(task: BgpTask) -> Generated {
        let prompt = prompt::prompt(&task, PromptVariant::ZeroshotBase);
        let expected = score::truth(&task);
        let w = &task.world;
        let params = Params::default()
            .with("family", task.incident.family.code())
            .with("ases", w.topology.len())
            .with("collectors", w.collectors.count)
            .with("vantage_points", w.collectors.vps.len())
            .with("probes", w.probes.len())
            .with("window", json!([w.clock.w0, w.clock.end()]))
            .with("victim_prefix", task.incident.prefix.to_string());
        let card = TaskCard {
            id: task.id.to_string(),
            app: INFO.name.into(),
            version: task.id.version,
            level: task.spec.level.number(),
            label: task.label.clone(),
            content_hash: content_hash(&prompt, &expected),
            prompt,
            params,
            expected,
            question: Some(prompt::report(&task.trigger)),
            max_turns: task.spec.turns as u32,
        };
        Generated { card, task: Arc::new(task) }
    }

    /// The generated task behind the card.
    pub fn task(&self) -> &BgpTask {
        &self.task
    }
}

impl Task for Generated {
    fn card(&self) -> &TaskCard {
        &self.card
    }

    fn prompt(&self, variant: PromptVariant) -> String {
        prompt::prompt(&self.task, variant)
    }

    fn start(&self, max_turns: Option<u32>) -> Box<dyn Episode> {
        Box::new(Investigation {
            task: Arc::clone(&self.task),
            max: max_turns.unwrap_or(self.card.max_turns),
            turns: 0,
            verdict: None,
            stopped: false,
            calls: Vec::new(),
        })
    }

    fn picture(&self) -> Picture {
        picture::task_picture(&self.task)
    }
}

/// A live investigation.
struct Investigation {
    task: Arc<BgpTask>,
    max: u32,
    turns: u32,
    verdict: Option<Verdict>,
    stopped: bool,
    /// The tool calls so far, for the evidence panel.
    calls: Vec<panels::Call>,
}

/// The tools a reply may start with when it is neither fenced nor JSON.
const TOOLS: &[&str] = &[
    "help", "ls", "bgpdump", "ripestat", "curl", "asrel", "vrps", "atlas", "grep", "head", "tail", "wc",
    "sort", "uniq", "cut", "sed", "cat", "echo",
];

/// The command line of a reply: the first fenced block's first line (`$ ` dropped), else a JSON
/// reply's `command`, else the reply's first line if it starts with a tool.
pub fn action(reply: &str) -> Option<String> {
    if let Some(f) = fenced_blocks(reply).into_iter().next() {
        let line = f.body.lines().map(str::trim).find(|l| !l.is_empty())?;
        return Some(line.strip_prefix("$ ").unwrap_or(line).to_string());
    }
    let (text, _) = crate::reply::bounded(reply);
    if let Some(cmd) = crate::reply::json_objects(text)
        .into_iter()
        .find_map(|o| o.get("command").and_then(|c| c.as_str().map(str::to_string)))
    {
        return Some(cmd);
    }
    let line = reply.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line.strip_prefix("$ ").unwrap_or(line);
    let first = line.split_whitespace().next()?;
    TOOLS.contains(&first).then(|| line.to_string())
}

impl Investigation {
    fn submit(&mut self, reply: &str) -> Option<StepOutcome> {
        let obj = verdict::find(reply)?;
        let text = serde_json::Value::Object(obj.clone()).to_string();
        Some(match verdict::parse(&obj) {
            Ok(v) => {
                self.verdict = Some(v);
                let observation = "Verdict recorded; the investigation is closed.".to_string();
                StepOutcome {
                    action: format!("submit {text}"),
                    output: observation.clone(),
                    observation,
                    ..Default::default()
                }
            }
            Err(e) => {
                let observation = verdict::rejection(&e);
                StepOutcome {
                    action: format!("submit {text}"),
                    output: observation.clone(),
                    observation,
                    exit_status: Some(2),
                    ..Default::default()
                }
            }
        })
    }
}

impl Episode for Investigation {
    fn step(&mut self, reply: &str) -> StepOutcome {
        if self.finished().is_some() {
            let observation = "The investigation is over; no more commands run.".to_string();
            return StepOutcome { observation, ..Default::default() };
        }
        self.turns += 1;
        if let Some(out) = self.submit(reply) {
            return out;
        }
        let Some(line) = action(reply) else {
            let observation = "Error: no command found; reply with one command line in a ```bash fenced block, or submit {\"incident_type\": ...}.".to_string();
            return StepOutcome { observation, ..Default::default() };
        };
        if line == "submit" || line.starts_with("submit ") {
            let observation = verdict::rejection("incident_type: missing");
            return StepOutcome {
                action: line,
                output: observation.clone(),
                observation,
                exit_status: Some(2),
                ..Default::default()
            };
        }
        let out = tools::run(&self.task, self.turns, &line);
        let observation = tools::observe(&out.output);
        let call = panels::Call {
            turn: self.turns,
            line: line.clone(),
            status: out.status,
            bytes: out.output.len(),
        };
        self.calls.push(call);
        StepOutcome {
            action: line,
            output: observation.clone(),
            exit_status: Some(out.status),
            observation,
            ..Default::default()
        }
    }

    fn finished(&self) -> Option<Finish> {
        if self.verdict.is_some() {
            Some(Finish::Answered)
        } else if self.turns >= self.max {
            Some(Finish::TurnLimit)
        } else if self.stopped {
            Some(Finish::Stopped)
        } else {
            None
        }
    }

    fn turns(&self) -> u32 {
        self.turns
    }

    fn score(&self) -> Score {
        score::score(&self.task, self.verdict.as_ref(), self.turns)
    }

    fn stop(&mut self) {
        self.stopped = true;
    }

    fn panels(&self) -> Vec<crate::view::Panel> {
        panels::panels(&self.task, &self.calls, self.verdict.as_ref(), self.finished().is_some())
    }

    /// Once scored, the task's picture with the truth marked; until then the task's stands, so
    /// the picture gives nothing away mid-investigation.
    fn picture(&self) -> Option<Picture> {
        self.finished().map(|_| picture::scored(&self.task, self.verdict.as_ref()))
    }
}
