//! RFC 3339 UTC timestamps with milliseconds, both ways (GCP's start and end times).
//!
//! Hand-written: two small conversions over Howard Hinnant's civil-date algorithms (in
//! `k8s::meta`, shared with the K8s timestamps and the BGP tools), cheaper
//! than a date crate in the wasm bundle.

/// `2025-01-06T00:00:01.234Z` for Unix milliseconds.
pub fn format_ms(ms: u64) -> String {
    let secs = crate::k8s::meta::rfc3339((ms / 1000) as i64);
    format!("{}.{:03}Z", secs.trim_end_matches('Z'), ms % 1000)
}

/// Unix milliseconds of `YYYY-MM-DDTHH:MM:SS[.fff…]Z` (fractions beyond ms are truncated).
pub fn parse_ms(s: &str) -> Result<u64, String> {
    let bad = || format!("bad RFC 3339 UTC time {s:?}");
    let b = s.as_bytes();
    if b.len() < 20
        || !s.is_ascii()
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return Err(bad());
    }
    let n = |r: std::ops::Range<usize>| s[r].parse::<i64>().map_err(|_| bad());
    let (y, mo, d, h, mi, se) = (n(0..4)?, n(5..7)?, n(8..10)?, n(11..13)?, n(14..16)?, n(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return Err(bad());
    }
    let rest = s[19..].strip_suffix('Z').ok_or_else(bad)?;
    let frac = match rest.strip_prefix('.') {
        Some(f) if !f.is_empty() && f.bytes().all(|c| c.is_ascii_digit()) => {
            let ms: String = f.chars().chain("00".chars()).take(3).collect();
            ms.parse::<u64>().map_err(|_| bad())?
        }
        None if rest.is_empty() => 0,
        _ => return Err(bad()),
    };
    let secs = crate::k8s::meta::days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se;
    u64::try_from(secs).map(|s| s * 1000 + frac).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ways() {
        assert_eq!(format_ms(1_736_121_601_234), "2025-01-06T00:00:01.234Z");
        assert_eq!(parse_ms("2025-01-06T00:00:01.234Z"), Ok(1_736_121_601_234));
        assert_eq!(parse_ms("2025-01-06T00:00:01.2345678Z"), Ok(1_736_121_601_234));
        assert_eq!(parse_ms("2025-01-06T00:00:01Z"), Ok(1_736_121_601_000));
        assert_eq!(parse_ms("2024-02-29T23:59:59.5Z"), Ok(1_709_251_199_500));
        for bad in [
            "",
            "2025-01-06 00:00:01Z",
            "2025-13-06T00:00:01Z",
            "2025-01-06T00:00:01.Z",
            "1969-12-31T23:59:59Z",
        ] {
            assert!(parse_ms(bad).is_err(), "{bad}");
        }
    }
}
