//! When a task happens: the investigation window, the history before it, and how old each
//! baseline route is.
//!
//! All times are Unix seconds (UTC). A task's day is drawn within the year after
//! 2025-06-01T00:00:00Z ([`EPOCH`]); its window starts at 00:00, 08:00 or 16:00 of that day
//! (the boundaries of the 8-hourly RIB dumps) and lasts the `-w` knob's hours (8 by default).
//! Tools offer 30 days of history before the window, and every baseline route has a first-seen
//! time long before that (between 900 and 31 days before the window), so "new" in the history
//! always means "new in the window".
//!
//! Draws, after the probes: the day, the window's start slot (the time base), then one
//! first-seen time per baseline prefix in allocation order (the history).

use std::ops::RangeInclusive;

use crate::error::{Error, Result};
use crate::seed::Stream;

/// 2025-06-01T00:00:00Z.
pub const EPOCH: u64 = 1_748_736_000;
/// One day.
pub const DAY: u64 = 86_400;
/// How far back the tools' history reaches before the window.
pub const HISTORY: u64 = 30 * DAY;
/// The window's length in hours when the knob is absent.
pub const DEFAULT_HOURS: u64 = 8;
/// The range the `-w` knob accepts.
pub const HOURS_KNOB: RangeInclusive<u64> = 1..=48;

/// A task's time frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Midnight of the task's day.
    pub t_base: u64,
    /// The window's start.
    pub w0: u64,
    /// The window's length in hours.
    pub hours: u64,
}

impl Clock {
    /// Draws the day and window start; `hours` is the `-w` knob.
    pub fn draw(s: &mut Stream, hours: Option<u64>) -> Result<Clock> {
        let hours = match hours {
            None => DEFAULT_HOURS,
            Some(h) if HOURS_KNOB.contains(&h) => h,
            Some(h) => return Err(Error::Invalid(format!("bgp: a {h}-hour window is outside 1..=48"))),
        };
        let t_base = EPOCH + DAY * s.below(365);
        let w0 = t_base + 8 * 3600 * s.below(3);
        Ok(Clock { t_base, w0, hours })
    }

    /// The window's end (the "now" of every live view).
    pub fn end(&self) -> u64 {
        self.w0 + 3600 * self.hours
    }

    /// The oldest time the tools show.
    pub fn history_start(&self) -> u64 {
        self.w0 - HISTORY
    }

    /// Clamps `t` into what the tools show, [history start, window end].
    pub fn clamp(&self, t: u64) -> u64 {
        t.clamp(self.history_start(), self.end())
    }

    /// Draws one first-seen time per baseline route, in 900..=31 days before the window.
    pub fn draw_first_seen(&self, s: &mut Stream, routes: usize) -> Vec<u64> {
        (0..routes).map(|_| s.range(self.w0 - 900 * DAY, self.w0 - 31 * DAY)).collect()
    }

    /// The RIB dump times inside [history start, window end]: every 8 hours at 00:00, 08:00 and
    /// 16:00.
    pub fn dump_times(&self) -> impl Iterator<Item = u64> + '_ {
        let first = self.history_start().div_ceil(8 * 3600) * 8 * 3600;
        (first..=self.end()).step_by(8 * 3600)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::Width;

    #[test]
    fn windows_start_on_dump_boundaries() {
        let mut s = Stream::new("netpress|bgp|v1|L1|s0|i0", Width::W32);
        for _ in 0..50 {
            let c = Clock::draw(&mut s, None).unwrap();
            assert_eq!((c.t_base - EPOCH) % DAY, 0);
            assert!(c.t_base < EPOCH + 365 * DAY);
            assert_eq!((c.w0 - c.t_base) % (8 * 3600), 0);
            assert!(c.w0 - c.t_base <= 16 * 3600);
            assert_eq!(c.end() - c.w0, 8 * 3600);
            for f in c.draw_first_seen(&mut s, 20) {
                assert!(f < c.history_start() && f >= c.w0 - 900 * DAY);
            }
        }
    }

    #[test]
    fn knob_and_dumps() {
        let mut s = Stream::new("x", Width::W32);
        assert!(Clock::draw(&mut s, Some(0)).is_err() && Clock::draw(&mut s, Some(49)).is_err());
        let c = Clock { t_base: EPOCH, w0: EPOCH + 8 * 3600, hours: 2 };
        assert_eq!(c.clamp(0), c.history_start());
        assert_eq!(c.clamp(u64::MAX), c.end());
        let dumps: Vec<u64> = c.dump_times().collect();
        assert_eq!(dumps.len(), 30 * 3 + 1);
        assert_eq!(dumps.last(), Some(&c.w0));
        assert!(dumps.iter().all(|t| t % (8 * 3600) == 0));
    }
}
