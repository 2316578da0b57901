//! The root netem qdisc, reduced to what a deterministic emulator can honour: a fixed delay,
//! and loss or corruption that drop every packet from 50% up and none below.

use crate::route::text::c_g;

/// A root netem qdisc. Percentages are kept in thousandths of a percent so the state stays
/// hashable and exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Netem {
    /// The handle's major number, shown as `8001:`.
    pub handle: u32,
    pub delay_us: u64,
    pub loss_milli: u32,
    pub corrupt_milli: u32,
}

impl Netem {
    /// Whether the qdisc drops every packet (our deterministic reading of loss/corrupt).
    pub fn drops(&self) -> bool {
        self.loss_milli >= 50_000 || self.corrupt_milli >= 50_000
    }

    /// The options as `tc qdisc show` prints them (iproute2 `q_netem.c`).
    pub fn options(&self) -> String {
        let mut s = "limit 1000".to_string();
        if self.delay_us > 0 {
            s.push_str(&format!(" delay {}", time_text(self.delay_us)));
        }
        if self.loss_milli > 0 {
            s.push_str(&format!(" loss {}%", c_g(f64::from(self.loss_milli) / 1000.0, 6)));
        }
        if self.corrupt_milli > 0 {
            s.push_str(&format!(" corrupt {}%", c_g(f64::from(self.corrupt_milli) / 1000.0, 6)));
        }
        s
    }
}

/// iproute2 `sprint_time64`: `%.3g` in s, ms or us.
pub fn time_text(us: u64) -> String {
    let x = us as f64;
    if us >= 1_000_000 {
        format!("{}s", c_g(x / 1e6, 3))
    } else if us >= 1000 {
        format!("{}ms", c_g(x / 1e3, 3))
    } else {
        format!("{}us", c_g(x, 3))
    }
}

/// A tc time: a number with `s`, `ms`/`msec`, `us`/`usec` or no unit (microseconds).
pub fn parse_time_us(text: &str) -> Option<u64> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (num, unit) = text.split_at(split);
    let value: f64 = num.parse().ok()?;
    let scale = match unit {
        "" | "us" | "usec" | "usecs" => 1.0,
        "ms" | "msec" | "msecs" => 1e3,
        "s" | "sec" | "secs" => 1e6,
        _ => return None,
    };
    let us = value * scale;
    (us.is_finite() && (0.0..=4e12).contains(&us)).then_some(us.round() as u64)
}

/// A tc percentage `P%` in thousandths of a percent.
pub fn parse_percent_milli(text: &str) -> Option<u32> {
    let value: f64 = text.strip_suffix('%')?.parse().ok()?;
    (value.is_finite() && (0.0..=100.0).contains(&value)).then_some((value * 1000.0).round() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_like_tc() {
        assert_eq!(time_text(1_500_000), "1.5s");
        assert_eq!(time_text(1_000_000), "1s");
        assert_eq!(time_text(4_567_000), "4.57s");
        assert_eq!(time_text(100_000), "100ms");
        assert_eq!(time_text(250), "250us");
    }

    #[test]
    fn parses_units_and_percentages() {
        assert_eq!(parse_time_us("1500ms"), Some(1_500_000));
        assert_eq!(parse_time_us("2s"), Some(2_000_000));
        assert_eq!(parse_time_us("10"), Some(10));
        assert_eq!(parse_time_us("1m"), None);
        assert_eq!(parse_percent_milli("50%"), Some(50_000));
        assert_eq!(parse_percent_milli("0.5%"), Some(500));
        assert_eq!(parse_percent_milli("150%"), None);
    }

    #[test]
    fn options_text() {
        let q = Netem { handle: 0x8001, delay_us: 1_500_000, loss_milli: 50_000, corrupt_milli: 0 };
        assert_eq!(q.options(), "limit 1000 delay 1.5s loss 50%");
        assert!(q.drops());
    }
}
