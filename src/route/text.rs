//! Number formats of the C tools whose output the lab reproduces (`%g`, net-tools sizes,
//! iputils times), written once here.

/// C's `%.{precision}g`. Hand-written: Rust's formatter has no `%g`.
pub fn c_g(value: f64, precision: usize) -> String {
    if value == 0.0 || !value.is_finite() {
        return if value.is_nan() {
            "nan".into()
        } else if value.is_infinite() {
            "inf".into()
        } else {
            "0".into()
        };
    }
    let precision = precision.max(1);
    let sci = format!("{:.*e}", precision - 1, value);
    let (mantissa, exp) = sci.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("integer exponent");
    if exp < -4 || exp >= precision as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.abs());
    }
    let decimals = (precision as i32 - 1 - exp).max(0) as usize;
    strip_zeros(&format!("{value:.decimals$}")).to_string()
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { s }
}

/// net-tools' byte count in parentheses: `2.5 KiB`, `978.0 B` (one truncated decimal).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [(u64, &str); 5] =
        [(1 << 50, "PiB"), (1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    let (scale, unit) = UNITS.iter().copied().find(|(s, _)| bytes > *s).unwrap_or((1, "B"));
    let tenths = u128::from(bytes) * 10 / u128::from(scale);
    format!("{}.{} {unit}", tenths / 10, tenths % 10)
}

/// iputils' `time=` field from microseconds: 3, 2, 1 or 0 decimals, rounded as iputils does.
pub fn rtt_text(us: u64) -> String {
    if us >= 99_950 {
        format!("{}", (us + 500) / 1000)
    } else if us >= 9_995 {
        format!("{}.{}", (us + 50) / 1000, ((us + 50) % 1000) / 100)
    } else if us >= 1000 {
        format!("{}.{:02}", (us + 5) / 1000, ((us + 5) % 1000) / 10)
    } else {
        format!("{}.{:03}", us / 1000, us % 1000)
    }
}

/// Milliseconds with three decimals from microseconds (`rtt min/avg/max/mdev` fields).
pub fn ms3(us: u64) -> String {
    format!("{}.{:03}", us / 1000, us % 1000)
}

/// Cuts `text` to at most `max` bytes on a character boundary, noting how much went.
pub fn truncate_note(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[… {} characters truncated]", &text[..end], text[end..].chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_matches_c() {
        assert_eq!(c_g(33.333333333, 6), "33.3333");
        assert_eq!(c_g(50.0, 6), "50");
        assert_eq!(c_g(1.5, 3), "1.5");
        assert_eq!(c_g(4.567, 3), "4.57");
        assert_eq!(c_g(100.0, 3), "100");
        assert_eq!(c_g(1234.0, 3), "1.23e+03");
        assert_eq!(c_g(0.0001, 3), "0.0001");
        assert_eq!(c_g(0.00001, 3), "1e-05");
        assert_eq!(c_g(0.0, 6), "0");
        assert_eq!(c_g(66.66666666, 6), "66.6667");
    }

    #[test]
    fn sizes_like_net_tools() {
        assert_eq!(human_bytes(2646), "2.5 KiB");
        assert_eq!(human_bytes(978), "978.0 B");
        assert_eq!(human_bytes(0), "0.0 B");
        assert_eq!(human_bytes(1024), "1024.0 B");
        assert_eq!(human_bytes(5 << 20), "5.0 MiB");
    }

    #[test]
    fn rtt_decimals() {
        assert_eq!(rtt_text(60), "0.060");
        assert_eq!(rtt_text(1081), "1.08");
        assert_eq!(rtt_text(15_040), "15.0");
        assert_eq!(rtt_text(1_500_040), "1500");
        assert_eq!(ms3(1_500_040), "1500.040");
    }

    #[test]
    fn truncation_says_how_much() {
        assert_eq!(truncate_note("abcdef", 10), "abcdef");
        assert_eq!(truncate_note("abcdef", 4), "abcd\n[… 2 characters truncated]");
        assert_eq!(truncate_note("ééé", 3), "é\n[… 2 characters truncated]");
    }
}
