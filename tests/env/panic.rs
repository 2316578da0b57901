//! A step that panics closes its session only: an application whose episode panics on the
//! reply `boom` (and takes two seconds over the reply `slow`, for the server's step deadline),
//! next to the shipped ones.

use std::sync::Arc;

use netpress::QueryId;
use netpress::app::{
    AnswerKind, App, AppInfo, AppKind, Episode, Finish, LevelInfo, PromptVariant, Score, StepOutcome, Task,
    TaskCard,
};
use netpress::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message};
use netpress::env::{Defaults, Dispatcher, Limits, counter_ids};
use netpress::registry::Registry;
use netpress::view::Picture;
use serde_json::Value;

static INFO: AppInfo = AppInfo {
    name: "fragile",
    title: "Fragile",
    summary: "Panics on `boom`, dawdles on `slow`.",
    version: 1,
    older_versions: &[],
    kind: AppKind::Reactive,
    answer: AnswerKind::Commands,
    levels: &[LevelInfo { level: 1, summary: "" }],
    knobs: &[],
    default_max_turns: 5,
    sandboxed: false,
    glossary: &[],
};

struct Fragile;
struct FragileTask(TaskCard);
struct FragileEpisode(u32);
struct Silent;

impl App for Fragile {
    fn info(&self) -> &'static AppInfo {
        &INFO
    }
    fn generate(&self, id: &QueryId) -> netpress::Result<Arc<dyn Task>> {
        INFO.check_id(id)?;
        let card = TaskCard {
            id: id.to_string(),
            app: "fragile".into(),
            version: 1,
            level: 1,
            label: "F".into(),
            prompt: "Say anything but boom.".into(),
            content_hash: "00".into(),
            params: Default::default(),
            expected: Value::Null,
            question: None,
            max_turns: 5,
        };
        Ok(Arc::new(FragileTask(card)))
    }
    fn baseline(&self) -> Box<dyn Agent> {
        Box::new(Silent)
    }
}

impl Agent for Silent {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("baseline", "silent")
    }
    fn reply(&mut self, _: &[Message]) -> Result<AgentReply, AgentError> {
        Ok(AgentReply { text: "ok".into(), ..Default::default() })
    }
}

impl Task for FragileTask {
    fn card(&self) -> &TaskCard {
        &self.0
    }
    fn prompt(&self, _: PromptVariant) -> String {
        self.0.prompt.clone()
    }
    fn start(&self, _: Option<u32>) -> Box<dyn Episode> {
        Box::new(FragileEpisode(0))
    }
    fn picture(&self) -> Picture {
        Picture::default()
    }
}

impl Episode for FragileEpisode {
    fn step(&mut self, reply: &str) -> StepOutcome {
        assert!(reply != "boom", "the fragile application broke");
        if reply == "slow" {
            std::thread::sleep(std::time::Duration::from_secs(2));
        }
        self.0 += 1;
        StepOutcome { action: reply.into(), observation: "fine".into(), ..Default::default() }
    }
    fn finished(&self) -> Option<Finish> {
        (self.0 >= 5).then_some(Finish::TurnLimit)
    }
    fn turns(&self) -> u32 {
        self.0
    }
    fn score(&self) -> Score {
        Score { safe: true, turns: self.0, ..Default::default() }
    }
    fn stop(&mut self) {}
}

/// The standard registry plus the fragile application.
pub fn registry() -> &'static Registry {
    static FRAGILE: Fragile = Fragile;
    static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    REGISTRY.get_or_init(|| Registry::standard().clone().with(&FRAGILE))
}

#[test]
fn a_panicking_step_closes_its_session_only() {
    let registry = registry();
    let mut d = Dispatcher::new(registry, Defaults::default(), Limits::default(), counter_ids());
    let mut ask = |line: &str| -> Value { serde_json::from_str(&d.handle(line.as_bytes())).unwrap() };
    ask(r#"{"type":"reset","session":"a","data":{"task_id":"fragile-v1-L1-s0-i0"}}"#);
    ask(r#"{"type":"reset","session":"b","data":{"task_id":"fragile-v1-L1-s0-i0"}}"#);
    let boom = ask(r#"{"type":"step","session":"a","data":{"reply":"boom"}}"#);
    assert_eq!(
        (boom["data"]["code"].as_str(), boom["data"]["reason"].as_str()),
        (Some("EXECUTION_ERROR"), Some("PANIC"))
    );
    assert_eq!(ask(r#"{"type":"state","session":"a"}"#)["data"]["reason"], "UNKNOWN_SESSION");
    let b = ask(r#"{"type":"step","session":"b","data":{"reply":"hello"}}"#);
    assert_eq!(b["data"]["observation"]["text"], "fine");
}
