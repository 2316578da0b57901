//! Re-scoring a result record with this build: its replies replayed against a fresh episode.
//!
//! Episodes are deterministic, so a record holds everything needed to score it again: the id
//! rebuilds the task, and the recorded replies (and failed calls, which use turns) are fed to a
//! new [`Runner`] in order. The content hash guards the replay: if this build generates a
//! different task for the id, the replies answered another task and re-scoring them would
//! mean nothing, so it is refused. A record that ends before its episode does (a cancelled
//! run) is stopped where it ends, as the original run was.

use super::RunSettings;
use super::episode::Runner;
use crate::app::App;
use crate::conversation::{AgentError, AgentReply};
use crate::error::{Error, Result};
use crate::record::ResultRecord;

/// The record `old` would have with this build's episode and scorer.
pub fn rescore(app: &dyn App, old: &ResultRecord) -> Result<ResultRecord> {
    let task = app.generate(&old.id.parse()?)?;
    if task.card().content_hash != old.content_hash {
        return Err(Error::Invalid(format!(
            "content hash differs from this build's ({} vs {}): the generator changed",
            crate::hash::short(&old.content_hash),
            crate::hash::short(&task.card().content_hash)
        )));
    }
    let settings = RunSettings { variant: old.prompt_variant, max_turns: Some(old.max_turns) };
    let mut runner = Runner::new(task, settings);
    for turn in &old.turns {
        if runner.finished().is_some() {
            break;
        }
        runner.submit(match &turn.error {
            Some(e) => Err(AgentError::retryable(e.clone())),
            None => {
                Ok(AgentReply { text: turn.reply.clone(), latency_ms: turn.latency_ms, tokens: turn.tokens })
            }
        });
    }
    if runner.finished().is_none() {
        runner.stop("stopped: the recorded episode ends here");
    }
    Ok(runner.record(&old.agent))
}

/// Whether a re-scored record differs from the recorded one in what statistics count.
pub fn differs(old: &ResultRecord, new: &ResultRecord) -> bool {
    (new.score.correct, new.score.safe) != (old.score.correct, old.score.safe)
        || (new.score.progress - old.score.progress).abs() > 1e-9
}

#[cfg(test)]
mod tests {
    use super::*;

    fn baseline_record() -> (&'static dyn App, ResultRecord) {
        let app = crate::registry::app("route").unwrap();
        let task = app.generate(&app.default_id(1, 3, 0)).unwrap();
        (app, super::super::run_episode(task, app.baseline().as_mut(), RunSettings::default()))
    }

    #[test]
    fn a_fresh_record_rescores_to_itself() {
        let (app, old) = baseline_record();
        let new = rescore(app, &old).unwrap();
        assert!(!differs(&old, &new));
        assert_eq!((new.finish, new.turns.len()), (old.finish, old.turns.len()));
    }

    #[test]
    fn changed_replies_change_the_score_and_a_changed_task_is_refused() {
        let (app, mut old) = baseline_record();
        assert!(old.score.correct, "the baseline solves this task");
        old.turns.iter_mut().for_each(|t| t.reply = "r0: true".into());
        let new = rescore(app, &old).unwrap();
        assert!(differs(&old, &new) && !new.score.correct);
        old.content_hash = "00".repeat(32);
        assert!(rescore(app, &old).unwrap_err().to_string().contains("content hash differs"));
    }

    #[test]
    fn a_record_cut_short_is_stopped_where_it_ends() {
        let (app, mut old) = baseline_record();
        old.turns.clear();
        let new = rescore(app, &old).unwrap();
        assert_eq!(new.finish, crate::app::Finish::Stopped);
        assert!(new.score.details.correctness.last().unwrap().contains("recorded episode ends here"));
    }
}
