//! How a sandbox run that never answered is reported: its worker (the page's web worker, or a
//! server's child process) was lost, and the turn becomes a failed one with one of these texts.
//! The page and the native pool replace the lost worker the same way, so a record says the same
//! whichever ran the episode; the texts read like the Python errors an answer's author knows.

/// Why a run has no answer: its worker was lost (and will be replaced).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lost {
    /// It ended mid-run: the memory ceiling trapped the instance or ended the process.
    Crashed,
    /// It stayed silent past its runs' time limits plus a margin, and was terminated.
    Silent,
}

impl Lost {
    /// The failed turn's text.
    pub fn message(self) -> &'static str {
        match self {
            Lost::Crashed => "MemoryError: sandbox crashed (memory)",
            Lost::Silent => "TimeoutError: sandbox terminated",
        }
    }
}
