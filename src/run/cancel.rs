//! A cancel flag shared by a run's episodes, its agents and the user.
//!
//! The user cancels (Ctrl-C, the Stop button), or an agent call finds that the endpoint or key
//! is wrong and cancels the whole run. Agents check the flag before and during each call (the
//! native transport waits for responses in slices), the runner before each turn.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A cheaply cloned handle; every clone sees the same flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    flag: AtomicBool,
    reason: Mutex<Option<String>>,
}

impl Cancel {
    pub fn new() -> Self {
        Cancel::default()
    }

    /// Cancels the run; the first reason given is kept.
    pub fn cancel(&self, reason: impl Into<String>) {
        if let Ok(mut r) = self.0.reason.lock() {
            r.get_or_insert_with(|| reason.into());
        }
        self.0.flag.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.flag.load(Ordering::SeqCst)
    }

    /// Why the run was cancelled.
    pub fn reason(&self) -> Option<String> {
        self.0.reason.lock().ok().and_then(|r| r.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag_and_the_first_reason_wins() {
        let a = Cancel::new();
        let b = a.clone();
        assert!(!b.is_cancelled());
        a.cancel("Ctrl-C");
        b.cancel("later");
        assert!(b.is_cancelled());
        assert_eq!(b.reason().as_deref(), Some("Ctrl-C"));
    }
}
