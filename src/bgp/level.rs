//! The four levels and the sizes each one draws from.
//!
//! A level fixes the scale of the emulated Internet: how many ASes, how many of each tier, how
//! many exchange points and how much of it speaks IPv6. Every count that is a range is drawn
//! uniformly (in the topology's draw order) unless a knob fixes it; the shares are exact
//! fractions of N, rounded to the nearest AS. The measurement side (collectors, vantage points,
//! Atlas probes) is sized here too and drawn after the topology.

use std::ops::RangeInclusive;

/// A difficulty level, 1 to 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    L1,
    L2,
    L3,
    L4,
}

/// The size table of one level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sizes {
    /// Number of ASes (the `-n` knob overrides it, within [`N_KNOB`]).
    pub ases: RangeInclusive<u64>,
    pub tier1: RangeInclusive<u64>,
    /// Transit ASes as a percentage of N.
    pub transit_pct: u64,
    pub content: RangeInclusive<u64>,
    pub ixps: RangeInclusive<u64>,
    /// Percentage of ASes that also announce IPv6 space.
    pub ipv6_pct: u64,
    /// Route collectors (the `-c` knob overrides it, within [`COLLECTOR_KNOB`]).
    pub collectors: RangeInclusive<u64>,
    /// Vantage points: ASes feeding a collector (the `-v` knob, within [`VP_KNOB`]).
    pub vps: RangeInclusive<u64>,
    /// Atlas-style probes.
    pub probes: RangeInclusive<u64>,
}

/// The range the `-c` knob accepts.
pub const COLLECTOR_KNOB: RangeInclusive<u64> = 1..=8;

/// The range the `-v` knob accepts.
pub const VP_KNOB: RangeInclusive<u64> = 2..=200;

/// The range the `-n` knob accepts at every level.
pub const N_KNOB: RangeInclusive<u64> = 10..=5000;

impl Level {
    /// The level for a number 1..=4.
    pub fn from_number(level: u8) -> Option<Level> {
        match level {
            1 => Some(Level::L1),
            2 => Some(Level::L2),
            3 => Some(Level::L3),
            4 => Some(Level::L4),
            _ => None,
        }
    }

    /// The level's number, 1..=4.
    pub fn number(self) -> u8 {
        self as u8 + 1
    }

    /// The level's size table.
    pub fn sizes(self) -> Sizes {
        match self {
            Level::L1 => Sizes {
                ases: 20..=50,
                tier1: 3..=3,
                transit_pct: 10,
                content: 1..=2,
                ixps: 0..=1,
                ipv6_pct: 0,
                collectors: 1..=1,
                vps: 4..=8,
                probes: 6..=10,
            },
            Level::L2 => Sizes {
                ases: 50..=150,
                tier1: 4..=4,
                transit_pct: 12,
                content: 2..=4,
                ixps: 1..=2,
                ipv6_pct: 30,
                collectors: 2..=2,
                vps: 8..=16,
                probes: 10..=20,
            },
            Level::L3 => Sizes {
                ases: 150..=600,
                tier1: 5..=5,
                transit_pct: 12,
                content: 4..=10,
                ixps: 2..=3,
                ipv6_pct: 50,
                collectors: 3..=3,
                vps: 16..=40,
                probes: 20..=40,
            },
            Level::L4 => Sizes {
                ases: 600..=3000,
                tier1: 6..=8,
                transit_pct: 10,
                content: 10..=30,
                ixps: 3..=6,
                ipv6_pct: 60,
                collectors: 4..=4,
                vps: 40..=80,
                probes: 40..=80,
            },
        }
    }

    /// Whether stubs take 32-bit private ASNs (L3 and L4) or 16-bit ones like everyone else.
    pub fn stubs_use_32bit_asns(self) -> bool {
        self >= Level::L3
    }

    /// Whether some organisations hold two ASNs (siblings): from L2 on.
    pub fn has_siblings(self) -> bool {
        self >= Level::L2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip() {
        for n in 1..=4 {
            assert_eq!(Level::from_number(n).unwrap().number(), n);
        }
        assert_eq!(Level::from_number(0), None);
        assert_eq!(Level::from_number(5), None);
    }

    #[test]
    fn ranges_are_ordered() {
        for n in 1..=4 {
            let s = Level::from_number(n).unwrap().sizes();
            assert!(s.ases.start() <= s.ases.end() && N_KNOB.contains(s.ases.start()));
            assert!(s.tier1.start() <= s.tier1.end() && s.content.start() <= s.content.end());
            assert!(*s.ixps.end() <= 6, "IXPs take distinct regions");
        }
    }
}
