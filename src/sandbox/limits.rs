//! What a sandboxed run may spend, and how a request overrides it.
//!
//! The limits are plain data every build has, so an application, the worker protocol and the
//! page agree on them without linking an interpreter. [`LimitOverrides`] is the optional,
//! JSON-shaped form a worker request carries (`"limits":{"time_ms":500}`): each field it names
//! replaces one default, and fields it leaves out keep theirs (docs/sandbox.md, "Limits").

use std::time::Duration;

use serde::Deserialize;

/// The limits of one sandboxed run (the defaults are those docs/malt.md states to the agent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall time of one run.
    pub time: Duration,
    /// Bytes the run may allocate.
    pub memory: usize,
    /// Calls from the untrusted code into the host (MALT's `G` API).
    pub host_calls: u64,
    pub recursion: usize,
    pub stdout_bytes: usize,
    /// Items of the returned value.
    pub result_items: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            time: Duration::from_secs(2),
            memory: 256 * 1024 * 1024,
            host_calls: 100_000,
            recursion: 1_000,
            stdout_bytes: 16 * 1024,
            result_items: 100_000,
        }
    }
}

/// The limits a request overrides, each optional; unknown fields are refused so a typo
/// (`"time":500`) is an error rather than a silently ignored limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitOverrides {
    pub time_ms: Option<u64>,
    pub memory_mb: Option<usize>,
    pub host_calls: Option<u64>,
    pub recursion: Option<usize>,
}

impl LimitOverrides {
    /// `d` with these overrides applied: the worker passes the application's own limits
    /// ([`crate::App::limits`]), which its prompt states.
    pub fn over(self, d: Limits) -> Limits {
        Limits {
            time: self.time_ms.map_or(d.time, Duration::from_millis),
            memory: self.memory_mb.map_or(d.memory, |m| m.saturating_mul(1024 * 1024)),
            host_calls: self.host_calls.unwrap_or(d.host_calls),
            recursion: self.recursion.unwrap_or(d.recursion),
            ..d
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_replace_only_what_they_name() {
        assert_eq!(LimitOverrides::default().over(Limits::default()), Limits::default());
        let o: LimitOverrides = serde_json::from_str(r#"{"time_ms":50,"memory_mb":8}"#).unwrap();
        let l = o.over(Limits::default());
        assert_eq!((l.time, l.memory), (Duration::from_millis(50), 8 << 20));
        assert_eq!(l.host_calls, Limits::default().host_calls);
        // A huge memory figure saturates rather than overflowing.
        let big = LimitOverrides { memory_mb: Some(usize::MAX), ..LimitOverrides::default() };
        assert_eq!(big.over(Limits::default()).memory, usize::MAX);
        assert!(serde_json::from_str::<LimitOverrides>(r#"{"time":5}"#).is_err());
    }
}
