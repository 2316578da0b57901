//! The six regions of the emulated Internet.
//!
//! Regions give the graph geography: transits peer with transits of their own region, stubs buy
//! transit at home, an exchange point gathers one region's ASes. Later stages use them for probe
//! countries and for the round-trip times of traceroutes.

/// A region, in the fixed order `na-e na-w eu-w eu-e ap sa`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Region {
    NaEast,
    NaWest,
    EuWest,
    EuEast,
    AsiaPacific,
    SouthAmerica,
}

impl Region {
    /// Every region in order; a draw `below(6)` indexes this.
    pub const ALL: [Region; 6] = [
        Region::NaEast,
        Region::NaWest,
        Region::EuWest,
        Region::EuEast,
        Region::AsiaPacific,
        Region::SouthAmerica,
    ];

    /// The region at position `i` of [`Region::ALL`], wrapping.
    pub fn nth(i: usize) -> Region {
        Region::ALL[i % Region::ALL.len()]
    }

    /// The short name shown to agents.
    pub fn name(self) -> &'static str {
        match self {
            Region::NaEast => "na-e",
            Region::NaWest => "na-w",
            Region::EuWest => "eu-w",
            Region::EuEast => "eu-e",
            Region::AsiaPacific => "ap",
            Region::SouthAmerica => "sa",
        }
    }

    /// The two country codes probes of this region carry.
    pub fn countries(self) -> [&'static str; 2] {
        match self {
            Region::NaEast => ["US", "CA"],
            Region::NaWest => ["US", "CA"],
            Region::EuWest => ["GB", "NL"],
            Region::EuEast => ["PL", "RO"],
            Region::AsiaPacific => ["JP", "SG"],
            Region::SouthAmerica => ["BR", "AR"],
        }
    }

    /// The continent-level area, for round-trip times.
    fn area(self) -> u8 {
        match self {
            Region::NaEast | Region::NaWest => 0,
            Region::EuWest | Region::EuEast => 1,
            Region::AsiaPacific => 2,
            Region::SouthAmerica => 3,
        }
    }

    /// The round-trip time of one link between an AS here and one in `other`, in
    /// milliseconds: 2 inside a region, 30 between the two halves of North America or of
    /// Europe, else a figure per pair of continents of the order real paths show.
    pub fn rtt_ms(self, other: Region) -> u32 {
        if self == other {
            return 2;
        }
        let (a, b) = (self.area().min(other.area()), self.area().max(other.area()));
        match (a, b) {
            (0, 0) | (1, 1) => 30,
            (0, 1) => 80,
            (0, 3) => 110,
            (0, 2) => 120,
            (1, 2) => 160,
            (1, 3) => 190,
            _ => 300, // Asia-Pacific to South America
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_nth_wraps() {
        let mut names: Vec<&str> = Region::ALL.iter().map(|r| r.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 6);
        assert_eq!(Region::nth(7), Region::NaWest);
    }

    #[test]
    fn link_rtts_are_symmetric_and_grow_with_distance() {
        for a in Region::ALL {
            assert_eq!(a.rtt_ms(a), 2);
            for b in Region::ALL {
                assert_eq!(a.rtt_ms(b), b.rtt_ms(a));
            }
        }
        assert_eq!(Region::NaEast.rtt_ms(Region::NaWest), 30);
        assert_eq!(Region::EuEast.rtt_ms(Region::EuWest), 30);
        assert_eq!(Region::NaWest.rtt_ms(Region::EuEast), 80);
        assert_eq!(Region::NaEast.rtt_ms(Region::SouthAmerica), 110);
        assert_eq!(Region::NaEast.rtt_ms(Region::AsiaPacific), 120);
        assert_eq!(Region::EuWest.rtt_ms(Region::AsiaPacific), 160);
        assert_eq!(Region::EuWest.rtt_ms(Region::SouthAmerica), 190);
        assert_eq!(Region::AsiaPacific.rtt_ms(Region::SouthAmerica), 300);
    }
}
