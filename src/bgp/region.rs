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
}
