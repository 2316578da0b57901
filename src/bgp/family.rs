//! The incident families and benign controls a task can hold, and how a level draws one.
//!
//! Each family has a two-or-three-letter code (the task label `L2:RL3`, the `-f` knob) and the
//! `incident_type` string a verdict names it by. The four route-leak types are RFC 7908's:
//! type 1 hands routes learned from one provider to another provider (a "hairpin"), type 2 from
//! one peer to another, type 3 from a provider to a peer, type 4 from a peer to a provider.
//! Benign controls (an origin migration, anycast from a sibling, traffic-engineering
//! prepending) look alarming in the data and have `none` as their truth.
//!
//! **Draw.** A level offers the families introduced at or below it. First a benign-or-not draw
//! (`below(100)`, benign under the level's share, so that `none` is the right answer in 20% of
//! L1 tasks, 25% at L2 and L3, 30% at L4), then a uniform draw among the offered families of
//! that kind. With the `-f` knob only the listed families are offered; if they are all of one
//! kind the first draw still happens and is ignored, so the stream stays aligned.

use super::level::Level;

/// One incident family or benign control, in the fixed order the `-f` knob lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Eh,
    Sh,
    Fo,
    Rl1,
    Rl2,
    Rl3,
    Rl4,
    Ro,
    Ms,
    Ow,
    Lf,
    Rm,
    Bm,
    Ba,
    Bp,
}

impl Family {
    /// Every family in knob order.
    pub const ALL: [Family; 15] = [
        Family::Eh,
        Family::Sh,
        Family::Fo,
        Family::Rl1,
        Family::Rl2,
        Family::Rl3,
        Family::Rl4,
        Family::Ro,
        Family::Ms,
        Family::Ow,
        Family::Lf,
        Family::Rm,
        Family::Bm,
        Family::Ba,
        Family::Bp,
    ];

    /// The code in labels and the `-f` knob: `EH`, `RL3`.
    pub fn code(self) -> &'static str {
        match self {
            Family::Eh => "EH",
            Family::Sh => "SH",
            Family::Fo => "FO",
            Family::Rl1 => "RL1",
            Family::Rl2 => "RL2",
            Family::Rl3 => "RL3",
            Family::Rl4 => "RL4",
            Family::Ro => "RO",
            Family::Ms => "MS",
            Family::Ow => "OW",
            Family::Lf => "LF",
            Family::Rm => "RM",
            Family::Bm => "BM",
            Family::Ba => "BA",
            Family::Bp => "BP",
        }
    }

    /// The family with code `code` (exact, upper case).
    pub fn from_code(code: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.code() == code)
    }

    /// The verdict's `incident_type` for this family (`none` for benign controls).
    pub fn incident_type(self) -> &'static str {
        match self {
            Family::Eh => "exact_prefix_hijack",
            Family::Sh => "subprefix_hijack",
            Family::Fo => "forged_origin_hijack",
            Family::Rl1 => "route_leak_type1",
            Family::Rl2 => "route_leak_type2",
            Family::Rl3 => "route_leak_type3",
            Family::Rl4 => "route_leak_type4",
            Family::Ro => "reorigination",
            Family::Ms => "more_specific_leak",
            Family::Ow => "outage",
            Family::Lf => "link_failure",
            Family::Rm => "roa_misconfiguration",
            Family::Bm | Family::Ba | Family::Bp => "none",
        }
    }

    /// Whether the truth is "no incident".
    pub fn is_benign(self) -> bool {
        matches!(self, Family::Bm | Family::Ba | Family::Bp)
    }

    /// The first level that offers the family.
    pub fn first_level(self) -> Level {
        match self {
            Family::Eh | Family::Sh | Family::Rl1 | Family::Ow | Family::Bm => Level::L1,
            Family::Ro | Family::Ms => Level::L3,
            _ => Level::L2,
        }
    }

    /// Whether a route leak, and if so its RFC 7908 type.
    pub fn leak_type(self) -> Option<u8> {
        match self {
            Family::Rl1 => Some(1),
            Family::Rl2 => Some(2),
            Family::Rl3 => Some(3),
            Family::Rl4 => Some(4),
            _ => None,
        }
    }
}

/// The families a level offers, in knob order.
pub fn offered(level: Level) -> Vec<Family> {
    Family::ALL.into_iter().filter(|f| f.first_level() <= level).collect()
}

/// The percentage of tasks whose truth is `none` at `level`.
pub fn benign_pct(level: Level) -> u64 {
    match level {
        Level::L1 => 20,
        Level::L2 | Level::L3 => 25,
        Level::L4 => 30,
    }
}

/// Parses the `-f` knob: `+`-joined codes, each offered at `level`, listed in knob order
/// without repeats.
pub fn parse_knob(value: &str, level: Level) -> Result<Vec<Family>, String> {
    let mut out: Vec<Family> = Vec::new();
    for code in value.split('+') {
        let f = Family::from_code(code).ok_or_else(|| format!("unknown family {code:?}"))?;
        if f.first_level() > level {
            return Err(format!("{code} starts at L{}", f.first_level().number()));
        }
        if out.last().is_some_and(|&last| last >= f) {
            return Err(format!("families must be listed once each in the order {}", order()));
        }
        out.push(f);
    }
    Ok(out)
}

fn order() -> String {
    Family::ALL.map(Family::code).join("+")
}

/// Draws the target family among `offered` (see the module doc).
pub fn draw(s: &mut crate::seed::Stream, level: Level, offered: &[Family]) -> Family {
    let benign_first = s.below(100) < benign_pct(level);
    let (benign, harmful): (Vec<Family>, Vec<Family>) = offered.iter().partition(|f| f.is_benign());
    let pool = match (benign_first, benign.is_empty(), harmful.is_empty()) {
        (true, false, _) | (false, false, true) => benign,
        _ => harmful,
    };
    *s.choose(&pool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::{Stream, Width};

    #[test]
    fn codes_round_trip_and_levels_grow() {
        for f in Family::ALL {
            assert_eq!(Family::from_code(f.code()), Some(f));
        }
        assert_eq!(
            offered(Level::L1).iter().map(|f| f.code()).collect::<Vec<_>>(),
            ["EH", "SH", "RL1", "OW", "BM"]
        );
        assert_eq!(offered(Level::L2).len(), 13);
        assert_eq!(offered(Level::L4).len(), 15);
        assert_eq!(Family::Rl3.leak_type(), Some(3));
        assert!(Family::Ba.is_benign() && Family::Ba.incident_type() == "none");
    }

    #[test]
    fn the_knob_is_checked() {
        assert_eq!(parse_knob("EH+RL1", Level::L1), Ok(vec![Family::Eh, Family::Rl1]));
        assert!(parse_knob("RL1+EH", Level::L1).unwrap_err().contains("order"));
        assert!(parse_knob("EH+EH", Level::L2).is_err());
        assert!(parse_knob("RO", Level::L2).unwrap_err().contains("L3"));
        assert!(parse_knob("XX", Level::L4).unwrap_err().contains("unknown"));
        assert!(parse_knob("", Level::L4).is_err());
    }

    #[test]
    fn benign_share_follows_the_level() {
        for level in [Level::L1, Level::L4] {
            let mut s = Stream::new("family", Width::W32);
            let fams = offered(level);
            let benign = (0..4000).filter(|_| draw(&mut s, level, &fams).is_benign()).count();
            let pct = benign as f64 / 40.0;
            assert!((pct - benign_pct(level) as f64).abs() < 3.0, "{level:?}: {pct}%");
        }
        let mut s = Stream::new("family", Width::W32);
        assert!((0..50).all(|_| draw(&mut s, Level::L2, &[Family::Bp]) == Family::Bp));
        assert!((0..50).all(|_| draw(&mut s, Level::L2, &[Family::Lf]) == Family::Lf));
    }
}
