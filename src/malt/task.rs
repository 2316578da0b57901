//! A generated MALT task as the shared [`Task`] role: its card, prompts, episodes and picture.

use std::sync::Arc;

use crate::app::{Episode, PromptVariant, Starter, Task, TaskCard};
use crate::view::Picture;

use super::episode::MaltEpisode;
use super::generate::{Generated, expected_json};
use super::graph::Working;
use super::sandbox::Limits;
use super::{picture, prompt, starter};

/// One MALT task.
pub struct MaltTask {
    generated: Arc<Generated>,
    card: TaskCard,
    /// The sandbox limits of the episodes [`Task::start`] starts.
    limits: Limits,
}

impl MaltTask {
    pub fn new(generated: Generated) -> MaltTask {
        let g = &generated;
        let card = TaskCard {
            id: g.id.to_string(),
            app: "malt".into(),
            version: g.id.version,
            level: g.id.level,
            label: g.family.id().to_string(),
            prompt: prompt::render(&g.question, g.key.shape, PromptVariant::ZeroshotBase),
            content_hash: g.content_hash.clone(),
            params: g.params.clone().into(),
            expected: expected_json(&g.expected),
            question: Some(g.question.clone()),
            max_turns: 1,
        };
        MaltTask { generated: Arc::new(generated), card, limits: Limits::default() }
    }

    /// This task with episodes that run answers within `limits` (the worker's overrides).
    pub fn with_limits(self, limits: Limits) -> MaltTask {
        MaltTask { limits, ..self }
    }

    /// Everything the generator resolved (plan, expected outcome, topology).
    pub fn generated(&self) -> &Arc<Generated> {
        &self.generated
    }

    /// An episode with the given sandbox limits, whatever the task's (tests).
    pub fn start_with(&self, max_turns: Option<u32>, limits: Limits) -> MaltEpisode {
        MaltEpisode::new(self.generated.clone(), max_turns.unwrap_or(self.card.max_turns), limits)
    }
}

impl Task for MaltTask {
    fn card(&self) -> &TaskCard {
        &self.card
    }

    fn prompt(&self, variant: PromptVariant) -> String {
        prompt::render(&self.generated.question, self.generated.key.shape, variant)
    }

    fn start(&self, max_turns: Option<u32>) -> Box<dyn Episode> {
        Box::new(self.start_with(max_turns, self.limits))
    }

    fn picture(&self) -> Picture {
        let g = Working::new(self.generated.topology.clone());
        let caption = format!(
            "Nodes named by the question, with their ancestors and first children ({})",
            self.card.id
        );
        picture::neighbourhood(&g, &self.generated.plan.named(), &caption)
    }

    fn starters(&self) -> Vec<Starter> {
        starter::starters(&self.generated)
    }
}
