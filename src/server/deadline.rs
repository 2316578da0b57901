//! The step deadline: a step runs on tokio's blocking pool and is answered
//! `EXECUTION_ERROR`/`TIMEOUT` (504) once it has taken longer than the deadline.
//!
//! Route and K8s steps take well under a millisecond, so the deadline guards against a step
//! that never ends (an emulator bug, a pathological input the fuzzers have not found yet): the
//! worker that received the request stays free, the client gets an answer, and the caller
//! closes that session, whose episode is left in an unknown state. The blocking thread itself
//! cannot be stopped; it finishes in its own time and its result is dropped.

use std::time::Duration;

use crate::env::{EnvError, Reason};

/// The default deadline of one step.
pub const STEP_DEADLINE: Duration = Duration::from_secs(30);

/// The deadline of a step: the server's, or the client's `timeout_s` when that is shorter.
pub fn effective(server: Duration, client_s: Option<f64>) -> Duration {
    client_s
        .filter(|s| s.is_finite() && *s > 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .map_or(server, |c| c.min(server))
}

/// Runs `f` (a step, already under `catch_unwind`) within `deadline`.
pub async fn within<T: Send + 'static>(
    deadline: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, EnvError> {
    match tokio::time::timeout(deadline, tokio::task::spawn_blocking(f)).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(_)) => Err(EnvError::new(Reason::Panic, "the step's thread failed; the session is closed")),
        Err(_) => Err(EnvError::new(
            Reason::Timeout,
            format!("the step took longer than {:.3} s; the session is closed", deadline.as_secs_f64()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_may_only_shorten_the_deadline() {
        let server = Duration::from_secs(30);
        assert_eq!(effective(server, None), server);
        assert_eq!(effective(server, Some(2.5)), Duration::from_millis(2500));
        assert_eq!(effective(server, Some(300.0)), server);
        for odd in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert_eq!(effective(server, Some(odd)), server, "{odd}");
        }
    }
}
