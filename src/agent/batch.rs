//! The run-wide failure rule for batches of episodes.
//!
//! A single episode stops after three failed calls in a row (see [`super::runner`]). A batch
//! stops when [`MAX_FAILED_EPISODES_IN_A_ROW`] episodes in a row end that way: the endpoint
//! is down, and going on would only write hundreds of empty records. Errors that say the
//! endpoint or key is wrong stop the batch at once (the client cancels the run).

use super::cancel::Cancel;
use super::runner::{Runner, StopCause};

/// Episodes in a row stopped by failed calls after which a batch stops.
pub const MAX_FAILED_EPISODES_IN_A_ROW: u32 = 3;

/// Watches finished episodes of a batch, in completion order.
#[derive(Debug, Default)]
pub struct BatchGuard {
    in_a_row: u32,
}

impl BatchGuard {
    /// Notes a finished episode; cancels the run when the rule says so.
    pub fn observe(&mut self, runner: &Runner, cancel: &Cancel) {
        if cancel.is_cancelled() {
            return;
        }
        if runner.stop_cause() == Some(StopCause::Failures) {
            self.in_a_row += 1;
        } else {
            self.in_a_row = 0;
        }
        if self.in_a_row >= MAX_FAILED_EPISODES_IN_A_ROW {
            let last = runner.stop_reason().unwrap_or_default();
            cancel.cancel(format!(
                "{MAX_FAILED_EPISODES_IN_A_ROW} episodes in a row were {last} (the endpoint seems down)"
            ));
        }
    }

    /// Whether a finished episode's record belongs in the results: episodes cut short by a
    /// cancel are left out, so that `--resume` (or running the batch again) completes them.
    pub fn keep(runner: &Runner, cancel: &Cancel) -> bool {
        !(cancel.is_cancelled() && runner.stop_cause().is_some())
    }
}
