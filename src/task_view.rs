//! What a surface shows of a task before anyone answers it, as plain data.
//!
//! The page draws a task (its card, the prompt in the chosen variant, the topology picture,
//! the answer kind and the starters of the answer editor) without generating it: generation
//! is the application's engine, which runs in a worker bundle of its own (docs/bundles.md).
//! The worker's `open` request ([`crate::sandbox::worker`]) answers with a [`TaskView`] made
//! by [`TaskView::of`], the one place that reads a [`Task`] for display; the page's browser
//! tests, which link engines in place, make theirs the same way. So a task looks the same
//! whichever side generated it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent::AgentInfo;
use crate::app::{AnswerKind, AppInfo, PromptVariant, Starter, Task, TaskCard};
use crate::view::Picture;

/// One task as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskView {
    pub card: TaskCard,
    /// The prompt in each variant, in the order of [`PromptVariant::ALL`].
    pub prompts: Vec<String>,
    pub picture: Picture,
    /// The task's own answer kind as the wire writes it, when it has one
    /// ([`Task::answer_kind`]); `None` for its application's. Read it with
    /// [`TaskView::answer_kind`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    answer: Option<Value>,
    pub starters: Vec<Starter>,
    /// The application's built-in agent, as the records of its episodes name it.
    pub baseline: AgentInfo,
}

impl TaskView {
    /// The view of `task`, whose application's built-in agent is `baseline`.
    pub fn of(task: &dyn Task, baseline: AgentInfo) -> TaskView {
        TaskView {
            card: task.card().clone(),
            prompts: PromptVariant::ALL.iter().map(|v| task.prompt(*v)).collect(),
            picture: task.picture(),
            answer: task.answer_kind().map(|k| serde_json::to_value(k).unwrap_or(Value::Null)),
            starters: task.starters(),
            baseline,
        }
    }

    /// The prompt in `variant` (empty for a view that lacks it, e.g. a malformed message).
    pub fn prompt(&self, variant: PromptVariant) -> &str {
        let at = PromptVariant::ALL.iter().position(|v| *v == variant).unwrap_or(0);
        self.prompts.get(at).map_or("", String::as_str)
    }

    /// How the task is answered, given its application's description.
    ///
    /// A task's own kind travels by name. The field list of an investigation is static data of
    /// the application, so a task's own investigation kind reads as its application's when
    /// that is one too; a kind the page cannot rebuild falls back to the application's.
    pub fn answer_kind(&self, info: &AppInfo) -> AnswerKind {
        let Some(own) = &self.answer else { return info.answer };
        match own.as_str() {
            Some("machine_commands") => AnswerKind::MachineCommands,
            Some("commands") => AnswerKind::Commands,
            Some("python") => AnswerKind::Python,
            _ => info.answer,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;

    #[test]
    fn a_view_round_trips_and_matches_its_task() {
        for app in Registry::standard().apps() {
            let id = app.default_id(app.info().levels[0].level, 3, 0);
            let task = app.generate(&id).expect("generates");
            let view = TaskView::of(&*task, app.baseline().info());
            let text = serde_json::to_string(&view).expect("serializes");
            let back: TaskView = serde_json::from_str(&text).expect("reads back");
            assert_eq!(back, view);
            assert_eq!(back.prompt(PromptVariant::FewshotCot), task.prompt(PromptVariant::FewshotCot));
            assert_eq!(back.answer_kind(app.info()), app.info().answer_of(&*task));
            assert_eq!(back.baseline.kind, "baseline");
        }
    }

    #[test]
    fn a_task_kind_travels_by_name() {
        let info = crate::registry::info("malt").expect("malt");
        let mut view = TaskView {
            card: serde_json::from_value(serde_json::json!({
                "id": "x", "app": "malt", "version": 1, "level": 1, "label": "", "prompt": "",
                "content_hash": "", "params": {}, "expected": null, "max_turns": 1
            }))
            .expect("card"),
            prompts: vec![],
            picture: Picture::default(),
            answer: Some(serde_json::json!("commands")),
            starters: vec![],
            baseline: AgentInfo::new("baseline", "b"),
        };
        assert_eq!(view.answer_kind(info), AnswerKind::Commands);
        view.answer = Some(serde_json::json!({"unknown": 1}));
        assert_eq!(view.answer_kind(info), info.answer);
        assert_eq!(view.prompt(PromptVariant::FewshotCot), "");
    }
}
