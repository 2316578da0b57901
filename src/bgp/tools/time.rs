//! Times as the tools print and read them: ISO 8601 without a zone (RIPEstat's
//! `2025-06-01T16:00:00`), the `YYYYMMDD.HHMM` stamp of collector file names, and Unix seconds.

/// `2025-06-01T16:00:00` (UTC, no zone, as RIPEstat prints times).
pub fn iso(t: u64) -> String {
    let text = crate::k8s::meta::rfc3339(t as i64);
    text.trim_end_matches('Z').to_string()
}

/// `20250601.1600`, the stamp of a collector file name.
pub fn stamp(t: u64) -> String {
    let s = iso(t);
    format!("{}{}{}.{}{}", &s[0..4], &s[5..7], &s[8..10], &s[11..13], &s[14..16])
}

/// Reads Unix seconds or an ISO 8601 UTC time (`2025-06-01T16:00[:00][Z]`, a date alone).
pub fn parse(text: &str) -> Option<u64> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().ok();
    }
    let text = text.strip_suffix('Z').unwrap_or(text);
    let (date, clock) = text.split_once('T').unwrap_or((text, "00:00:00"));
    let num = |s: &str, len: usize| {
        (s.len() == len && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse::<u64>().ok()).flatten()
    };
    let mut d = date.split('-');
    let (y, m, day) = (num(d.next()?, 4)?, num(d.next()?, 2)?, num(d.next()?, 2)?);
    if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) || y < 1970 {
        return None;
    }
    let mut c = clock.split(':');
    let h = num(c.next()?, 2)?;
    let min = num(c.next()?, 2)?;
    let sec = match c.next() {
        Some(s) => num(s, 2)?,
        None => 0,
    };
    if c.next().is_some() || h > 23 || min > 59 || sec > 60 {
        return None;
    }
    Some(
        crate::k8s::meta::days_from_civil(y as i64, m as i64, day as i64) as u64 * 86_400
            + h * 3600
            + min * 60
            + sec,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip() {
        assert_eq!(iso(1_748_736_000), "2025-06-01T00:00:00");
        assert_eq!(stamp(1_748_793_600), "20250601.1600");
        for t in [0, 951_782_400, 1_748_736_000, 1_780_000_123] {
            assert_eq!(parse(&iso(t)), Some(t));
            assert_eq!(parse(&format!("{}Z", iso(t))), Some(t));
        }
        assert_eq!(parse("1748736000"), Some(1_748_736_000));
        assert_eq!(parse("2025-06-01"), Some(1_748_736_000));
        for bad in ["", "x", "2025-13-01", "2025-06-01T25:00", "2025-6-1", "-5", "2025-06-01T00:00:00:00"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
