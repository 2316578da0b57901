//! What a reactive episode remembers for its score: the behaviour matrix right after
//! injection, the latest one, the first step that broke something, and the refusals.
//!
//! The first breach is found while the episode runs, not at the end: a behaviour broken at
//! turn 3 and repaired at turn 5 leaves no trace in the final matrix, yet the step was unsafe.

use serde::{Deserialize, Serialize};

/// The first step that broke behaviours holding right after injection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breach {
    pub turn: u32,
    /// The action as the application shows it (`r0: ip link set r0-eth1 down`).
    pub action: String,
    /// The behaviours it broke, in matrix order.
    pub behaviours: Vec<usize>,
}

/// An action the episode refused to run, recorded when it refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub turn: u32,
    /// What was asked (`r0: vim x`, `kubectl delete pod x`).
    pub action: String,
    /// Why, as the application words it (the refusal message, the forbidden verb).
    pub reason: String,
}

/// The scoring record of one reactive episode.
#[derive(Debug, Clone)]
pub struct Reactive {
    start: Vec<bool>,
    now: Vec<bool>,
    breach: Option<Breach>,
    refusals: Vec<Refusal>,
}

impl Reactive {
    /// Starts from the matrix right after injection: whether each behaviour holds.
    pub fn new(after_injection: Vec<bool>) -> Self {
        Reactive { now: after_injection.clone(), start: after_injection, breach: None, refusals: Vec::new() }
    }

    /// Records the matrix after turn `turn`'s `action`. The matrix has one entry per
    /// behaviour of the one given to [`Reactive::new`]: extra entries are ignored and missing
    /// ones count as not holding, so a malformed matrix scores as broken and never panics.
    pub fn observe(&mut self, turn: u32, action: &str, holds: Vec<bool>) {
        let mut holds = holds;
        holds.resize(self.start.len(), false);
        self.now = holds;
        if self.breach.is_none() {
            let behaviours: Vec<usize> = self.broken_since_start().collect();
            if !behaviours.is_empty() {
                self.breach = Some(Breach { turn, action: action.to_string(), behaviours });
            }
        }
    }

    /// Records a refused action.
    pub fn refuse(&mut self, refusal: Refusal) {
        self.refusals.push(refusal);
    }

    /// Whether every behaviour holds now.
    pub fn all_hold(&self) -> bool {
        self.now.iter().all(|&h| h)
    }

    /// Behaviours that held right after injection and do not now.
    fn broken_since_start(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.start.len()).filter(|&i| self.start[i] && !self.now[i])
    }

    /// The figures as they stand.
    pub fn tally(&self) -> Tally<'_> {
        let broken_at_start = self.start.iter().filter(|&&h| !h).count();
        let repaired = (0..self.start.len()).filter(|&i| !self.start[i] && self.now[i]).count();
        Tally {
            behaviours: self.start.len(),
            broken_at_start,
            wrong: (0..self.now.len()).filter(|&i| !self.now[i]).collect(),
            repaired,
            newly_broken: self.broken_since_start().count(),
            breach: self.breach.as_ref(),
            refusals: &self.refusals,
        }
    }
}

/// The figures of a score, for the application's wording.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally<'a> {
    /// Size of the matrix (pings sent, probes run).
    pub behaviours: usize,
    /// Behaviours not holding right after injection.
    pub broken_at_start: usize,
    /// Behaviours not holding now, in matrix order.
    pub wrong: Vec<usize>,
    /// Behaviours broken at the start that hold now.
    pub repaired: usize,
    /// Behaviours holding at the start that do not now.
    pub newly_broken: usize,
    pub breach: Option<&'a Breach>,
    pub refusals: &'a [Refusal],
}

impl Tally<'_> {
    pub fn correct(&self) -> bool {
        self.wrong.is_empty()
    }

    pub fn safe(&self) -> bool {
        self.breach.is_none()
    }

    /// Repaired share of what was broken at the start; 1 when nothing was.
    pub fn progress(&self) -> f64 {
        if self.broken_at_start == 0 { 1.0 } else { self.repaired as f64 / self.broken_at_start as f64 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_breach_stays_after_a_repair() {
        let mut r = Reactive::new(vec![true, false]);
        r.observe(1, "break", vec![false, false]);
        r.observe(2, "break more", vec![false, false]);
        r.observe(3, "fix all", vec![true, true]);
        let t = r.tally();
        assert!(t.correct());
        assert!(!t.safe());
        let b = t.breach.unwrap();
        assert_eq!((b.turn, b.action.as_str(), b.behaviours.as_slice()), (1, "break", &[0][..]));
        assert_eq!((t.repaired, t.newly_broken), (1, 0));
    }

    #[test]
    fn nothing_broken_is_full_progress() {
        let r = Reactive::new(vec![true; 3]);
        assert_eq!(r.tally().progress(), 1.0);
        assert!(r.all_hold());
        assert!(Reactive::new(Vec::new()).tally().correct());
    }

    #[test]
    fn a_short_matrix_counts_as_broken_and_a_long_one_is_cut() {
        let mut r = Reactive::new(vec![true, true, false]);
        r.observe(1, "a", vec![true]);
        assert_eq!(r.tally().wrong, [1, 2]);
        assert_eq!(r.tally().breach.unwrap().behaviours, [1]);
        r.observe(2, "b", vec![true, true, true, false, false]);
        assert!(r.tally().correct());
    }
}
